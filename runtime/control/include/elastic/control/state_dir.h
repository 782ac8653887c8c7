// The state dir: the only channel between the `elastic` CLI and the daemon, and the daemon's
// durable memory. Layout (docs/runtime.md has the full contract):
//   queue/<id>.toml      submissions, dropped atomically by `elastic submit`
//   queue/<id>.cancel    cancel requests, dropped by `elastic cancel`
//   journal.jsonl        append-only job history (journal.h), fsynced per record
//   status.json          the daemon's latest snapshot (status.h), replaced atomically
//   events.jsonl         the decision log (one JSON object per plan/event)
//   metrics.prom         Prometheus text format, replaced atomically
//   jobs/<id>/stdout, jobs/<id>/stderr   each job's output
//   daemon.pid           holds the daemon's flock, so two daemons never share a dir
// Access control is the directory's: it is created 0700 and refused when owned by someone else
// or writable by group/others, so only its owner can submit, cancel or read job output.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "elastic/control/job_spec.h"

namespace elastic::rt {

// $ELASTIC_STATE_DIR if set and non-empty, else $HOME/.local/state/elastic.
std::filesystem::path default_state_dir();

// FailedPrecondition (with a fix-it hint) unless `dir` is a directory owned by the current user
// and not group/world writable.
absl::Status check_private_dir(const std::filesystem::path& dir);

class StateDir {
 public:
  // Creates the dir (0700, parents as needed) and its subdirs when `create`; then checks it with
  // check_private_dir. NotFound when it does not exist and !create.
  static absl::StatusOr<StateDir> open(const std::filesystem::path& root, bool create = true);

  const std::filesystem::path& root() const { return root_; }
  std::filesystem::path queue_dir() const { return root_ / "queue"; }
  std::filesystem::path jobs_dir() const { return root_ / "jobs"; }
  std::filesystem::path journal_path() const { return root_ / "journal.jsonl"; }
  std::filesystem::path status_path() const { return root_ / "status.json"; }
  std::filesystem::path events_path() const { return root_ / "events.jsonl"; }
  std::filesystem::path metrics_path() const { return root_ / "metrics.prom"; }
  std::filesystem::path pid_path() const { return root_ / "daemon.pid"; }
  std::filesystem::path job_dir(std::string_view id) const { return jobs_dir() / std::string(id); }
  std::filesystem::path job_stdout(std::string_view id) const { return job_dir(id) / "stdout"; }
  std::filesystem::path job_stderr(std::string_view id) const { return job_dir(id) / "stderr"; }
  // Creates jobs/<id>/ (0700) and returns it.
  absl::StatusOr<std::filesystem::path> make_job_dir(std::string_view id) const;

 private:
  explicit StateDir(std::filesystem::path root) : root_(std::move(root)) {}
  std::filesystem::path root_;
};

// The daemon's exclusive hold on a state dir: flock(LOCK_EX|LOCK_NB) on daemon.pid, which then
// holds our pid. The lock dies with the process (no stale locks after SIGKILL). Move-only.
class DaemonLock {
 public:
  // Unavailable ("another elasticd (pid N) uses <dir>") when held by another process.
  static absl::StatusOr<DaemonLock> acquire(const StateDir& dir);
  // The pid in daemon.pid if some process holds the lock now, else 0. Does not take the lock.
  static int holder_pid(const StateDir& dir);
  DaemonLock(DaemonLock&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  DaemonLock& operator=(DaemonLock&& other) noexcept;
  DaemonLock(const DaemonLock&) = delete;
  DaemonLock& operator=(const DaemonLock&) = delete;
  ~DaemonLock();

 private:
  explicit DaemonLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

// One file found in queue/.
struct QueuedSubmission {
  std::string id;  // from the file name
  std::filesystem::path path;
  absl::StatusOr<JobSpec> spec;  // a bad file (hand-written into queue/) carries its error
};

// The queue protocol. The CLI submits/cancels; the daemon takes. The daemon must journal a
// submission (fsync) BEFORE calling remove(): a crash in between leaves the file, and a
// re-taken id that the journal already has is simply removed again — nothing is lost.
class JobQueue {
 public:
  explicit JobQueue(const StateDir& dir) : dir_(dir.queue_dir()) {}
  // Assigns an id when spec.id is empty, refuses an id already queued (AlreadyExists), writes
  // queue/<id>.toml atomically. Returns the id.
  absl::StatusOr<std::string> submit(JobSpec spec) const;
  // Drops queue/<id>.cancel (idempotent).
  absl::Status request_cancel(std::string_view id) const;
  // Submissions in queue/, oldest file first (then by id). Skips temp files.
  std::vector<QueuedSubmission> submissions() const;
  // Ids with a pending cancel request.
  std::vector<std::string> cancel_requests() const;
  absl::Status remove_submission(std::string_view id) const;
  absl::Status remove_cancel(std::string_view id) const;
  const std::filesystem::path& dir() const { return dir_; }

 private:
  std::filesystem::path dir_;
};

}  // namespace elastic::rt
