// The allocator's entry point: validate a Problem, drop held nodes that left, solve each node kind,
// map counts to node names without migration. Pure C++, no MPI; deterministic.
#pragma once

#include <span>

#include "absl/status/statusor.h"
#include "elastic/allocator/allocation.h"
#include "elastic/allocator/expected_loss.h"
#include "elastic/allocator/problem.h"
#include "elastic/allocator/solvers.h"
#include "elastic/allocator/validate_problem.h"

namespace elastic::alloc {

// Errors: InvalidArgument naming the offending field (e.g. "jobs[2].max_nodes: ..."); Internal
// when a solver returns an infeasible answer.
absl::StatusOr<Allocation> allocate(const Problem& problem);

// The counts allocate() chooses for a caller that keeps its own pool (NodePool, mapped with
// map_counts): `pool` interchangeable nodes of one kind, job j holding current[j] of them (all
// still in the pool). Problem::nodes, Job::nodes and node kinds play no part; the jobs are
// validated as allocate() does. With problem.expect_departures, `outlook` gives the nodes'
// expected idle times (outlook->held_s[j] of size current[j]; nullptr: none known). Same errors as
// allocate(), and InvalidArgument for an outlook that does not match `current`.
absl::StatusOr<CountSolution> allocate_counts(const Problem& problem, int pool,
                                              std::span<const int> current,
                                              const IdleOutlook* outlook = nullptr);

}  // namespace elastic::alloc
