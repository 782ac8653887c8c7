#include "elastic/replay/metrics.h"

#include <algorithm>
#include <cmath>

namespace elastic::replay {

double percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0.0;
  std::sort(values.begin(), values.end());
  const double rank = std::ceil(p / 100.0 * static_cast<double>(values.size()));
  const std::size_t i = rank < 1.0 ? 0 : static_cast<std::size_t>(rank) - 1;
  return values[std::min(i, values.size() - 1)];
}

const char* to_string(StallCause cause) {
  switch (cause) {
    case StallCause::kStart:
      return "start";
    case StallCause::kGrow:
      return "grow";
    case StallCause::kShrink:
      return "shrink";
    case StallCause::kPreemption:
      return "preemption";
  }
  return "?";
}

nlohmann::json to_json(const Metrics& m) {
  nlohmann::json lost = nlohmann::json::object();
  for (std::size_t c = 0; c < kStallCauses; ++c) {
    lost[to_string(static_cast<StallCause>(c))] = m.lost_samples[c];
  }
  return {
      {"policy", m.policy},
      {"trace_start_unix", m.trace_start},
      {"trace_end_unix", m.trace_end},
      {"trace_nodes", m.nodes},
      {"events", m.events},
      {"hole_node_s", m.hole_node_s},
      {"allocated_node_s", m.allocated_node_s},
      {"utilization", m.utilization},
      {"ideal_samples", m.ideal_samples},
      {"samples", m.samples},
      {"elastic_efficiency", m.elastic_efficiency},
      {"lost_samples", lost},
      {"scaling_ideal_samples", m.scaling_ideal_samples},
      {"scaling_efficiency", m.scaling_efficiency},
      {"jobs_in_workload", m.jobs_in_workload},
      {"jobs_submitted", m.jobs_submitted},
      {"jobs_finished", m.jobs_finished},
      {"rescales", m.rescales},
      {"preemptions", m.preemptions},
      {"node_grants", m.node_grants},
      {"nodes_freed_by_finishes", m.nodes_freed_by_finishes},
      {"solves", m.solves},
      {"solves_skipped", m.solves_skipped},
      {"solves_not_optimal", m.solves_not_optimal},
      {"reports", m.reports},
      {"learned_replans", m.learned_replans},
      {"solve_ms", {{"p50", m.solve_ms_p50}, {"p99", m.solve_ms_p99}, {"max", m.solve_ms_max}}},
      {"job_completion_s", {{"p50", m.jct_s_p50}, {"p99", m.jct_s_p99}}},
      {"replay_wall_s", m.wall_s},
      {"input",
       {{"skipped_lines", m.input.skipped_lines},
        {"clipped_jobs", m.input.clipped_jobs},
        {"oversubscribed_jobs", m.input.oversubscribed_jobs},
        {"ignored_jobs", m.input.ignored_jobs}}},
  };
}

}  // namespace elastic::replay
