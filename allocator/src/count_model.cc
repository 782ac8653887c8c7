#include "elastic/allocator/count_model.h"

#include <algorithm>
#include <cmath>

namespace elastic::alloc {

bool CountModel::allowed(std::size_t j, int n) const {
  const CountJob& job = jobs[j];
  if (n == 0) return !job.must_run;
  return n >= job.lo && n <= job.hi && n <= pool;
}

double CountModel::gain(std::size_t j, int n) const {
  const CountJob& job = jobs[j];
  if (!job.gains.empty()) return job.gains[static_cast<std::size_t>(n)];
  double g = horizon_s * job.value.at(n);
  if (n > job.current) g -= job.grow_cost;
  if (n < job.current) g -= job.shrink_cost;
  return g;
}

std::vector<int> CountModel::breakpoints(std::size_t j) const {
  const CountJob& job = jobs[j];
  std::vector<int> points;
  if (!job.must_run) points.push_back(0);
  const int hi = std::min(job.hi, pool);
  if (job.lo <= hi) {
    points.push_back(job.lo);
    points.push_back(hi);
    for (int c : {job.current - 1, job.current, job.current + 1}) {
      if (c >= job.lo && c <= hi) points.push_back(c);
    }
    for (int c : job.value.counts()) {
      if (c >= job.lo && c <= hi) points.push_back(c);
    }
    // A table is linear only where its slope stays (up to rounding of its sums).
    const std::vector<double>& g = job.gains;
    for (int c = std::max(job.lo, 1); c < hi && !g.empty(); ++c) {
      const auto i = static_cast<std::size_t>(c);
      const double bend = (g[i + 1] - g[i]) - (g[i] - g[i - 1]);
      const double scale = std::abs(g[i + 1]) + std::abs(g[i]) + std::abs(g[i - 1]) + 1.0;
      if (std::abs(bend) > 1e-12 * scale) points.push_back(c);
    }
  }
  std::sort(points.begin(), points.end());
  points.erase(std::unique(points.begin(), points.end()), points.end());
  return points;
}

}  // namespace elastic::alloc
