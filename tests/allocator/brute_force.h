// TEST-ONLY oracle: enumerates every count vector of a small CountModel (each job over all its
// allowed counts, total within the pool) and keeps the best value and every vector reaching it.
// Exponential; meant for a handful of jobs and nodes.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "elastic/allocator/count_model.h"

namespace elastic::alloc::testing {

struct BruteForceResult {
  bool feasible = false;
  double best = -std::numeric_limits<double>::infinity();
  std::vector<std::vector<int>> optima;  // all vectors within `tolerance` of best
};

inline bool near(double a, double b, double relative) {
  return std::abs(a - b) <= relative * std::max({1.0, std::abs(a), std::abs(b)});
}

inline BruteForceResult brute_force(const CountModel& model, double tolerance = 1e-9) {
  const std::size_t num_jobs = model.jobs.size();
  std::vector<std::vector<int>> options(num_jobs);
  for (std::size_t j = 0; j < num_jobs; ++j) {
    for (int n = 0; n <= model.pool; ++n) {
      if (model.allowed(j, n)) options[j].push_back(n);
    }
  }
  // First pass: every complete vector and its value.
  std::vector<std::pair<double, std::vector<int>>> all;
  std::vector<int> counts(num_jobs, 0);
  auto visit = [&](auto&& self, std::size_t j, int left, double value) -> void {
    if (j == num_jobs) {
      all.emplace_back(value, counts);
      return;
    }
    for (int n : options[j]) {
      if (n > left) break;
      counts[j] = n;
      self(self, j + 1, left - n, value + model.gain(j, n));
    }
  };
  visit(visit, 0, model.pool, 0.0);

  BruteForceResult result;
  for (const auto& [value, vec] : all) result.best = std::max(result.best, value);
  result.feasible = !all.empty();
  for (const auto& [value, vec] : all) {
    if (near(value, result.best, tolerance)) result.optima.push_back(vec);
  }
  return result;
}

}  // namespace elastic::alloc::testing
