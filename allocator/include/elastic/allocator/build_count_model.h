// Turns a user's Problem into one CountModel per node kind (the solvers' view), applying the
// objective (throughput / speedup / weighted / fair), the min_share floors and the conventions of
// DESIGN.md (held nodes that left are dropped; v_j(C_j) = 0 below min_nodes). Exposed so tests and
// the benchmark can feed exactly what allocate() solves to every solver.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "elastic/allocator/count_model.h"
#include "elastic/allocator/expected_loss.h"
#include "elastic/allocator/problem.h"

namespace elastic::alloc {

struct KindModel {
  std::string kind;                            // "" = nodes without a kind
  std::vector<Node> nodes;                     // the pool nodes of this kind, in pool order
  std::vector<std::size_t> jobs;               // model.jobs[i] is problem.jobs[jobs[i]]
  std::vector<std::vector<std::string>> held;  // per model job: its held nodes still in the pool
  CountModel model;
};

// Validates (validate_problem.h) and builds the models: kinds in order of first
// appearance in the pool, then kinds only jobs ask for (with an empty pool). Deterministic.
absl::StatusOr<std::vector<KindModel>> build_count_models(const Problem& problem);

// The model of one kind: `pool` nodes and the jobs problem.jobs[jobs[i]], each holding current[i]
// of them (objective, fair and min_share floors applied). With problem.expect_departures and an
// `outlook` (held_s[i] of size current[i]) each job gets its gains table (expected_loss.h). No
// validation: build_count_models and allocate_counts validate the problem first.
absl::StatusOr<CountModel> build_count_model(const Problem& problem,
                                             std::span<const std::size_t> jobs,
                                             std::span<const int> current, int pool,
                                             const IdleOutlook* outlook = nullptr);

// The fair objective's first stage for one kind: the largest level L such that every job that can
// run reaches r_j(n)/r_j(hi_j) >= L with its smallest such n and those n fit the pool. Sets lo_j
// to that n and must_run on `model` (whose values must be r_j). Returns L (0: no floors set).
double apply_fair_floors(CountModel& model, const std::vector<const PiecewiseLinear*>& scaling);

}  // namespace elastic::alloc
