#include "elastic/allocator/piecewise_linear.h"

#include <algorithm>
#include <cmath>

#include "fmt/format.h"

namespace elastic::alloc {

absl::StatusOr<PiecewiseLinear> PiecewiseLinear::create(std::span<const int> counts,
                                                        std::span<const double> values,
                                                        std::string_view field) {
  if (counts.size() != values.size()) {
    return absl::InvalidArgumentError(
        fmt::format("{}: {} node counts but {} values", field, counts.size(), values.size()));
  }
  if (counts.empty()) return absl::InvalidArgumentError(fmt::format("{}: empty table", field));
  PiecewiseLinear table;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    if (counts[i] < 0) {
      return absl::InvalidArgumentError(
          fmt::format("{}.nodes[{}]: negative node count {}", field, i, counts[i]));
    }
    if (i > 0 && counts[i] <= counts[i - 1]) {
      return absl::InvalidArgumentError(
          fmt::format("{}.nodes[{}]: node counts must increase ({} then {})", field, i,
                      counts[i - 1], counts[i]));
    }
    if (!std::isfinite(values[i]) || values[i] < 0) {
      return absl::InvalidArgumentError(
          fmt::format("{}[{}]: value must be finite and >= 0, got {}", field, i, values[i]));
    }
  }
  if (counts.front() > 0) {
    table.counts_.push_back(0);
    table.values_.push_back(0.0);
  }
  table.counts_.insert(table.counts_.end(), counts.begin(), counts.end());
  table.values_.insert(table.values_.end(), values.begin(), values.end());
  return table;
}

double PiecewiseLinear::at(double n) const {
  if (counts_.empty() || n <= 0) return counts_.empty() ? 0.0 : (n <= 0 ? 0.0 : values_.front());
  if (n >= counts_.back()) return values_.back();
  const auto it = std::upper_bound(counts_.begin(), counts_.end(), n);
  const std::size_t hi = static_cast<std::size_t>(it - counts_.begin());
  const std::size_t lo = hi - 1;
  const double t = (n - counts_[lo]) / static_cast<double>(counts_[hi] - counts_[lo]);
  return values_[lo] + t * (values_[hi] - values_[lo]);
}

PiecewiseLinear PiecewiseLinear::scaled(double factor) const {
  PiecewiseLinear out = *this;
  for (double& v : out.values_) v *= factor;
  return out;
}

}  // namespace elastic::alloc
