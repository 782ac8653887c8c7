// Lagrangian presolve for the count problem: relax the shared budget with a price lambda per node,
// solve the relaxation exactly from each job's upper concave hull, and fix every count whose
// reduced cost exceeds the duality gap. Exact: no optimum is ever cut off.
//
// Why it is exact. For lambda >= 0 and any feasible n (sum n_j <= N),
//     sum_j gain_j(n_j) <= lambda*N + sum_j (gain_j(n_j) - lambda*n_j)
//                       =  UB - sum_j rc_j(n_j),   rc_j(n) = h_j(lambda) - (gain_j(n) - lambda*n)
//                       >= 0,
// where h_j(lambda) = max_n gain_j(n) - lambda*n and UB = lambda*N + sum_j h_j(lambda). If one job
// uses a count with rc_j(n) > UB - LB, where LB is the value of a known feasible allocation, the
// allocation is worth less than LB and cannot be optimal. So every optimum uses, for each job, a
// count with rc_j(n) <= UB - LB: the candidate set. gain_j is linear between consecutive
// breakpoints (CountModel::breakpoints), so h_j is attained at a breakpoint, lambda* (the price
// that minimises UB) is a slope of some job's hull, and within one linear piece the candidates
// form one contiguous range. A small relative tolerance widens the sets so rounding never cuts an
// optimum.
#pragma once

#include <cstddef>
#include <vector>

#include "absl/status/statusor.h"
#include "elastic/allocator/count_model.h"
#include "elastic/allocator/solvers.h"

namespace elastic::alloc {

// Inclusive count range [lo, hi]. Each range lies inside one linear piece of gain_j: for n in
// [lo, hi], gain_j(n) = gain_j(lo) + slope*(n - lo) up to rounding.
struct CandidateRange {
  int lo = 0;
  int hi = 0;
  double gain_lo = 0.0;  // gain_j(lo)
  double slope = 0.0;    // gain per extra node inside the range (0 when lo == hi)
};

struct PresolveResult {
  double lambda = 0.0;       // the node price that minimises the Lagrangian bound (>= 0)
  double upper_bound = 0.0;  // UB: no allocation is worth more (up to rounding)
  CountSolution incumbent;   // a feasible allocation (status kHeuristic); its objective is LB
  // Per job: the candidate counts, as sorted, disjoint ranges, never empty. Every optimal
  // allocation uses, for every job, a count inside these ranges.
  std::vector<std::vector<CandidateRange>> candidates;
  std::size_t fixed_jobs = 0;  // jobs left with exactly one candidate count
};

// All allowed counts of job j as linear pieces: {0} when 0 is allowed, then [lo, hi] cut at the
// breakpoints (sorted, disjoint). Empty when job j has no allowed count (must_run with lo > hi).
std::vector<CandidateRange> linear_pieces(const CountModel& model, std::size_t j);

// InvalidArgument when the model has no feasible allocation (must-run floors exceed the pool, or a
// must-run job has no allowed count). Runs in O(sum_j breakpoints_j * log) plus the candidate scan.
absl::StatusOr<PresolveResult> lagrangian_presolve(const CountModel& model);

}  // namespace elastic::alloc
