// Fuzz target: `elastic feed trace` on a node-state trace: the interval CSV (lenient) planned into
// the hostfile sequence (plan_trace_feed) for 1..4 nodes. A plan's steps go forward in time, each
// a hostfile that parses with at most K hosts.
#include "elastic/control/feed_trace.h"
#include "elastic/traces/interval_csv.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace elastic;
  const std::vector<std::string> lines = fuzz::as_lines(fuzz::as_text(data, size));
  const absl::StatusOr<traces::HoleTrace> trace =
      traces::parse_interval_csv("fuzz.csv", lines, traces::ReadOptions{.lenient = true});
  if (!trace.ok()) return 0;
  rt::TraceFeedOptions options;
  options.nodes = 1 + static_cast<int>(size % 4);
  const int nodes = options.nodes;
  const absl::StatusOr<rt::TraceFeedPlan> plan = rt::plan_trace_feed(*trace, options);
  if (!plan.ok()) return 0;
  FUZZ_CHECK(!plan->steps.empty());
  for (std::size_t i = 0; i < plan->steps.size(); ++i) {
    const rt::TraceStep& step = plan->steps[i];
    if (i > 0) FUZZ_CHECK(plan->steps[i - 1].offset_s < step.offset_s);
    FUZZ_CHECK(step.hosts.size() <= static_cast<std::size_t>(nodes));
    FUZZ_CHECK(rt::parse_hostfile(rt::format_hostfile(step.hosts), "step").ok());
  }
  return 0;
}
