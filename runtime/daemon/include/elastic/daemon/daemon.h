// elasticd's controller: one event loop that watches the hostfile, the state dir's queue and the
// running jobs, re-plans with the allocator (debounced) whenever something changed, carries the
// plan out with JobGroup verbs, and writes the journal, events.jsonl, status.json and
// metrics.prom. Runs on rank 0 of an mpirun of size 1 (the only spawner, see protocol.h).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "elastic/allocator/pool_holes.h"
#include "elastic/allocator/scaling_model.h"
#include "elastic/control/event_log.h"
#include "elastic/control/hostfile.h"
#include "elastic/control/journal.h"
#include "elastic/control/state_dir.h"
#include "elastic/daemon/job_group.h"
#include "elastic/daemon/plan_actions.h"
#include "elastic/daemon/process_table.h"

namespace elastic::rt {

struct DaemonOptions {
  std::filesystem::path hostfile;
  std::filesystem::path state_dir;
  double grace_s = 30;  // a node removed from the hostfile, or a rank that left its job, is vacated
                        // within this; what still runs then is killed
  bool fake_nodes = false;            // one-machine mode: nodes are labels, ranks run on this host
  bool ranks_ignore_sigterm = false;  // ranks run as steps of Slurm holders (elastic-slurm-agent)
  double debounce_s = 0.5;            // events closer than this are planned together (not a
                                      // held node leaving: planned at once)
  std::chrono::milliseconds directive_timeout{std::chrono::seconds(60)};
  std::chrono::milliseconds spawn_timeout{std::chrono::seconds(60)};  // each MPI_Comm_spawn
  std::chrono::milliseconds poll_interval{50};
  // For the first second after a held node starts leaving: its release is what a
  // main-queue job waits for (issue 11).
  std::chrono::milliseconds leaving_poll_interval{5};
  // Each job's stdout and stderr are kept under this (output_bound.h); 0 = no bound.
  double max_output_mb = 1024;
  // The journal is compacted (one snapshot record per job) once it holds this many records and
  // twice as many as jobs (journal.h).
  std::size_t journal_compact_records = 10000;
  // events.jsonl is rotated past this size, two rotated files kept (event_log.h).
  double events_max_mb = 256;
  int ranks_per_node = 0;  // default for jobs that say 0 (0 = from hwloc)
  PlanOptions plan;        // how each plan is stated and solved
};

class Daemon {
 public:
  // Opens the state dir (lock, journal replay) and reads the hostfile. Errors name the file:
  // InvalidArgument/NotFound for bad input (exit 2), Unavailable when another daemon holds the dir.
  static absl::StatusOr<std::unique_ptr<Daemon>> create(DaemonOptions options);
  ~Daemon();

  // The event loop; returns when `stop` becomes true (jobs still running are stopped and stay
  // "running" in the journal, so the next daemon restarts them).
  absl::Status run(const std::atomic<bool>& stop);

 private:
  // A process that left its job and has not exited yet. One that is still there grace_s after it
  // left (or at its leaving node's deadline) is killed.
  struct Exiting {
    int pid = 0;
    double kill_at = 0;  // unix time
    bool killed = false;
    double retry_at = 0;  // a kill PRRTE did not carry out is asked again from then (unix time)
  };

  struct Job {
    explicit Job(JobRecord record);
    JobRecord rec;
    std::unique_ptr<JobGroup> group;
    int rescales = 0;
    double samples_per_s = 0;
    // A job submitted without a [scaling] table: its throughput curve as learned from its progress
    // reports (MalleTrain-style profiling), and the table the last plan used.
    std::optional<alloc::ScalingModel> learned;
    alloc::PiecewiseLinear planned_table;
    int learned_generation =
        -1;                  // membership of the last report (the first after a change is noisy)
    int start_failures = 0;  // starts in a row that the launcher refused
    std::uint64_t output_dropped = 0;  // bytes of its output cut by bound_outputs()
    // Queued, running or to be restarted: a job the plans are for.
    // Samples processed by all of its runs: the earlier ones (rec.samples_done, journaled at each
    // requeue) and the current one.
    std::int64_t samples_done() const {
      return rec.samples_done + (group ? static_cast<std::int64_t>(group->samples_total()) : 0);
    }
    bool active() const {
      return rec.state == JobState::kQueued || rec.state == JobState::kRunning ||
             rec.state == JobState::kToRestart;
    }
  };

