// Online scalability learning (MalleTrain's profiling) for jobs submitted without a throughput
// table: the runtime feeds the samples/s each running job reports at its current node count, and
// the allocator plans with the table learned so far instead of a made-up linear guess.
//
// Per node count the model keeps the median of the last kWindow reports (robust to a report that
// straddles a checkpoint or a stall; old reports age out, so a drifting rate is followed). Over those
// medians m_i at counts n_i it fits Amdahl's law r(n) = r1*n / (1 + s*(n-1)), s in [0, 1], through
// its linear form n/r = a + b*n with a = (1-s)/r1 and b = s/r1: a weighted least-squares line, in
// closed form, with weight k_i / y_i^2 on y_i = n_i/m_i (k_i = reports in the window), so that
// residuals are relative and a count seen more often counts more. When the line leaves s in [0, 1]
// the better of the two edges (s = 0 or s = 1) is taken, which is the exact constrained optimum.
//
// One measured count n0 cannot give s: the fit is linear through the measurement (s = 0), and the
// table takes the serial fraction the caller knows from the other jobs (`typical_serial`, e.g.
// typical_serial_fraction() of the admitted jobs' models), 0 when none has been measured at two
// counts yet. Linear alone is optimistic: with many jobs each measured at one count, the planner
// gave their nodes to jobs that did not scale (elastic-replay --scaling learned on the Summit
// slice with 1000 jobs admitted: 0.916 of the oracle's samples against 0.990-0.999 with the
// typical serial fraction, three seeds; docs/replay.md). Either way, the job's reports at a new count teach the model
// the rest of its own curve. No data at all gives `prior_per_node` at one node (optimism that gets
// a new job measured) and the typical serial fraction's curve from there; while there is no
// typical curve (fewer than kTypicalMinFits jobs measured at two counts), nothing beyond the first
// node (flat). A linear prior made every new job
// look worth the most at any count: with 1000 jobs admitted the planner spread nodes over
// unmeasured jobs, and hps made 0.989-1.000 of the oracle's samples over three seeds; with the
// typical curve, 1.006 (elastic-replay --scaling learned, docs/replay.md). Linear while no curve
// was known, it made elasticd stop both running jobs of the demo to start a third, never run, on
// all five hosts (docs/runtime.md, "Jobs without a scaling table").
//
// Active probing (`probe_serial`, off by default): a job's curve beyond its largest measured count
// n_max is an extrapolation, and a pessimistic one is never corrected, because the planner never
// gives the job a count it believes is worth little. With probing, the table from n_max up to
// 2 n_max (one step beyond what was seen) continues with the serial fraction of the better quarter
// of the measured jobs (probe_serial_fraction) when that is more optimistic than the job's own, and
// follows the job's own curve from there. The planner then tries the step when even the
// optimistic value beats the alternatives; the job's reports at that count replace the optimism.
//
// The table reproduces the measurements: its value is fit(n) * c(n), where c = m_i / fit(n_i) at
// measured counts, linear in n between them and held at the nearest one outside them. So measured
// counts get their medians exactly, other counts follow the Amdahl shape, and nothing jumps. The table
// is not forced to be non-decreasing: when a measured count is slower than a smaller one, adding
// nodes hurts, and the allocator handles such tables.
#pragma once

#include <array>
#include <cstddef>
#include <map>
#include <span>

#include "elastic/allocator/piecewise_linear.h"

namespace elastic::alloc {

class ScalingModel {
 public:
  // Reports kept per node count (at one report per 0.5 s: the last ~15 s at that count).
  static constexpr std::size_t kWindow = 31;

  // Tables cover 1..max_nodes (values below 1 are taken as 1).
  explicit ScalingModel(int max_nodes);

  // One measured rate at `nodes` nodes (a progress report). Rates right after a rescale are noisy:
  // the caller drops the first report after each change. Non-finite or <= 0 rates (and rates so
  // large that rate * max_nodes overflows) and counts outside [1, max_nodes] are ignored.
  void observe(int nodes, double samples_per_s);

