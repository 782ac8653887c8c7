// How the trace and log readers treat bad lines, and the replay's input limits (with those of
// elastic/allocator/input_limits.h: nodes, line length). Shared by interval_csv.h and swf_log.h.
#pragma once

#include <cstddef>

namespace elastic::traces {

// Idle intervals in a trace made by tile_trace (32 bytes each): the 2-day Summit slice tiled to
// 15 days has about 240,000.
inline constexpr std::size_t kMaxTraceIntervals = 10'000'000;

struct ReadOptions {
  bool lenient = false;  // skip malformed lines (counted) instead of failing on the first one
};

}  // namespace elastic::traces
