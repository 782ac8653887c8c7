// Per-node idle intervals as published with the BFTrainer replay data:
//   node,idle_start_unix,idle_end_unix,duration_s,censored
// (censored=1: the interval was cut at the end of the slice). Node names are kept.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "elastic/traces/hole_trace.h"
#include "elastic/traces/input_options.h"

namespace elastic::traces {

// `file` names the input in errors ("f.csv:12: column idle_end_unix: ..."). The header must name
// node, idle_start_unix and idle_end_unix; duration_s and censored are optional; other columns are
// an error. The trace spans [earliest start, latest end].
absl::StatusOr<HoleTrace> parse_interval_csv(absl::string_view file,
                                             const std::vector<std::string>& lines,
                                             const ReadOptions& options);

absl::StatusOr<HoleTrace> load_interval_csv(const std::string& path, const ReadOptions& options);

}  // namespace elastic::traces
