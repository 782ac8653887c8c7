#include "elastic/allocator/solver_table.h"

#include <cstddef>

#include "elastic/allocator/input_limits.h"
#include "fmt/format.h"
#include "fmt/ranges.h"

namespace elastic::alloc {
namespace {

constexpr Solver kSolvers[] = {
#define ELASTIC_SOLVER(kind, name, function, exact, summary) \
  {SolverKind::kind, name, function, exact, summary},
#include "elastic/allocator/solvers.def"
};

constexpr bool rows_in_kind_order() {
  for (std::size_t i = 0; i < std::size(kSolvers); ++i) {
    if (static_cast<std::size_t>(kSolvers[i].kind) != i) return false;
  }
  return true;
}
static_assert(rows_in_kind_order(), "solvers.def builds SolverKind and this table in one order");

}  // namespace

std::span<const Solver> solver_table() { return kSolvers; }

const Solver* find_solver(SolverKind kind) {
  const auto index = static_cast<std::size_t>(kind);
  return index < std::size(kSolvers) ? &kSolvers[index] : nullptr;
}

std::string_view to_string(SolverKind solver) {
  const Solver* row = find_solver(solver);
  return row != nullptr ? row->name : "?";
}

absl::StatusOr<SolverKind> parse_solver(std::string_view name) {
  for (const Solver& row : kSolvers) {
    if (name == row.name) return row.kind;
  }
  return absl::InvalidArgumentError(fmt::format("solver: unknown solver '{}' (accepted: {})",
                                                echo_token(name), fmt::join(solver_names(), ", ")));
}

std::vector<std::string> solver_names() {
  std::vector<std::string> names;
  for (const Solver& row : kSolvers) names.emplace_back(row.name);
  return names;
}

std::string solver_help() {
  std::string help;
  for (std::size_t i = 0; i < std::size(kSolvers); ++i) {
    const std::string_view separator = i == 0 ? "" : i + 1 == std::size(kSolvers) ? " or " : ", ";
    help += fmt::format("{}{} ({})", separator, kSolvers[i].name, kSolvers[i].summary);
  }
  return help;
}

}  // namespace elastic::alloc
