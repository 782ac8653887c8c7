// The solvers' view of one node kind: N interchangeable nodes and, per job, its current count and
// the gain of each count,
//     gain_j(n) = T*v_j(n) - [n > C_j]*U_j*v_j(C_j) - [n < C_j]*D_j*v_j(C_j),
// over the allowed counts {0 (unless must_run)} U [lo_j, hi_j], or a table of gain_j(n) per count
// (expected_loss.h: when nodes are expected to leave). Solvers maximise the sum of gains subject
// to sum n_j <= N. Built from a Problem by build_count_model (allocator.h).
#pragma once

#include <vector>

#include "elastic/allocator/piecewise_linear.h"

namespace elastic::alloc {

struct CountJob {
  int current = 0;         // C_j: held nodes still in the pool
  int lo = 1;              // smallest running count (>= min_nodes; raised by fair/min-share floors)
  int hi = 0;              // largest count, already clipped to the pool; lo > hi: cannot run
  bool must_run = false;   // a floor applies: 0 is not allowed
  PiecewiseLinear value;   // v_j
  double grow_cost = 0.0;  // U_j * v_j(C_j), 0 when C_j < min_nodes
  double shrink_cost = 0.0;  // D_j * v_j(C_j), 0 when C_j < min_nodes
  // When not empty: gain_j(n) = gains[n] for n = 0..hi, replacing the formula above.
  std::vector<double> gains;
};

struct CountModel {
  int pool = 0;             // N
  double horizon_s = 10.0;  // T
  std::vector<CountJob> jobs;

  // gain_j(n) as above. Precondition: n is allowed for job j.
  double gain(std::size_t j, int n) const;
  // Whether n is an allowed count for job j (ignores the shared budget).
  bool allowed(std::size_t j, int n) const;
  // The counts at which gain_j is not linear, in increasing order: 0 (if allowed), lo, hi, C-1, C,
  // C+1 and the table's counts (with a gains table: every count where its slope changes), all
  // within the allowed set. Between two consecutive breakpoints
  // that are both in [lo, hi] gain_j is linear, so an optimum over a segment lies at an end.
  std::vector<int> breakpoints(std::size_t j) const;
};

}  // namespace elastic::alloc
