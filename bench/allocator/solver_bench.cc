// Solve time of every count solver on instances built from the measured scalability tables of
// the BFTrainer evaluation (../shared/data/workloads/model_scalability_profiles.csv): each job
// runs a random one of the 7 models, holds a random number of nodes and stalls 10-20 s to
// rescale. Ends with a table of median times and the speed-up over BFTrainer's node-level MILP
// measured in the same run (the node MILP only runs where it can finish within its time limit).
//
//   build/bench/allocator/solver_bench [--profiles=PATH] [google-benchmark flags]
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "elastic/allocator/count_model.h"
#include "elastic/allocator/solver_table.h"

#ifndef ELASTIC_SHARED_DATA
#define ELASTIC_SHARED_DATA "../shared/data"
#endif

namespace elastic::alloc {
namespace {

constexpr double kNodeMilpLimitS = 60.0;
constexpr double kTimeLimitS = 60.0;
constexpr std::uint64_t kSeed = 20240611;

struct Size {
  int jobs;
  int nodes;
};
constexpr Size kSizes[] = {{10, 64}, {10, 256}, {10, 1024}, {100, 4734}, {1000, 10000}};

struct Profile {
  std::string model;
  int first_line = 0;
  std::vector<int> counts;
  std::vector<double> throughput;
  PiecewiseLinear table;  // counts -> throughput, once every row is read
};

// model,nodes,throughput_Ps,speedup_Os; rows of one model are contiguous and increasing (checked
// where the tables are built). A bad line exits 2 naming the file, line and field.
std::vector<Profile> load_profiles(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "%s: cannot open the scalability profiles\n", path.c_str());
    std::exit(2);
  }
  auto fail = [&](int line_no, const std::string& what) {
    std::fprintf(stderr, "%s:%d: %s\n", path.c_str(), line_no, what.c_str());
    std::exit(2);
  };
  std::vector<Profile> profiles;
  std::set<std::string> finished;  // models whose rows have ended
  std::string line;
  int line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    const std::vector<std::string> fields = absl::StrSplit(line, ',');
    if (line_no == 1) {
      if (fields.size() < 3 || fields[0] != "model" || fields[1] != "nodes" ||
          fields[2] != "throughput_Ps") {
        fail(line_no, "expected the header model,nodes,throughput_Ps,...");
      }
      continue;
    }
    if (line.empty()) continue;
    if (fields.size() < 3) fail(line_no, "expected model,nodes,throughput_Ps,...");
    int nodes = 0;
    double ps = 0.0;
    if (!absl::SimpleAtoi(fields[1], &nodes) || nodes < 0) {
      fail(line_no, "nodes: not a node count: '" + fields[1] + "'");
    }
    if (!absl::SimpleAtod(fields[2], &ps) || !std::isfinite(ps) || ps < 0) {
      fail(line_no, "throughput_Ps: not a rate >= 0: '" + fields[2] + "'");
    }
    const std::string& model = fields[0];
    if (profiles.empty() || profiles.back().model != model) {
      if (!profiles.empty()) finished.insert(profiles.back().model);
      if (finished.count(model) != 0) fail(line_no, "model: rows of '" + model + "' are split");
      profiles.push_back({model, line_no, {}, {}, {}});
    }
    profiles.back().counts.push_back(nodes);
    profiles.back().throughput.push_back(ps);
  }
  if (profiles.empty()) {
    std::fprintf(stderr, "%s: no profiles\n", path.c_str());
    std::exit(2);
  }
  for (Profile& p : profiles) {
    absl::StatusOr<PiecewiseLinear> table =
        PiecewiseLinear::create(p.counts, p.throughput, p.model);
    if (!table.ok()) fail(p.first_line, std::string(table.status().message()));
    p.table = *std::move(table);
  }
  return profiles;
}

CountModel build_instance(const std::vector<Profile>& profiles, Size size) {
  std::mt19937_64 rng(kSeed + static_cast<std::uint64_t>(size.jobs) * 100003u +
                      static_cast<std::uint64_t>(size.nodes));
  auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  CountModel model;
  model.pool = size.nodes;
  model.horizon_s = 10.0;
  // Held counts: a random split of about 80% of the pool, as after earlier decisions.
  int free = size.nodes * 4 / 5;
  for (int j = 0; j < size.jobs; ++j) {
    const Profile& p =
        profiles[static_cast<std::size_t>(uniform(0, static_cast<int>(profiles.size()) - 1))];
    CountJob job;
    job.value = p.table;
    job.lo = uniform(1, 2);
    job.hi = std::min(size.nodes,
                      std::vector<int>{16, 32, 64, 128}[static_cast<std::size_t>(uniform(0, 3))]);
    const int fair = std::max(1, 2 * size.nodes / size.jobs);
    job.current = std::min({free, job.hi, uniform(0, fair)});
    free -= job.current;
    const double held_value = job.current >= job.lo ? job.value.at(job.current) : 0.0;
    job.grow_cost = uniform(10, 20) * held_value;
    job.shrink_cost = uniform(10, 20) * held_value;
    model.jobs.push_back(std::move(job));
  }
  return model;
}

struct SolverEntry {
  std::string name;
  std::function<absl::StatusOr<CountSolution>(const CountModel&, const SolveOptions&)> solve;
  SolveOptions options;
  int max_node_binaries = 0;  // > 0: only sizes with jobs x nodes up to this
};

