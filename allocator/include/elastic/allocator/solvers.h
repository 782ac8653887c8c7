// Count solvers: plain functions from a CountModel to counts. Each is exact except equal_share.
// "The call failed" is the absl::Status; "what the solve found" is CountSolution::status.
#pragma once

#include <vector>

#include "absl/status/statusor.h"
#include "elastic/allocator/count_model.h"

namespace elastic::alloc {

enum class SolveStatus {
  kOptimal,    // proven optimal
  kTimeLimit,  // the time limit was hit: the best feasible allocation found, not proven optimal
  kHeuristic,  // a heuristic's answer (equal-share), no optimality claim
};

struct SolveOptions {
  double time_limit_s = 10.0;
  bool presolve = true;  // Lagrangian reduced-cost fixing before the exact search (milp, dp)
};

struct CountSolution {
  std::vector<int> counts;  // one per CountModel job; always feasible
  double objective = 0.0;   // sum of gains
  SolveStatus status = SolveStatus::kOptimal;
};

absl::StatusOr<CountSolution> solve_milp(const CountModel& model, const SolveOptions& options);
absl::StatusOr<CountSolution> solve_dp(const CountModel& model, const SolveOptions& options);
absl::StatusOr<CountSolution> solve_node_milp(const CountModel& model, const SolveOptions& options);
absl::StatusOr<CountSolution> solve_equal_share(const CountModel& model, const SolveOptions& options);

}  // namespace elastic::alloc
