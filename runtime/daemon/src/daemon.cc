// elasticd's event loop and what feeds it: the hostfile, the queue, nodes leaving, status.json.
// What the daemon does to its jobs (plan, start, grow, shrink, stop, finish) is daemon_jobs.cc.
#include "elastic/daemon/daemon.h"

#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <fstream>

#include "elastic/control/atomic_file.h"
#include "elastic/control/job_spec.h"
#include "elastic/control/output_bound.h"
#include "elastic/control/status.h"
#include "elastic/control/topology.h"
#include "elastic/daemon/process_table.h"
#include "fmt/format.h"
#include "say.h"

namespace elastic::rt {

namespace {

using Clock = std::chrono::steady_clock;

// How long after a held node starts leaving elasticd polls at leaving_poll_interval.
constexpr std::chrono::seconds kFastPollFor{1};
// How long after a kill PRRTE did not carry out it is asked again.
constexpr double kKillRetryS = 5.0;
// The most MB --events-max-mb and --max-output-mb take, as elasticd's option checks
// (elastic::cli::kMaxMegabytes): in bytes it fits the size types they become.
constexpr double kMaxMegabytes = 1e6;

// An option in MB that is finite and within [0, kMaxMegabytes] (above 0 unless `zero_ok`).
absl::Status check_megabytes(const char* option, double mb, bool zero_ok) {
  if ((zero_ok ? mb >= 0 : mb > 0) && mb <= kMaxMegabytes) return absl::OkStatus();
  return absl::InvalidArgumentError(fmt::format("{}: must be {} 0 and at most {:g} MB, got {}",
                                                option, zero_ok ? ">=" : ">", kMaxMegabytes, mb));
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

}  // namespace

absl::StatusOr<std::unique_ptr<Daemon>> Daemon::create(DaemonOptions options) {
  // elasticd's options are checked where they are parsed; other callers are held to the same
  // bounds here, before the conversions to bytes below and in bound_outputs().
  if (absl::Status s = check_megabytes("--events-max-mb", options.events_max_mb, false); !s.ok()) {
    return s;
  }
  if (absl::Status s = check_megabytes("--max-output-mb", options.max_output_mb, true); !s.ok()) {
    return s;
  }
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
  EventLogOptions event_options;
  event_options.max_bytes =
      std::max<std::size_t>(1, static_cast<std::size_t>(options.events_max_mb * 1024 * 1024));
  absl::StatusOr<EventLog> events = EventLog::open(dir->events_path(), event_options);
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
                            {"pool", static_cast<int>(d->pool_.size())},
                            {"fake_nodes", d->options_.fake_nodes},
                            {"head_host", d->placement_.head_host},
                            {"ranks_per_node", d->default_ranks_}});
  d->compact_journal();
  return d;
}

Daemon::Daemon(DaemonOptions options, StateDir dir, DaemonLock lock, Journal journal,
               EventLog events, std::unique_ptr<HostfileWatcher> watcher)
    : options_(std::move(options)),
      dir_(std::move(dir)),
      lock_(std::move(lock)),
      journal_(std::move(journal)),
      events_(std::move(events)),
      watcher_(std::move(watcher)),
      queue_(dir_) {
  char host[MPI_MAX_PROCESSOR_NAME] = {};
  int len = 0;
  MPI_Get_processor_name(host, &len);
  placement_.fake_nodes = options_.fake_nodes;
  placement_.ranks_ignore_sigterm = options_.ranks_ignore_sigterm;
  placement_.head_host = std::string(host, static_cast<std::size_t>(len));
  if (options_.ranks_per_node > 0) {
    default_ranks_ = options_.ranks_per_node;
  } else if (absl::StatusOr<NodeTopology> topo = probe_topology(); topo.ok()) {
    default_ranks_ = default_ranks_per_node(*topo);
  }
  pool_ = watcher_->hosts();
  // The nodes granted before elasticd started: their holes count from now (their past is unknown).
  const double now = unix_now();
  for (const HostEntry& h : pool_) holes_.join(h.name, now);
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
  const double kill_at = unix_now() + options_.grace_s;
  for (const Departed& d : group.take_departed()) exiting_[d.node].push_back({d.pid, kill_at});
}

void Daemon::note_lost(const std::string& job, const std::vector<std::string>& nodes) {
  for (const std::string& n : nodes) {
    lost_.insert(n);
    log("node_lost", {{"node", n}, {"job", job}});
  }
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
  const double now = unix_now();
  std::vector<std::string> added;
  for (const HostEntry& h : u.added) {
    added.push_back(h.name);
    holes_.join(h.name, now);
    lost_.erase(h.name);  // a lost node that comes back is usable again
    leaving_.erase(h.name);
  }
  std::vector<std::string> released;
  for (const std::string& n : u.removed) {
    holes_.leave(n, now);  // the scheduler took it back: its hole ended
    lost_.erase(n);
    if (occupied(n)) {
      leaving_[n] = Leaving{now, now + options_.grace_s};
      fast_poll_until_ = Clock::now() + kFastPollFor;
      urgent_ = true;
    } else {
      released.push_back(n);
    }
  }
  log("hostfile", {{"added", added},
                   {"removed", u.removed},
                   {"pool", static_cast<int>(pool_.size())},
                   {"leaving", static_cast<int>(leaving_.size())}});
  for (const std::string& n : released) log("node_released", {{"node", n}, {"after_s", 0.0}});
  status_due_ = status_due_ || !released.empty();
  dirty_ = true;
}

