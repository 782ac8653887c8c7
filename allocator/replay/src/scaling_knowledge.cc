#include "elastic/replay/scaling_knowledge.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

namespace elastic::replay {
namespace {

bool non_decreasing(const alloc::PiecewiseLinear& table) {
  const auto& v = table.values();
  return std::is_sorted(v.begin(), v.end());
}

// Every job worth 1 per node up to its maximum.
alloc::PiecewiseLinear per_node_table(int max_nodes) {
  const int counts[] = {1, std::max(1, max_nodes)};
  const double values[] = {1.0, static_cast<double>(std::max(1, max_nodes))};
  return *alloc::PiecewiseLinear::create(std::span(counts, max_nodes > 1 ? 2 : 1),
                                         std::span(values, max_nodes > 1 ? 2 : 1));
}

}  // namespace

ScalingKnowledge::ScalingKnowledge(const std::vector<traces::WorkloadJob>& workload,
                                   ScalingSource source, const LearnOptions& learn)
    : workload_(workload), source_(source), learn_(learn), rng_(learn.seed) {
  monotone_.assign(workload.size(), 1);
  if (learns(source_)) {
    models_.resize(workload.size());
    planned_.resize(workload.size());
  }
  if (source_ == ScalingSource::kOracle) {
    for (std::size_t w = 0; w < workload.size(); ++w) {
      monotone_[w] = non_decreasing(workload[w].scaling) &&
                     (workload[w].value.empty() || non_decreasing(workload[w].value));
    }
  }
}

// As elasticd's Daemon::priors.
void ScalingKnowledge::update_priors(std::span<const std::size_t> admitted) {
  if (!learns(source_)) return;
  double best = 0;
  std::vector<const alloc::ScalingModel*> measured;
  for (std::size_t w : admitted) {
    if (!models_[w] || !models_[w]->has_data()) continue;
    best = std::max(best, models_[w]->r1());
    measured.push_back(&*models_[w]);
  }
  prior_per_node_ = alloc::unmeasured_prior(best);
  typical_serial_ = alloc::typical_serial_fraction(measured);
  if (source_ == ScalingSource::kProbing) probe_serial_ = alloc::probe_serial_fraction(measured);
}

alloc::PiecewiseLinear ScalingKnowledge::learned_table(std::size_t w) const {
  return models_[w]->table(prior_per_node_, typical_serial_, probe_serial_);
}

void ScalingKnowledge::fill(std::size_t w, alloc::Job& job) {
  const traces::WorkloadJob& wj = workload_[w];
  switch (source_) {
    case ScalingSource::kOracle:
      job.scaling = wj.scaling;
      if (!wj.value.empty()) job.value = wj.value;
      return;
    case ScalingSource::kNone:
      job.scaling = per_node_table(wj.max_nodes);
      return;
    case ScalingSource::kLearned:
    case ScalingSource::kProbing:
      if (!models_[w]) models_[w].emplace(wj.max_nodes);
      planned_[w] = learned_table(w);
      monotone_[w] = non_decreasing(planned_[w]);
      job.scaling = planned_[w];
      return;
  }
}

// Box-Muller on mt19937_64 (whose output the standard fixes), so a seed gives the same reports with
// every standard library.
double ScalingKnowledge::noise_factor() {
  if (learn_.noise <= 0) return 1.0;
  constexpr double kScale = 1.0 / 18446744073709551616.0;          // 2^-64
  const double u1 = (static_cast<double>(rng_()) + 1.0) * kScale;  // (0, 1]
  const double u2 = static_cast<double>(rng_()) * kScale;
  const double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
  return std::max(1e-3, 1.0 + learn_.noise * z);
}

bool ScalingKnowledge::report(std::size_t w, int nodes, double samples, double period_s) {
  if (!learns(source_) || samples <= 0 || period_s <= 0) return false;
  if (!models_[w]) models_[w].emplace(workload_[w].max_nodes);
  models_[w]->observe(nodes, samples / period_s * noise_factor());
  ++reports_;
  return alloc::changed_significantly(planned_[w], learned_table(w), alloc::kReplanOnChange);
}

}  // namespace elastic::replay
