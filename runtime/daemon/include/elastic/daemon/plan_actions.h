// The plan as actions: how elasticd states its allocation problem (the granted pool, each active
// job with the nodes it holds, stall estimates, horizon, solver and time limit) and how it turns
// the allocator's answer into the verbs it carries out — stop, shrink, start, grow. Pure and LOCAL:
// no MPI, no I/O, deterministic, so the daemon's decisions are unit-tested without running a job
// (tests/runtime/daemon/plan_actions_test.cc). Daemon::plan only orchestrates: build the problem,
// alloc::allocate, plan_actions, then one JobGroup verb per action.
#pragma once

#include <cstddef>
#include <cstdint>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "elastic/allocator/allocation.h"
#include "elastic/allocator/piecewise_linear.h"
#include "elastic/allocator/problem.h"
#include "elastic/control/hostfile.h"
#include "elastic/control/job_spec.h"

namespace elastic::rt {

// What elasticd's --solver, --solve-time-limit-s, --horizon-s, --grow-stall-s,
// --shrink-stall-s and --hole-loss set.
struct PlanOptions {
  alloc::SolverKind solver = alloc::SolverKind::kDp;
  double time_limit_s = 2.0;  // the daemon's loop waits for the solve: keep it short
  double horizon_s = 10.0;    // T_fwd (DESIGN.md): how long a plan is expected to hold
  // Stall estimates (U_j, D_j) for a job whose [scaling] gives none. Small but not zero, so that
  // plans of equal value do not shuffle nodes back and forth.
  double grow_stall_s = 1.0;
  double shrink_stall_s = 0.3;
  // Plan with each node's expected idle time (alloc::PoolHoles, learned from the hostfile's
  // history): a grow counts what the nodes make while they are expected to stay, less the stalls
  // their leaving causes (alloc::Problem::expect_departures; docs/replay.md, "Expected loss").
  bool hole_loss = false;
  // With hole_loss and > 0: a job that would reach its target before its nodes leave (within this
  // many times the pool's mean expected idle time) is valued to its finish
  // (alloc::Problem::finish_window_scale).
  double finish_window_scale = 0.0;
};

// The allocator's view of one job holding `held`: bounds, stalls and weight (1 + priority) from
// its spec; its scaling table from the spec's [scaling], else `learned` (the table learnt from its
// progress reports). With the spec's target_samples, the samples left to it after `samples_done`
// (what a grow onto a job about to finish costs, with hole_loss). InvalidArgument naming the field
// when the spec's table is malformed.
absl::StatusOr<alloc::Job> plan_job(const JobSpec& spec, std::vector<std::string> held,
                                    const alloc::PiecewiseLinear& learned,
                                    const PlanOptions& options, std::int64_t samples_done = 0);

// The problem for `jobs`, in their order: the pool less the `lost` nodes, in hostfile order,
// with the options' horizon, solver and time limit. Held nodes outside that pool stay in the jobs:
// alloc::allocate drops them, and plan_actions releases them. With options.hole_loss,
// `expected_idle_s` gives each pool node's expected idle seconds (pool order) and the problem
// expects departures; without it, or when the sizes differ, nodes are taken to stay.
alloc::Problem plan_problem(std::span<const HostEntry> pool, const std::set<std::string>& lost,
                            std::vector<alloc::Job> jobs, const PlanOptions& options,
                            std::span<const double> expected_idle_s = {});

struct PlanAction {
  enum class Kind {
    kStop,    // nothing of the job stays where it is; `nodes`: all it held
    kShrink,  // `nodes`: the held nodes that leave it
    kStart,   // the job holds nothing (or was stopped by this plan); `nodes`: where it starts
    kGrow,    // `nodes`: the nodes that join it
  };
  friend bool operator==(const PlanAction&, const PlanAction&) = default;

  Kind kind = Kind::kStop;
  std::size_t job = 0;             // index into Problem::jobs and Allocation::jobs
  std::vector<std::string> nodes;  // held order for stop/shrink, allocation order for start/grow
  std::string reason;              // a stop's, for the journal and the events; else empty
};

// The diff of what each job holds now (`held[j]`, node names, including nodes that have left the
// pool) against `allocation` (alloc::allocate's answer, jobs in the same order). Every stop and
// shrink comes first, then every start and grow, each phase in job order: the nodes a plan frees
// are free before another job takes them. A job gets at most one action per phase: a stop may be
// followed by a start on its new nodes, a shrink (of nodes that left the pool) by a grow. Jobs
// that keep their nodes get none. Requires held.size() == allocation.jobs.size().
std::vector<PlanAction> plan_actions(std::span<const std::vector<std::string>> held,
                                     const alloc::Allocation& allocation);

}  // namespace elastic::rt
