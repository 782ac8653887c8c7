// The per-job part of the count formulation, shared by the count MILP (milp_count.cc) and the
// node-level MILP (milp_node.cc), plus what both do around a solve: reject models with no feasible
// allocation, turn an lp_solve answer into exact counts, and fall back when the clock runs out
// before any incumbent. Private to the allocator.
#pragma once

#include <chrono>
#include <vector>

#include "absl/status/statusor.h"
#include "elastic/allocator/count_model.h"
#include "elastic/allocator/solvers.h"
#include "milp_model.h"

namespace elastic::alloc {

// Inclusive count interval [lo, hi] of one job.
struct CountInterval {
  int lo = 0;
  int hi = 0;
};

// How a job's piecewise-linear gain is encoded. Both are exact. kSegments (one binary per linear
// segment, the weights allowed only on the chosen segment's ends) is the default: with lp_solve it
// solved 50 jobs x 300 nodes in 0.1 s where kSos2 (lp_solve's SOS2 branching) hit a 60 s limit.
enum class CountEncoding { kSegments, kSos2 };

// Job j's columns. n = sum_k lambda_k * points_k with at most two neighbouring weights non-zero,
// so the objective sum_k lambda_k * T*v(points_k) - U*grow - D*shrink equals gain_j(n) at every
// integer n.
struct CountBlock {
  std::vector<int> points;  // the intervals' ends and gain_j's breakpoints inside them, increasing
  std::vector<int> lambda;  // one weight column per point
  int count = -1;           // integer n_j
  // Binaries picking where n_j lies: kSegments, one per segment (none when there is only one);
  // kSos2, one per interval when there are gaps (the running binary z_j for {0} U [lo, hi]).
  std::vector<int> selectors;
  int grow = -1;    // binary [n_j > C_j]; -1 when no candidate lies above C_j
  int shrink = -1;  // binary [n_j < C_j]; -1 when no candidate lies below C_j
};

// Job j's allowed counts, {0 unless must_run} U [max(lo, 1), min(hi, pool)], as disjoint
// increasing intervals (empty when there are none).
std::vector<CountInterval> allowed_intervals(const CountModel& model, std::size_t j);

// Adds job j's block over `intervals` (disjoint, increasing, non-empty, inside the allowed set;
// touching ones are merged). `priority` orders the SOS2 branching.
CountBlock add_count_block(const CountModel& model, std::size_t j,
                           std::vector<CountInterval> intervals, CountEncoding encoding,
                           int priority, MilpModel& milp);

// solve_milp with a chosen encoding (solve_milp uses kSegments).
absl::StatusOr<CountSolution> solve_count_milp(const CountModel& model, const SolveOptions& options,
                                               CountEncoding encoding);

// InvalidArgument when no allocation satisfies every job's floor within the pool, naming the job.
absl::Status check_count_model(const CountModel& model);

// A feasible allocation without search: every job keeps its current count where that is allowed
// and fits, else must-run jobs sit at their floor and the rest at 0. Marked kTimeLimit.
CountSolution fallback_allocation(const CountModel& model);

// Counts, exact objective (CountModel::gain) and status from a solve over blocks built from
// `model`. A time-limit answer is never infeasible and never worse than fallback_allocation or
// `known` (a feasible allocation found beforehand, e.g. by the presolve), whichever is better.
absl::StatusOr<CountSolution> count_solution(const CountModel& model,
                                             const std::vector<CountBlock>& blocks,
                                             const MilpResult& result,
                                             const CountSolution* known = nullptr);

// Seconds left of `limit_s` since `start` (never negative).
double seconds_left(std::chrono::steady_clock::time_point start, double limit_s);

}  // namespace elastic::alloc
