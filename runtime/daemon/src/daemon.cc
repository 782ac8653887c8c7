#include "elastic/daemon/daemon.h"

#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <thread>

#include "elastic/allocator/allocator.h"
#include "elastic/control/atomic_file.h"
#include "elastic/control/job_spec.h"
#include "elastic/control/status.h"
#include "elastic/control/topology.h"
#include "elastic/daemon/process_table.h"
#include "fmt/format.h"
#include "fmt/ranges.h"

namespace elastic::rt {

namespace {

using Clock = std::chrono::steady_clock;

std::string msg(const absl::Status& s) { return std::string(s.message()); }

void say(const std::string& line) {
  std::fprintf(stderr, "elasticd: %s\n", line.c_str());
  std::fflush(stderr);
}

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

// Whether process `pid` of this host has exited. A zombie has: it only waits for its PRRTE daemon
// to reap it.
bool process_gone(int pid) {
  std::ifstream stat(fmt::format("/proc/{}/stat", pid));
  std::string line;
  if (pid <= 0 || !std::getline(stat, line)) return true;
  const std::size_t close = line.rfind(')');  // the command name may hold spaces and parentheses
  if (close == std::string::npos || close + 2 >= line.size()) return true;
  const char state = line[close + 2];
  return state == 'Z' || state == 'X';
}

bool active_state(JobState s) {
  return s == JobState::kQueued || s == JobState::kRunning || s == JobState::kToRestart;
}

}  // namespace

absl::StatusOr<std::unique_ptr<Daemon>> Daemon::create(DaemonOptions options) {
  absl::StatusOr<StateDir> dir = StateDir::open(options.state_dir, /*create=*/true);
  if (!dir.ok()) return dir.status();
  absl::StatusOr<DaemonLock> lock = DaemonLock::acquire(*dir);
  if (!lock.ok()) return lock.status();
  absl::StatusOr<std::unique_ptr<HostfileWatcher>> watcher =
      HostfileWatcher::create(options.hostfile);
  if (!watcher.ok()) return watcher.status();
  JournalReplay replay;
  absl::StatusOr<Journal> journal = Journal::open(dir->journal_path(), &replay);
  if (!journal.ok()) return journal.status();
  absl::StatusOr<EventLog> events = EventLog::open(dir->events_path());
  if (!events.ok()) return events.status();
  std::unique_ptr<Daemon> d(new Daemon(std::move(options), *std::move(dir), *std::move(lock),
                                       *std::move(journal), *std::move(events),
                                       *std::move(watcher)));
  for (JobRecord& rec : replay.jobs) d->jobs_.emplace_back(std::move(rec));
  for (const std::string& w : replay.warnings) say(w);
  int restart = 0;
  int queued = 0;
  for (const Job& j : d->jobs_) {
    restart += j.rec.state == JobState::kToRestart ? 1 : 0;
    queued += j.rec.state == JobState::kQueued ? 1 : 0;
  }
  d->log("daemon_started", {{"pid", static_cast<int>(::getpid())},
                            {"journal_records", replay.records},
                            {"jobs_to_restart", restart},
                            {"jobs_queued", queued},
                            {"fake_nodes", d->options_.fake_nodes},
                            {"head_host", d->placement_.head_host},
                            {"ranks_per_node", d->default_ranks_}});
  return d;
}

Daemon::Daemon(DaemonOptions options, StateDir dir, DaemonLock lock, Journal journal,
               EventLog events, std::unique_ptr<HostfileWatcher> watcher)
    : options_(std::move(options)), dir_(std::move(dir)), lock_(std::move(lock)),
      journal_(std::move(journal)), events_(std::move(events)), watcher_(std::move(watcher)),
      queue_(dir_) {
  char host[MPI_MAX_PROCESSOR_NAME] = {};
  int len = 0;
  MPI_Get_processor_name(host, &len);
  placement_.fake_nodes = options_.fake_nodes;
  placement_.head_host = std::string(host, static_cast<std::size_t>(len));
  if (options_.ranks_per_node > 0) {
    default_ranks_ = options_.ranks_per_node;
  } else if (absl::StatusOr<NodeTopology> topo = probe_topology(); topo.ok()) {
    default_ranks_ = default_ranks_per_node(*topo);
  }
  pool_ = watcher_->hosts();
}

Daemon::~Daemon() = default;

Daemon::Job::Job(JobRecord record) : rec(std::move(record)) {
  if (!rec.spec.scaling) learned.emplace(rec.spec.max_nodes);
}

void Daemon::log(std::string_view event, nlohmann::json fields) {
  if (absl::Status st = events_.write(event, fields); !st.ok()) say(msg(st));
}

Daemon::Job* Daemon::find(const std::string& id) {
  for (Job& j : jobs_) {
    if (j.rec.spec.id == id) return &j;
  }
  return nullptr;
}

bool Daemon::held(const std::string& node) const {
  for (const Job& j : jobs_) {
    if (!j.group) continue;
    for (const std::string& n : j.group->nodes()) {
      if (n == node) return true;
    }
  }
  return false;
}

void Daemon::note_departed(JobGroup& group) {
  for (const Departed& d : group.take_departed()) exiting_[d.node].push_back(d.pid);
}

bool Daemon::occupied(const std::string& node) const {
  return held(node) || exiting_.contains(node);
}

void Daemon::take_hostfile_update(const HostfileUpdate& u) {
  if (!u.status.ok()) {
    say(fmt::format("hostfile update ignored: {}", msg(u.status)));
    log("hostfile_rejected", {{"error", msg(u.status)}});
    return;
  }
  pool_ = u.hosts;
  std::vector<std::string> added;
  for (const HostEntry& h : u.added) {
    added.push_back(h.name);
    lost_.erase(h.name);  // a lost node that comes back is usable again
    leaving_.erase(h.name);
  }
  std::vector<std::string> released;
  for (const std::string& n : u.removed) {
    lost_.erase(n);
    if (occupied(n)) {
      leaving_[n] = unix_now() + options_.grace_s;
    } else {
      released.push_back(n);
    }
  }
  log("hostfile", {{"added", added},
                   {"removed", u.removed},
                   {"pool", static_cast<int>(pool_.size())},
                   {"leaving", static_cast<int>(leaving_.size())}});
  for (const std::string& n : released) log("node_released", {{"node", n}, {"after_s", 0.0}});
  dirty_ = true;
}

void Daemon::take_queue() {
  const char* path_env = std::getenv("PATH");
  for (QueuedSubmission& sub : queue_.submissions()) {
    if (!sub.spec.ok()) {
      say(fmt::format("rejected submission {}: {}", sub.path.string(), msg(sub.spec.status())));
      log("submission_rejected", {{"file", sub.path.string()}, {"error", msg(sub.spec.status())}});
      (void)queue_.remove_submission(sub.id);
      continue;
    }
    JobSpec spec = *std::move(sub.spec);
    if (spec.id.empty()) spec.id = sub.id;
    if (find(spec.id) != nullptr) {  // journaled before a crash: already ours
      (void)queue_.remove_submission(sub.id);
      continue;
    }
    if (absl::Status st = journal_.submitted(spec); !st.ok()) {
      say(fmt::format("journal: {}", msg(st)));
      continue;  // leave the file: retried next loop
    }
    (void)queue_.remove_submission(sub.id);
    JobRecord rec;
    rec.spec = spec;
    rec.state = JobState::kQueued;
    rec.submitted_at = unix_now();
    jobs_.emplace_back(std::move(rec));
    log("job_submitted", {{"job", spec.id},
                          {"min_nodes", spec.min_nodes},
                          {"max_nodes", spec.max_nodes},
                          {"command", spec.command}});
    // A command that cannot run fails now, with the reason: spawning it would hang (job_group.h).
    auto env_path = spec.env.find("PATH");
    absl::StatusOr<std::filesystem::path> cmd = resolve_command(
        spec.command, env_path != spec.env.end() ? env_path->second
                                                 : std::string(path_env ? path_env : ""));
    if (!cmd.ok()) {
      finish_job(jobs_.back(), JobState::kFailed, msg(cmd.status()));
    }
    dirty_ = true;
  }
  for (const std::string& id : queue_.cancel_requests()) {
    Job* job = find(id);
    if (job != nullptr && active_state(job->rec.state)) {
      if (job->group) (void)job->group->stop(/*wait_boundary=*/true);
      finish_job(*job, JobState::kCancelled, "cancelled by the user");
      dirty_ = true;
    }
    (void)queue_.remove_cancel(id);
  }
}

void Daemon::finish_job(Job& job, JobState state, const std::string& reason) {
  const std::string& id = job.rec.spec.id;
  const auto samples = static_cast<std::int64_t>(
      job.samples_base + (job.group ? job.group->samples_total() : 0.0));
  if (job.group) {
    if (job.group->active()) job.group->abort();
    note_departed(*job.group);
  }
  job.group.reset();
  absl::Status st;
  switch (state) {
    case JobState::kFinished: st = journal_.finished(id, samples); break;
    case JobState::kFailed: st = journal_.failed(id, reason); break;
    case JobState::kCancelled: st = journal_.cancelled(id, reason); break;
    default: break;
  }
  if (!st.ok()) say(fmt::format("journal: {}", msg(st)));
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
  if (job.group) {
    job.samples_base += job.group->samples_total();
    if (job.group->active()) job.group->abort();
    note_departed(*job.group);
    job.group.reset();
  }
  job.rec.state = JobState::kToRestart;
  job.rec.nodes.clear();
  job.rec.ranks = 0;
  job.samples_per_s = 0;
  (void)journal_.append("requeued", job.rec.spec.id, {{"reason", why}});
  log("job_requeued", {{"job", job.rec.spec.id}, {"reason", why}});
}

void Daemon::poll_jobs() {
  for (Job& job : jobs_) {
    if (!job.group) continue;
    PollResult r = job.group->poll();
    if (!r.lost_nodes.empty()) {
      for (const std::string& n : r.lost_nodes) {
        lost_.insert(n);
        log("node_lost", {{"node", n}, {"job", job.rec.spec.id}});
      }
      ++job.rescales;
      log("job_recovered", {{"job", job.rec.spec.id},
                            {"ranks", job.group->ranks()},
                            {"nodes", job.group->nodes()},
                            {"generation", job.group->generation()}});
      if (job.group->active()) {
        (void)journal_.rescaled(job.rec.spec.id, job.group->nodes(), job.group->ranks(),
                                "failure");
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
  const alloc::PiecewiseLinear table = job.learned->table(prior_per_node());
  if (alloc::changed_significantly(job.planned_table, table, alloc::kReplanOnChange)) {
    log("throughput_learned", {{"job", job.rec.spec.id},
                               {"nodes", nodes},
                               {"samples_per_s", g.samples_per_s()},
                               {"r1", job.learned->r1()},
                               {"serial_fraction", job.learned->serial_fraction()}});
    dirty_ = true;
  }
}

double Daemon::prior_per_node() const {
  double best = 0;
  for (const Job& j : jobs_) {
    if (!active_state(j.rec.state)) continue;
    if (j.rec.spec.scaling && !j.rec.spec.scaling->samples_per_s.empty()) {
      const int n = j.rec.spec.scaling->nodes.front();
      const double r = j.rec.spec.scaling->samples_per_s.front();
      best = std::max(best, n > 0 ? r / n : r);
    } else if (j.learned && j.learned->has_data()) {
      best = std::max(best, j.learned->r1());
    }
  }
  return alloc::unmeasured_prior(best);
}

std::set<ProcessKey> Daemon::remote_running() {
  absl::StatusOr<std::set<ProcessKey>> running = running_processes();
  if (running.ok()) return *std::move(running);
  if (!process_table_failed_) {
    process_table_failed_ = true;
    say(fmt::format("cannot see processes on other hosts ({}): a node is released once its ranks "
                    "have left their job", msg(running.status())));
    log("process_table_unavailable", {{"error", msg(running.status())}});
  }
  return {};
}

void Daemon::check_leaving() {
  for (Job& job : jobs_) {
    if (job.group) note_departed(*job.group);
  }
  std::optional<std::set<ProcessKey>> remote;  // asked once per loop, when needed
  for (auto it = exiting_.begin(); it != exiting_.end();) {
    if (placement_.fake_nodes || it->first == placement_.head_host) {
      std::erase_if(it->second, process_gone);
    } else {
      if (!remote) remote = remote_running();
      std::erase_if(it->second, [&](int pid) { return !remote->contains(ProcessKey{it->first, pid}); });
    }
    it = it->second.empty() ? exiting_.erase(it) : std::next(it);
  }
  const double now = unix_now();
  for (auto it = leaving_.begin(); it != leaving_.end();) {
    if (!occupied(it->first)) {
      log("node_released",
          {{"node", it->first}, {"after_s", options_.grace_s - (it->second - now)}});
      it = leaving_.erase(it);
    } else {
      if (now > it->second) {
        log("grace_exceeded", {{"node", it->first}});
        say(fmt::format("node {} still in use after the grace period", it->first));
        it->second = now + options_.grace_s;  // report again later, not every loop
        dirty_ = true;
      }
      ++it;
    }
  }
}

void Daemon::start_job(Job& job, const std::vector<std::string>& nodes) {
  const JobSpec& spec = job.rec.spec;
  absl::StatusOr<std::filesystem::path> jobdir = dir_.make_job_dir(spec.id);
  if (!jobdir.ok()) {
    finish_job(job, JobState::kFailed, msg(jobdir.status()));
    return;
  }
  const char* path_env = std::getenv("PATH");
  auto env_path = spec.env.find("PATH");
  absl::StatusOr<std::filesystem::path> cmd = resolve_command(
      spec.command,
      env_path != spec.env.end() ? env_path->second : std::string(path_env ? path_env : ""));
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
  job.rec.started_at = unix_now();
  job.rec.nodes = job.group->nodes();
  job.rec.ranks = job.group->ranks();
  (void)journal_.started(spec.id, job.rec.nodes, job.rec.ranks);
  log("job_started", {{"job", spec.id}, {"nodes", job.rec.nodes}, {"ranks", job.rec.ranks},
                      {"hosts", job.group->rank_hosts()}, {"ms", ms}});
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
  const double prior = prior_per_node();
  for (Job& job : jobs_) {
    if (!active_state(job.rec.state)) continue;
    std::vector<std::string> held_nodes =
        job.group ? job.group->nodes() : std::vector<std::string>{};
    if (job.learned) job.planned_table = job.learned->table(prior);
    absl::StatusOr<alloc::Job> aj =
        plan_job(job.rec.spec, held_nodes, job.planned_table, options_.plan);
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
                       {"prior_per_node", prior}};
    }
    inputs.push_back(std::move(in));
    alloc_jobs.push_back(*std::move(aj));
    planned.push_back(&job);
    held.push_back(std::move(held_nodes));
  }
  const alloc::Problem p = plan_problem(pool_, lost_, std::move(alloc_jobs), options_.plan);
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
  log("plan", {{"n", plans_},
               {"pool", pool_names},
               {"lost", std::vector<std::string>(lost_.begin(), lost_.end())},
               {"jobs", inputs},
               {"solve_ms", a->solve_ms},
               {"objective", a->objective},
               {"plan", plan}});
  for (const PlanAction& action : plan_actions(held, *a)) carry_out(*planned[action.job], action);
}

void Daemon::carry_out(Job& job, const PlanAction& action) {
  if (!active_state(job.rec.state)) return;
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
        (void)journal_.rescaled(id, job.group->nodes(), job.group->ranks(), verb);
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

void Daemon::write_status() {
  StatusSnapshot s;
  s.time = unix_now();
  s.daemon_pid = static_cast<int>(::getpid());
  for (const HostEntry& h : pool_) {
    NodeStatus n{h.name, h.slots, "free", ""};
    if (lost_.count(h.name) != 0) n.state = "lost";
    for (const Job& j : jobs_) {
      if (!j.group) continue;
      const std::vector<std::string> nodes = j.group->nodes();
      if (std::find(nodes.begin(), nodes.end(), h.name) != nodes.end()) {
        n.state = "busy";
        n.job = j.rec.spec.id;
      }
    }
    s.nodes.push_back(n);
  }
  for (const auto& [name, deadline] : leaving_) {
    NodeStatus n{name, 0, "leaving", ""};
    for (const Job& j : jobs_) {
      if (!j.group) continue;
      const std::vector<std::string> nodes = j.group->nodes();
      if (std::find(nodes.begin(), nodes.end(), name) != nodes.end()) n.job = j.rec.spec.id;
    }
    s.nodes.push_back(n);
  }
  for (const std::string& name : lost_) {
    if (std::none_of(pool_.begin(), pool_.end(), [&](const HostEntry& h) { return h.name == name; })) {
      s.nodes.push_back(NodeStatus{name, 0, "lost", ""});
    }
  }
  for (const Job& j : jobs_) {
    JobStatus js;
    js.id = j.rec.spec.id;
    js.state = std::string(to_string(j.rec.state));
    js.nodes = j.group ? j.group->nodes() : std::vector<std::string>{};
    js.ranks = j.group ? j.group->ranks() : 0;
    js.samples_per_s = j.samples_per_s;
    js.samples_done = j.group ? static_cast<std::int64_t>(j.samples_base + j.group->samples_total())
                              : j.rec.samples_done;
    js.target_samples = j.rec.spec.target_samples.value_or(0);
    js.rescales = j.rescales;
    js.min_nodes = j.rec.spec.min_nodes;
    js.max_nodes = j.rec.spec.max_nodes;
    js.command = j.rec.spec.command;
    js.reason = j.rec.reason;
    s.jobs.push_back(std::move(js));
  }
  if (absl::Status st = ::elastic::rt::write_status(dir_.status_path(), s); !st.ok()) say(msg(st));
  if (absl::Status st = write_file_atomic(dir_.metrics_path(), format_metrics(s), 0644); !st.ok()) {
    say(msg(st));
  }
}

absl::Status Daemon::run(const std::atomic<bool>& stop) {
  dirty_since_ = Clock::now();
  while (!stop.load()) {
    const bool was_dirty = dirty_;
    if (std::optional<HostfileUpdate> u = watcher_->wait(options_.poll_interval)) {
      take_hostfile_update(*u);
    }
    take_queue();
    poll_jobs();
    check_leaving();
    if (replan_at_ && Clock::now() >= *replan_at_) {
      replan_at_.reset();
      dirty_ = true;
    }
    if (dirty_ && !was_dirty) dirty_since_ = Clock::now();
    const double waited = std::chrono::duration<double>(Clock::now() - dirty_since_).count();
    if (dirty_ && waited >= options_.debounce_s) {
      dirty_ = false;
      plan();
      check_leaving();
    }
    if (Clock::now() - last_status_ > std::chrono::milliseconds(200)) {
      write_status();
      last_status_ = Clock::now();
    }
  }
  // Stopped: the jobs stay "running" in the journal, so the next daemon restarts them.
  for (Job& job : jobs_) {
    if (job.group && job.group->active()) (void)job.group->stop(/*wait_boundary=*/true);
    job.group.reset();
  }
  log("daemon_stopped", nlohmann::json::object());
  write_status();
  return absl::OkStatus();
}

}  // namespace elastic::rt
