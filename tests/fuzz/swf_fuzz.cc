// Fuzz target: SWF job logs (parse_swf, strict and lenient) and the idle holes the replay takes
// from a log that parses (holes_from_swf, recorded and EASY schedules).
#include "elastic/replay/swf_holes.h"
#include "elastic/traces/swf_log.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace elastic;
  const std::vector<std::string> lines = fuzz::as_lines(fuzz::as_text(data, size));
  const bool lenient = size > 0 && (data[0] & 1) != 0;
  const absl::StatusOr<traces::SwfLog> log =
      traces::parse_swf("fuzz.swf", lines, traces::ReadOptions{.lenient = lenient});
  if (!log.ok()) return 0;
  for (const replay::SwfSchedule schedule :
       {replay::SwfSchedule::kAuto, replay::SwfSchedule::kEasy}) {
    replay::SwfHoleOptions options;
    options.schedule = schedule;
    const absl::StatusOr<traces::HoleTrace> holes = replay::holes_from_swf(*log, options);
    if (holes.ok()) FUZZ_CHECK(holes->start <= holes->end);
  }
  return 0;
}
