// The checks on a user's Problem, made before anything is built from it (allocate(),
// build_count_models(), parse_problem_json()). LOCAL, pure.
#pragma once

#include "absl/status/status.h"
#include "elastic/allocator/problem.h"

namespace elastic::alloc {

// The checks allocate() makes before solving: duplicate job ids / pool nodes / held nodes, a node
// held by two jobs or of another kind than its job, min_nodes < 1, min > max, negative stalls,
// weights or min_share, empty tables, horizon_s <= 0, time_limit_s <= 0, a solver outside the
// table (solver_table.h). Names the field.
absl::Status validate_problem(const Problem& problem);

}  // namespace elastic::alloc
