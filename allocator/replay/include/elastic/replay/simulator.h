// The event-driven replay: idle-node holes + a training workload + an allocation policy ->
// what the jobs would have achieved. Semantics (also in `elastic-replay --help`, docs/replay.md):
//  * Events are node batches (joins/leaves at one instant), job arrivals and job finishes; all
//    events at one instant are handled together.
//  * Between events every running job is credited r_j(N_j) x (elapsed time outside its stall);
//    r_j(N) = 0 below the job's minimum. A job finishes exactly when it reaches Pmax (the finish
//    instant is computed from its rate and stall end).
//  * A held node that leaves the pool is lost at once and the job is charged its shrink stall.
//  * Arrived jobs are admitted first-come-first-served while fewer than max_running are admitted.
//  * With ScalingSource::kLearned or kProbing, report instants (every learn.report_period_s while a job holds
//    nodes) are events too; a report that moves a learned table enough re-plans.
//  * The allocator is called whenever the pool or the set of jobs changed (it is skipped when its
//    input equals the previous call's, or when only nodes joined and every job is at its maximum);
//    its plan is applied at once, charging grow (Tcup) / shrink (Tcdw) stalls. Stalls queue: a new
//    stall starts when the current one ends.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "elastic/allocator/problem.h"
#include "elastic/replay/metrics.h"
#include "elastic/replay/scaling_knowledge.h"
#include "elastic/traces/hole_trace.h"
#include "elastic/traces/workload_csv.h"

namespace elastic::replay {

struct ReplayOptions {
  alloc::SolverKind solver = alloc::SolverKind::kMilp;
  alloc::Objective objective = alloc::Objective::kThroughput;
  double horizon_s = 10.0;
  double time_limit_s = 10.0;
  int max_running = 10;
  // What the allocator knows of the jobs' scalability (scaling_knowledge.h); progress is always
  // credited at the true rates.
  ScalingSource scaling = ScalingSource::kOracle;
  LearnOptions learn;
  // Hole-lifetime-aware planning (alloc::HoleLifetime, learned from the holes that ended so far):
  // hole_aware gives each pool node its expected remaining idle time and marks those expected to
  // leave within the horizon leaving_soon; hole_horizon replaces horizon_s at each solve with the
  // pool's median expected remaining idle time (within [1, 600] s).
  bool hole_aware = false;
  bool hole_horizon = false;
  // hole_loss values each count with the nodes' expected remaining idle time (Problem::
  // expect_departures, expected_loss.h): the Kaplan-Meier estimate over the holes that ended and
  // those open now (hole_survival.h), or with hole_censored = false over the ended ones only
  // (HoleLifetime::expected_residual). Growing jobs take the free nodes expected to stay longest.
  bool hole_loss = false;
  bool hole_censored = true;
  // With hole_loss and > 0: value a job that would finish before its nodes leave to its finish,
  // within this many times the pool's mean expected idle time (Problem::finish_window_scale).
  double finish_window_scale = 0.0;
  bool record_timeline = true;  // and the hourly totals
  // Called now and then with the fraction of the trace replayed (for a progress indicator).
  std::function<void(double fraction)> progress;
};

// One row per event instant, after the plan was applied.
struct TimelineRow {
  double time = 0.0;                        // Unix seconds
  int idle = 0;                             // nodes in the idle pool
  int allocated = 0;                        // nodes held by jobs
  int running = 0;                          // admitted jobs
  int queued = 0;                           // arrived, not admitted
  std::vector<std::pair<int, int>> counts;  // (workload job index, nodes), jobs holding nodes
};

// What one hour of the trace, [start + 3600 k, start + 3600 (k + 1)), held: the metrics' sums
// over that hour (stalls that straddle an hour are split at it). Summed over the hours they equal
// the run's metrics; a node grant counts in the hour it was made.
struct HourTotals {
  double hole_node_s = 0.0;
  double allocated_node_s = 0.0;
  double ideal_samples = 0.0;
  std::array<double, kStallCauses> lost_samples{};  // samples = ideal_samples - their sum
  std::int64_t node_grants = 0;
};

struct JobOutcome {
  double arrival = -1.0;  // Unix seconds; < 0: never arrived within the trace
  double finish = -1.0;   // < 0: not finished
  double samples = 0.0;
  int rescales = 0;
};

struct ReplayResult {
  Metrics metrics;
  std::vector<TimelineRow> timeline;
  std::vector<HourTotals> hours;  // hour k of the trace; recorded with the timeline
  std::vector<JobOutcome> jobs;   // same order as the workload
};

// Errors: the allocator's (with the event time), or InvalidArgument for an empty workload/trace.
absl::StatusOr<ReplayResult> run_replay(const traces::HoleTrace& trace,
                                        const std::vector<traces::WorkloadJob>& workload,
                                        const ReplayOptions& options);

}  // namespace elastic::replay
