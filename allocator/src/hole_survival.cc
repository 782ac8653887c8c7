#include "elastic/allocator/hole_survival.h"

#include <algorithm>
#include <cmath>

namespace elastic::alloc {

HoleSurvival::HoleSurvival(const HoleLifetime& ended, std::span<const double> open_ages_s) {
  std::array<double, kBins> censored{};
  for (double age : open_ages_s) {
    if (!std::isfinite(age) || age < 0) continue;
    censored[static_cast<std::size_t>(HoleLifetime::bin(age))] += 1;
  }
  // At risk in bin b: every hole, ended or open, whose length (or age) falls in bin b or later.
  std::array<double, kBins + 1> at_risk{};
  for (int b = kBins - 1; b >= 0; --b) {
    const auto i = static_cast<std::size_t>(b);
    at_risk[i] = at_risk[i + 1] + ended.ended(b) + censored[i];
  }
  at_edge_[0] = 1.0;
  area_below_[0] = 0.0;
  for (int b = 0; b < kBins; ++b) {
    const auto i = static_cast<std::size_t>(b);
    const double deaths = ended.ended(b);
    at_edge_[i + 1] = at_risk[i] > 0 ? at_edge_[i] * (1.0 - deaths / at_risk[i]) : at_edge_[i];
    const double width = HoleLifetime::bin_start(b + 1) - HoleLifetime::bin_start(b);
    area_below_[i + 1] = area_below_[i] + 0.5 * (at_edge_[i] + at_edge_[i + 1]) * width;
  }
}

double HoleSurvival::survival(double length_s) const {
  if (!(length_s > 0)) return 1.0;
  const double last = HoleLifetime::bin_start(kBins);
  if (length_s >= last) return at_edge_[kBins];
  const int b = HoleLifetime::bin(length_s);
  const auto i = static_cast<std::size_t>(b);
  const double lo = HoleLifetime::bin_start(b), hi = HoleLifetime::bin_start(b + 1);
  const double f = std::clamp((length_s - lo) / (hi - lo), 0.0, 1.0);
  return at_edge_[i] + (at_edge_[i + 1] - at_edge_[i]) * f;
}

double HoleSurvival::integral(double x) const {
  if (!(x > 0)) return 0.0;
  const double last = HoleLifetime::bin_start(kBins);
  if (x >= last) return area_below_[kBins] + (x - last) * at_edge_[kBins];
  const int b = HoleLifetime::bin(x);
  const auto i = static_cast<std::size_t>(b);
  const double lo = HoleLifetime::bin_start(b);
  return area_below_[i] + 0.5 * (at_edge_[i] + survival(x)) * (x - lo);
}

double HoleSurvival::expected_residual(double age_s, double horizon_s) const {
  const double age = std::isfinite(age_s) && age_s > 0 ? age_s : 0.0;
  if (!(horizon_s > 0)) return 0.0;
  const double alive = survival(age);
  // Every hole of this age ended: nothing says how long this one lasts, so take the horizon.
  if (!(alive > 0)) return horizon_s;
  const double end = std::isfinite(horizon_s) ? age + horizon_s : HoleLifetime::bin_start(kBins);
  return std::min(horizon_s, (integral(end) - integral(age)) / alive);
}

}  // namespace elastic::alloc
