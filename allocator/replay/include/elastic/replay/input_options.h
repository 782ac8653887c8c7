// How the trace and log readers treat bad lines, and the replay's input limits (with those of
// elastic/allocator/input_limits.h: nodes, line length). Shared by interval_csv.h and swf_log.h.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace elastic::replay {

// Idle intervals in a trace made by tile_trace (32 bytes each): the 2-day Summit slice tiled to
// 15 days has about 240,000.
inline constexpr std::size_t kMaxTraceIntervals = 10'000'000;

struct ReadOptions {
  bool lenient = false;  // skip malformed lines (counted) instead of failing on the first one
};

// All lines of a plain or gzip-compressed text file, without line terminators.
absl::StatusOr<std::vector<std::string>> read_lines(const std::string& path);

}  // namespace elastic::replay