void Daemon::take_queue() {
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
    if (absl::StatusOr<std::filesystem::path> cmd = command_path(spec); !cmd.ok()) {
      finish_job(jobs_.back(), JobState::kFailed, msg(cmd.status()));
    }
    dirty_ = true;
  }
  for (const std::string& id : queue_.cancel_requests()) {
    Job* job = find(id);
    if (job != nullptr && job->active()) {
      // Seen now; the stop can take a while (a repair under way ends first).
      log("job_cancel_requested", {{"job", id}});
      if (job->group) (void)job->group->stop(/*wait_boundary=*/true);
      finish_job(*job, JobState::kCancelled, "cancelled by the user");
      dirty_ = true;
    }
    (void)queue_.remove_cancel(id);
  }
}

std::map<ProcessKey, PrrteProc> Daemon::remote_running() {
  absl::StatusOr<std::map<ProcessKey, PrrteProc>> running = running_processes();
  if (running.ok()) return *std::move(running);
  if (!process_table_failed_) {
    process_table_failed_ = true;
    say(
        fmt::format("cannot see processes on other hosts ({}): a node is released once its ranks "
                    "have left their job",
                    msg(running.status())));
    log("process_table_unavailable", {{"error", msg(running.status())}});
  }
  return {};
}

void Daemon::kill_overdue(const std::string& node, std::vector<Exiting>& procs,
                          const std::map<ProcessKey, PrrteProc>* remote, double now) {
  const auto leaving = leaving_.find(node);
  std::vector<int> pids;
  std::vector<PrrteProc> through_prrte;
  std::vector<Exiting*> asked;  // of PRRTE
  for (Exiting& e : procs) {
    const double due = leaving == leaving_.end()
                           ? e.kill_at
                           : std::min(e.kill_at, leaving->second.removed_at + options_.grace_s);
    if (e.pid <= 0 || e.killed || now < due || now < e.retry_at) continue;
    e.killed = true;
    pids.push_back(e.pid);
    if (remote == nullptr) {
      ::kill(e.pid, SIGKILL);
    } else if (const auto it = remote->find(ProcessKey{node, e.pid}); it != remote->end()) {
      through_prrte.push_back(it->second);
      asked.push_back(&e);
    }
  }
  if (pids.empty()) return;
  absl::Status st = kill_processes(through_prrte);
  if (!st.ok()) {
    // Not killed: asked again later, or the node would stay occupied for good.
    for (Exiting* e : asked) {
      e->killed = false;
      e->retry_at = now + kKillRetryS;
    }
  }
  say(
      fmt::format("node {}: killed {} process(es) that had not exited {} s after leaving their job "
                  "or by the node's deadline{}",
                  node, pids.size(), options_.grace_s, st.ok() ? "" : ": " + msg(st)));
  log("processes_killed", {{"node", node}, {"pids", pids}, {"ok", st.ok()}});
  dirty_ = true;
}

void Daemon::check_leaving() {
  for (Job& job : jobs_) {
    if (job.group) note_departed(*job.group);
  }
  std::optional<std::map<ProcessKey, PrrteProc>> remote;  // asked once per loop, when needed
  const double now = unix_now();
  for (auto it = exiting_.begin(); it != exiting_.end();) {
    const std::string& node = it->first;
    // A process whose pid never reached us (its grow failed before connect_all) can be neither
    // looked up nor killed: its node is held until its grace period ends (it counted as gone).
    std::erase_if(it->second, [&](const Exiting& e) { return e.pid <= 0 && now >= e.kill_at; });
    if (placement_.fake_nodes || node == placement_.head_host) {
      std::erase_if(it->second, [](const Exiting& e) { return e.pid > 0 && process_gone(e.pid); });
      kill_overdue(node, it->second, nullptr, now);
    } else {
      if (!remote) remote = remote_running();
      std::erase_if(it->second, [&](const Exiting& e) {
        return e.pid > 0 && !remote->contains(ProcessKey{node, e.pid});
      });
      kill_overdue(node, it->second, &*remote, now);
    }
    it = it->second.empty() ? exiting_.erase(it) : std::next(it);
  }
  for (auto it = leaving_.begin(); it != leaving_.end();) {
    if (!occupied(it->first)) {
      log("node_released", {{"node", it->first}, {"after_s", now - it->second.removed_at}});
      it = leaving_.erase(it);
      status_due_ = true;
    } else {
      if (now > it->second.report_at) {
        log("grace_exceeded", {{"node", it->first}});
        say(fmt::format("node {} still in use after the grace period", it->first));
        it->second.report_at = now + options_.grace_s;  // report again later, not every loop
        dirty_ = true;
      }
      ++it;
    }
  }
}

