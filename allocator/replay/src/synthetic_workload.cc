#include "elastic/replay/synthetic_workload.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "elastic/replay/scale_workload.h"
#include "seeded_random.h"

namespace elastic::replay {

absl::StatusOr<std::vector<traces::WorkloadJob>> synthetic_workload(
    const std::vector<traces::WorkloadJob>& templates, int jobs, double start_unix, double span_s,
    std::uint64_t seed) {
  if (templates.empty() || jobs < 1 || static_cast<std::size_t>(jobs) > kMaxScaledJobs ||
      !(span_s > 0) || !std::isfinite(span_s + start_unix)) {
    return absl::InvalidArgumentError(absl::StrCat("synthetic workload: ", jobs, " jobs from ",
                                                   templates.size(), " templates over ", span_s,
                                                   " s are out of range"));
  }
  SeededRandom random(seed);
  std::vector<double> submit(static_cast<std::size_t>(jobs));
  for (double& s : submit) s = start_unix + random.uniform() * span_s;
  std::sort(submit.begin(), submit.end());
  std::vector<traces::WorkloadJob> out;
  out.reserve(submit.size());
  for (std::size_t i = 0; i < submit.size(); ++i) {
    traces::WorkloadJob& job = out.emplace_back(templates[i % templates.size()]);
    absl::StrAppend(&job.id, "~", i);
    job.submit_unix = submit[i];
  }
  return out;
}

}  // namespace elastic::replay
