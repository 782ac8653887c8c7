#include "elastic/replay/tile_trace.h"

#include <cmath>

#include "absl/strings/str_cat.h"

namespace elastic::replay {

absl::StatusOr<HoleTrace> tile_trace(const HoleTrace& base, double span_s) {
  const double period = base.end - base.start;
  if (!(period > 0) || !(span_s > 0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("tile: cannot tile a trace of ", period, " s to ", span_s, " s"));
  }
  const int copies = static_cast<int>(std::ceil(span_s / period));
  HoleTrace out;
  out.node_names = base.node_names;
  out.stats = base.stats;
  out.start = base.start;
  out.end = base.start + copies * period;
  out.intervals.reserve(base.intervals.size() * copies);
  for (int k = 0; k < copies; ++k) {
    const double shift = k * period;
    for (IdleInterval iv : base.intervals) {
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
