// What the replay's allocator is told about each job's scalability (`elastic-replay --scaling`):
//  * oracle  — the workload's true tables (Ps, and Os as the value table): BFTrainer's setting;
//  * learned — nothing up front: each running job reports samples per reporting period with seeded
//    multiplicative noise, the first report after a change of its nodes is dropped, and the
//    planner uses alloc::ScalingModel's table with alloc::unmeasured_prior for jobs not measured
//    yet, exactly as elasticd does (MalleTrain's online profiling);
//  * probing — learned, and active probing: a job's table from its largest measured count to
//    twice it assumes the serial fraction of the better quarter of the measured jobs
//    (alloc::probe_serial_fraction) where that is more optimistic than its own, so the planner
//    tries one step beyond what it has seen when even the optimistic value is worth it;
//  * none    — no scalability information: every job is worth the same per node (BFTrainer
//    without profiles).
// The replay always credits progress at the true rates; only the planner's input differs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <random>
#include <span>
#include <vector>

#include "elastic/allocator/problem.h"
#include "elastic/allocator/scaling_model.h"
#include "elastic/traces/workload_csv.h"

namespace elastic::replay {

enum class ScalingSource { kOracle, kLearned, kProbing, kNone };

// Whether the planner learns the tables from reports (learned and probing).
constexpr bool learns(ScalingSource s) {
  return s == ScalingSource::kLearned || s == ScalingSource::kProbing;
}

struct LearnOptions {
  double report_period_s = 10.0;  // a running job reports at every multiple of this after the start
  double noise = 0.05;            // relative standard deviation of a report (normal, clamped > 0)
  std::uint64_t seed = 1;
};

class ScalingKnowledge {
 public:
  ScalingKnowledge(const std::vector<traces::WorkloadJob>& workload, ScalingSource source,
                   const LearnOptions& learn);

  ScalingSource source() const { return source_; }

  // Learned mode: recomputes, from the models of the admitted jobs (`admitted`: their workload
  // indices), what the tables of jobs not fully measured assume, as elasticd does: the rate per
  // node of a job not measured yet (alloc::unmeasured_prior of the largest learned r(1)) and the
  // serial fraction of a job measured at one count (alloc::typical_serial_fraction); when probing,
  // also alloc::probe_serial_fraction. Called once per plan and per report tick, before fill and
  // report.
  void update_priors(std::span<const std::size_t> admitted);

  // Sets job.scaling (and job.value for the oracle) for workload job `w` and remembers it as the
  // table planned with.
  void fill(std::size_t w, alloc::Job& job);

  // Whether the table last planned for `w` (and its value table) never falls with more nodes
  // (true before the first plan).
  bool planned_monotone(std::size_t w) const { return monotone_[w] != 0; }

  // A progress report of job `w` (learned mode; ignored otherwise): `samples` made over the last
  // `period_s` at `nodes` nodes, seen with noise. Returns true when its table moved by more than
  // alloc::kReplanOnChange since it was planned (elasticd re-plans then).
  bool report(std::size_t w, int nodes, double samples, double period_s);

  // Reports observed (learned mode).
  std::int64_t reports() const { return reports_; }

 private:
  alloc::PiecewiseLinear learned_table(std::size_t w) const;
  double noise_factor();

  const std::vector<traces::WorkloadJob>& workload_;
  ScalingSource source_;
  LearnOptions learn_;
  std::vector<std::optional<alloc::ScalingModel>> models_;  // learned mode, made on first use
  std::vector<alloc::PiecewiseLinear> planned_;             // learned mode: the last table planned
  std::vector<char> monotone_;
  std::mt19937_64 rng_;
  std::int64_t reports_ = 0;
  double prior_per_node_ = 1.0;  // learned mode: update_priors
  double typical_serial_ = 0.0;
  double probe_serial_ = -1.0;  // probing: update_priors; -1 is no probing
};

}  // namespace elastic::replay
