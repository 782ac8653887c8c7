// What elasticd does to its jobs: plans (allocator -> plan_actions), carries each action out with
// a JobGroup verb (start, grow, shrink, stop), follows their progress (learning throughput curves)
// and ends them (finished, failed, cancelled, requeued), journaling and logging each step. The
// event loop that decides when to plan is daemon.cc.
#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "elastic/allocator/allocator.h"
#include "elastic/allocator/hole_survival.h"
#include "elastic/control/job_spec.h"
#include "elastic/daemon/daemon.h"
#include "fmt/format.h"
#include "fmt/ranges.h"
#include "say.h"

namespace elastic::rt {

namespace {

using Clock = std::chrono::steady_clock;

// A start refused (Unavailable) or that lost a process (Aborted; membership_error.h) is retried by
// the next plans this many times in a row before the job fails: on a cluster that is a node or
// daemon failing, not the job. A spawn that timed out or an MPI error (Internal) fails at once.
constexpr int kStartAttempts = 3;
// After a failed start or grow the daemon plans again after this delay, doubled with each failure
// in a row up to kRetryMax: otherwise the job would wait for the next hostfile change.
constexpr std::chrono::seconds kRetryFirst{2};
constexpr std::chrono::seconds kRetryMax{60};

bool start_retryable(const absl::Status& st) {
  return st.ok() || absl::IsAborted(st) || absl::IsUnavailable(st);
}

}  // namespace

absl::StatusOr<std::filesystem::path> Daemon::command_path(const JobSpec& spec) {
  const auto env_path = spec.env.find("PATH");
  const char* path_env = std::getenv("PATH");
  return resolve_command(spec.command, env_path != spec.env.end()
                                           ? env_path->second
                                           : std::string(path_env != nullptr ? path_env : ""));
}

void Daemon::finish_job(Job& job, JobState state, const std::string& reason) {
  const std::string& id = job.rec.spec.id;
  const std::int64_t samples = job.samples_done();
  if (job.group) {
    if (job.group->active()) job.group->abort();
    note_departed(*job.group);
    note_lost(job.rec.spec.id, job.group->take_lost());
  }
  job.group.reset();
  absl::Status st;
  switch (state) {
    case JobState::kFinished:
      st = journal_.finished(id, samples);
      break;
    case JobState::kFailed:
      st = journal_.failed(id, reason);
      break;
    case JobState::kCancelled:
      st = journal_.cancelled(id, reason);
      break;
    default:
      break;
  }
  say_journal_error(st);
  job.rec.state = state;
  job.rec.reason = reason;
  job.rec.samples_done = samples;
  job.rec.ended_at = unix_now();
  job.rec.nodes.clear();
  job.rec.ranks = 0;
  job.samples_per_s = 0;
  if (state == JobState::kFailed) say(fmt::format("job {} failed: {}", id, reason));
  log(state == JobState::kFinished ? "job_finished"
      : state == JobState::kFailed ? "job_failed"
                                   : "job_cancelled",
      {{"job", id}, {"reason", reason}, {"samples_done", samples}});
}

void Daemon::requeue(Job& job, const std::string& why) {
  job.rec.samples_done = job.samples_done();
  if (job.group) {
    if (job.group->active()) job.group->abort();
    note_departed(*job.group);
    note_lost(job.rec.spec.id, job.group->take_lost());
    job.group.reset();
  }
  job.rec.state = JobState::kToRestart;
  job.rec.reason = why;
  job.rec.nodes.clear();
  job.rec.ranks = 0;
  job.samples_per_s = 0;
  say_journal_error(journal_.requeued(job.rec.spec.id, why, job.rec.samples_done));
  log("job_requeued", {{"job", job.rec.spec.id}, {"reason", why}});
}

void Daemon::poll_jobs() {
  for (Job& job : jobs_) {
    if (!job.group) continue;
    PollResult r = job.group->poll();
    if (r.repair_started) log("job_repair_started", {{"job", job.rec.spec.id}});
    // plan() leaves a job under repair and its nodes alone until the repair ends: plan then, also
    // when no node was lost (a revoke without a failure), or nodes that left meanwhile wait.
    if (r.repair_ended) dirty_ = true;
    if (!r.lost_nodes.empty()) {
      note_lost(job.rec.spec.id, r.lost_nodes);
      ++job.rescales;
      log("job_recovered", {{"job", job.rec.spec.id},
                            {"ranks", job.group->ranks()},
                            {"nodes", job.group->nodes()},
                            {"generation", job.group->generation()},
                            {"ms", job.group->repair_ms()}});
      if (job.group->active()) {
        say_journal_error(
            journal_.rescaled(job.rec.spec.id, job.group->nodes(), job.group->ranks(), "failure"));
      }
      dirty_ = true;
    }
    if (r.progressed) {
      job.samples_per_s = job.group->samples_per_s();
      learn(job);
    }
    if (r.error) {
      finish_job(job, JobState::kFailed, *r.error);
      dirty_ = true;
    } else if (r.done) {
      absl::Status st = job.group->stop(/*wait_boundary=*/false);
      if (!st.ok()) say(fmt::format("job {}: stop: {}", job.rec.spec.id, msg(st)));
      finish_job(job, JobState::kFinished, "");
      dirty_ = true;
    } else if (!job.group->active()) {
      requeue(job, "all of its ranks were lost");
      dirty_ = true;
    } else {
      job.rec.nodes = job.group->nodes();
      job.rec.ranks = job.group->ranks();
    }
  }
}

void Daemon::learn(Job& job) {
  if (!job.learned || !job.group || !job.group->active()) return;
  const JobGroup& g = *job.group;
  if (g.progress_ranks() != g.ranks()) return;  // sent before the last change reached the leader
  if (job.learned_generation != g.generation()) {
    job.learned_generation = g.generation();
    return;
  }
  const int nodes = static_cast<int>(g.nodes().size());
  job.learned->observe(nodes, g.samples_per_s());
  const Priors prior = priors();
  const alloc::PiecewiseLinear table = job.learned->table(prior.per_node, prior.serial);
  if (alloc::changed_significantly(job.planned_table, table, alloc::kReplanOnChange)) {
    log("throughput_learned", {{"job", job.rec.spec.id},
                               {"nodes", nodes},
                               {"samples_per_s", g.samples_per_s()},
                               {"r1", job.learned->r1()},
                               {"serial_fraction", job.learned->serial_fraction()}});
    dirty_ = true;
  }
}

Daemon::Priors Daemon::priors() const {
  double best = 0;
  std::vector<const alloc::ScalingModel*> learned;
  for (const Job& j : jobs_) {
    if (!j.active()) continue;
    if (j.rec.spec.scaling && !j.rec.spec.scaling->samples_per_s.empty()) {
      const int n = j.rec.spec.scaling->nodes.front();
      const double r = j.rec.spec.scaling->samples_per_s.front();
      best = std::max(best, n > 0 ? r / n : r);
    } else if (j.learned && j.learned->has_data()) {
      best = std::max(best, j.learned->r1());
      learned.push_back(&*j.learned);
    }
  }
  return {alloc::unmeasured_prior(best), alloc::typical_serial_fraction(learned)};
}

void Daemon::start_job(Job& job, const std::vector<std::string>& nodes) {
  const JobSpec& spec = job.rec.spec;
  absl::StatusOr<std::filesystem::path> jobdir = dir_.make_job_dir(spec.id);
  if (!jobdir.ok()) {
    finish_job(job, JobState::kFailed, msg(jobdir.status()));
    return;
  }
  absl::StatusOr<std::filesystem::path> cmd = command_path(spec);
  if (!cmd.ok()) {
    finish_job(job, JobState::kFailed, msg(cmd.status()));
    return;
  }
  LaunchSpec launch;
  launch.job_id = spec.id;
  launch.command = cmd->string();
  launch.args = spec.args;
  launch.env = spec.env;
  launch.workdir = spec.workdir;
  launch.stdout_path = dir_.job_stdout(spec.id);
  launch.stderr_path = dir_.job_stderr(spec.id);
  // The job's durable checkpoint (Session::checkpoint_path): run() writes it and resumes from it
  // when this start is a restart (a relative spec path is taken from the job's workdir).
  launch.checkpoint_path = spec.checkpoint.empty() ? dir_.job_dir(spec.id) / "checkpoint"
                                                   : std::filesystem::path(spec.checkpoint);
  launch.ranks_per_node = spec.ranks_per_node > 0 ? spec.ranks_per_node : default_ranks_;
  job.group = std::make_unique<JobGroup>(std::move(launch), placement_, options_.directive_timeout,
                                         options_.spawn_timeout);
  const auto t0 = Clock::now();
  absl::Status st = job.group->start(nodes);
  const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  if (!st.ok() || !job.group->active()) {
    const std::string why = fmt::format("could not start on {}: {}", fmt::join(nodes, ","),
                                        st.ok() ? "all ranks lost" : msg(st));
    if (start_retryable(st) && ++job.start_failures < kStartAttempts) {
      requeue(job, why);
      retry_later();
    } else {
      finish_job(job, JobState::kFailed, why);
    }
    return;
  }
  job.start_failures = 0;
  retry_delay_ = {};
  job.rec.state = JobState::kRunning;
  job.rec.reason.clear();
  job.rec.started_at = unix_now();
  job.rec.nodes = job.group->nodes();
  job.rec.ranks = job.group->ranks();
  say_journal_error(journal_.started(spec.id, job.rec.nodes, job.rec.ranks));
  log("job_started", {{"job", spec.id},
                      {"nodes", job.rec.nodes},
                      {"ranks", job.rec.ranks},
                      {"hosts", job.group->rank_hosts()},
                      {"ms", ms}});
  check_placement(job);
}

// A rank that runs elsewhere than on its node (a launcher that ignored the `host` key) is reported:
// the node would be released while that rank still runs, and the other host would be overused.
void Daemon::check_placement(const Job& job) {
  for (const std::string& m : job.group->misplaced()) {
    say(fmt::format("job {}: rank not on its node ({})", job.rec.spec.id, m));
    log("rank_misplaced", {{"job", job.rec.spec.id}, {"rank", m}});
  }
}

void Daemon::plan() {
  std::vector<alloc::Job> alloc_jobs;
  std::vector<Job*> planned;
  std::vector<std::vector<std::string>> held;
  nlohmann::json inputs = nlohmann::json::array();
  const Priors prior = priors();
  std::set<std::string> unavailable = lost_;  // ... and the nodes of jobs under repair
  std::vector<std::string> repairing;
  for (Job& job : jobs_) {
    if (!job.active()) continue;
    if (job.group && job.group->repairing()) {
      // Which of its nodes are lost is known when the repair ends: it keeps them all until then,
      // and the next plan (the repair's end marks one) counts it again.
      for (std::string& n : job.group->nodes()) unavailable.insert(std::move(n));
      repairing.push_back(job.rec.spec.id);
      continue;
    }
    std::vector<std::string> held_nodes =
        job.group ? job.group->nodes() : std::vector<std::string>{};
    if (job.learned) job.planned_table = job.learned->table(prior.per_node, prior.serial);
    absl::StatusOr<alloc::Job> aj =
        plan_job(job.rec.spec, held_nodes, job.planned_table, options_.plan, job.samples_done());
    if (!aj.ok()) {
      finish_job(job, JobState::kFailed, msg(aj.status()));
      continue;
    }
    nlohmann::json in = {{"job", job.rec.spec.id},
                         {"state", to_string(job.rec.state)},
                         {"held", held_nodes},
                         {"min", job.rec.spec.min_nodes},
                         {"max", job.rec.spec.max_nodes}};
    if (job.learned) {
      in["learned"] = {{"r1", job.learned->r1()},
                       {"serial_fraction", job.learned->serial_fraction()},
                       {"counts_measured", job.learned->distinct_counts()},
                       {"prior_per_node", prior.per_node},
                       {"typical_serial_fraction", prior.serial}};
    }
    inputs.push_back(std::move(in));
    alloc_jobs.push_back(*std::move(aj));
    planned.push_back(&job);
    held.push_back(std::move(held_nodes));
  }
  std::vector<double> idle_s;
  if (options_.plan.hole_loss) {
    std::vector<std::string> names;
    for (const HostEntry& h : pool_) names.push_back(h.name);
    idle_s = holes_.expected_idle_s(names, unix_now(), alloc::kResidualCapS);
  }
  const alloc::Problem p =
      plan_problem(pool_, unavailable, std::move(alloc_jobs), options_.plan, idle_s);
  ++plans_;
  std::vector<std::string> pool_names;
  for (const alloc::Node& n : p.nodes) pool_names.push_back(n.name);
  absl::StatusOr<alloc::Allocation> a = alloc::allocate(p);
  if (!a.ok()) {
    say(fmt::format("allocator: {}", msg(a.status())));
    log("plan_failed", {{"error", msg(a.status())}, {"jobs", inputs}, {"pool", pool_names}});
    return;
  }
  nlohmann::json plan = nlohmann::json::array();
  for (const alloc::JobAllocation& ja : a->jobs) {
    plan.push_back({{"job", ja.id}, {"count", ja.count}, {"nodes", ja.nodes}});
  }
  nlohmann::json event = {{"n", plans_},
                          {"pool", pool_names},
                          {"lost", std::vector<std::string>(lost_.begin(), lost_.end())},
                          {"jobs", inputs},
                          {"repairing", repairing},
                          {"solve_ms", a->solve_ms},
                          {"objective", a->objective},
                          {"plan", plan}};
  if (p.expect_departures) {  // --hole-loss: what the plan took each node's stay to be
    for (const alloc::Node& n : p.nodes)
      event["expected_idle_s"][n.name] = std::round(n.expected_idle_s);
  }
  log("plan", std::move(event));
  // A shrink that a failure interrupted (the job was repaired, not split) leaves its nodes with the
  // job: the starts and grows the plan meant to put there wait for the next plan, or two jobs
  // would hold one node (and every later plan be refused for it).
  std::set<std::string> kept;
  for (const PlanAction& action : plan_actions(held, *a)) {
    Job& job = *planned[action.job];
    const bool takes =
        action.kind == PlanAction::Kind::kStart || action.kind == PlanAction::Kind::kGrow;
    std::vector<std::string> blocked;
    for (const std::string& n : action.nodes) {
      if (takes && kept.contains(n)) blocked.push_back(n);
    }
    if (!blocked.empty()) {
      say(fmt::format("job {}: not started or grown: {} still held", job.rec.spec.id,
                      fmt::join(blocked, ",")));
      log("action_skipped", {{"job", job.rec.spec.id}, {"nodes", blocked}});
      retry_later();
      continue;
    }
    carry_out(job, action);
    if (action.kind == PlanAction::Kind::kShrink && job.group) {
      for (std::string& n : job.group->nodes()) {
        if (std::find(action.nodes.begin(), action.nodes.end(), n) != action.nodes.end()) {
          kept.insert(std::move(n));
        }
      }
    }
  }
}

void Daemon::carry_out(Job& job, const PlanAction& action) {
  if (!job.active()) return;
  const std::string& id = job.rec.spec.id;
  switch (action.kind) {
    case PlanAction::Kind::kStop:
      if (job.group) (void)job.group->stop(/*wait_boundary=*/true);
      requeue(job, action.reason);
      return;
    case PlanAction::Kind::kStart:
      start_job(job, action.nodes);
      return;
    case PlanAction::Kind::kShrink:
    case PlanAction::Kind::kGrow: {
      const bool grow = action.kind == PlanAction::Kind::kGrow;
      if (!job.group || (grow && !job.group->active())) return;
      const auto t0 = Clock::now();
      absl::Status st = grow ? job.group->grow(action.nodes) : job.group->shrink(action.nodes);
      const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
      const char* verb = grow ? "grow" : "shrink";
      ++job.rescales;
      if (!st.ok()) {
        say(fmt::format("job {}: {}: {}", id, verb, msg(st)));
        if (grow) retry_later();
      } else if (grow) {
        retry_delay_ = {};
      }
      if (job.group->active()) {
        say_journal_error(journal_.rescaled(id, job.group->nodes(), job.group->ranks(), verb));
      }
      nlohmann::json details = {{"job", id},
                                {grow ? "added" : "released", action.nodes},
                                {"nodes", job.group->nodes()},
                                {"ranks", job.group->ranks()},
                                {"ms", ms},
                                {"ok", st.ok()}};
      if (grow) details["hosts"] = job.group->rank_hosts();
      log(grow ? "job_grown" : "job_shrunk", details);
      if (grow) check_placement(job);
      return;
    }
  }
}

void Daemon::retry_later() {
  retry_delay_ = retry_delay_.count() == 0 ? kRetryFirst : std::min(retry_delay_ * 2, kRetryMax);
  replan_at_ = Clock::now() + retry_delay_;
  log("replan_scheduled", {{"after_s", retry_delay_.count()}});
}

}  // namespace elastic::rt
