#include "elastic/replay/simulator.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <deque>
#include <limits>
#include <numeric>
#include <span>

#include "absl/strings/str_cat.h"
#include "elastic/allocator/allocator.h"
#include "elastic/allocator/hole_lifetime.h"
#include "elastic/allocator/hole_survival.h"
#include "elastic/allocator/node_mapping.h"
#include "elastic/allocator/node_pool.h"

namespace elastic::replay {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// The horizon taken from the pool's expected residual idle time stays within these (s).
constexpr double kMinHoleHorizon = 1.0;
constexpr double kMaxHoleHorizon = 600.0;

// One admitted job.
struct Active {
  std::size_t w = 0;       // workload index
  std::vector<int> nodes;  // held node indices
  double progress = 0.0;   // samples done
  double stall_until = -kInf;
  std::deque<std::pair<double, StallCause>> stalls;  // queued stalls: (end, cause), in order
  double rate = 0.0;                                 // r_j(N_j), 0 below the minimum
  double finish = kInf;                              // when it reaches Pmax at the current rate
  double period_samples = 0.0;  // made since the last report tick (learned mode)
  bool drop_report = true;      // the next report follows a change of nodes: dropped
};

class Replay {
 public:
  Replay(const traces::HoleTrace& trace, const std::vector<traces::WorkloadJob>& workload,
         const ReplayOptions& options)
      : trace_(trace),
        workload_(workload),
        options_(options),
        pool_(trace.node_names),
        knowledge_(workload, options.scaling, options.learn) {}

  absl::StatusOr<ReplayResult> run();

 private:
  void advance(double t1);
  // Hours of the trace, counted from its start; rows are added as needed.
  std::size_t hour_of(double t) const;
  HourTotals& hour(std::size_t k);
  // add(hour, seconds) for each hour of the trace that [from, to) overlaps (record_timeline).
  template <typename Add>
  void each_hour(double from, double to, Add add);
  // A job left with no node has no rank to reconfigure: it stops, and whatever stall it was in
  // ends with it; its next grow starts afresh (the planner's cost model: D·w(0) = 0).
  void charge_stall(Active& job, double stall_s, StallCause cause) {
    if (job.nodes.empty()) {
      job.stall_until = now_;
      job.stalls.clear();
      return;
    }
    job.stall_until = std::max(job.stall_until, now_) + stall_s;
    job.stalls.emplace_back(job.stall_until, cause);
  }
  void set_rate(Active& job) {
    const traces::WorkloadJob& w = workload_[job.w];
    const int n = static_cast<int>(job.nodes.size());
    job.rate = n >= w.min_nodes ? w.scaling.at(n) : 0.0;
    job.finish = job.rate > 0.0 ? std::max(now_, job.stall_until) +
                                      (w.target_samples - job.progress) / job.rate
                                : kInf;
  }
  // Learned mode: the progress reports due at `now_`; true when a learned table moved enough to
  // re-plan.
  bool report_tick();
  bool holds_nodes() const;
  std::vector<std::size_t> admitted() const;
  bool solve_needed(bool only_joins) const;
  void describe_holes(alloc::Problem& problem);
  alloc::IdleOutlook idle_outlook() const;
  absl::Status apply(const std::vector<int>& counts);
  absl::Status solve();
  void record_row();

  const traces::HoleTrace& trace_;
  const std::vector<traces::WorkloadJob>& workload_;
  const ReplayOptions& options_;

