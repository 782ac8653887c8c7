#include "elastic/allocator/scaling_model.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <vector>

namespace elastic::alloc {
namespace {

// Counts up to kDense get a breakpoint each; beyond, one every ceil(n/kSpacing) nodes.
constexpr int kDense = 32;
constexpr int kSpacing = 16;

// The median of [first, last) (non-empty), reordering it.
template <typename It>
double median_of(It first, It last) {
  const auto size = last - first;
  const It mid = first + size / 2;
  std::nth_element(first, mid, last);
  if (size % 2 == 1) return *mid;
  return 0.5 * (*mid + *std::max_element(first, mid));
}

// A line y = a + b*x fitted to weighted points, as sums.
struct LineSums {
  double w = 0, x = 0, y = 0, xx = 0, xy = 0, yy = 0;
  void add(double weight, double xi, double yi) {
    w += weight;
    x += weight * xi;
    y += weight * yi;
    xx += weight * xi * xi;
    xy += weight * xi * yi;
    yy += weight * yi * yi;
  }
  // Weighted sum of squared residuals of y = a + b*x.
  double sse(double a, double b) const {
    return yy - 2 * a * y - 2 * b * xy + a * a * w + 2 * a * b * x + b * b * xx;
  }
};

// The serial fractions of the models measured at two or more counts (null entries skipped).
std::vector<double> serial_fits(std::span<const ScalingModel* const> models) {
  std::vector<double> fits;
  for (const ScalingModel* m : models) {
    if (m != nullptr && m->distinct_counts() >= 2) fits.push_back(m->serial_fraction());
  }
  return fits;
}

}  // namespace

ScalingModel::ScalingModel(int max_nodes) : max_nodes_(std::max(1, max_nodes)) {}

void ScalingModel::observe(int nodes, double samples_per_s) {
  if (nodes < 1 || nodes > max_nodes_ || !std::isfinite(samples_per_s * max_nodes_) ||
      samples_per_s <= 0) {
    return;
  }
  Reports& r = counts_[nodes];
  r.ring[r.next] = samples_per_s;
  r.next = (r.next + 1) % kWindow;
  r.size = std::min(r.size + 1, kWindow);
  std::array<double, kWindow> window = r.ring;
  r.median = median_of(window.begin(), window.begin() + static_cast<std::ptrdiff_t>(r.size));
  refit();
}

double ScalingModel::usable_prior(double prior_per_node) const {
  return std::isfinite(prior_per_node * max_nodes_) && prior_per_node > 0 ? prior_per_node : 1.0;
}

double ScalingModel::measured(int nodes) const {
  const auto it = counts_.find(nodes);
  return it == counts_.end() ? 0.0 : it->second.median;
}

// Least squares on n/r = a + b*n (see the header); a, b >= 0 keeps s in [0, 1].
void ScalingModel::refit() {
  if (counts_.size() == 1) {
    const auto& [n, r] = *counts_.begin();
    r1_ = r.median / n;
    serial_ = 0.0;
    return;
  }
  // y is scaled by the first count's y (the fitted s does not change), so the weights stay near 1
  // whatever the units of the rates.
  const double y_ref = counts_.begin()->first / counts_.begin()->second.median;
  LineSums sums;
  for (const auto& [n, r] : counts_) {
    const double y = n / r.median / y_ref;
    sums.add(static_cast<double>(r.size) / (y * y), n, y);
  }
  const double det = sums.w * sums.xx - sums.x * sums.x;
  double b = (sums.w * sums.xy - sums.x * sums.y) / det;
  double a = (sums.y - b * sums.x) / sums.w;
  if (a < 0 || b < 0) {
    const double a_only = sums.y / sums.w;    // s = 0: n/r constant
    const double b_only = sums.xy / sums.xx;  // s = 1: r constant
    if (sums.sse(a_only, 0) <= sums.sse(0, b_only)) {
      a = a_only;
      b = 0;
    } else {
      a = 0;
      b = b_only;
    }
  }
  r1_ = 1 / (y_ref * (a + b));
  serial_ = b / (a + b);
  if (!std::isfinite(r1_) || !std::isfinite(serial_) || r1_ <= 0) {
    // Rates so far apart (many orders of magnitude) that the sums under- or overflowed: no
    // curve explains them, so fall back to linear through the smallest count.
    r1_ = counts_.begin()->second.median / counts_.begin()->first;
    serial_ = 0;
  }
}

PiecewiseLinear ScalingModel::table(double prior_per_node, double typical_serial,
                                    double probe_serial) const {
  const bool typical = typical_serial > 0 && typical_serial <= 1;
  if (!has_data() && !typical) {
    // Flat: worth its first node, no more until measured.
    const double per_node = usable_prior(prior_per_node);
    std::vector<int> counts = {1};
    if (max_nodes_ > 1) counts.push_back(max_nodes_);
    const std::vector<double> values(counts.size(), per_node);
    return *PiecewiseLinear::create(counts, values);
  }
  std::vector<int> counts;
  for (int n = 1; n <= max_nodes_; n += n < kDense ? 1 : (n + kSpacing - 1) / kSpacing) {
    counts.push_back(n);
  }
  for (const auto& [n, r] : counts_) counts.push_back(n);
  counts.push_back(max_nodes_);
  const int probe_to = counts_.empty() ? 0 : std::min(max_nodes_, 2 * counts_.rbegin()->first);
  if (probe_to > 0) counts.push_back(probe_to);
  std::sort(counts.begin(), counts.end());
  counts.erase(std::unique(counts.begin(), counts.end()), counts.end());

  // fitted(n) * c(n) with c = measured / fitted at measured counts, interpolated between them and
  // held beyond; written as measured * shape ratio so that no product of extreme rates overflows.
  // With no data, the prior per node along the typical curve.
  const double serial = counts_.size() <= 1 && typical ? typical_serial : serial_;
  const auto shape_of = [](double s) { return [s](double n) { return n / (1 + s * (n - 1)); }; };
  const auto shape = shape_of(serial);
  const auto from = [&](auto it, int n) { return it->second.median * shape(n) / shape(it->first); };
  // Beyond the largest measured count: up to probe_to with the more optimistic serial fraction
  // when probing, then the job's own shape.
  const bool probing = probe_serial >= 0 && probe_serial <= 1 && probe_serial < serial;
  const auto beyond = [&](auto last, int n) {
    if (!probing) return from(last, n);
    const auto optimistic = shape_of(probe_serial);
    const int k = std::min(n, probe_to);
    return last->second.median * optimistic(k) / optimistic(last->first) * shape(n) / shape(k);
  };
  const auto value = [&](int n) {
    if (counts_.empty()) return usable_prior(prior_per_node) * shape(n);
    const auto hi = counts_.lower_bound(n);
    if (hi == counts_.begin() || (hi != counts_.end() && hi->first == n)) return from(hi, n);
    const auto lo = std::prev(hi);
    if (hi == counts_.end()) return beyond(lo, n);
    const double t = static_cast<double>(n - lo->first) / (hi->first - lo->first);
    return (1 - t) * from(lo, n) + t * from(hi, n);
  };
  std::vector<double> values;
  values.reserve(counts.size());
  for (int n : counts) values.push_back(value(n));
  return *PiecewiseLinear::create(counts, values);
}

double typical_serial_fraction(std::span<const ScalingModel* const> models) {
  std::vector<double> fits = serial_fits(models);
  return fits.size() < kTypicalMinFits ? 0.0 : median_of(fits.begin(), fits.end());
}

double probe_serial_fraction(std::span<const ScalingModel* const> models) {
  std::vector<double> fits = serial_fits(models);
  if (fits.empty()) return 0.0;
  const auto quartile = fits.begin() + static_cast<std::ptrdiff_t>((fits.size() - 1) / 4);
  std::nth_element(fits.begin(), quartile, fits.end());
  return *quartile;
}

double unmeasured_prior(double best_r1) {
  return best_r1 > 0 && std::isfinite(best_r1) ? best_r1 * (1.0 + kExplorationBonus) : 1.0;
}

bool changed_significantly(const PiecewiseLinear& before, const PiecewiseLinear& after,
                           double rel_tol) {
  if (before.empty() || after.empty()) return before.empty() != after.empty();
  const int last = std::max(before.counts().back(), after.counts().back());
  for (int n = 1; n <= last; ++n) {
    const double a = before.at(n);
    const double b = after.at(n);
    if (std::abs(a - b) > rel_tol * std::max(std::abs(a), std::abs(b))) return true;
  }
  return false;
}

}  // namespace elastic::alloc
