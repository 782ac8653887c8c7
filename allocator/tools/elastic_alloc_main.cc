// elastic-alloc: solve one allocation problem from a JSON file (or stdin) and print the decision,
// or build a problem from a real BFTrainer workload CSV and show the allocation as a table.
#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <iterator>
#include <optional>
#include <random>
#include <sstream>
#include <string>

#include "CLI/CLI.hpp"
#include "absl/status/statusor.h"
#include "elastic/allocator/allocator.h"
#include "elastic/allocator/input_limits.h"
#include "elastic/allocator/problem_json.h"
#include "elastic/allocator/solver_table.h"
#include "elastic/cli/exit_code.h"
#include "elastic/cli/number_checks.h"
#include "elastic/traces/workload_csv.h"
#include "fmt/core.h"

namespace {

using elastic::alloc::Allocation;
using elastic::alloc::Problem;

using elastic::cli::exit_code;
using elastic::cli::kExitBadInput;
using elastic::cli::kExitFailure;
using elastic::cli::kExitOk;

constexpr const char* kFooter = R"(
PROBLEM JSON (input):
  {"nodes": ["n1", "n2", {"name": "n3", "kind": "", "leaving_soon": true, "expected_idle_s": 60}],
   "horizon_s": 10, "objective": "throughput", "solver": "milp", "time_limit_s": 10,
   "jobs": [{"id": "J1", "min_nodes": 1, "max_nodes": 64, "nodes": ["n1"],
             "scaling": {"nodes": [0, 1, 2, 4], "samples_per_s": [0, 2831, 5259, 9988]},
             "value": {"nodes": [...], "values": [...]},     (optional: what to maximise)
             "grow_stall_s": 18, "shrink_stall_s": 12, "weight": 1.0,
             "min_share": 0, "node_kind": ""}]}
  "nodes" is the pool of granted nodes; a job's "nodes" are those it holds now (held nodes that
  left the pool are dropped). Tables are linear between counts and flat beyond the last one.
  Unknown fields and bad values are errors naming the field, e.g. jobs[0].scaling.nodes[2].

ALLOCATION JSON (output):
  {"status": "optimal", "objective": 12345.6, "solve_ms": 0.8, "dropped": [],
   "jobs": [{"id": "J1", "count": 2, "nodes": ["n1", "n2"], "change": "grow",
             "previous": 1, "samples_per_s": 5259}]}
  status: optimal | time_limit (best found when the limit hit) | heuristic (equal-share).
  objective: sum over jobs of T*v(N) minus grow/shrink stall costs (value units x seconds).

OBJECTIVES: throughput (value table, else samples/s), speedup (r(n)/r(1)),
           weighted (weight x value), fair (max-min normalised progress, then throughput).

WORKLOAD MODE:
  elastic-alloc --workload hps-shufflenet-jobs-10J.csv.gz --nodes 128 [--jobs 10] [--seed 1]
  builds a problem from the first --jobs jobs of a BFTrainer workload CSV (.gz or plain) on a
  pool of --nodes nodes, each job holding a seeded random set of nodes, and prints a table
  (or the allocation JSON with --json, or the generated problem with --emit-problem).

EXIT CODES (elastic/cli/exit_code.h): 0 success, 2 bad input (the message names the file and
field), 1 internal error.
)";

struct Options {
  std::string problem_path;
  std::optional<std::string> solver;
  std::optional<std::string> objective;
  std::optional<double> time_limit_s;
  bool pretty = false;
  std::string workload_path;
  int nodes = 0;
  int jobs = 10;
  std::uint32_t seed = 1;
  bool json = false;
  bool emit_problem = false;
};

int fail(int code, std::string_view where, std::string_view message) {
  fmt::print(stderr, "elastic-alloc: {}{}{}\n", where, where.empty() ? "" : ": ", message);
  return code;
}