void Daemon::write_status() {
  StatusSnapshot s;
  s.time = unix_now();
  s.daemon_pid = static_cast<int>(::getpid());
  for (const HostEntry& h : pool_) {
    NodeStatus n{h.name, h.slots, "free", ""};
    if (lost_.count(h.name) != 0) {
      n.state = "lost";
    } else if (exiting_.contains(h.name)) {
      n.state = "exiting";  // processes of a job that left the node are still ending there
    }
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
  for (const auto& [name, leaving] : leaving_) {
    NodeStatus n{name, 0, "leaving", ""};
    for (const Job& j : jobs_) {
      if (!j.group) continue;
      const std::vector<std::string> nodes = j.group->nodes();
      if (std::find(nodes.begin(), nodes.end(), name) != nodes.end()) n.job = j.rec.spec.id;
    }
    s.nodes.push_back(n);
  }
  for (const std::string& name : lost_) {
    if (std::none_of(pool_.begin(), pool_.end(),
                     [&](const HostEntry& h) { return h.name == name; })) {
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
    js.step_s = j.group ? j.group->step_s() : 0.0;
    js.samples_done = j.samples_done();
    js.target_samples = j.rec.spec.target_samples.value_or(0);
    js.rescales = j.rescales;
    js.min_nodes = j.rec.spec.min_nodes;
    js.max_nodes = j.rec.spec.max_nodes;
    js.command = j.rec.spec.command;
    js.reason = j.group && j.group->repairing() ? "repairing: a process failed" : j.rec.reason;
    s.jobs.push_back(std::move(js));
  }
  if (absl::Status st = ::elastic::rt::write_status(dir_.status_path(), s); !st.ok()) say(msg(st));
  if (absl::Status st = write_file_atomic(dir_.metrics_path(), format_metrics(s), 0600); !st.ok()) {
    say(msg(st));
  }
}

void Daemon::bound_outputs() {
  const auto max = static_cast<std::uint64_t>(options_.max_output_mb * 1024 * 1024);
  // Every job, finished ones too: a rank stuck in a loop that prints may outlive its job.
  for (Job& job : jobs_) {
    const std::string& id = job.rec.spec.id;
    for (const auto& [file, path] :
         {std::pair{"stdout", dir_.job_stdout(id)}, std::pair{"stderr", dir_.job_stderr(id)}}) {
      absl::StatusOr<std::uint64_t> dropped = bound_output(path, max);
      if (!dropped.ok()) {
        say(msg(dropped.status()));
        continue;
      }
      if (*dropped == 0) continue;
      if (job.output_dropped == 0) {
        say(
            fmt::format("job {}: its {} passed --max-output-mb {}: cut back to its first half "
                        "(a line in the file says so), and again each time it passes the bound",
                        id, file, options_.max_output_mb));
      }
      job.output_dropped += *dropped;
      log("job_output_dropped", {{"job", id},
                                 {"file", file},
                                 {"bytes", *dropped},
                                 {"total_bytes", job.output_dropped},
                                 {"max_output_mb", options_.max_output_mb}});
    }
  }
}

void Daemon::compact_journal() {
  if (!journal_.wants_compaction(std::max(options_.journal_compact_records, compact_after_))) {
    return;
  }
  const std::size_t before = journal_.records();
  const auto t0 = Clock::now();
  if (absl::Status st = journal_.compact(); !st.ok()) {
    // Nothing is lost: the journal goes on growing, and is tried again at twice its size.
    compact_after_ = 2 * before;
    say(fmt::format("journal compaction failed (tried again at {} records): {}", compact_after_,
                    msg(st)));
    return;
  }
  compact_after_ = 0;
  log("journal_compacted",
      {{"records_before", before},
       {"records", journal_.records()},
       {"ms", std::chrono::duration<double, std::milli>(Clock::now() - t0).count()}});
}

absl::Status Daemon::run(const std::atomic<bool>& stop) {
  dirty_since_ = Clock::now();
  while (!stop.load()) {
    const bool was_dirty = dirty_;
    // Fast only for a while: a rank that does not leave must not cost PRRTE 200 queries a second
    // for the whole grace period.
    const bool fast = !leaving_.empty() && Clock::now() < fast_poll_until_;
    const auto wait = fast ? options_.leaving_poll_interval : options_.poll_interval;
    if (std::optional<HostfileUpdate> u = watcher_->wait(wait)) {
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
    if (dirty_ && (urgent_ || waited >= options_.debounce_s)) {
      dirty_ = false;
      urgent_ = false;
      plan();
      check_leaving();
    }
    if (status_due_ || Clock::now() - last_status_ > std::chrono::milliseconds(200)) {
      write_status();
      last_status_ = Clock::now();
      status_due_ = false;
    }
    compact_journal();
    if (options_.max_output_mb > 0 && Clock::now() - last_output_check_ > std::chrono::seconds(1)) {
      bound_outputs();
      last_output_check_ = Clock::now();
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
