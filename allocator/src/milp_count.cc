// The count MILP of DESIGN.md: per job an integer count, SOS2 weights over the breakpoints of its
// gain (tables may be non-concave), and running/grow/shrink binaries tied to those weights.
#include "milp_count.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>

#include "absl/strings/str_cat.h"
#include "lagrangian_presolve.h"

namespace elastic::alloc {

namespace {

// The smallest running count and the largest count of job j.
std::pair<int, int> running_range(const CountModel& model, std::size_t j) {
  const CountJob& job = model.jobs[j];
  return {std::max(job.lo, 1), std::min(job.hi, model.pool)};
}

}  // namespace

std::vector<CountInterval> allowed_intervals(const CountModel& model, std::size_t j) {
  std::vector<CountInterval> intervals;
  if (!model.jobs[j].must_run) intervals.push_back({0, 0});
  const auto [lo, hi] = running_range(model, j);
  if (lo <= hi) intervals.push_back({lo, hi});
  return intervals;
}

CountBlock add_count_block(const CountModel& model, std::size_t j,
                           std::vector<CountInterval> intervals, CountEncoding encoding,
                           int priority, MilpModel& milp) {
  const CountJob& job = model.jobs[j];
  std::vector<CountInterval> merged;
  for (const CountInterval& in : intervals) {
    if (!merged.empty() && in.lo <= merged.back().hi + 1) {
      merged.back().hi = std::max(merged.back().hi, in.hi);
    } else {
      merged.push_back(in);
    }
  }
  CountBlock block;
  const std::vector<int> breakpoints = model.breakpoints(j);
  for (const CountInterval& in : merged) {
    block.points.push_back(in.lo);
    block.points.push_back(in.hi);
    for (int p : breakpoints) {
      if (p > in.lo && p < in.hi) block.points.push_back(p);
    }
  }
  std::sort(block.points.begin(), block.points.end());
  block.points.erase(std::unique(block.points.begin(), block.points.end()), block.points.end());

  block.count = milp.add_column(block.points.front(), block.points.back(), true, 0.0);
  std::vector<std::pair<int, double>> convexity;
  std::vector<std::pair<int, double>> link{{block.count, 1.0}};
  std::vector<std::vector<std::pair<int, double>>> piece(merged.size());
  std::vector<std::size_t> piece_of;  // per point, its interval
  std::vector<std::pair<int, double>> grow;
  std::vector<std::pair<int, double>> shrink;
  std::size_t in = 0;
  for (int p : block.points) {
    // A gains table already holds the rescale costs; otherwise the indicators below add them.
    const double value = job.gains.empty() ? model.horizon_s * job.value.at(p)
                                           : job.gains[static_cast<std::size_t>(p)];
    const int lambda = milp.add_column(0.0, 1.0, false, value);
    block.lambda.push_back(lambda);
    convexity.emplace_back(lambda, 1.0);
    link.emplace_back(lambda, -static_cast<double>(p));
    while (p > merged[in].hi) ++in;
    piece[in].emplace_back(lambda, -1.0);
    piece_of.push_back(in);
    if (p > job.current) grow.emplace_back(lambda, -1.0);
    if (p < job.current) shrink.emplace_back(lambda, -1.0);
  }
  milp.add_row(std::move(convexity), MilpSense::kEqual, 1.0);
  milp.add_row(std::move(link), MilpSense::kEqual, 0.0);

  // Each indicator equals the weight on its side, so it is 0/1 exactly when n_j is on that side.
  auto indicator = [&](std::vector<std::pair<int, double>> terms, double objective) {
    const int column = milp.add_column(0.0, 1.0, true, objective);
    terms.emplace_back(column, 1.0);
    milp.add_row(std::move(terms), MilpSense::kEqual, 0.0);
    return column;
  };
  const bool table = !job.gains.empty();
  if (!grow.empty()) block.grow = indicator(std::move(grow), table ? 0.0 : -job.grow_cost);
  if (!shrink.empty()) block.shrink = indicator(std::move(shrink), table ? 0.0 : -job.shrink_cost);

  if (encoding == CountEncoding::kSos2) {
    // SOS2 alone would interpolate across a gap such as 0 < n_j < lo: one binary per interval.
    if (merged.size() > 1) {
      for (auto& terms : piece) block.selectors.push_back(indicator(std::move(terms), 0.0));
    }
    if (block.points.size() >= 3) milp.sos2.push_back({block.lambda, priority});
    return block;
  }
  // Segments: consecutive points of one interval, or the interval itself when it is one point.
  std::vector<std::pair<std::size_t, std::size_t>> segments;
  for (std::size_t k = 0; k < block.points.size(); ++k) {
    const bool alone = (k == 0 || piece_of[k - 1] != piece_of[k]) &&
                       (k + 1 == block.points.size() || piece_of[k + 1] != piece_of[k]);
    if (alone) segments.emplace_back(k, k);
    if (k + 1 < block.points.size() && piece_of[k + 1] == piece_of[k])
      segments.emplace_back(k, k + 1);
  }
  if (segments.size() <= 1) return block;  // at most two points in one interval: nothing to pick
  std::vector<std::pair<int, double>> pick_one;
  std::vector<std::vector<std::pair<int, double>>> allow(block.points.size());
  for (std::size_t k = 0; k < block.points.size(); ++k) allow[k].emplace_back(block.lambda[k], 1.0);
  for (const auto& [first, last] : segments) {
    const int y = milp.add_column(0.0, 1.0, true, 0.0);
    block.selectors.push_back(y);
    pick_one.emplace_back(y, 1.0);
    allow[first].emplace_back(y, -1.0);
    if (last != first) allow[last].emplace_back(y, -1.0);
  }
  milp.add_row(std::move(pick_one), MilpSense::kEqual, 1.0);
  for (auto& terms : allow) milp.add_row(std::move(terms), MilpSense::kLessEqual, 0.0);
  return block;
}

absl::Status check_count_model(const CountModel& model) {
  if (model.pool < 0) {
    return absl::InvalidArgumentError(absl::StrCat("pool: negative node count ", model.pool));
  }
  long floors = 0;
  for (std::size_t j = 0; j < model.jobs.size(); ++j) {
    if (!model.jobs[j].must_run) continue;
    const auto [lo, hi] = running_range(model, j);
    if (lo > hi) {
      return absl::InvalidArgumentError(absl::StrCat("jobs[", j, "]: must run but its floor ", lo,
                                                     " exceeds its largest count ", hi, " (pool ",
                                                     model.pool, ")"));
    }
    floors += lo;
    if (floors > model.pool) {
      return absl::InvalidArgumentError(
          absl::StrCat("jobs[", j, "]: the floors of must-run jobs up ", "to here need ", floors,
                       " nodes, pool has ", model.pool));
    }
  }
  return absl::OkStatus();
}

namespace {

double total_gain(const CountModel& model, const std::vector<int>& counts) {
  double sum = 0.0;
  for (std::size_t j = 0; j < counts.size(); ++j) sum += model.gain(j, counts[j]);
  return sum;
}

bool feasible(const CountModel& model, const std::vector<int>& counts) {
  long used = 0;
  for (std::size_t j = 0; j < counts.size(); ++j) {
    if (!model.allowed(j, counts[j])) return false;
    used += counts[j];
  }
  return used <= model.pool;
}

}  // namespace

CountSolution fallback_allocation(const CountModel& model) {
  CountSolution floor;
  floor.status = SolveStatus::kTimeLimit;
  CountSolution keep = floor;
  for (std::size_t j = 0; j < model.jobs.size(); ++j) {
    const CountJob& job = model.jobs[j];
    const int least = job.must_run ? running_range(model, j).first : 0;
    floor.counts.push_back(least);
    keep.counts.push_back(model.allowed(j, job.current) ? job.current : least);
  }
  CountSolution& best = feasible(model, keep.counts) ? keep : floor;
  best.objective = total_gain(model, best.counts);
  return best;
}

absl::StatusOr<CountSolution> count_solution(const CountModel& model,
                                             const std::vector<CountBlock>& blocks,
                                             const MilpResult& result, const CountSolution* known) {
  // The best allocation in hand without lp_solve, for when the clock stopped it.
  auto best_known = [&](CountSolution from_solver) {
    CountSolution best = fallback_allocation(model);
    if (known != nullptr && feasible(model, known->counts)) {
      const double objective = total_gain(model, known->counts);
      if (objective > best.objective) best = {known->counts, objective, SolveStatus::kTimeLimit};
    }
    if (!from_solver.counts.empty() && from_solver.objective >= best.objective) return from_solver;
    return best;
  };
  switch (result.status) {
    case MilpStatus::kInfeasible:
      return absl::InternalError(
          "count MILP: lp_solve reports infeasible although every floor fits the pool");
    case MilpStatus::kTimeLimitWithoutSolution:
      return best_known({});
    case MilpStatus::kOptimal:
    case MilpStatus::kTimeLimitWithSolution:
      break;
  }
  const bool optimal = result.status == MilpStatus::kOptimal;
  CountSolution solution;
  solution.status = optimal ? SolveStatus::kOptimal : SolveStatus::kTimeLimit;
  bool integral = true;
  for (const CountBlock& block : blocks) {
    const double value = result.values[static_cast<std::size_t>(block.count)];
    const double rounded = std::round(value);
    integral = integral && std::abs(value - rounded) <= 1e-6;
    solution.counts.push_back(static_cast<int>(rounded));
  }
  if (!integral || !feasible(model, solution.counts)) {
    if (optimal) {
      return absl::InternalError(
          "count MILP: lp_solve's optimum does not round to an allowed "
          "allocation within the pool");
    }
    return best_known({});
  }
  solution.objective = total_gain(model, solution.counts);
  return optimal ? solution : best_known(std::move(solution));
}

double seconds_left(std::chrono::steady_clock::time_point start, double limit_s) {
  const std::chrono::duration<double> used = std::chrono::steady_clock::now() - start;
  return std::max(0.0, limit_s - used.count());
}

absl::StatusOr<CountSolution> solve_count_milp(const CountModel& model, const SolveOptions& options,
                                               CountEncoding encoding) {
  const auto start = std::chrono::steady_clock::now();
  if (absl::Status s = check_count_model(model); !s.ok()) return s;
  std::optional<PresolveResult> presolve;
  if (options.presolve) {
    absl::StatusOr<PresolveResult> p = lagrangian_presolve(model);
    if (!p.ok()) return p.status();
    presolve = std::move(*p);
  }

  MilpModel milp;
  std::vector<CountBlock> blocks;
  std::vector<std::pair<int, double>> budget;
  for (std::size_t j = 0; j < model.jobs.size(); ++j) {
    std::vector<CountInterval> intervals;
    if (presolve) {
      for (const CandidateRange& r : presolve->candidates[j]) intervals.push_back({r.lo, r.hi});
    } else {
      intervals = allowed_intervals(model, j);
    }
    blocks.push_back(
        add_count_block(model, j, std::move(intervals), encoding, static_cast<int>(j), milp));
    budget.emplace_back(blocks.back().count, 1.0);
  }
  milp.add_row(std::move(budget), MilpSense::kLessEqual, model.pool);

  absl::StatusOr<MilpResult> result =
      solve_with_lp_solve(milp, seconds_left(start, options.time_limit_s));
  if (!result.ok()) return result.status();
  return count_solution(model, blocks, *result, presolve ? &presolve->incumbent : nullptr);
}

absl::StatusOr<CountSolution> solve_milp(const CountModel& model, const SolveOptions& options) {
  return solve_count_milp(model, options, CountEncoding::kSegments);
}

}  // namespace elastic::alloc
