// The allocation problem as the user states it: a pool of granted nodes (by name), the jobs with
// the nodes they hold, their bounds and scalability tables, and how to solve. See
// ../shared/DESIGN.md "The allocation problem" for the objective this is turned into.
#pragma once

#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "elastic/allocator/piecewise_linear.h"

namespace elastic::alloc {

enum class Objective {
  kThroughput,  // v_j = value table if given, else r_j
  kSpeedup,     // v_j = r_j(n) / r_j(1)
  kWeighted,    // v_j = weight_j * (value table if given, else r_j)
  kFair,        // maximise the smallest r_j(n)/r_j(max) first, then total throughput
};

// The count solvers, one per row of solvers.def (solver_table.h: their names and properties).
enum class SolverKind {
#define ELASTIC_SOLVER(kind, ...) kind,
#include "elastic/allocator/solvers.def"
};

struct Node {
  std::string name;
  std::string kind;           // optional; jobs only run on nodes of their own `node_kind`
  bool leaving_soon = false;  // the scheduler flagged it: released first when a job shrinks
  double expected_idle_s = std::numeric_limits<double>::infinity();  // shorter = released earlier
};

struct Job {
  std::string id;
  int min_nodes = 1;
  int max_nodes = 1;
  std::vector<std::string> nodes;        // held now; ones missing from the pool have left
  PiecewiseLinear scaling;               // r_j: samples/s by node count
  std::optional<PiecewiseLinear> value;  // v_j when given (throughput/weighted objectives)
  double grow_stall_s = 0.0;             // U_j
  double shrink_stall_s = 0.0;           // D_j
  double weight = 1.0;
  int min_share = 0;  // nodes guaranteed while the pool allows (0 = none)
  // Samples left to its target (elasticd: target_samples less those counted). With
  // expect_departures a grow that finishes the job within the horizon also pays the stall of
  // the added nodes' next grant (expected_loss.h).
  double remaining_samples = std::numeric_limits<double>::infinity();
  std::string node_kind;  // which nodes it can use ("" = nodes without a kind)
};

struct Problem {
  std::vector<Node> nodes;
  std::vector<Job> jobs;
  double horizon_s = 10.0;  // T_fwd
  Objective objective = Objective::kThroughput;
  SolverKind solver = SolverKind::kMilp;
  double time_limit_s = 10.0;
  // Value each count with the nodes' expected_idle_s (expected_loss.h): what the nodes make while
  // they stay, less the stalls their leaving causes and the rescale stall at the new size. The
  // horizon should then be longer than the stalls (a grow pays only within it). Growing jobs take
  // the free nodes expected to stay longest.
  bool expect_departures = false;
  // With expect_departures and > 0: a job that would reach its target before its nodes leave
  // (within W = finish_window_scale x the pool's mean expected idle time) is valued by the samples
  // it has left, spread over W, and what its nodes make for the next job once it is done
  // (expected_loss.h, "value to the finish"). 0: off; a longer window trades samples for elastic
  // efficiency (docs/replay.md).
  double finish_window_scale = 0.0;
};

}  // namespace elastic::alloc
