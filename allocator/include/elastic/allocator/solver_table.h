// The count solvers as a table: kind, name, entry point, whether it is exact, and a phrase for
// --help, one row per line of solvers.def. Dispatch (allocate), the JSON "solver" field, the CLIs'
// --solver options, the tests and the bench all read this table, so a new solver is one file and
// one row. LOCAL, no state.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "elastic/allocator/problem.h"
#include "elastic/allocator/solvers.h"

namespace elastic::alloc {

struct Solver {
  SolverKind kind;
  std::string_view name;  // "milp", "dp", ...: JSON and command lines
  absl::StatusOr<CountSolution> (*solve)(const CountModel& model, const SolveOptions& options);
  bool exact;                // proven optimal unless the time limit is hit; else a heuristic
  std::string_view summary;  // "exact dynamic program"
};

// Every solver, in SolverKind order.
std::span<const Solver> solver_table();

// The row of `kind`; nullptr for a value that is not a SolverKind enumerator.
const Solver* find_solver(SolverKind kind);

std::string_view to_string(SolverKind solver);  // "?" outside the enum
// InvalidArgument naming the field "solver" and listing the accepted names.
absl::StatusOr<SolverKind> parse_solver(std::string_view name);

// The names, in table order (for CLI11's IsMember).
std::vector<std::string> solver_names();
// "milp (count MILP, lp_solve), dp (exact dynamic program), ... or equal-share (...)".
std::string solver_help();

}  // namespace elastic::alloc