  double now_ = 0.0;
  alloc::NodePool pool_;            // the idle nodes, kept from event to event
  std::vector<int> owner_;          // workload index holding the node, -1 none
  std::vector<double> idle_since_;  // when the node last joined the pool
  alloc::HoleLifetime holes_;       // lengths of the holes that ended up to now
  int allocated_ = 0;
  std::vector<Active> active_;      // in admission order
  std::vector<std::size_t> queue_;  // arrived, waiting (FIFO; front = queue_[queue_head_])
  std::size_t queue_head_ = 0;
  ScalingKnowledge knowledge_;
  double next_tick_ = kInf;  // next report instant (learned mode)
  // The allocator's input after a call that changed nothing: the same input gives the same answer.
  std::vector<int> stable_key_;
  std::vector<double> solve_ms_;
  ReplayResult result_;
};

std::size_t Replay::hour_of(double t) const {
  const double k = std::floor((t - trace_.start) / 3600.0);
  return k > 0.0 ? static_cast<std::size_t>(k) : 0;
}

HourTotals& Replay::hour(std::size_t k) {
  if (result_.hours.size() <= k) result_.hours.resize(k + 1);
  return result_.hours[k];
}

template <typename Add>
void Replay::each_hour(double from, double to, Add add) {
  if (!options_.record_timeline) return;
  for (std::size_t k = hour_of(from); from < to; ++k) {
    const double end = std::min(to, trace_.start + 3600.0 * static_cast<double>(k + 1));
    if (end <= from) continue;  // from sits on the hour's end
    add(hour(k), end - from);
    from = end;
  }
}

void Replay::advance(double t1) {
  const double dt = t1 - now_;
  if (dt <= 0.0) return;
  Metrics& m = result_.metrics;
  m.hole_node_s += pool_.size() * dt;
  m.allocated_node_s += allocated_ * dt;
  each_hour(now_, t1, [&](HourTotals& h, double s) {
    h.hole_node_s += pool_.size() * s;
    h.allocated_node_s += allocated_ * s;
  });
  for (Active& job : active_) {
    const traces::WorkloadJob& w = workload_[job.w];
    const double n = static_cast<double>(job.nodes.size());
    m.ideal_samples += job.rate * dt;
    each_hour(now_, t1, [&](HourTotals& h, double s) { h.ideal_samples += job.rate * s; });
    m.scaling_ideal_samples += n * w.scaling.at(1.0) * dt;
    const double working = std::max(0.0, t1 - std::max(now_, job.stall_until));
    // The stalled part of [now_, t1), charged to the queued stalls' causes in order.
    double from = now_;
    while (!job.stalls.empty()) {
      const auto [until, cause] = job.stalls.front();
      const double end = std::min(until, t1);
      if (end > from) {
        const auto c = static_cast<std::size_t>(cause);
        m.lost_samples[c] += job.rate * (end - from);
        each_hour(from, end, [&](HourTotals& h, double s) { h.lost_samples[c] += job.rate * s; });
        from = end;
      }
      if (until > t1) break;
      job.stalls.pop_front();
    }
    const double progress = std::min(w.target_samples, job.progress + job.rate * working);
    job.period_samples += progress - job.progress;
    job.progress = progress;
  }
  now_ = t1;
}

bool Replay::solve_needed(bool only_joins) const {
  if (active_.empty()) return false;
  if (only_joins) {
    // More nodes help nobody when every job is at its maximum and values never fall with size.
    bool all_full = true;
    for (const Active& job : active_) {
      const traces::WorkloadJob& w = workload_[job.w];
      all_full = all_full && knowledge_.planned_monotone(job.w) &&
                 static_cast<int>(job.nodes.size()) >= w.max_nodes;
    }
    if (all_full) return false;
  }
  std::vector<int> key{pool_.size()};
  for (const Active& job : active_) {
    key.push_back(static_cast<int>(job.w));
    key.push_back(static_cast<int>(job.nodes.size()));
  }
  // With a horizon or gains from the holes' ages the same counts may get another answer.
  return key != stable_key_ || options_.hole_horizon || options_.hole_loss;
}

// Each pool node's expected remaining idle time from its age (hole_lifetime.h); nodes expected to
// leave within the horizon are marked leaving_soon (grows avoid them, shrinks release them
// first). With hole_horizon the horizon is the pool's median expected residual.
// These hints change with every node's age, so this is the one O(pool) step per solve, and only
// with hole_aware or hole_horizon.
void Replay::describe_holes(alloc::Problem& problem) {
  if (!options_.hole_aware && !options_.hole_horizon && !options_.hole_loss) return;
  const std::span<const int> nodes = pool_.members();
  std::vector<double> residual;
  residual.reserve(nodes.size());
  if (options_.hole_loss && options_.hole_censored) {
    std::vector<double> ages;
    ages.reserve(nodes.size());
    for (int node : nodes) ages.push_back(now_ - idle_since_[node]);
    const alloc::HoleSurvival survival(holes_, ages);
    for (double age : ages)
      residual.push_back(survival.expected_residual(age, alloc::kResidualCapS));
  } else {
    for (int node : nodes) residual.push_back(holes_.expected_residual(now_ - idle_since_[node]));
  }
  if (residual.empty()) return;
  if (options_.hole_loss) {
    problem.expect_departures = true;
    problem.finish_window_scale = options_.finish_window_scale;
    for (std::size_t i = 0; i < nodes.size(); ++i) pool_.set_hint(nodes[i], false, residual[i]);
  }
  std::vector<double> sorted = residual;
  const auto mid = sorted.begin() + static_cast<std::ptrdiff_t>(sorted.size() / 2);
  std::nth_element(sorted.begin(), mid, sorted.end());
  const double median = *mid;
  if (options_.hole_horizon)
    problem.horizon_s = std::clamp(median, kMinHoleHorizon, kMaxHoleHorizon);
  if (options_.hole_aware && !options_.hole_loss) {
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      pool_.set_hint(nodes[i], residual[i] < std::max(problem.horizon_s, median), residual[i]);
    }
  }
}

