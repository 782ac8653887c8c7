// The Kaplan-Meier survival of idle holes at one instant: the holes that ended so far
// (HoleLifetime, deaths) and the holes open now, censored at their current age. The estimator over
// ended holes alone (HoleLifetime::expected_residual) only sees the long holes once they end, so
// early on it takes every hole for a short one; counting the open ones as "lasted at least this
// long" removes that bias and still reads nothing of the future. LOCAL, immutable once built.
//
// Survival is computed per HoleLifetime bin (deaths and at-risk counts per bin, the usual
// convention: a hole censored in a bin is at risk for that bin's deaths) and taken as linear
// within a bin, so queries are O(1) after an O(bins + open holes) build. Beyond the last death the
// curve stays where it is: a hole older than any seen is taken to last.
#pragma once

#include <array>
#include <span>

#include "elastic/allocator/hole_lifetime.h"

namespace elastic::alloc {

// The bound to which elastic-replay and elasticd count a node's expected remaining idle time (s):
// beyond the longest hole seen the curve stays flat, so the mean needs one. A day.
inline constexpr double kResidualCapS = 86400.0;

class HoleSurvival {
 public:
  // `open_ages_s`: the ages of the holes open now (negative or non-finite ones are ignored).
  HoleSurvival(const HoleLifetime& ended, std::span<const double> open_ages_s);

  // P(L > length_s): the probability that a hole lasts longer than `length_s`.
  double survival(double length_s) const;

  // E[min(L - a, horizon_s) | L > a] for a hole of age a = `age_s`: its expected remaining idle
  // time, counted up to `horizon_s`. `horizon_s` when no hole of that age ever ended.
  double expected_residual(double age_s, double horizon_s) const;

 private:
  static constexpr int kBins = HoleLifetime::kBins;
  // ∫_0^x S(u) du.
  double integral(double x) const;

  std::array<double, kBins + 1> at_edge_{};     // S at bin_start(b); at_edge_[kBins] past the end
  std::array<double, kBins + 1> area_below_{};  // ∫_0^{bin_start(b)} S(u) du
};

}  // namespace elastic::alloc
