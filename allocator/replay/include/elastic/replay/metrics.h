// What a replay measured (../shared/DESIGN.md "Metrics") and how it is written to metrics.json.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "elastic/traces/hole_trace.h"
#include "nlohmann/json.hpp"

namespace elastic::replay {

// Why a job stood still: a start from no node (Tcup), a grow of a running job (Tcup), a planned
// shrink (Tcdw), or held nodes that left the pool (Tcdw).
enum class StallCause { kStart, kGrow, kShrink, kPreemption };
inline constexpr std::size_t kStallCauses = 4;
const char* to_string(StallCause cause);

struct Metrics {
  std::string policy;
  double trace_start = 0.0;  // Unix seconds
  double trace_end = 0.0;
  int nodes = 0;                    // distinct nodes in the trace
  std::int64_t events = 0;          // event instants handled
  double hole_node_s = 0.0;         // H = integral of idle(t)
  double allocated_node_s = 0.0;    // A = integral of sum_j N_j(t)
  double utilization = 0.0;         // A / H
  double ideal_samples = 0.0;       // I = sum_j integral r_j(N_j(t)) dt
  double samples = 0.0;             // S: I less stalls (and nothing is lost beyond them here)
  double elastic_efficiency = 0.0;  // S / I
  // I - S split by the stall that lost it (index: StallCause): the samples r_j(N_j) not made
  // while the job stood still.
  std::array<double, kStallCauses> lost_samples{};
  double scaling_ideal_samples = 0.0;  // sum_j integral N_j(t) r_j(1) dt
  double scaling_efficiency = 0.0;     // S / scaling_ideal_samples
  std::int64_t jobs_in_workload = 0;
  std::int64_t jobs_submitted = 0;  // arrived before the trace ended
  std::int64_t jobs_finished = 0;
  std::int64_t rescales = 0;                 // grows + shrinks applied from plans
  std::int64_t preemptions = 0;              // held nodes lost because they left the pool
  std::int64_t node_grants = 0;              // nodes taken by growing jobs (each pays a Tcup)
  std::int64_t nodes_freed_by_finishes = 0;  // nodes a finishing job gave back
  std::int64_t solves = 0;                   // allocator calls
  std::int64_t solves_skipped = 0;           // events where the allocator's answer was known
  std::int64_t solves_not_optimal = 0;       // time limit hit
  std::int64_t reports = 0;                  // progress reports observed (learned scaling)
  std::int64_t learned_replans = 0;  // report instants at which a learned table moved enough
  double solve_ms_p50 = 0.0, solve_ms_p99 = 0.0, solve_ms_max = 0.0;
  double jct_s_p50 = 0.0, jct_s_p99 = 0.0;  // job completion time: finish - arrival, finished jobs
  double wall_s = 0.0;                      // replay time
  traces::InputStats input;
};

// Nearest-rank percentile (p in [0,100]) of unsorted values; 0 for none.
double percentile(std::vector<double> values, double p);

nlohmann::json to_json(const Metrics& m);

}  // namespace elastic::replay
