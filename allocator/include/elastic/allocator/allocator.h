// The allocator's entry point: validate a Problem, drop held nodes that left, solve each node kind,
// map counts to node names without migration. Pure C++, no MPI; deterministic.
#pragma once

#include "absl/status/statusor.h"
#include "elastic/allocator/allocation.h"
#include "elastic/allocator/build_count_model.h"
#include "elastic/allocator/problem.h"

namespace elastic::alloc {

// Errors: InvalidArgument naming the offending field (e.g. "jobs[2].max_nodes: ..."); Internal
// when a solver returns an infeasible answer.
absl::StatusOr<Allocation> allocate(const Problem& problem);

// The checks allocate() makes before solving: duplicate job ids / pool nodes / held nodes, a node
// held by two jobs or of another kind than its job, min_nodes < 1, min > max, negative stalls,
// weights or min_share, empty tables, horizon_s <= 0, time_limit_s <= 0, a solver outside the
// table (solver_table.h). Names the field.
absl::Status validate_problem(const Problem& problem);

}  // namespace elastic::alloc
