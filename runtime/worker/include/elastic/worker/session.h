// elastic::rt::Session — how a training process joins its job. Under the runtime (the process
// was spawned by elasticd) it merges with the controller and the job's other ranks (protocol.h);
// standalone (plain `mpirun -n K prog`) it simply works on a duplicate of MPI_COMM_WORLD, so the
// same program runs in both places. Most code uses the run loop (run.h) and never calls
// step_boundary()/recover() itself; the only line a training loop needs is report(samples).
//
// Which calls are collective: init (over the ranks that start together and the controller),
// step_boundary and recover (over comm(); under the runtime also with the controller), exit (no).
// Ranks of comm() are renumbered at every membership change, oldest ranks first.
#pragma once

#include <mpi.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>

#include "absl/status/statusor.h"
#include "elastic/collectives/comm.h"
#include "elastic/worker/repair_options.h"

namespace elastic::rt {

class BackgroundSpawn;  // internal: a grow's spawns beside the training

// What happened at a step boundary.
enum class Event {
  kContinue,   // nothing: take the next step
  kChanged,    // membership changed (grow/shrink): rebuild communicators, sync state from rank 0
  kRecovered,  // a process failed and was removed: restore the last commit, then as kChanged
  kStop,       // the job is over (all ranks said done, or the runtime stopped it): exit(0)
  kLeave,      // this rank's node is released: stop computing and call exit(0) now
};

struct SessionOptions {
  std::chrono::milliseconds progress_period{500};  // how often the leader reports to elasticd
  // Bounds the wait for the controller's next directive (its broadcast) while following.
  std::chrono::milliseconds directive_timeout{std::chrono::seconds(120)};
  // How much a grow sends over each connection the state sync will use, before the switch
  // (set_state_bytes below): the state's size, at most this; 0 turns the warm-up off.
  std::uint64_t warm_up_max_bytes = std::uint64_t{16} << 20;
  RepairOptions repair;
};

class Session {
 public:
  // Initialises MPI unless already done (MPI_Init_thread: MULTIPLE under the runtime, so that a
  // grow's spawns run beside training; FUNNELED standalone), and joins the job.
  // Errors: Aborted (a peer died while joining), DeadlineExceeded, Internal (MPI error text).
  static absl::StatusOr<std::unique_ptr<Session>> init(int* argc, char*** argv,
                                                       SessionOptions options = {});
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // The compute communicator of the current membership (MPI_ERRORS_RETURN). Replaced after every
  // kChanged/kRecovered: do not cache it across step boundaries.
  MPI_Comm comm() const { return compute_.get(); }
  int rank() const { return compute_.rank(); }
  int size() const { return compute_.size(); }
  bool under_runtime() const { return static_cast<bool>(job_); }
  // LOCAL. A duplicate of comm() that the last grow made before the switch (ready for a
  // library's private communicator, e.g. the run loop's: coll::create_communicator(Comm, ...)),
  // or a null Comm when there is none; it is handed out once per membership.
  coll::Comm take_duplicate() { return std::move(duplicate_); }
  int generation() const { return generation_; }
  // Under elasticd: where this job's durable checkpoint lives (ELASTIC_CHECKPOINT, a file in the
  // job's folder of the state dir), so that a restarted job finds it. Empty standalone.
  const std::filesystem::path& checkpoint_path() const { return checkpoint_path_; }

