#include "elastic/allocator/allocator.h"

#include <chrono>
#include <numeric>
#include <string_view>
#include <unordered_set>

#include "elastic/allocator/build_count_model.h"
#include "elastic/allocator/node_mapping.h"
#include "elastic/allocator/solver_table.h"
#include "fmt/format.h"

namespace elastic::alloc {
namespace {

// A solver's answer is trusted only after this: the rest of the allocator relies on it.
absl::Status check_solution(const CountModel& model, const CountSolution& solution,
                            std::string_view kind) {
  if (solution.counts.size() != model.jobs.size()) {
    return absl::InternalError(fmt::format("solver returned {} counts for {} jobs of kind '{}'",
                                           solution.counts.size(), model.jobs.size(), kind));
  }
  long total = 0;
  for (std::size_t j = 0; j < model.jobs.size(); ++j) {
    if (!model.allowed(j, solution.counts[j])) {
      return absl::InternalError(
          fmt::format("solver returned the count {}, not allowed for job {} of kind '{}'",
                      solution.counts[j], j, kind));
    }
    total += solution.counts[j];
  }
  if (total > model.pool) {
    return absl::InternalError(
        fmt::format("solver used {} nodes of kind '{}', the pool has {}", total, kind, model.pool));
  }
  return absl::OkStatus();
}

// Worst first: a heuristic answer anywhere makes the whole allocation heuristic.
int rank(SolveStatus status) {
  switch (status) {
    case SolveStatus::kOptimal:
      return 0;
    case SolveStatus::kTimeLimit:
      return 1;
    case SolveStatus::kHeuristic:
      return 2;
  }
  return 2;
}

// One kind's counts, checked.
absl::StatusOr<CountSolution> solve_counts(const CountModel& model, const Problem& problem,
                                           std::string_view kind) {
  CountSolution solution;
  if (model.pool == 0) {
    // Nothing to choose: every job of this kind gets 0 nodes (no solver needed).
    solution.counts.assign(model.jobs.size(), 0);
    for (std::size_t j = 0; j < model.jobs.size(); ++j) solution.objective += model.gain(j, 0);
  } else {
    const SolveOptions options{.time_limit_s = problem.time_limit_s};
    absl::StatusOr<CountSolution> solved = find_solver(problem.solver)->solve(model, options);
    if (!solved.ok()) return solved.status();
    solution = *std::move(solved);
  }
  if (absl::Status s = check_solution(model, solution, kind); !s.ok()) return s;
  return solution;
}

}  // namespace

absl::StatusOr<CountSolution> allocate_counts(const Problem& problem, int pool,
                                              std::span<const int> current,
                                              const IdleOutlook* outlook) {
  if (absl::Status s = validate_problem(problem); !s.ok()) return s;
  if (current.size() != problem.jobs.size() || pool < 0) {
    return absl::InvalidArgumentError(
        fmt::format("allocate_counts: {} current counts for {} jobs, pool {}", current.size(),
                    problem.jobs.size(), pool));
  }
  if (outlook != nullptr) {
    bool matches = outlook->held_s.size() == current.size();
    for (std::size_t j = 0; matches && j < current.size(); ++j) {
      matches = static_cast<int>(outlook->held_s[j].size()) == current[j];
    }
    if (!matches) {
      return absl::InvalidArgumentError(
          "allocate_counts: the idle outlook's held nodes do not match the current counts");
    }
  }
  std::vector<std::size_t> jobs(problem.jobs.size());
  std::iota(jobs.begin(), jobs.end(), 0);
  absl::StatusOr<CountModel> model = build_count_model(problem, jobs, current, pool, outlook);
  if (!model.ok()) return model.status();
  if (model->jobs.empty()) return CountSolution{};
  return solve_counts(*model, problem, "");
}

absl::StatusOr<Allocation> allocate(const Problem& problem) {
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<std::vector<KindModel>> models = build_count_models(problem);
  if (!models.ok()) return models.status();

  Allocation allocation;
  allocation.jobs.resize(problem.jobs.size());
  std::unordered_set<std::string_view> in_pool;
  for (const Node& node : problem.nodes) in_pool.insert(node.name);
  for (std::size_t j = 0; j < problem.jobs.size(); ++j) {
    allocation.jobs[j].id = problem.jobs[j].id;
    for (const std::string& name : problem.jobs[j].nodes) {
      if (!in_pool.contains(name)) allocation.dropped.push_back(name);
    }
  }

  for (const KindModel& kind : *models) {
    const CountModel& model = kind.model;
    if (model.jobs.empty()) continue;
    absl::StatusOr<CountSolution> solved = solve_counts(model, problem, kind.kind);
    if (!solved.ok()) return solved.status();
    const CountSolution& solution = *solved;
    absl::StatusOr<std::vector<NodeAssignment>> mapped =
        map_nodes(kind.nodes, kind.held, solution.counts, problem.expect_departures);
    if (!mapped.ok()) return absl::InternalError(mapped.status().message());
    for (std::size_t i = 0; i < kind.jobs.size(); ++i) {
      JobAllocation& out = allocation.jobs[kind.jobs[i]];
      out.count = solution.counts[i];
      out.nodes = std::move((*mapped)[i].nodes);
      out.change = (*mapped)[i].change;
    }
    allocation.objective += solution.objective;
    if (rank(solution.status) > rank(allocation.status)) allocation.status = solution.status;
  }
  allocation.solve_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return allocation;
}

}  // namespace elastic::alloc
