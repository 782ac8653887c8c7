// Replay speed (issue 3, issue 13 item 5): the 2-day Summit slice, the slice tiled back to back to
// 15 days (4,650 nodes, ~25,000 event instants) with the 1,000-job ShuffleNet workload, and a
// synthetic 50,000-node, 30-day trace (synthetic_trace.h) with 10,000 jobs cycled from the
// ImageNet tables (synthetic_workload.h), admitted as many at once as fill the mean idle pool. The
// targets: < 60 s per replay on one core and a p99 solve <= 20 ms with dp. equal-share is the
// baseline in the same run (registered first per trace); counters: events, solves, solve p50/p99/
// max (ms), wall seconds per simulated day, and wall time against equal-share's on the same trace.
//
//   build/bench/replay/replay_bench [--data=DIR] [google-benchmark flags]
// DIR is the shared data folder (default: the build's ELASTIC_SHARED_DATA). A missing data file
// ends the run naming it (exit 2); an unknown argument is refused (exit 2).
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "elastic/allocator/solver_table.h"
#include "elastic/cli/exit_code.h"
#include "elastic/replay/scale_workload.h"
#include "elastic/replay/simulator.h"
#include "elastic/replay/synthetic_trace.h"
#include "elastic/replay/synthetic_workload.h"
#include "elastic/replay/tile_trace.h"
#include "elastic/traces/interval_csv.h"
#include "elastic/traces/workload_csv.h"

namespace {

using namespace elastic;

// The shared data folder (--data=DIR).
std::string g_data = ELASTIC_SHARED_DATA;

// The inputs are built on first use, inside a benchmark: one that cannot be is the end of the run,
// said with what it was and why (it was a bare abort()).
template <typename T>
const T& or_exit(const absl::StatusOr<T>& value, const std::string& what) {
  if (!value.ok()) {
    // The loaders' messages start with the file already.
    const std::string message(value.status().message());
    std::fprintf(
        stderr, "replay_bench: %s\n",
        (message.find(what) != std::string::npos ? message : what + ": " + message).c_str());
    std::exit(cli::exit_code(value.status()));
  }
  return *value;
}

const traces::HoleTrace& slice() {
  static const std::string path =
      g_data + "/nodestate/summit_2021-02-10_first2days_idle_intervals.csv.gz";
  static const traces::HoleTrace trace = or_exit(traces::load_interval_csv(path, {}), path);
  return trace;
}

const traces::HoleTrace& tiled15() {
  static const traces::HoleTrace trace =
      or_exit(replay::tile_trace(slice(), 15 * 86400.0), "tiling the trace to 15 days");
  return trace;
}

const traces::HoleTrace& synthetic50k() {
  static const traces::HoleTrace trace =
      or_exit(replay::synthetic_trace({}), "the synthetic 50,000-node trace");
  return trace;
}

const std::vector<traces::WorkloadJob>& shufflenet() {
  static const std::string path = g_data + "/workloads/hps-shufflenet-jobs-1000J.csv.gz";
  static const std::vector<traces::WorkloadJob> jobs =
      or_exit(traces::load_workload_csv(path), path);
  return jobs;
}

const std::vector<traces::WorkloadJob>& imagenet10k() {
  static const std::string path = g_data + "/workloads/ImageNet-imgps-jobs-1001J.csv.gz";
  static const std::vector<traces::WorkloadJob> jobs =
      or_exit(replay::synthetic_workload(or_exit(traces::load_workload_csv(path), path), 10'000,
                                         synthetic50k().start,
                                         synthetic50k().end - synthetic50k().start, 1),
              "the synthetic 10,000-job workload");
  return jobs;
}

struct Case {
  std::string name;
  const traces::HoleTrace& (*trace)();
  const std::vector<traces::WorkloadJob>& (*workload)();
  int max_running;  // 0: as many as fill the mean idle pool (copies_to_fill x 10)
};

// Wall seconds of the baseline (equal-share) per case, measured earlier in the same run.
std::map<std::string, double>& baseline_wall() {
  static std::map<std::string, double> wall;
  return wall;
}

void run(benchmark::State& state, const Case& c, const alloc::Solver& solver) {
  replay::ReplayOptions options;
  options.solver = solver.kind;
  options.record_timeline = false;
  options.max_running =
      c.max_running > 0 ? c.max_running : 10 * replay::copies_to_fill(c.trace(), c.workload(), 10);
  replay::Metrics m;
  for (auto _ : state) {
    auto r = replay::run_replay(c.trace(), c.workload(), options);
    if (!r.ok()) {
      state.SkipWithError(std::string(r.status().message()).c_str());
      return;
    }
    m = r->metrics;
  }
  const traces::HoleTrace& trace = c.trace();
  state.counters["nodes"] = static_cast<double>(trace.node_names.size());
  state.counters["max_running"] = options.max_running;
  state.counters["events"] = static_cast<double>(m.events);
  state.counters["solves"] = static_cast<double>(m.solves);
  state.counters["solve_ms_p50"] = m.solve_ms_p50;
  state.counters["solve_ms_p99"] = m.solve_ms_p99;
  state.counters["solve_ms_max"] = m.solve_ms_max;
  state.counters["elastic_eff"] = m.elastic_efficiency;
  state.counters["wall_s"] = m.wall_s;
  state.counters["s_per_day"] = m.wall_s / ((trace.end - trace.start) / 86400.0);
  if (solver.kind == alloc::SolverKind::kEqualShare) {
    baseline_wall()[c.name] = m.wall_s;
  } else if (const auto it = baseline_wall().find(c.name); it != baseline_wall().end()) {
    state.counters["wall_vs_equal_share"] = m.wall_s / it->second;
  }
}

void add(const Case& c, const alloc::Solver& solver) {
  benchmark::RegisterBenchmark((c.name + "/" + std::string(solver.name)).c_str(),
                               [c, &solver](benchmark::State& state) { run(state, c, solver); })
      ->Iterations(1)
      ->Unit(benchmark::kSecond)
      ->UseRealTime();
}

}  // namespace

// Per case equal-share first (the baseline), then every other solver of the table but the node
// MILP (a binary per job and node: thousands of nodes are out of its reach); the 50,000-node case
// runs dp only against the baseline (the count MILP takes minutes there).
int main(int argc, char** argv) {
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--data=", 0) == 0) {
      g_data = arg.substr(7);
    } else {
      args.push_back(argv[i]);
    }
  }
  int bench_argc = static_cast<int>(args.size());
  benchmark::Initialize(&bench_argc, args.data());
  if (benchmark::ReportUnrecognizedArguments(bench_argc, args.data())) {
    std::fprintf(stderr, "usage: replay_bench [--data=DIR] [google-benchmark flags]\n");
    return 2;
  }
  const Case cases[] = {{"Summit2d", slice, shufflenet, 10},
                        {"Tiled15d", tiled15, shufflenet, 10},
                        {"Synthetic50k30d", synthetic50k, imagenet10k, 0}};
  for (const Case& c : cases) {
    add(c, *alloc::find_solver(alloc::SolverKind::kEqualShare));
    for (const alloc::Solver& s : alloc::solver_table()) {
      if (s.kind == alloc::SolverKind::kNodeMilp || s.kind == alloc::SolverKind::kEqualShare) {
        continue;
      }
      if (c.name == "Synthetic50k30d" && s.kind != alloc::SolverKind::kDp) continue;
      add(c, s);
    }
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
