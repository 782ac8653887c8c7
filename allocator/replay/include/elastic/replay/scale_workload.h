// Workloads that fill a large machine (`elastic-replay --scale-workload`): the BFTrainer job lists
// admit 10 jobs of at most 64 nodes and are done within days, which leaves most of a 4,000-node
// machine's holes idle, so every policy gives the same result. Scaling runs K copies of the
// job list side by side (with K times --max-running) and repeats each back to back in time until
// the trace ends.
#pragma once

#include <cstddef>
#include <vector>

#include "absl/status/statusor.h"
#include "elastic/traces/hole_trace.h"
#include "elastic/traces/workload_csv.h"

namespace elastic::replay {

// At most this many side-by-side copies (also the most copies_to_fill returns), and jobs in all.
inline constexpr int kMaxWorkloadCopies = 10'000;
inline constexpr std::size_t kMaxScaledJobs = 5'000'000;

// `copies` (>= 1) copies of the job list side by side, each repeated in time: repetition r >= 1 is
// shifted by r x (the list's submission span + its mean gap between submissions) while it starts
// within `span_s` seconds of the first submission. Copy k >= 2 of job J is "J#k", repetition r
// "J@r" (both: "J#k@r"); the original list comes first, unchanged. InvalidArgument when the result
// would exceed kMaxScaledJobs.
absl::StatusOr<std::vector<traces::WorkloadJob>> scale_workload(
    const std::vector<traces::WorkloadJob>& workload, int copies, double span_s);

// The fewest copies (>= 1) for which `max_running` jobs per copy at the workload's mean Jmax ask
// for at least the trace's mean idle pool: the ideal demand then exceeds the holes on average.
int copies_to_fill(const traces::HoleTrace& trace, const std::vector<traces::WorkloadJob>& workload,
                   int max_running);

}  // namespace elastic::replay
