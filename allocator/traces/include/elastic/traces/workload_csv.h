// DNN training workloads in the BFTrainer CSV format (../shared/data/workloads/README.md):
// job,Tcup,Tcdw,Jmin,Jmax,Pmax,Tsub,Ns,Ps,Os — plain or gzip-compressed.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "elastic/allocator/piecewise_linear.h"

namespace elastic::traces {

struct WorkloadJob {
  std::string id;
  double grow_stall_s = 0.0;       // Tcup
  double shrink_stall_s = 0.0;     // Tcdw
  int min_nodes = 1;               // Jmin
  int max_nodes = 1;               // Jmax
  double target_samples = 0.0;     // Pmax
  double submit_unix = 0.0;        // Tsub ("YYYY-MM-DD HH:MM:SS", UTC)
  alloc::PiecewiseLinear scaling;  // Ns -> Ps
  alloc::PiecewiseLinear value;    // Ns -> Os
};

// Errors name the file, line and column ("jobs.csv:12: column Ps: ...").
absl::StatusOr<std::vector<WorkloadJob>> load_workload_csv(const std::string& path);

}  // namespace elastic::traces
