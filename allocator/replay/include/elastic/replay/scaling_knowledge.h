// What the replay's allocator is told about each job's scalability (`elastic-replay --scaling`):
//  * oracle  — the workload's true tables (Ps, and Os as the value table): BFTrainer's setting;
//  * learned — nothing up front: each running job reports samples per reporting period with seeded
//    multiplicative noise, the first report after a change of its nodes is dropped, and the
//    planner uses alloc::ScalingModel's table with alloc::unmeasured_prior for jobs not measured
//    yet, exactly as elasticd does (MalleTrain's online profiling);
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

enum class ScalingSource { kOracle, kLearned, kNone };

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

  // Sets job.scaling (and job.value for the oracle) for workload job `w` and remembers it as the
  // table planned with. `admitted`: the workload indices of the admitted jobs, whose learned r(1)
  // set the prior of jobs not measured yet.
  void fill(std::size_t w, std::span<const std::size_t> admitted, alloc::Job& job);

  // Whether the table last planned for `w` (and its value table) never falls with more nodes
  // (true before the first plan).
  bool planned_monotone(std::size_t w) const { return monotone_[w] != 0; }

  // A progress report of job `w` (learned mode; ignored otherwise): `samples` made over the last
  // `period_s` at `nodes` nodes, seen with noise. Returns true when its table moved by more than
  // alloc::kReplanOnChange since it was planned (elasticd re-plans then).
  bool report(std::size_t w, int nodes, double samples, double period_s,
              std::span<const std::size_t> admitted);

  // Reports observed (learned mode).
  std::int64_t reports() const { return reports_; }

 private:
  double prior(std::span<const std::size_t> admitted) const;
  double noise_factor();

  const std::vector<traces::WorkloadJob>& workload_;
  ScalingSource source_;
  LearnOptions learn_;
  std::vector<std::optional<alloc::ScalingModel>> models_;  // learned mode, made on first use
  std::vector<alloc::PiecewiseLinear> planned_;             // learned mode: the last table planned
  std::vector<char> monotone_;
  std::mt19937_64 rng_;
  std::int64_t reports_ = 0;
};

}  // namespace elastic::replay
