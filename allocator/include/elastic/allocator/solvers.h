// Count solvers: plain functions from a CountModel to counts (the rows of solvers.def; which are
// exact is in solver_table.h).
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

// One entry point per row of solvers.def (solve_milp, solve_dp, ...), each in a file of its own.
#define ELASTIC_SOLVER(kind, name, function, ...) \
  absl::StatusOr<CountSolution> function(const CountModel& model, const SolveOptions& options);
#include "elastic/allocator/solvers.def"

}  // namespace elastic::alloc
