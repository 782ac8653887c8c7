// How the trace and log readers treat bad lines. Shared by interval_csv.h and swf_log.h.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace elastic::replay {

struct ReadOptions {
  bool lenient = false;  // skip malformed lines (counted) instead of failing on the first one
};

// All lines of a plain or gzip-compressed text file, without line terminators.
absl::StatusOr<std::vector<std::string>> read_lines(const std::string& path);

}  // namespace elastic::replay
