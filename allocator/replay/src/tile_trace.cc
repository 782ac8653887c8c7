#include "elastic/replay/tile_trace.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "elastic/traces/input_options.h"

namespace elastic::replay {

absl::StatusOr<traces::HoleTrace> tile_trace(const traces::HoleTrace& base, double span_s) {
  const double period = base.end - base.start;
  if (!(period > 0) || !(span_s > 0) || !std::isfinite(span_s)) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot tile a trace of ", period, " s to ", span_s, " s"));
  }
  // Checked before the copies are allocated (and before the count is cast to int).
  const double wanted = std::ceil(span_s / period);
  const double holes =
      wanted * static_cast<double>(std::max<std::size_t>(base.intervals.size(), 1));
  if (!(holes <= static_cast<double>(traces::kMaxTraceIntervals))) {
    return absl::InvalidArgumentError(absl::StrCat(
        wanted, " copies of a trace of ", period, " s with ", base.intervals.size(),
        " holes would be more than the limit of ", traces::kMaxTraceIntervals, " holes"));
  }
  const int copies = static_cast<int>(wanted);
  traces::HoleTrace out;
  out.node_names = base.node_names;
  out.stats = base.stats;
  out.start = base.start;
  out.end = base.start + copies * period;
  out.intervals.reserve(base.intervals.size() * copies);
  for (int k = 0; k < copies; ++k) {
    const double shift = k * period;
    for (traces::IdleInterval iv : base.intervals) {
      iv.start += shift;
      iv.end += shift;
      iv.censored = iv.censored && k == copies - 1;
      out.intervals.push_back(iv);
    }
  }
  if (absl::Status s = normalise(out); !s.ok()) return s;
  if (absl::Status s = clip_to_window(out, out.start, out.start + span_s); !s.ok()) return s;
  return out;
}

}  // namespace elastic::replay