absl::StatusOr<std::string> read_all(const std::string& path) {
  if (path == "-") {
    std::ostringstream text;
    text << std::cin.rdbuf();
    return text.str();
  }
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return absl::NotFoundError("no such file");
    return absl::InvalidArgumentError(
        fmt::format("cannot open the file: {}", std::strerror(errno)));
  }
  // read() until it returns 0: a directory opens but fails here with EISDIR (an ifstream read it
  // as an empty text, and the message was a JSON parse error).
  std::string text;
  std::array<char, 1 << 16> buffer;
  while (true) {
    const ssize_t n = ::read(fd, buffer.data(), buffer.size());
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(fd);
      if (err == EISDIR) return absl::InvalidArgumentError("is a directory, not a problem file");
      return absl::DataLossError(fmt::format("cannot read the file: {}", std::strerror(err)));
    }
    text.append(buffer.data(), static_cast<std::size_t>(n));
  }
  ::close(fd);
  return text;
}

// A problem from a real workload: `count` jobs on `pool` nodes named node0001..., each holding a
// seeded random set of nodes as if a previous plan had placed it.
absl::StatusOr<Problem> workload_problem(const Options& options) {
  absl::StatusOr<std::vector<elastic::traces::WorkloadJob>> jobs =
      elastic::traces::load_workload_csv(options.workload_path);
  if (!jobs.ok()) return jobs.status();
  Problem problem;
  const int width = static_cast<int>(std::to_string(options.nodes).size());
  std::vector<std::string> names;
  for (int i = 1; i <= options.nodes; ++i) {
    names.push_back(fmt::format("node{:0{}}", i, std::max(width, 4)));
    elastic::alloc::Node node;
    node.name = names.back();
    problem.nodes.push_back(std::move(node));
  }
  // mt19937's output is fixed by the standard (the distributions are not): portable seeding.
  std::mt19937 rng(options.seed);
  for (std::size_t i = names.size(); i > 1; --i) std::swap(names[i - 1], names[rng() % i]);
  const std::size_t count = std::min(jobs->size(), static_cast<std::size_t>(options.jobs));
  const int fair_share = std::max(1, 2 * options.nodes / std::max(1, static_cast<int>(count)));
  std::size_t next = 0;
  for (std::size_t j = 0; j < count; ++j) {
    const elastic::traces::WorkloadJob& w = (*jobs)[j];
    elastic::alloc::Job job;
    job.id = w.id;
    job.min_nodes = w.min_nodes;
    job.max_nodes = w.max_nodes;
    job.scaling = w.scaling;
    job.value = w.value;
    job.grow_stall_s = w.grow_stall_s;
    job.shrink_stall_s = w.shrink_stall_s;
    int held =
        static_cast<int>(rng() % static_cast<std::uint32_t>(std::min(w.max_nodes, fair_share) + 1));
    if (held > 0 && held < w.min_nodes) held = w.min_nodes;
    if (held > static_cast<int>(names.size() - next)) held = 0;
    for (int k = 0; k < held; ++k) job.nodes.push_back(names[next++]);
    problem.jobs.push_back(std::move(job));
  }
  return problem;
}

void print_table(const Problem& problem, const Allocation& allocation, const Options& options) {
  int used = 0;
  double total = 0.0;
  for (std::size_t j = 0; j < allocation.jobs.size(); ++j) {
    used += allocation.jobs[j].count;
    total += problem.jobs[j].scaling.at(allocation.jobs[j].count);
  }
  fmt::print("workload {} (first {} jobs), pool {} nodes, solver {}, objective {}\n",
             options.workload_path, problem.jobs.size(), problem.nodes.size(),
             elastic::alloc::to_string(problem.solver),
             elastic::alloc::to_string(problem.objective));
  fmt::print(
      "status {}, objective {:.6g}, solve {:.3f} ms, {}/{} nodes allocated, {:.1f} samples/s\n\n",
      elastic::alloc::to_string(allocation.status), allocation.objective, allocation.solve_ms, used,
      problem.nodes.size(), total);
  fmt::print("{:<20} {:<12} {:>5} {:>6}  {:<7} {:>12}\n", "job", "model", "held", "count", "change",
             "samples/s");
  for (std::size_t j = 0; j < allocation.jobs.size(); ++j) {
    const elastic::alloc::Job& job = problem.jobs[j];
    const elastic::alloc::JobAllocation& out = allocation.jobs[j];
    const std::size_t dash = job.id.find('-');
    const std::string model = dash == std::string::npos ? "-" : job.id.substr(dash + 1);
    fmt::print("{:<20} {:<12} {:>5} {:>6}  {:<7} {:>12.1f}\n", job.id, model, job.nodes.size(),
               out.count, elastic::alloc::to_string(out.change), job.scaling.at(out.count));
  }
}