// Every solver of the table; the exact ones also without the Lagrangian presolve ("_nopre"). The
// node MILP (the baseline, no presolve) and the count MILP without presolve only where they finish.
std::vector<SolverEntry> solvers() {
  std::vector<SolverEntry> entries;
  for (const Solver& s : solver_table()) {
    const std::string name(s.name);
    if (s.kind == SolverKind::kNodeMilp) {
      entries.push_back({name, s.solve, {kNodeMilpLimitS, false}, 10 * 256});
      continue;
    }
    entries.push_back({name, s.solve, {kTimeLimitS, true}, 0});
    if (s.exact) {
      const int cap = s.kind == SolverKind::kMilp ? 10 * 1024 : 0;
      entries.push_back({name + "_nopre", s.solve, {kTimeLimitS, false}, cap});
    }
  }
  return entries;
}

struct Outcome {
  double median_ms = -1.0;
  std::string note;  // "time limit", an error, or the objective
  double objective = 0.0;
};
std::map<std::pair<std::string, std::string>, Outcome> g_outcomes;

std::string size_label(Size s) { return std::to_string(s.jobs) + "x" + std::to_string(s.nodes); }

void run_solver(benchmark::State& state, const SolverEntry& solver, const CountModel* model,
                const std::string& label) {
  Outcome& outcome = g_outcomes[{solver.name, label}];
  if (outcome.note == "time limit" || outcome.note.rfind("error", 0) == 0) {
    state.SkipWithError(outcome.note.c_str());
    return;
  }
  for (auto _ : state) {
    auto solution = solver.solve(*model, solver.options);
    if (!solution.ok()) {
      outcome.note = "error: " + std::string(solution.status().message());
      state.SkipWithError(outcome.note.c_str());
      return;
    }
    if (solution->status == SolveStatus::kTimeLimit) {
      outcome.note = "time limit";
      state.SkipWithError("time limit");
      return;
    }
    outcome.objective = solution->objective;
    benchmark::DoNotOptimize(solution->counts.data());
  }
}

// Collects the median of each (solver, size) while printing as usual.
class TableReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) {
      if (run.run_type != Run::RT_Aggregate || run.aggregate_name != "median") continue;
      const std::string name = run.run_name.function_name;  // "solver/size"
      const auto slash = name.find('/');
      g_outcomes[{name.substr(0, slash), name.substr(slash + 1)}].median_ms =
          run.GetAdjustedRealTime();
    }
    ConsoleReporter::ReportRuns(runs);
  }
};

void print_table() {
  std::printf("\n%-18s %-11s %12s %14s %s\n", "solver", "jobs x nodes", "median ms", "vs node MILP",
              "objective / note");
  for (Size size : kSizes) {
    const std::string label = size_label(size);
    const auto base = g_outcomes.find({std::string(to_string(SolverKind::kNodeMilp)), label});
    const bool have_base = base != g_outcomes.end() && base->second.median_ms > 0;
    for (const SolverEntry& solver : solvers()) {
      const auto it = g_outcomes.find({solver.name, label});
      if (it == g_outcomes.end()) continue;
      const Outcome& o = it->second;
      if (o.median_ms < 0 && o.note.empty()) continue;  // filtered out on the command line
      char speedup[32] = "-";
      if (have_base && o.median_ms > 0) {
        // At least three significant digits: "%.0fx" printed a slow-down to under half as "0x".
        const double ratio = base->second.median_ms / o.median_ms;
        std::snprintf(speedup, sizeof speedup, ratio >= 100 ? "%.0fx" : "%.3gx", ratio);
      }
      char median[32] = "-";
      if (o.median_ms > 0) std::snprintf(median, sizeof median, "%.4g", o.median_ms);
      std::string note = o.note;
      if (note.empty()) note = std::to_string(o.objective);
      std::printf("%-18s %-11s %12s %14s %s\n", solver.name.c_str(), label.c_str(), median, speedup,
                  note.c_str());
    }
  }
}

}  // namespace
}  // namespace elastic::alloc

int main(int argc, char** argv) {
  using namespace elastic::alloc;
  std::string profiles_path =
      std::string(ELASTIC_SHARED_DATA) + "/workloads/model_scalability_profiles.csv";
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--profiles=", 0) == 0) {
      profiles_path = arg.substr(11);
    } else {
      args.push_back(argv[i]);
    }
  }
  int bench_argc = static_cast<int>(args.size());
  benchmark::Initialize(&bench_argc, args.data());
  // What Google Benchmark did not take is a mistake, not something to skip: `--profiles PATH`
  // (no '=') benchmarked the default profiles, `--benchmark_filtr=dp` every solver.
  if (benchmark::ReportUnrecognizedArguments(bench_argc, args.data())) {
    std::fprintf(stderr, "usage: solver_bench [--profiles=PATH] [google-benchmark flags]\n");
    return 2;
  }

  const std::vector<Profile> profiles = load_profiles(profiles_path);
  static std::vector<CountModel> models;
  models.reserve(std::size(kSizes));
  for (Size size : kSizes) models.push_back(build_instance(profiles, size));

  for (std::size_t s = 0; s < std::size(kSizes); ++s) {
    const Size size = kSizes[s];
    const std::string label = size_label(size);
    for (const SolverEntry& solver : solvers()) {
      if (solver.max_node_binaries > 0 && size.jobs * size.nodes > solver.max_node_binaries)
        continue;
      const bool slow = solver.name.find("milp") != std::string::npos;
      auto* b = benchmark::RegisterBenchmark(
          (solver.name + "/" + label).c_str(),
          [solver, label, model = &models[s]](benchmark::State& state) {
            run_solver(state, solver, model, label);
          });
      b->Unit(benchmark::kMillisecond)
          ->UseRealTime()
          ->Repetitions(slow ? 3 : 7)
          ->ReportAggregatesOnly(true);
      if (slow) b->Iterations(1);
      g_outcomes[{solver.name, label}];
    }
  }
  TableReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  print_table();
  return 0;
}
