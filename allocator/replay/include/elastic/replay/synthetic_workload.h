// A long workload made from a job list (the replay's scale benchmark: 10,000 jobs over 30 days
// from the BFTrainer tables). Unlike scale_workload.h, which repeats the list's own arrival rhythm,
// this spreads a given number of jobs over a given span. Deterministic by seed.
#pragma once

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "elastic/traces/workload_csv.h"

namespace elastic::replay {

// `jobs` jobs: job i is a copy of templates[i % templates.size()] with the id "<id>~<i>",
// submitted at start_unix + the i-th smallest of `jobs` uniform draws in [0, span_s) (a Poisson
// process conditioned on its count). InvalidArgument for no templates, jobs outside
// [1, kMaxScaledJobs] (scale_workload.h) or a span that is not finite and > 0.
absl::StatusOr<std::vector<traces::WorkloadJob>> synthetic_workload(
    const std::vector<traces::WorkloadJob>& templates, int jobs, double start_unix, double span_s,
    std::uint64_t seed);

}  // namespace elastic::replay