int run(const Options& options) {
  const bool workload = !options.workload_path.empty();
  const std::string source = workload                      ? options.workload_path
                             : options.problem_path == "-" ? std::string("<stdin>")
                                                           : options.problem_path;
  absl::StatusOr<Problem> problem;
  if (workload) {
    problem = workload_problem(options);
    if (!problem.ok())
      return fail(exit_code(problem.status()), "", std::string(problem.status().message()));
  } else {
    absl::StatusOr<std::string> text = read_all(options.problem_path);
    if (!text.ok()) {
      return fail(exit_code(text.status()), source, std::string(text.status().message()));
    }
    problem = elastic::alloc::parse_problem_json(*text);
    if (!problem.ok())
      return fail(exit_code(problem.status()), source, std::string(problem.status().message()));
  }
  if (options.solver) problem->solver = *elastic::alloc::parse_solver(*options.solver);
  if (options.objective) problem->objective = *elastic::alloc::parse_objective(*options.objective);
  if (options.time_limit_s) problem->time_limit_s = *options.time_limit_s;
  const int indent = options.pretty ? 2 : -1;
  if (options.emit_problem) {
    std::cout << elastic::alloc::problem_to_json(*problem).dump(indent) << "\n";
  } else {
    absl::StatusOr<Allocation> allocation = elastic::alloc::allocate(*problem);
    if (!allocation.ok()) {
      return fail(exit_code(allocation.status()), source,
                  std::string(allocation.status().message()));
    }
    if (workload && !options.json) {
      print_table(*problem, *allocation, options);
    } else {
      std::cout << elastic::alloc::allocation_to_json(*allocation, &*problem).dump(indent) << "\n";
    }
  }
  // The problem or the allocation is the answer: one that did not reach stdout (a full disk) is a
  // failure, whichever was printed.
  std::cout.flush();
  if (!std::cout) return fail(kExitFailure, "", "cannot write the output");
  return kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "elastic-alloc: decide how many (and which) idle nodes each elastic training job gets.\n"
      "Reads an allocation problem as JSON (a file, or - for stdin) and prints the allocation "
      "as JSON."};
  app.footer(kFooter);
  Options options;
  auto* problem = app.add_option("PROBLEM", options.problem_path,
                                 "Problem JSON file, or - to read standard input");
  app.add_option("--solver", options.solver,
                 "Override the problem's solver: " + elastic::alloc::solver_help())
      ->check(CLI::IsMember(elastic::alloc::solver_names()));
  app.add_option("--objective", options.objective, "Override the problem's objective")
      ->check(CLI::IsMember({"throughput", "speedup", "weighted", "fair"}));
  app.add_option("--time-limit", options.time_limit_s, "Override the solver time limit (seconds)")
      ->check(elastic::cli::positive_seconds());
  app.add_flag("--pretty", options.pretty, "Indent the JSON output");
  auto* workload = app.add_option("--workload", options.workload_path,
                                  "Build the problem from a BFTrainer workload CSV (.csv or .gz)")
                       ->excludes(problem);
  auto* nodes = app.add_option("--nodes", options.nodes, "Workload mode: nodes in the pool")
                    ->check(CLI::Range(1, elastic::alloc::kMaxNodes))
                    ->needs(workload);
  workload->needs(nodes);
  app.add_option("--jobs", options.jobs, "Workload mode: use the first K jobs (default 10)")
      ->check(CLI::Range(1, 1000000))
      ->needs(workload);
  app.add_option("--seed", options.seed, "Workload mode: seed of the held-node draw (default 1)")
      ->needs(workload);
  app.add_flag("--json", options.json, "Workload mode: print the allocation JSON, not a table")
      ->needs(workload);
  app.add_flag("--emit-problem", options.emit_problem,
               "Print the problem JSON (after overrides) instead of solving it");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? kExitOk : kExitBadInput;
  }
  if (options.problem_path.empty() && options.workload_path.empty()) {
    return fail(kExitBadInput, "",
                "give a PROBLEM file (or - for stdin) or --workload; see --help");
  }
  try {
    return run(options);
  } catch (const std::exception& e) {
    return fail(kExitFailure, "internal error", e.what());
  }
}
