#include "elastic/allocator/build_count_model.h"

#include <algorithm>
#include <map>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "elastic/allocator/hole_survival.h"
#include "elastic/allocator/validate_problem.h"
#include "fmt/format.h"

namespace elastic::alloc {
namespace {

// v_j for the chosen objective. Fair ranks jobs by throughput, so its values are r_j.
absl::StatusOr<PiecewiseLinear> job_value(const Job& job, std::size_t index, Objective objective) {
  switch (objective) {
    case Objective::kThroughput:
      return job.value ? *job.value : job.scaling;
    case Objective::kWeighted:
      return (job.value ? *job.value : job.scaling).scaled(job.weight);
    case Objective::kSpeedup: {
      const double one = job.scaling.at(1.0);
      if (!(one > 0)) {
        return absl::InvalidArgumentError(fmt::format(
            "jobs[{}].scaling: the speedup objective needs samples/s > 0 at 1 node", index));
      }
      return job.scaling.scaled(1.0 / one);
    }
    case Objective::kFair:
      return job.scaling;
  }
  return absl::InvalidArgumentError("objective: unknown objective");
}

// min_share floors in job order, while the floors still fit: an earlier job's guarantee is never
// traded for a later one's.
void apply_min_share(CountModel& model, const std::vector<int>& min_share) {
  long floors = 0;
  for (const CountJob& job : model.jobs) floors += job.must_run ? job.lo : 0;
  for (std::size_t j = 0; j < model.jobs.size(); ++j) {
    CountJob& job = model.jobs[j];
    if (min_share[j] <= 0 || job.lo > job.hi) continue;
    const int floor = std::max(job.lo, std::min(min_share[j], job.hi));
    const long next = floors - (job.must_run ? job.lo : 0) + floor;
    if (next > model.pool) break;
    floors = next;
    job.lo = floor;
    job.must_run = true;
  }
}

// What a node makes for the job it goes to next (LossJob::successor_value): the median over the
// jobs that can grow of the value per node their next count adds (the first min_nodes at once).
double successor_value(const CountModel& model, std::span<const std::size_t> jobs,
                       const Problem& problem) {
  std::vector<double> per_node;
  for (std::size_t i = 0; i < model.jobs.size(); ++i) {
    const CountJob& job = model.jobs[i];
    const int least = std::max(problem.jobs[jobs[i]].min_nodes, 1);
    const int next = std::max(job.current + 1, least);
    if (next > job.hi) continue;
    const double now = job.current >= least ? job.value.at(job.current) : 0.0;
    per_node.push_back((job.value.at(next) - now) / (next - job.current));
  }
  if (per_node.empty()) return 0.0;
  const auto mid = per_node.begin() + static_cast<std::ptrdiff_t>(per_node.size() / 2);
  std::nth_element(per_node.begin(), mid, per_node.end());
  return *mid;
}

// W of the value to the finish (expected_loss.h) at Problem::finish_window_scale 1: the mean
// expected idle time of the kind's nodes, each capped as the estimators cap it.
double finish_window(const IdleOutlook& outlook) {
  double sum = 0.0;
  std::size_t count = 0;
  auto add = [&](std::span<const double> idle_s) {
    for (const double idle : idle_s) sum += std::min(idle, kResidualCapS);
    count += idle_s.size();
  };
  add(outlook.free_s);
  for (const std::vector<double>& held : outlook.held_s) add(held);
  return count > 0 ? sum / static_cast<double>(count) : 0.0;
}

// Each job's gains table from the nodes' expected idle times (expected_loss.h).
void add_expected_gains(const Problem& problem, std::span<const std::size_t> jobs,
                        const IdleOutlook& outlook, CountModel& model) {
  const double successor = successor_value(model, jobs, problem);
  const double window = problem.finish_window_scale * finish_window(outlook);
  std::vector<double> others;
  for (std::size_t i = 0; i < model.jobs.size(); ++i) {
    CountJob& count_job = model.jobs[i];
    const Job& job = problem.jobs[jobs[i]];
    others.clear();
    for (std::size_t k = 0; k < outlook.held_s.size(); ++k) {
      if (k != i) others.insert(others.end(), outlook.held_s[k].begin(), outlook.held_s[k].end());
    }
    const LossJob loss{&count_job.value,   job.min_nodes, job.grow_stall_s,
                       job.shrink_stall_s, &job.scaling,  job.remaining_samples,
                       successor,          window};
    count_job.gains = expected_gains(loss, std::max(count_job.hi, count_job.current),
                                     model.horizon_s, outlook.held_s[i], outlook.free_s, others);
  }
}

// The nodes' expected idle times, split into free ones and each job's held ones.
IdleOutlook idle_outlook(const KindModel& kind) {
  std::unordered_map<std::string_view, double> idle;
  for (const Node& node : kind.nodes) idle.emplace(node.name, node.expected_idle_s);
  IdleOutlook outlook;
  for (const std::vector<std::string>& held : kind.held) {
    std::vector<double>& out = outlook.held_s.emplace_back();
    for (const std::string& name : held) {
      out.push_back(idle.at(name));
      idle.erase(name);
    }
  }
  for (const Node& node : kind.nodes) {
    if (idle.contains(node.name)) outlook.free_s.push_back(node.expected_idle_s);
  }
  return outlook;
}

}  // namespace

double apply_fair_floors(CountModel& model, const std::vector<const PiecewiseLinear*>& scaling) {
  // Per job that can run: the best progress reachable with at most n nodes, for n in [lo, hi]
  // (a prefix maximum, so "smallest n reaching level L" is a binary search).
  struct Progress {
    std::size_t job;
    std::vector<double> best;  // best[i]: max over n in [lo, lo+i] of r(n)/r(hi)
  };
  std::vector<Progress> progress;
  std::vector<double> levels;
  for (std::size_t j = 0; j < model.jobs.size(); ++j) {
    const CountJob& job = model.jobs[j];
    if (job.lo > job.hi) continue;
    const double top = scaling[j]->at(job.hi);
    if (!(top > 0)) continue;  // a job that cannot progress does not hold the others back
    Progress p{j, {}};
    double best = 0.0;
    for (int n = job.lo; n <= job.hi; ++n) {
      best = std::max(best, scaling[j]->at(n) / top);
      p.best.push_back(best);
      levels.push_back(best);
    }
    progress.push_back(std::move(p));
  }
  if (progress.empty()) return 0.0;
  std::sort(levels.begin(), levels.end());
  levels.erase(std::unique(levels.begin(), levels.end()), levels.end());

  auto count_at = [&](const Progress& p, double level) {
    const auto it = std::lower_bound(p.best.begin(), p.best.end(), level);
    // Every level comes from some job's table, but another job may top out below it.
    if (it == p.best.end()) return -1;
    return model.jobs[p.job].lo + static_cast<int>(it - p.best.begin());
  };
  auto fits = [&](double level) {
    long total = 0;
    for (const Progress& p : progress) {
      const int n = count_at(p, level);
      if (n < 0) return false;
      total += n;
    }
    return total <= model.pool;
  };
  // Feasibility is monotone in the level: binary search for the largest feasible one.
  std::size_t lo = 0, hi = levels.size();  // levels[0, lo) feasible, [hi, end) infeasible
  while (lo < hi) {
    const std::size_t mid = lo + (hi - lo) / 2;
    if (fits(levels[mid])) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  if (lo == 0) return 0.0;
  const double level = levels[lo - 1];
  if (!(level > 0)) return 0.0;
  for (const Progress& p : progress) {
    model.jobs[p.job].lo = count_at(p, level);
    model.jobs[p.job].must_run = true;
  }
  return level;
}

absl::StatusOr<CountModel> build_count_model(const Problem& problem,
                                             std::span<const std::size_t> jobs,
                                             std::span<const int> current, int pool,
                                             const IdleOutlook* outlook) {
  CountModel model;
  model.horizon_s = problem.horizon_s;
  model.pool = pool;
  std::vector<int> min_share;
  std::vector<const PiecewiseLinear*> scaling;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const Job& job = problem.jobs[jobs[i]];
    absl::StatusOr<PiecewiseLinear> value = job_value(job, jobs[i], problem.objective);
    if (!value.ok()) return value.status();

    CountJob count_job;
    count_job.current = current[i];
    count_job.lo = job.min_nodes;
    count_job.hi = std::min(job.max_nodes, pool);
    count_job.value = *std::move(value);
    // A job below its minimum cannot run, so leaving it there or resizing it loses nothing.
    const double at_current =
        count_job.current >= job.min_nodes ? count_job.value.at(count_job.current) : 0.0;
    count_job.grow_cost = job.grow_stall_s * at_current;
    count_job.shrink_cost = job.shrink_stall_s * at_current;
    model.jobs.push_back(std::move(count_job));
    min_share.push_back(job.min_share);
    scaling.push_back(&job.scaling);
  }
  if (problem.objective == Objective::kFair) apply_fair_floors(model, scaling);
  apply_min_share(model, min_share);
  if (problem.expect_departures && outlook != nullptr)
    add_expected_gains(problem, jobs, *outlook, model);
  return model;
}

absl::StatusOr<std::vector<KindModel>> build_count_models(const Problem& problem) {
  if (absl::Status s = validate_problem(problem); !s.ok()) return s;

  std::vector<KindModel> kinds;
  std::map<std::string, std::size_t> kind_index;
  auto kind_of = [&](const std::string& kind) -> KindModel& {
    const auto [it, inserted] = kind_index.emplace(kind, kinds.size());
    if (inserted) {
      kinds.emplace_back();
      kinds.back().kind = kind;
    }
    return kinds[it->second];
  };
  std::unordered_map<std::string_view, std::size_t> pool;
  for (std::size_t i = 0; i < problem.nodes.size(); ++i) {
    pool.emplace(problem.nodes[i].name, i);
    kind_of(problem.nodes[i].kind).nodes.push_back(problem.nodes[i]);
  }
  for (const Job& job : problem.jobs) kind_of(job.node_kind);  // kinds no pool node has: pool 0

  std::vector<std::vector<int>> current(kinds.size());
  for (std::size_t j = 0; j < problem.jobs.size(); ++j) {
    const Job& job = problem.jobs[j];
    const std::size_t k = kind_index.at(job.node_kind);
    std::vector<std::string> held;
    for (const std::string& name : job.nodes) {
      if (pool.contains(name)) held.push_back(name);  // the others left the pool: dropped
    }
    current[k].push_back(static_cast<int>(held.size()));
    kinds[k].jobs.push_back(j);
    kinds[k].held.push_back(std::move(held));
  }
  for (std::size_t k = 0; k < kinds.size(); ++k) {
    KindModel& kind = kinds[k];
    IdleOutlook outlook;
    if (problem.expect_departures) outlook = idle_outlook(kind);
    absl::StatusOr<CountModel> model =
        build_count_model(problem, kind.jobs, current[k], static_cast<int>(kind.nodes.size()),
                          problem.expect_departures ? &outlook : nullptr);
    if (!model.ok()) return model.status();
    kind.model = *std::move(model);
  }
  return kinds;
}

}  // namespace elastic::alloc