  // LOCAL. The one-line change: samples this rank processed since the last call. They count once
  // the step passes its step_boundary(); recover() drops them (keep a step's effect only after its
  // boundary passed, and redo a step whose boundary failed: the run loop commits so).
  void report(std::int64_t samples) { pending_samples_ += samples; }
  // LOCAL. The size of the state a new rank receives when it joins (State::snapshot_bytes(); the
  // run loop sets it at every commit). A grow sends that much (at most
  // SessionOptions::warm_up_max_bytes) from each old rank to the new rank it will serve before
  // the switch, so that the state sync after the switch runs on connections past TCP's slow
  // start; 0 (the default): no warm-up.
  void set_state_bytes(std::uint64_t bytes) { state_bytes_ = bytes; }
  // Samples of all ranks summed over the steps that passed their step boundary (rank 0's count:
  // every rank adopts it at its next boundary).
  std::int64_t samples_total() const { return samples_total_; }
  // Steps this rank took while the last grow's new processes were starting (their spawns run
  // beside the training: protocol.h, "Grow"); 0 when MPI lacks MPI_THREAD_MULTIPLE.
  std::int64_t grow_overlap_steps() const { return grow_overlap_steps_; }

  // COLLECTIVE over comm(), blocking. Combines progress, learns orders from the runtime and
  // carries them out. `done`: this rank wants to stop (the job stops when any rank says so).
  // Aborted => a peer failed: call recover().
  absl::StatusOr<Event> step_boundary(bool done = false);
  // COLLECTIVE over the survivors (and the controller). Returns kRecovered, kStop or kLeave;
  // FailedPrecondition when the failed process was the controller (elasticd is gone: exit).
  absl::StatusOr<Event> recover();

  // Ends the process: frees the communicators and calls MPI_Finalize under a 10 s alarm (Open MPI
  // 5.0.7 can hang there after a peer failure; docs/runtime.md "Known limitations").
  [[noreturn]] void exit(int code);

 private:
  explicit Session(SessionOptions options);
  absl::StatusOr<Event> follow();
  absl::Status send_progress(bool force);
  // New ranks (Session::init): the controller's count of further spawns of this node's series
  // (protocol.h, "Grow"), taken part in at once; then follow().
  absl::StatusOr<Event> join_spawns();
  // Waits for the background spawn (if any) and keeps the J it built in next_job_. Errors that
  // broke a communicator are returned (the caller revokes and repairs); a refused spawn is not.
  absl::Status settle_spawn();
  // settle_spawn(), then the newest J becomes job_.
  absl::Status adopt_spawn();
  // Revokes C and every J this rank holds or is spawning on, so that nobody waits for it.
  void revoke_all();
  // step_mark_ = now, at steps_.
  void mark_steps();

  SessionOptions options_;
  coll::Comm job_;       // J: controller + ranks (null when standalone)
  coll::Comm next_job_;  // the J a finished background spawn built, adopted at the next follow()
  // A C built before the switch, with a duplicate of it (proto::make_compute): the two move and
  // reset together.
  struct Prepared {
    coll::Comm compute;
    coll::Comm duplicate;
  };
  Prepared next_;         // next_job_'s, built by the spawn (SpawnOutcome)
  Prepared prepared_;     // job_'s, prepared by a grow, taken at kResume
  coll::Comm duplicate_;  // a duplicate of compute_ for take_duplicate(), or null
  std::unique_ptr<BackgroundSpawn> spawn_;
  bool threaded_ = false;  // MPI_THREAD_MULTIPLE: spawn_ runs in a helper thread
  std::filesystem::path checkpoint_path_;
  coll::Comm compute_;  // C
  int generation_ = 0;
  std::uint64_t state_bytes_ = 0;
  std::int64_t pending_samples_ = 0;
  std::int64_t samples_total_ = 0;
  std::int64_t steps_ = 0;
  std::int64_t grow_overlap_steps_ = 0;
  MPI_Request progress_req_ = MPI_REQUEST_NULL;
  double progress_buf_[5] = {0, 0, 0, 0, 0};
  std::chrono::steady_clock::time_point last_progress_{};
  std::int64_t last_progress_samples_ = 0;
  // Where the reported step time (Progress::step_s) is measured from: the last report, or the end
  // of the last directive, whose stall would otherwise count as a step.
  std::chrono::steady_clock::time_point step_mark_{};
  std::int64_t step_mark_steps_ = 0;
};

}  // namespace elastic::rt
