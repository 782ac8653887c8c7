#include "elastic/replay/scale_workload.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"

namespace elastic::replay {

absl::StatusOr<std::vector<traces::WorkloadJob>> scale_workload(
    const std::vector<traces::WorkloadJob>& workload, int copies, double span_s) {
  copies = std::max(1, copies);
  if (workload.empty()) return workload;
  const auto [first, last] = std::minmax_element(
      workload.begin(), workload.end(),
      [](const auto& a, const auto& b) { return a.submit_unix < b.submit_unix; });
  const double submit_span = last->submit_unix - first->submit_unix;
  // Span plus the mean gap: repetitions continue the arrival rhythm (at least 1 s apart).
  const double period = std::max(
      1.0, submit_span + submit_span / std::max(1.0, static_cast<double>(workload.size()) - 1));
  const double repeats = std::max(1.0, std::ceil(std::max(0.0, span_s) / period));
  const double total = repeats * copies * static_cast<double>(workload.size());
  if (total > static_cast<double>(kMaxScaledJobs)) {
    return absl::InvalidArgumentError(
        absl::StrCat(copies, " copies x ", repeats, " repetitions of ", workload.size(),
                     " jobs exceed ", kMaxScaledJobs, " jobs (a shorter --end helps)"));
  }
  std::vector<traces::WorkloadJob> out;
  out.reserve(static_cast<std::size_t>(total));
  for (int r = 0; r < static_cast<int>(repeats); ++r) {
    for (int k = 1; k <= copies; ++k) {
      for (const traces::WorkloadJob& job : workload) {
        const double shift = r * period;
        if (job.submit_unix + shift - first->submit_unix >= std::max(span_s, 0.0) && r > 0) {
          continue;
        }
        traces::WorkloadJob& copy = out.emplace_back(job);
        copy.submit_unix += shift;
        if (k > 1) absl::StrAppend(&copy.id, "#", k);
        if (r > 0) absl::StrAppend(&copy.id, "@", r);
      }
    }
  }
  return out;
}

int copies_to_fill(const traces::HoleTrace& trace, const std::vector<traces::WorkloadJob>& workload,
                   int max_running) {
  const double span = trace.end - trace.start;
  if (workload.empty() || !(span > 0) || max_running < 1) return 1;
  double jmax = 0;
  for (const traces::WorkloadJob& job : workload) jmax += job.max_nodes;
  jmax /= static_cast<double>(workload.size());
  const double per_copy = max_running * jmax;
  if (!(per_copy > 0)) return 1;
  const double mean_idle = hole_node_seconds(trace) / span;
  return static_cast<int>(
      std::clamp(std::ceil(mean_idle / per_copy), 1.0, static_cast<double>(kMaxWorkloadCopies)));
}

}  // namespace elastic::replay