// The pool nodes' expected idle times (set by describe_holes): free ones and each job's.
alloc::IdleOutlook Replay::idle_outlook() const {
  alloc::IdleOutlook outlook;
  for (int node : pool_.members()) {
    if (pool_.is_free(node)) outlook.free_s.push_back(pool_.expected_idle_s(node));
  }
  for (const Active& job : active_) {
    std::vector<double>& held = outlook.held_s.emplace_back();
    for (int node : job.nodes) held.push_back(pool_.expected_idle_s(node));
  }
  return outlook;
}

// The allocator's counts for the pool's size and the jobs' current counts, then the mapping on
// the pool kept between events: no per-event list of node names.
absl::Status Replay::solve() {
  alloc::Problem problem;
  problem.horizon_s = options_.horizon_s;
  problem.objective = options_.objective;
  problem.solver = options_.solver;
  problem.time_limit_s = options_.time_limit_s;
  describe_holes(problem);
  problem.jobs.reserve(active_.size());
  std::vector<int> current;
  current.reserve(active_.size());
  knowledge_.update_priors(admitted());
  for (const Active& job : active_) {
    const traces::WorkloadJob& w = workload_[job.w];
    alloc::Job& j = problem.jobs.emplace_back();
    j.id = w.id;
    j.min_nodes = w.min_nodes;
    j.max_nodes = w.max_nodes;
    knowledge_.fill(job.w, j);
    j.grow_stall_s = w.grow_stall_s;
    j.shrink_stall_s = w.shrink_stall_s;
    j.remaining_samples = w.target_samples - job.progress;
    current.push_back(static_cast<int>(job.nodes.size()));
  }
  const auto t0 = std::chrono::steady_clock::now();
  alloc::IdleOutlook outlook;
  if (problem.expect_departures) outlook = idle_outlook();
  absl::StatusOr<alloc::CountSolution> plan = alloc::allocate_counts(
      problem, pool_.size(), current, problem.expect_departures ? &outlook : nullptr);
  absl::Status applied = plan.ok() ? apply(plan->counts) : plan.status();
  solve_ms_.push_back(
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  ++result_.metrics.solves;
  if (!applied.ok()) {
    return absl::Status(applied.code(),
                        absl::StrCat("allocator at t=", now_, " (", now_ - trace_.start,
                                     " s into the trace): ", applied.message()));
  }
  if (plan->status == alloc::SolveStatus::kTimeLimit) ++result_.metrics.solves_not_optimal;
  return absl::OkStatus();
}

// Maps the counts onto the pool and charges the jobs whose counts changed. A job keeps its nodes
// when its count stays, so the jobs whose count changed are the jobs whose nodes changed.
absl::Status Replay::apply(const std::vector<int>& counts) {
  if (counts.size() != active_.size()) {
    return absl::InternalError("allocator returned a plan for a different number of jobs");
  }
  std::vector<std::vector<int>*> held;
  held.reserve(active_.size());
  std::vector<std::size_t> resized;
  for (std::size_t i = 0; i < active_.size(); ++i) {
    Active& job = active_[i];
    held.push_back(&job.nodes);
    if (static_cast<int>(job.nodes.size()) == counts[i]) continue;
    resized.push_back(i);
    // Release first, then take: a node may pass from a shrinking job to a growing one.
    for (int node : job.nodes) owner_[node] = -1;
    allocated_ -= static_cast<int>(job.nodes.size());
  }
  std::vector<int> before(resized.size());
  for (std::size_t k = 0; k < resized.size(); ++k) {
    before[k] = static_cast<int>(active_[resized[k]].nodes.size());
  }
  if (absl::Status s = alloc::map_counts(pool_, held, counts, options_.hole_loss); !s.ok()) {
    return absl::InternalError(s.message());
  }
  for (std::size_t k = 0; k < resized.size(); ++k) {
    Active& job = active_[resized[k]];
    for (int node : job.nodes) owner_[node] = static_cast<int>(job.w);
    allocated_ += static_cast<int>(job.nodes.size());
    const traces::WorkloadJob& w = workload_[job.w];
    const int after = static_cast<int>(job.nodes.size());
    if (after > before[k]) {
      result_.metrics.node_grants += after - before[k];
      if (options_.record_timeline) hour(hour_of(now_)).node_grants += after - before[k];
      charge_stall(job, w.grow_stall_s,
                   before[k] < w.min_nodes ? StallCause::kStart : StallCause::kGrow);
    } else {
      charge_stall(job, w.shrink_stall_s, StallCause::kShrink);
    }
    ++result_.metrics.rescales;
    ++result_.jobs[job.w].rescales;
    job.drop_report = true;
    set_rate(job);
  }
  if (resized.empty()) {
    stable_key_ = {pool_.size()};
    for (const Active& job : active_) {
      stable_key_.push_back(static_cast<int>(job.w));
      stable_key_.push_back(static_cast<int>(job.nodes.size()));
    }
  }
  return absl::OkStatus();
}

std::vector<std::size_t> Replay::admitted() const {
  std::vector<std::size_t> ws;
  ws.reserve(active_.size());
  for (const Active& job : active_) ws.push_back(job.w);
  return ws;
}

bool Replay::holds_nodes() const {
  return std::any_of(active_.begin(), active_.end(),
                     [](const Active& job) { return !job.nodes.empty(); });
}

// Each job holding nodes reports what it made since the last tick, unless its nodes changed or it
// stalled since then: a job reports at step boundaries, so the report after a rescale straddles
// the change and its stall, and elasticd drops the first report after a change.
bool Replay::report_tick() {
  bool replan = false;
  knowledge_.update_priors(admitted());
  const double period_start = now_ - options_.learn.report_period_s;
  for (Active& job : active_) {
    const int n = static_cast<int>(job.nodes.size());
    if (n > 0 && !job.drop_report && job.stall_until <= period_start) {
      replan |= knowledge_.report(job.w, n, job.period_samples, options_.learn.report_period_s);
    }
    job.drop_report = false;
    job.period_samples = 0.0;
  }
  return replan;
}

void Replay::record_row() {
  if (!options_.record_timeline) return;
  TimelineRow row;
  row.time = now_;
  row.idle = pool_.size();
  row.allocated = allocated_;
  row.running = static_cast<int>(active_.size());
  row.queued = static_cast<int>(queue_.size() - queue_head_);
  for (const Active& job : active_) {
    if (!job.nodes.empty())
      row.counts.emplace_back(static_cast<int>(job.w), static_cast<int>(job.nodes.size()));
  }
  result_.timeline.push_back(std::move(row));
}

absl::StatusOr<ReplayResult> Replay::run() {
  const auto wall0 = std::chrono::steady_clock::now();
  if (trace_.intervals.empty()) return absl::InvalidArgumentError("empty trace: no idle intervals");
  if (workload_.empty()) return absl::InvalidArgumentError("empty workload: no jobs");
  const std::vector<traces::NodeBatch> batches = node_batches(trace_);
  const std::size_t n_nodes = trace_.node_names.size();
  owner_.assign(n_nodes, -1);
  idle_since_.assign(n_nodes, trace_.start);
  result_.jobs.resize(workload_.size());
  const bool learning = learns(options_.scaling);
  const double period = options_.learn.report_period_s;
  if (learning && !(period > 0)) return absl::InvalidArgumentError("report period must be > 0");
  // Report ticks at start + k * period; the first one due after `after`.
  auto tick_after = [&](double after) {
    return trace_.start + (std::floor((after - trace_.start) / period) + 1) * period;
  };
  if (learning) next_tick_ = tick_after(trace_.start);

  // Arrivals: Tsub shifted so that the first submission is at the trace start.
  std::vector<std::size_t> arrivals(workload_.size());
  std::iota(arrivals.begin(), arrivals.end(), 0);
  std::stable_sort(arrivals.begin(), arrivals.end(), [&](std::size_t a, std::size_t b) {
    return workload_[a].submit_unix < workload_[b].submit_unix;
  });
  const double shift = trace_.start - workload_[arrivals.front()].submit_unix;
  auto arrival_time = [&](std::size_t k) { return workload_[arrivals[k]].submit_unix + shift; };

  Metrics& m = result_.metrics;
  m.trace_start = trace_.start;
  m.trace_end = trace_.end;
  m.nodes = static_cast<int>(n_nodes);
  m.jobs_in_workload = static_cast<std::int64_t>(workload_.size());
  m.input = trace_.stats;
  now_ = trace_.start;
  std::size_t next_batch = 0, next_arrival = 0;
  std::vector<double> completion_s;

  while (true) {
    double t = trace_.end;
    if (next_batch < batches.size()) t = std::min(t, batches[next_batch].time);
    if (next_arrival < arrivals.size()) t = std::min(t, arrival_time(next_arrival));
    for (const Active& job : active_) t = std::min(t, job.finish);
    // Ticks matter only while a job holds nodes: only such a job reports.
    if (learning && holds_nodes()) t = std::min(t, next_tick_);
    if (t >= trace_.end) {
      advance(trace_.end);
      break;
    }
    advance(t);
    ++m.events;
    bool jobs_changed = false, pool_changed = false, only_joins = true, learned = false;
    if (learning && t >= next_tick_) {
      learned = report_tick();
      next_tick_ = tick_after(t);
    }

    // Finishes: exactly at Pmax.
    for (std::size_t i = 0; i < active_.size();) {
      Active& job = active_[i];
      if (job.finish > t) {
        ++i;
        continue;
      }
      const traces::WorkloadJob& w = workload_[job.w];
      job.progress = w.target_samples;
      m.nodes_freed_by_finishes += static_cast<std::int64_t>(job.nodes.size());
      for (int node : job.nodes) {
        owner_[node] = -1;
        pool_.release(node);
      }
      allocated_ -= static_cast<int>(job.nodes.size());
      JobOutcome& out = result_.jobs[job.w];
      out.finish = t;
      out.samples = job.progress;
      completion_s.push_back(t - out.arrival);
      ++m.jobs_finished;
      active_.erase(active_.begin() + static_cast<std::ptrdiff_t>(i));
      jobs_changed = true;
    }
    // Node joins and leaves; a held node that leaves is lost at once.
    if (next_batch < batches.size() && batches[next_batch].time == t) {
      const traces::NodeBatch& batch = batches[next_batch++];
      std::vector<Active*> shrunk;  // one shrink per job, however many nodes it lost at once
      for (int node : batch.leaves) {
        if (!pool_.contains(node)) continue;
        pool_.leave(node);
        holes_.observe(t - idle_since_[node]);
        pool_changed = true;
        only_joins = false;
        if (owner_[node] < 0) continue;
        for (Active& job : active_) {
          if (static_cast<int>(job.w) != owner_[node]) continue;
          job.nodes.erase(std::find(job.nodes.begin(), job.nodes.end(), node));
          if (std::find(shrunk.begin(), shrunk.end(), &job) == shrunk.end()) shrunk.push_back(&job);
          ++m.preemptions;
        }
        owner_[node] = -1;
        --allocated_;
      }
      for (Active* job : shrunk) {
        job->drop_report = true;
        charge_stall(*job, workload_[job->w].shrink_stall_s, StallCause::kPreemption);
        set_rate(*job);
      }
      for (int node : batch.joins) {
        if (pool_.contains(node)) continue;
        pool_.join(node);
        idle_since_[node] = t;
        pool_changed = true;
      }
    }
    // Arrivals, then first-come-first-served admission.
    while (next_arrival < arrivals.size() && arrival_time(next_arrival) <= t) {
      const std::size_t w = arrivals[next_arrival++];
      result_.jobs[w].arrival = t;
      queue_.push_back(w);
      ++m.jobs_submitted;
    }
    while (queue_head_ < queue_.size() && static_cast<int>(active_.size()) < options_.max_running) {
      Active job;
      job.w = queue_[queue_head_++];
      active_.push_back(std::move(job));
      jobs_changed = true;
    }
    if (learned) {
      ++m.learned_replans;
      stable_key_.clear();  // a new table: the same counts may get a different answer
    }
    if ((jobs_changed || pool_changed || learned) &&
        solve_needed(only_joins && !jobs_changed && !learned)) {
      if (absl::Status s = solve(); !s.ok()) return s;
    } else if (jobs_changed || pool_changed) {
      ++m.solves_skipped;
    }
    // A tick skipped while no job held nodes: the next one after now.
    if (learning && next_tick_ <= t) next_tick_ = tick_after(t);
    record_row();
    if (options_.progress && (m.events & 255) == 0) {
      options_.progress((t - trace_.start) / (trace_.end - trace_.start));
    }
  }

  for (const Active& job : active_) result_.jobs[job.w].samples = job.progress;
  for (const JobOutcome& out : result_.jobs) m.samples += out.samples;
  m.reports = knowledge_.reports();
  m.utilization = m.hole_node_s > 0 ? m.allocated_node_s / m.hole_node_s : 0.0;
  m.elastic_efficiency = m.ideal_samples > 0 ? m.samples / m.ideal_samples : 0.0;
  m.scaling_efficiency = m.scaling_ideal_samples > 0 ? m.samples / m.scaling_ideal_samples : 0.0;
  m.solve_ms_p50 = percentile(solve_ms_, 50);
  m.solve_ms_p99 = percentile(solve_ms_, 99);
  m.solve_ms_max = solve_ms_.empty() ? 0.0 : *std::max_element(solve_ms_.begin(), solve_ms_.end());
  m.jct_s_p50 = percentile(completion_s, 50);
  m.jct_s_p99 = percentile(completion_s, 99);
  m.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  if (options_.progress) options_.progress(1.0);
  return std::move(result_);
}

}  // namespace

absl::StatusOr<ReplayResult> run_replay(const traces::HoleTrace& trace,
                                        const std::vector<traces::WorkloadJob>& workload,
                                        const ReplayOptions& options) {
  Replay replay(trace, workload, options);
  return replay.run();
}

}  // namespace elastic::replay
