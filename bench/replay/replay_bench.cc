// Replay speed (issue 3): the 2-day Summit slice and a synthetic 15-day, 4,650-node trace (the
// slice tiled back to back, ~25,000 event instants) with the 1,000-job ShuffleNet workload. The
// target is < 60 s per 15-day replay on one core. equal-share is the baseline in the same run;
// counters: events, solves, wall seconds per simulated day, and the exact solver's time ratio.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <string>

#include "elastic/allocator/solver_table.h"
#include "elastic/replay/simulator.h"
#include "elastic/replay/tile_trace.h"
#include "elastic/traces/interval_csv.h"
#include "elastic/traces/workload_csv.h"

namespace {

using namespace elastic;

const std::string kData = ELASTIC_SHARED_DATA;

const traces::HoleTrace& slice() {
  static const traces::HoleTrace trace = [] {
    auto t = traces::load_interval_csv(
        kData + "/nodestate/summit_2021-02-10_first2days_idle_intervals.csv.gz", {});
    if (!t.ok()) std::abort();
    return *t;
  }();
  return trace;
}

const traces::HoleTrace& tiled(double days) {
  static const traces::HoleTrace trace = [days] {
    auto t = replay::tile_trace(slice(), days * 86400.0);
    if (!t.ok()) std::abort();
    return *t;
  }();
  return trace;
}

const std::vector<traces::WorkloadJob>& workload() {
  static const std::vector<traces::WorkloadJob> jobs = [] {
    auto w = traces::load_workload_csv(kData + "/workloads/hps-shufflenet-jobs-1000J.csv.gz");
    if (!w.ok()) std::abort();
    return *w;
  }();
  return jobs;
}

void run(benchmark::State& state, const traces::HoleTrace& trace, alloc::SolverKind solver) {
  replay::ReplayOptions options;
  options.solver = solver;
  options.record_timeline = false;
  replay::Metrics m;
  for (auto _ : state) {
    auto r = replay::run_replay(trace, workload(), options);
    if (!r.ok()) {
      state.SkipWithError(std::string(r.status().message()).c_str());
      return;
    }
    m = r->metrics;
  }
  state.counters["events"] = static_cast<double>(m.events);
  state.counters["solves"] = static_cast<double>(m.solves);
  state.counters["solve_ms_max"] = m.solve_ms_max;
  state.counters["elastic_eff"] = m.elastic_efficiency;
  state.counters["s_per_day"] = m.wall_s / ((trace.end - trace.start) / 86400.0);
}

const traces::HoleTrace& tiled15() { return tiled(15.0); }

void add(const std::string& name, const traces::HoleTrace& (*trace)(), alloc::SolverKind kind) {
  benchmark::RegisterBenchmark(
      name.c_str(), [trace, kind](benchmark::State& state) { run(state, trace(), kind); })
      ->Iterations(1)
      ->Unit(benchmark::kSecond)
      ->UseRealTime();
}

}  // namespace

// One run per solver of the table but the node MILP (a binary per job and node: thousands of
// nodes are out of its reach).
int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  for (const alloc::Solver& s : alloc::solver_table()) {
    if (s.kind == alloc::SolverKind::kNodeMilp) continue;
    add("Summit2d/" + std::string(s.name), slice, s.kind);
    add("Tiled15d/" + std::string(s.name), tiled15, s.kind);
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
