// BFTrainer's equal-share baseline: split the pool evenly over the jobs, clip each share to the
// job's maximum (a share below its minimum runs nothing), then hand the leftover out
// first-come-first-served in job order, each job up to its maximum. Must-run floors are reserved
// first so the answer stays feasible. Ignores gains when choosing; no optimality claim.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "elastic/allocator/solvers.h"

namespace elastic::alloc {

absl::StatusOr<CountSolution> solve_equal_share(const CountModel& model,
                                                const SolveOptions& /*options*/) {
  const std::size_t num_jobs = model.jobs.size();
  CountSolution solution;
  solution.status = SolveStatus::kHeuristic;
  solution.counts.assign(num_jobs, 0);
  if (num_jobs == 0) return solution;

  std::vector<int> lo(num_jobs);
  std::vector<int> hi(num_jobs);
  long long used = 0;
  for (std::size_t j = 0; j < num_jobs; ++j) {
    const CountJob& job = model.jobs[j];
    lo[j] = std::max(job.lo, 1);
    hi[j] = std::min(job.hi, model.pool);
    if (!job.must_run) continue;
    if (lo[j] > hi[j]) {
      return absl::InvalidArgumentError(
          absl::StrCat("count model job ", j, " must run but has no allowed count"));
    }
    solution.counts[j] = lo[j];
    used += lo[j];
  }
  if (used > model.pool) {
    return absl::InvalidArgumentError(absl::StrCat("count model infeasible: must-run floors need ",
                                                   used, " nodes, the pool has ", model.pool));
  }

  const int share = model.pool / static_cast<int>(num_jobs);
  for (std::size_t j = 0; j < num_jobs; ++j) {
    const int want = std::min(share, hi[j]);
    if (want < lo[j] || want <= solution.counts[j]) continue;
    const int add =
        static_cast<int>(std::min<long long>(want - solution.counts[j], model.pool - used));
    if (solution.counts[j] + add < lo[j]) continue;
    solution.counts[j] += add;
    used += add;
  }
  for (std::size_t j = 0; j < num_jobs; ++j) {
    const long long left = model.pool - used;
    if (left <= 0) break;
    if (lo[j] > hi[j] || solution.counts[j] >= hi[j]) continue;
    if (solution.counts[j] == 0 && left < lo[j]) continue;
    const int add = static_cast<int>(std::min<long long>(hi[j] - solution.counts[j], left));
    solution.counts[j] += add;
    used += add;
  }
  for (std::size_t j = 0; j < num_jobs; ++j) {
    solution.objective += model.gain(j, solution.counts[j]);
  }
  return solution;
}

}  // namespace elastic::alloc
