// A throughput or value table: measured (node count, value) points, linear between them, flat
// beyond the last one, and 0 at 0 nodes. This is r_j(n) and v_j(n) of DESIGN.md.
#pragma once

#include <span>
#include <vector>

#include "absl/status/statusor.h"

namespace elastic::alloc {

class PiecewiseLinear {
 public:
  PiecewiseLinear() = default;

  // Validates the table: counts strictly increasing and >= 0, values finite and >= 0, same length.
  // A (0, 0) point is added when the table does not start at 0. `field` names the table in errors.
  static absl::StatusOr<PiecewiseLinear> create(std::span<const int> counts,
                                                std::span<const double> values,
                                                std::string_view field = "table");

  // Value at `n` nodes (n >= 0): interpolated, flat beyond the last point.
  double at(double n) const;

  const std::vector<int>& counts() const { return counts_; }
  const std::vector<double>& values() const { return values_; }
  bool empty() const { return counts_.empty(); }

  // Returns this table with every value multiplied by `factor`.
  PiecewiseLinear scaled(double factor) const;

 private:
  std::vector<int> counts_;
  std::vector<double> values_;
};

}  // namespace elastic::alloc
