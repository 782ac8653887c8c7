#include "elastic/replay/synthetic_trace.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "elastic/allocator/input_limits.h"
#include "elastic/traces/input_options.h"
#include "seeded_random.h"

namespace elastic::replay {
namespace {

// The standard normal's 90th percentile.
constexpr double kZ90 = 1.2815515655446004;

double normal_cdf(double x) { return 0.5 * std::erfc(-x / std::numbers::sqrt2); }

// Log-normal below the median with one spread and above it with another, so that p10, the median
// and p90 are met exactly.
struct HoleLength {
  double log_median = 0.0;
  double sigma_below = 0.0;
  double sigma_above = 0.0;

  double draw(SeededRandom& random) const {
    const double z = random.normal();
    return std::exp(log_median + z * (z < 0 ? sigma_below : sigma_above));
  }
  // E[exp(mu + sigma z); z < 0] + E[exp(mu + sigma' z); z >= 0].
  double mean() const {
    return std::exp(log_median) *
           (std::exp(sigma_below * sigma_below / 2) * normal_cdf(-sigma_below) +
            std::exp(sigma_above * sigma_above / 2) * normal_cdf(sigma_above));
  }
};

}  // namespace

absl::StatusOr<traces::HoleTrace> synthetic_trace(const SyntheticTraceOptions& o) {
  const double steps = o.days * 86400.0 / o.grid_s;
  if (o.nodes < 1 || o.nodes > alloc::kMaxNodes || !(o.grid_s > 0) || !(steps >= 1) ||
      steps != std::floor(steps) || !(o.idle_fraction > 0 && o.idle_fraction < 1) ||
      !(o.hole_p10_s > 0 && o.hole_p10_s < o.hole_median_s && o.hole_median_s < o.hole_p90_s) ||
      !std::isfinite(o.hole_p90_s + o.start_unix + steps)) {
    return absl::InvalidArgumentError(
        absl::StrCat("synthetic trace: nodes ", o.nodes, ", days ", o.days, ", grid ", o.grid_s,
                     " s, idle fraction ", o.idle_fraction, ", holes p10/median/p90 ", o.hole_p10_s,
                     "/", o.hole_median_s, "/", o.hole_p90_s, " s are out of range"));
  }
  const HoleLength hole{std::log(o.hole_median_s), std::log(o.hole_median_s / o.hole_p10_s) / kZ90,
                        std::log(o.hole_p90_s / o.hole_median_s) / kZ90};
  const double busy_mean = hole.mean() * (1 - o.idle_fraction) / o.idle_fraction;
  const auto to_steps = [&](double seconds) {
    return std::max(1.0, std::round(seconds / o.grid_s));
  };

  traces::HoleTrace trace;
  trace.start = o.start_unix;
  trace.end = o.start_unix + steps * o.grid_s;
  trace.node_names.reserve(static_cast<std::size_t>(o.nodes));
  SeededRandom random(o.seed);
  for (int node = 0; node < o.nodes; ++node) {
    trace.node_names.push_back(absl::StrFormat("n%05d", node));
    // The state at the start: idle with the stationary probability, part of its hole gone.
    bool idle = random.uniform() < o.idle_fraction;
    double t = idle ? 0.0 : to_steps(random.exponential(busy_mean));
    double end = idle ? to_steps(hole.draw(random) * random.uniform()) : 0.0;
    while (t < steps) {
      if (!idle) {
        end = t + to_steps(hole.draw(random));
      }
      const bool censored = end >= steps;
      trace.intervals.push_back({node, o.start_unix + t * o.grid_s,
                                 o.start_unix + std::min(end, steps) * o.grid_s, censored});
      if (trace.intervals.size() > traces::kMaxTraceIntervals) {
        return absl::InvalidArgumentError(absl::StrCat("synthetic trace: more than the limit of ",
                                                       traces::kMaxTraceIntervals, " holes"));
      }
      t = end + to_steps(random.exponential(busy_mean));
      idle = false;
    }
  }
  return trace;
}

}  // namespace elastic::replay
