// Exact dynamic program over jobs x budget. F_t[k] = best total gain of the first t jobs using at
// most k nodes beyond their smallest candidate counts. Each job's candidates come as ranges on
// which gain is linear, so one range costs O(budget) with a monotone-deque sliding-window maximum
// of F_{t-1}[m] - slope*m, whatever its width. Jobs with a single candidate never enter the table,
// and job t's table only spans the budget the first t jobs can use.
//
// Tie rule (fixed, documented for reproducibility): at every state, among choices of equal value
// as computed, a job keeps its current count when that count is among them, else takes the
// smallest count; jobs are decided from the last to the first, so earlier jobs see the leftover.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <limits>

#include "absl/strings/str_cat.h"
#include "elastic/allocator/solvers.h"
#include "lagrangian_presolve.h"

namespace elastic::alloc {
namespace {

using Clock = std::chrono::steady_clock;

struct DpJob {
  std::size_t job = 0;
  int min_count = 0;
  int cap = 0;             // budget this job's table spans
  std::size_t offset = 0;  // start of its row in the choice table
};

// Runs the table and writes the chosen counts; false when the time limit ran out.
template <typename Choice>
bool run_dp(const CountModel& model, const std::vector<std::vector<CandidateRange>>& ranges,
            std::vector<DpJob>& dp_jobs, int budget, Clock::time_point deadline,
            std::vector<int>& counts) {
  std::size_t total = 0;
  int cap = 0;
  for (DpJob& d : dp_jobs) {
    const int spread = ranges[d.job].back().hi - d.min_count;
    cap = static_cast<int>(std::min<long long>(budget, static_cast<long long>(cap) + spread));
    d.cap = cap;
    d.offset = total;
    total += static_cast<std::size_t>(cap) + 1;
  }
  std::vector<Choice> choice(total);
  const std::size_t width = static_cast<std::size_t>(cap) + 1;
  std::vector<double> f_old(width, 0.0);
  std::vector<double> f_new(width);
  std::vector<int> window(width);
  const double kMinusInf = -std::numeric_limits<double>::infinity();

  int cap_old = 0;
  for (const DpJob& d : dp_jobs) {
    if (Clock::now() > deadline) return false;
    const int cap_new = d.cap;
    // F_old is non-decreasing and saturated beyond cap_old.
    std::fill(f_old.begin() + cap_old + 1, f_old.begin() + cap_new + 1, f_old[cap_old]);
    std::fill(f_new.begin(), f_new.begin() + cap_new + 1, kMinusInf);
    Choice* row = choice.data() + d.offset;
    for (const CandidateRange& r : ranges[d.job]) {
      const int a = r.lo - d.min_count;
      const int b = r.hi - d.min_count;
      if (a > cap_new) break;
      const double g = r.gain_lo;
      if (a == b) {
        for (int k = a; k <= cap_new; ++k) {
          const double v = f_old[k - a] + g;
          if (v > f_new[k]) {
            f_new[k] = v;
            row[k] = static_cast<Choice>(a);
          }
        }
        continue;
      }
      // n = k - m in [a, b]: value = (F_old[m] - s*m) + g + s*(k - a). Ties keep the newer m
      // (the smaller count).
      const double s = r.slope;
      int head = 0;
      int tail = 0;
      for (int k = a; k <= cap_new; ++k) {
        const int m = k - a;
        const double w = f_old[m] - s * m;
        while (tail > head && f_old[window[tail - 1]] - s * window[tail - 1] <= w) --tail;
        window[tail++] = m;
        while (window[head] < k - b) ++head;
        const int best = window[head];
        const double v = f_old[best] - s * best + g + s * (k - a);
        if (v > f_new[k]) {
          f_new[k] = v;
          row[k] = static_cast<Choice>(k - best);
        }
      }
    }
    // Prefer the current count on exact ties.
    const int current = model.jobs[d.job].current;
    for (const CandidateRange& r : ranges[d.job]) {
      if (current < r.lo || current > r.hi) continue;
      const int c = current - d.min_count;
      const double g = r.gain_lo + r.slope * (current - r.lo);
      for (int k = c; k <= cap_new; ++k) {
        if (f_old[k - c] + g >= f_new[k]) {
          f_new[k] = f_old[k - c] + g;
          row[k] = static_cast<Choice>(c);
        }
      }
    }
    std::swap(f_old, f_new);
    cap_old = cap_new;
  }

  int k = cap_old;
  for (std::size_t t = dp_jobs.size(); t-- > 0;) {
    const DpJob& d = dp_jobs[t];
    const int n = static_cast<int>(choice[d.offset + static_cast<std::size_t>(k)]);
    counts[d.job] = d.min_count + n;
    k -= n;
    if (t > 0) k = std::min(k, dp_jobs[t - 1].cap);
  }
  return true;
}

}  // namespace

absl::StatusOr<CountSolution> solve_dp(const CountModel& model, const SolveOptions& options) {
  const Clock::time_point start = Clock::now();
  const Clock::time_point deadline = deadline_after(start, options.time_limit_s);
  const std::size_t num_jobs = model.jobs.size();

  std::vector<std::vector<CandidateRange>> ranges(num_jobs);
  absl::StatusOr<PresolveResult> presolved;
  if (options.presolve) {
    presolved = lagrangian_presolve(model);
    if (!presolved.ok()) return presolved.status();
    ranges = std::move(presolved->candidates);
  } else {
    for (std::size_t j = 0; j < num_jobs; ++j) {
      ranges[j] = linear_pieces(model, j);
      if (ranges[j].empty()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "count model job ", j, " must run but has no allowed count (lo=", model.jobs[j].lo,
            ", hi=", model.jobs[j].hi, ", pool=", model.pool, ")"));
      }
    }
  }

  std::vector<int> counts(num_jobs);
  std::vector<DpJob> dp_jobs;
  long long base = 0;
  int max_spread = 0;
  for (std::size_t j = 0; j < num_jobs; ++j) {
    const int lo = ranges[j].front().lo;
    const int hi = ranges[j].back().hi;
    counts[j] = lo;
    base += lo;
    if (hi > lo) {
      dp_jobs.push_back({j, lo, 0, 0});
      max_spread = std::max(max_spread, hi - lo);
    }
  }
  if (base > model.pool) {
    return absl::InvalidArgumentError(absl::StrCat("count model infeasible: must-run floors need ",
                                                   base, " nodes, the pool has ", model.pool));
  }
  const int budget = static_cast<int>(model.pool - base);

  const bool finished =
      max_spread <= std::numeric_limits<std::uint16_t>::max()
          ? run_dp<std::uint16_t>(model, ranges, dp_jobs, budget, deadline, counts)
          : run_dp<std::uint32_t>(model, ranges, dp_jobs, budget, deadline, counts);

  CountSolution solution;
  if (!finished) {
    if (!options.presolve) {
      presolved = lagrangian_presolve(model);
      if (!presolved.ok()) return presolved.status();
    }
    solution = presolved->incumbent;
    solution.status = SolveStatus::kTimeLimit;
    return solution;
  }
  solution.counts = std::move(counts);
  for (std::size_t j = 0; j < num_jobs; ++j)
    solution.objective += model.gain(j, solution.counts[j]);
  solution.status = SolveStatus::kOptimal;
  return solution;
}

}  // namespace elastic::alloc
