// Fuzz target: the decision log (events.jsonl) as `elastic timeline` reads it (read_timeline). A
// log that reads gives steps whose jobs are named, each holding at least one node, and a CSV with
// a header and one row per step.
#include <algorithm>
#include <string>

#include "elastic/control/timeline.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace elastic;
  const fuzz::MemFile file(fuzz::as_text(data, size));
  const absl::StatusOr<rt::Timeline> timeline = rt::read_timeline(file.path());
  if (!timeline.ok()) return 0;
  FUZZ_CHECK(timeline->steps.size() <= timeline->events);
  FUZZ_CHECK(timeline->events == 0 || timeline->start <= timeline->end);
  for (const rt::TimelineStep& step : timeline->steps) {
    FUZZ_CHECK(step.granted >= 0);
    for (auto [job, nodes] : step.counts) {
      FUZZ_CHECK(job >= 0 && static_cast<std::size_t>(job) < timeline->jobs.size());
      FUZZ_CHECK(nodes > 0);
    }
  }
  const std::string csv = rt::timeline_csv(*timeline);
  FUZZ_CHECK(static_cast<std::size_t>(std::count(csv.begin(), csv.end(), '\n')) ==
             timeline->steps.size() + 1);
  return 0;
}
