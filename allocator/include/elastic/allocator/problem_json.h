// The allocator's JSON interface (what `elastic-alloc` reads and writes, and what the runtime can
// log): a Problem from JSON and an Allocation to JSON. Input is checked strictly: unknown fields,
// wrong types and bad values are errors naming the field ("jobs[0].scaling.nodes[2]: ...").
//
//   in:  {"nodes": ["n1", {"name": "n2", "kind": "gpu", "leaving_soon": true,
//                          "expected_idle_s": 300}],
//         "horizon_s": 10, "objective": "throughput", "solver": "milp", "time_limit_s": 10,
//         "jobs": [{"id": "J1", "min_nodes": 1, "max_nodes": 64, "nodes": ["n1"],
//                   "scaling": {"nodes": [0, 1, 2, 4], "samples_per_s": [0, 2831, 5259, 9988]},
//                   "value": {"nodes": [...], "values": [...]},            (optional)
//                   "grow_stall_s": 18, "shrink_stall_s": 12, "weight": 1.0,
//                   "min_share": 0, "node_kind": ""}]}
//   out: {"status": "optimal", "objective": 12345.6, "solve_ms": 0.8, "dropped": [],
//         "jobs": [{"id": "J1", "count": 2, "nodes": ["n1", "n2"], "change": "grow",
//                   "previous": 1, "samples_per_s": 5259}]}
#pragma once

#include <string_view>

#include "absl/status/statusor.h"
#include "elastic/allocator/allocation.h"
#include "elastic/allocator/problem.h"
#include "elastic/allocator/solver_table.h"  // to_string(SolverKind), parse_solver
#include "nlohmann/json.hpp"

namespace elastic::alloc {

// Parses and validates (validate_problem). Syntax errors name the line and column.
absl::StatusOr<Problem> parse_problem_json(std::string_view text);
absl::StatusOr<Problem> problem_from_json(const nlohmann::json& json);
nlohmann::json problem_to_json(const Problem& problem);

// With `problem` (the one allocated), each job also gets "previous" (held nodes still in the pool)
// and "samples_per_s" (r_j at the new count).
nlohmann::json allocation_to_json(const Allocation& allocation, const Problem* problem = nullptr);

std::string_view to_string(Objective objective);
std::string_view to_string(SolveStatus status);
std::string_view to_string(Change change);
// Errors list the accepted names (parse_solver: solver_table.h).
absl::StatusOr<Objective> parse_objective(std::string_view name);

}  // namespace elastic::alloc
