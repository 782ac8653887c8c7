// Fuzz target: per-node idle-interval CSVs (parse_interval_csv, strict and lenient). A trace that
// parses is normalised: per node sorted, disjoint and not touching, each interval inside the span.
#include "elastic/traces/interval_csv.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace elastic;
  const std::vector<std::string> lines = fuzz::as_lines(fuzz::as_text(data, size));
  const bool lenient = size > 0 && (data[0] & 1) != 0;
  const absl::StatusOr<traces::HoleTrace> trace =
      traces::parse_interval_csv("fuzz.csv", lines, traces::ReadOptions{.lenient = lenient});
  if (!trace.ok()) return 0;
  const std::vector<traces::IdleInterval>& in = trace->intervals;
  for (std::size_t i = 0; i < in.size(); ++i) {
    FUZZ_CHECK(in[i].node >= 0 && static_cast<std::size_t>(in[i].node) < trace->node_names.size());
    FUZZ_CHECK(in[i].start < in[i].end);
    FUZZ_CHECK(trace->start <= in[i].start && in[i].end <= trace->end);
    if (i > 0 && in[i - 1].node == in[i].node) FUZZ_CHECK(in[i - 1].end < in[i].start);
  }
  return 0;
}
