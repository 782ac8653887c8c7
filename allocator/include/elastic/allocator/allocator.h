// The allocator's entry point: validate a Problem, drop held nodes that left, solve each node kind,
// map counts to node names without migration. Pure C++, no MPI; deterministic.
#pragma once

#include "absl/status/statusor.h"
#include "elastic/allocator/allocation.h"
#include "elastic/allocator/problem.h"
#include "elastic/allocator/validate_problem.h"

namespace elastic::alloc {

// Errors: InvalidArgument naming the offending field (e.g. "jobs[2].max_nodes: ..."); Internal
// when a solver returns an infeasible answer.
absl::StatusOr<Allocation> allocate(const Problem& problem);

}  // namespace elastic::alloc