  bool has_data() const { return !counts_.empty(); }
  int distinct_counts() const { return static_cast<int>(counts_.size()); }
  int max_nodes() const { return max_nodes_; }

  // The throughput table over 1..max_nodes: every count up to 32, then a breakpoint every ~6%
  // (PiecewiseLinear interpolates between them; an Amdahl curve is within 0.05% of its chords
  // there), plus every measured count and max_nodes. `prior_per_node` is the samples/s at one node
  // assumed with no data (e.g. unmeasured_prior of the other jobs); non-finite or <= 0 means 1, so
  // a job with neither data nor a prior still competes for nodes and gets measured.
  // `typical_serial` is the serial fraction assumed while the job is measured at one count or
  // none; values outside (0, 1] mean linear at one count and flat (the prior at every count) at
  // none. `probe_serial` in [0, 1] turns active probing on
  // (above): the serial fraction from the largest measured count to twice it, where it is below
  // the job's own; values outside [0, 1] mean no probing.
  PiecewiseLinear table(double prior_per_node, double typical_serial = 0.0,
                        double probe_serial = -1.0) const;

  // The fit, for logs and tests: r(1) in samples/s and the serial fraction s. Both 0 with no data.
  double r1() const { return r1_; }
  double serial_fraction() const { return serial_; }
  // The median of the reports in the window at `nodes` nodes; 0 when there is none.
  double measured(int nodes) const;

 private:
  struct Reports {
    std::array<double, kWindow> ring{};
    std::size_t size = 0;  // filled slots, <= kWindow
    std::size_t next = 0;  // slot the next report overwrites
    double median = 0.0;
  };

  void refit();
  // prior_per_node when finite (also times max_nodes) and > 0, else 1.
  double usable_prior(double prior_per_node) const;

  int max_nodes_;
  std::map<int, Reports> counts_;  // by node count, increasing
  double r1_ = 0.0;
  double serial_ = 0.0;
};

// The policy around the model, shared by elasticd and elastic-replay's learned mode so that the
// replay measures what the daemon does.
// Relative change of a learned table that is worth a re-plan (changed_significantly's rel_tol).
inline constexpr double kReplanOnChange = 0.1;
// How much better than the best measured job an unmeasured one is assumed to be.
inline constexpr double kExplorationBonus = 0.1;

// Samples/s per node assumed for a job with neither a table nor reports, given the largest r(1)
// of the other active jobs (`best_r1`, <= 0 when none is known): optimism in the face of
// uncertainty. best_r1 raised by kExplorationBonus, so that a job that has not run yet wins nodes
// from a measured job that looks no better (with an equal guess the plan would keep the incumbent
// forever), gets measured, and then competes on its own data; 1 when nothing is known.
double unmeasured_prior(double best_r1);

// Fits a typical serial fraction needs: one job's curve is not what jobs are like. With one, a job
// that did not scale made the next one, which did, look flat at the count it was first measured
// at, so the planner never grew it (e2e runtime.elasticd.learn).
inline constexpr std::size_t kTypicalMinFits = 3;

// The serial fraction of a typical job: the median over `models` of the fits measured at two
// or more counts (null entries and the others are skipped); 0 when there are fewer than
// kTypicalMinFits.
double typical_serial_fraction(std::span<const ScalingModel* const> models);

// The serial fraction of the better quarter of the jobs: the lower quartile over `models` of the fits
// measured at two or more counts (as typical_serial_fraction); 0 (linear) when there is none.
double probe_serial_fraction(std::span<const ScalingModel* const> models);

// Whether two tables differ by more than `rel_tol` (relative to the larger value) at some integer
// count from 1 to the larger table's last count: the runtime re-plans on new throughput data
// when this says so, instead of on every 0.5 s report. An empty table differs from a non-empty one.
bool changed_significantly(const PiecewiseLinear& before, const PiecewiseLinear& after,
                           double rel_tol);

}  // namespace elastic::alloc