  Daemon(DaemonOptions options, StateDir dir, DaemonLock lock, Journal journal, EventLog events,
         std::unique_ptr<HostfileWatcher> watcher);
  void take_hostfile_update(const HostfileUpdate& update);
  // The job's command as the job's PATH (else elasticd's) finds it.
  static absl::StatusOr<std::filesystem::path> command_path(const JobSpec& spec);
  void take_queue();
  void poll_jobs();
  // Feeds a job's latest progress report to its ScalingModel; marks a re-plan when the learned
  // table moved by more than kReplanOnChange.
  void learn(Job& job);
  // What the learned tables of jobs not fully measured assume: the samples/s at one node of a job
  // with neither a table nor reports (alloc::unmeasured_prior of the largest r(1) of the active
  // jobs) and the serial fraction of a job measured at one count or none
  // (alloc::typical_serial_fraction of the active jobs' learned models).
  struct Priors {
    double per_node = 1.0;
    double serial = 0.0;
  };
  Priors priors() const;
  // Reports leaving nodes released once vacated; drops departed processes that have exited and
  // kills those overdue (kill_overdue).
  void check_leaving();
  // Kills the processes of `node` that have not exited by their deadline (a grace period after
  // they left their job, or the node's own when it leaves): on this host with SIGKILL, on another
  // through PRRTE (`remote`: running_processes()). Logged as processes_killed.
  void kill_overdue(const std::string& node, std::vector<Exiting>& procs,
                    const std::map<ProcessKey, PrrteProc>* remote, double now);
  // Builds the problem from the pool and the active jobs, solves it, and carries out its
  // actions (plan_actions.h) in order.
  void plan();
  // One action of a plan, with the JobGroup verb it names; logged and journaled.
  void carry_out(Job& job, const PlanAction& action);
  void start_job(Job& job, const std::vector<std::string>& nodes);
  void check_placement(const Job& job);
  void finish_job(Job& job, JobState state, const std::string& reason);
  void requeue(Job& job, const std::string& why);
  // Plans again after a delay (a failed start or grow): 2 s, doubled with each failure in a row.
  void retry_later();
  void write_status();
  // Keeps every job's stdout and stderr under --max-output-mb (output_bound.h), once a second.
  void bound_outputs();
  // Compacts the journal once it wants it (--journal-compact-records; journal.h).
  void compact_journal();
  bool held(const std::string& node) const;
  // Takes the processes that left a job's communicator into exiting_.
  void note_departed(JobGroup& group);
  // Marks `nodes` lost (a repair of `job` found their ranks dead): not planned again until the
  // hostfile brings them back. Before a group is dropped too: a repair that a cancel or a stop
  // settled found them after the last poll.
  void note_lost(const std::string& job, const std::vector<std::string>& nodes);
  // A job holds the node, or a process that left one there has not exited yet.
  bool occupied(const std::string& node) const;
  // The processes PRRTE reports running on any host; none when it cannot tell (said once).
  std::map<ProcessKey, PrrteProc> remote_running();
  Job* find(const std::string& id);
  void log(std::string_view event, nlohmann::json fields);

  DaemonOptions options_;
  StateDir dir_;
  DaemonLock lock_;
  Journal journal_;
  EventLog events_;
  std::unique_ptr<HostfileWatcher> watcher_;
  JobQueue queue_;
  Placement placement_;
  int default_ranks_ = 1;
  std::vector<HostEntry> pool_;
  alloc::PoolHoles holes_;  // when each pool node joined, how long the ended holes lasted
  std::set<std::string> lost_;
  struct Leaving {
    double removed_at = 0;  // unix time; vacated by removed_at + grace_s
    double report_at = 0;   // the next grace_exceeded, while still occupied
  };
  std::map<std::string, Leaving> leaving_;  // removed while occupied
  // Processes that left their job, by node, until they exit: on this host (fake nodes, or ranks
  // on the head node) seen in /proc, on another host through PRRTE (process_table.h).
  std::map<std::string, std::vector<Exiting>> exiting_;
  bool process_table_failed_ = false;
  std::vector<Job> jobs_;
  bool dirty_ = true;
  // A held node is leaving: its owner (a preempting main-queue job) waits, so the plan that moves
  // the job off it does not wait for the debounce, and status.json (which the Slurm feed reads to
  // let the holder go) is written as soon as the node is released.
  bool urgent_ = false;
  bool status_due_ = false;
  std::chrono::steady_clock::time_point dirty_since_{};
  std::chrono::steady_clock::time_point last_status_{};
  std::chrono::steady_clock::time_point fast_poll_until_{};  // leaving_poll_interval until then
  std::chrono::steady_clock::time_point last_output_check_{};
  std::size_t compact_after_ = 0;  // after a failed compaction: records before the next try
  int plans_ = 0;
  std::optional<std::chrono::steady_clock::time_point> replan_at_;
  std::chrono::seconds retry_delay_{};  // the last delay; zero after a success
};

}  // namespace elastic::rt
