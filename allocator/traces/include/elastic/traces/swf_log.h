// Batch-scheduler job logs in the Standard Workload Format 2.2 (Parallel Workloads Archive): one
// job per line, 18 fields, -1 = unknown, header lines starting with ';' (MaxNodes, MaxProcs,
// UnixStartTime). Only what the hole extraction needs is kept.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "elastic/traces/hole_trace.h"
#include "elastic/traces/input_options.h"

namespace elastic::traces {

struct SwfJob {
  std::int64_t id = 0;
  double submit = 0.0;           // Unix seconds: UnixStartTime + field 2
  double wait = -1.0;            // field 3; < 0 unknown
  double run = -1.0;             // field 4; < 0 unknown
  int nodes = -1;                // field 5 (allocated), else field 8 (requested); < 0 unknown
  double requested_time = -1.0;  // field 9; < 0 unknown
};

struct SwfLog {
  int max_nodes = 0;         // header MaxNodes (else MaxProcs); 0 when absent
  double unix_start = 0.0;   // header UnixStartTime
  std::vector<SwfJob> jobs;  // in file order
  InputStats stats;
};

absl::StatusOr<SwfLog> parse_swf(absl::string_view file, const std::vector<std::string>& lines,
                                 const ReadOptions& options);

absl::StatusOr<SwfLog> load_swf(const std::string& path, const ReadOptions& options);

}  // namespace elastic::traces
