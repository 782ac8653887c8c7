// A longer synthetic trace made by repeating a real one back to back (for the speed benchmark:
// the 2-day Summit slice tiled to 15 days has about as many events as the full 15-day trace).
#pragma once

#include "absl/status/statusor.h"
#include "elastic/traces/hole_trace.h"

namespace elastic::replay {

// Copies of `base` shifted by multiples of its span until `span_s` seconds are covered, then cut
// there. Holes that touch across a seam become one. InvalidArgument when base spans no time or
// the copies would hold more than kMaxTraceIntervals holes (input_options.h).
absl::StatusOr<traces::HoleTrace> tile_trace(const traces::HoleTrace& base, double span_s);

}  // namespace elastic::replay
