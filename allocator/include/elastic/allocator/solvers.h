// Count solvers: plain functions from a CountModel to counts (the rows of solvers.def; which are
// exact is in solver_table.h).
// "The call failed" is the absl::Status; "what the solve found" is CountSolution::status.
#pragma once

#include <algorithm>
#include <chrono>
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

// start + limit_s, saturating: a limit past the clock's range (1e10 s, inf) is no deadline (a
// plain duration_cast overflowed into one in the past: the solvers stopped at once).
inline std::chrono::steady_clock::time_point deadline_after(
    std::chrono::steady_clock::time_point start, double limit_s) {
  using Clock = std::chrono::steady_clock;
  const std::chrono::duration<double> room = Clock::time_point::max() - start;
  if (!(limit_s < room.count() / 2)) return Clock::time_point::max();
  return start + std::chrono::duration_cast<Clock::duration>(
                     std::chrono::duration<double>(std::max(0.0, limit_s)));
}

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
