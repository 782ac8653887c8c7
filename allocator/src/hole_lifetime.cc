#include "elastic/allocator/hole_lifetime.h"

#include <algorithm>
#include <cmath>

namespace elastic::alloc {

int HoleLifetime::bin(double length_s) {
  if (!(length_s > 1)) return 0;
  const double b = std::floor(std::log10(length_s) * kBinsPerDecade);
  return static_cast<int>(std::min<double>(b, kBins - 1));
}

double HoleLifetime::bin_start(int b) {
  if (b <= 0) return 0.0;
  return std::pow(10.0, static_cast<double>(b) / kBinsPerDecade);
}

void HoleLifetime::observe(double length_s) {
  if (!std::isfinite(length_s) || length_s < 0) return;
  const int b = bin(length_s);
  count_[b] += 1;
  sum_[b] += length_s;
  ++holes_;
  for (int i = b; i >= 0; --i) {
    count_above_[i] = count_above_[i + 1] + count_[i];
    sum_above_[i] = sum_above_[i + 1] + sum_[i];
  }
}

double HoleLifetime::expected_residual(double age_s) const {
  const double age = std::isfinite(age_s) && age_s > 0 ? age_s : 0.0;
  const int b = bin(age);
  double count = count_above_[b + 1];
  double sum = sum_above_[b + 1];
  if (count_[b] > 0 && sum_[b] / count_[b] > age) {
    count += count_[b];
    sum += sum_[b];
  }
  if (count <= 0) return std::max(1.0, age);
  return std::max(1.0, sum / count - age);
}

}  // namespace elastic::alloc
