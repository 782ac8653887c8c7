// elastic::rt::run — the elastic run loop, the centrepiece of libelastic. It owns everything that
// happens between two training steps: committing the State, asking the Session whether the
// membership changed, and carrying out grow, shrink and failure so that the user's step function
// only ever sees one consistent membership:
//
//   auto session = elastic::rt::Session::init(&argc, &argv);
//   elastic::rt::State state;                       // register model + optimizer buffers
//   elastic::rt::Sampler sampler(n, batch, seed, 0, 1);
//   auto result = elastic::rt::run(**session, state, sampler,
//       [&](const elastic::rt::StepContext& c) { /* forward/backward on c.ids, c.comm.allreduce */
//                                                 return absl::OkStatus(); },
//       {.epochs = 5});
//   (*session)->exit(result.ok() ? 0 : 1);
//
// What happens when (every rank runs the same sequence; the numbers are the order of the calls):
//   start / joining rank  1 build a Communicator on session.comm()   COLLECTIVE, <= create.timeout
//                         2 rank 0 loads options.checkpoint_path if it exists (LOCAL file read)
//                         3 state.sync(comm, 0): rank 0's commit, bit for bit   COLLECTIVE, <= call.timeout
//                         4 sampler.repartition(rank, size); 5 on_reset(kStart)
//   every step            step(ctx) (the user's collectives, each <= call.timeout); sampler.advance();
//                         on_epoch_end at the last step of an epoch; session.step_boundary(done)
//                         (COLLECTIVE over the membership: one 6-double MPI_Allreduce, plus the
//                         controller's directive under elasticd, <= SessionOptions::directive_timeout);
//                         once the step passed it, state.commit() every commit_every steps and at
//                         every epoch end (LOCAL, one memcpy per buffer); rank 0 writes a durable
//                         checkpoint every checkpoint_every_commits commits or checkpoint_every
//                         seconds. (The boundary is where the step's samples enter the job's count:
//                         a step committed before it could be kept without being counted.)
//   grow / shrink         (step_boundary -> kChanged) the survivors commit the step they are at, then
//                         1, 3, 4 and on_reset(kChanged) over the new membership; a joining rank
//                         enters run() and meets them at 1. Leavers (kLeave) return from run() at
//                         once with Outcome::kLeft: call session.exit(0).
//   stopped or done       (step_boundary -> kStop: the plan stopped the job, and elasticd restarts it
//                         later from its durable checkpoint; or the last epoch is done) every rank
//                         commits the step it is at and rank 0 writes the durable checkpoint now,
//                         so a restart redoes no step (after the last: none, and no epoch's end
//                         twice); then run() returns (kFinished).
//   failure               (Aborted or DeadlineExceeded from the step, on_epoch_end, a sync or the step
//                         boundary) session.recover() (COLLECTIVE over the survivors: ULFM revoke,
//                         shrink, agree, each agreement <= RepairOptions::agree_timeout), then
//                         state.restore() of the last commit, 1, 3, 4, on_reset(kRecovered), and the
//                         rolled-back steps are redone. Work since the last commit is lost; in the
//                         committed state every sample of an epoch is processed exactly once.
// Ranks are renumbered at every membership change, survivors first in their old order, joiners last
// (so rank 0 is always a rank that holds the committed state); never cache comm.rank() across steps.
// Nothing waits forever: a repair that cannot finish makes run() return its error (DeadlineExceeded,
// Aborted after max_recoveries); restart from the durable checkpoint. A rank stuck in the user's own
// code is bounded only with RunOptions::stall_timeout (it then kills itself, and the others repair).
#pragma once

#include <mpi.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <span>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "elastic/collectives/communicator.h"
#include "elastic/collectives/factory.h"
#include "elastic/worker/sampler.h"
#include "elastic/worker/session.h"
#include "elastic/worker/state.h"

namespace elastic::rt {

// What one call of the user's step function gets. Valid for that call only.
struct StepContext {
  coll::Communicator& comm;            // the current membership's collectives
  std::span<const std::uint64_t> ids;  // this rank's sample ids (may be empty near an epoch's end:
                                       // still take part in the collectives, e.g. zero gradients)
  std::uint64_t global_batch = 0;      // samples over all ranks in this step (divide sums by it)
  std::uint64_t epoch = 0;
  std::int64_t step = 0;  // global step number (committed with the State)
};

// The user's step: forward/backward on ctx.ids, allreduce of the gradients over ctx.comm, optimizer
// update. Return the collectives' Status unchanged: Aborted / DeadlineExceeded mean "a peer failed,
// roll back and redo"; any other error stops run() and is returned.
using StepFn = std::function<absl::Status(const StepContext&)>;

enum class ResetReason { kStart, kChanged, kRecovered };

struct ResetInfo {
  ResetReason reason = ResetReason::kStart;
  int rank = 0;           // in the new membership
  int size = 0;           // new size
  int previous_size = 0;  // 0 at kStart
  std::int64_t step = 0;  // the committed global step the new membership starts from
  coll::Communicator* comm = nullptr;
};

struct RunCallbacks {
  // Called on every rank after the State is synced and the sampler re-partitioned, before the first
  // step of a membership (e.g. rescale the learning rate with the size). May use comm (collective).
  std::function<absl::Status(const ResetInfo&)> on_reset;
  // Called on every rank after the last step of an epoch, before that step is committed (so a failure
  // here redoes the step and calls it again). May use comm, e.g. to evaluate on a test set.
  std::function<absl::Status(std::uint64_t epoch, coll::Communicator& comm)> on_epoch_end;
};

struct RunOptions {
  std::uint64_t epochs = 1;        // run() finishes when the sampler reaches this epoch
  std::uint64_t commit_every = 1;  // steps between in-memory commits (also at each epoch end)
  bool auto_report = true;         // session.report(ids.size()) after every step
  // No backend choice: the run loop's Communicator (StepContext::comm, on_reset, on_epoch_end) is
  // always MPI over host memory, because State::sync broadcasts host snapshots through it. A GPU
  // job builds its own device Communicator (NCCL) for its gradients, once per membership, from
  // session.comm(), and aborts it in on_reset (examples/03_gpu/main.cc).
  coll::CallOptions call;      // timeout of the run loop's own collectives (sync)
  coll::CreateOptions create;  // timeout of each Communicator construction
  // Durable checkpoints written by the current rank 0 (State::save_checkpoint); rank 0 loads it at
  // start when it exists (a restarted job resumes there). Empty under elasticd: the runtime's path
  // for this job (Session::checkpoint_path()), written every kRuntimeCheckpointEvery unless a
  // frequency is set below, so that a job the runtime restarts resumes where it was.
  std::filesystem::path checkpoint_path;
  std::uint64_t checkpoint_every_commits = 0;  // 0: not by count
  std::chrono::seconds checkpoint_every{0};    // 0: not by time
  int max_recoveries = 16;  // failures survived per run() before giving up (Aborted)
  // A stuck rank's bound. A call of the step, on_epoch_end or on_reset that spends longer than
  // this in its own code (its waits in libelastic's collectives do not count) means this rank is
  // stuck (a deadlock, a hung device behind a host synchronisation): it prints why on stderr and
  // kills itself (SIGKILL), and the other ranks repair without it instead of waiting for it for
  // ever. 0 (the default): off. Set it well above the longest healthy call. The survivors wait for
  // its death in a collective (up to call.timeout) and then in the repair (up to
  // SessionOptions::repair.agree_timeout): keep stall_timeout below the two together.
  std::chrono::milliseconds stall_timeout{0};
};

inline constexpr std::chrono::seconds kRuntimeCheckpointEvery{30};

enum class Outcome { kFinished, kLeft };

struct RunResult {
  Outcome outcome = Outcome::kFinished;  // kFinished: the epochs are done or the runtime stopped us
  std::int64_t steps = 0;                // committed global steps at return
  int recoveries = 0;                    // failures repaired by this rank
  int changes = 0;                       // grows / shrinks this rank went through
  // The last membership's collectives, for a final evaluation before exit(). Null for kLeft, and
  // when the runtime stopped the job during a repair (state and steps are the last commit's then).
  std::unique_ptr<coll::Communicator> comm;
};

// Where run() gets memberships from. Session is one (see the overload below); tests and other
// drivers may supply their own with the same contract as Session's methods of the same names.
class Membership {
 public:
  virtual ~Membership() = default;
  virtual MPI_Comm comm() const = 0;
  virtual absl::StatusOr<Event> step_boundary(bool done) = 0;
  virtual absl::StatusOr<Event> recover() = 0;
  virtual void report(std::int64_t samples) = 0;
  // A duplicate of comm() made ahead of time for the run loop's communicator, or a null Comm
  // (then the loop duplicates comm() itself).
  virtual coll::Comm take_duplicate() { return coll::Comm(); }
  // The state's size after each commit (Session::set_state_bytes); ignored by default.
  virtual void set_state_bytes(std::uint64_t /*bytes*/) {}
};

// COLLECTIVE over the membership; blocking (see the header comment for every bound). Registers
// `sampler` and the step counter in `state` (names "elastic.sampler", "elastic.step"), so `state`
// must not have been committed yet and is used by one run() only (afterwards it still refers to
// run()'s step counter: destroy it or save_checkpoint() it, but do not commit/restore/sync). The caller registers its model
// and optimizer buffers before. Errors: whatever the step or callbacks returned (other than Aborted
// / DeadlineExceeded), the repair's DeadlineExceeded, Aborted after max_recoveries failures,
// FailedPrecondition for a misuse (state already committed, a corrupt checkpoint) and when the
// runtime is gone (Session::recover), InvalidArgument for a negative stall_timeout.
absl::StatusOr<RunResult> run(Session& session, State& state, Sampler& sampler, StepFn step,
                              RunOptions options = {}, RunCallbacks callbacks = {});
absl::StatusOr<RunResult> run(Membership& membership, State& state, Sampler& sampler, StepFn step,
                              RunOptions options = {}, RunCallbacks callbacks = {});

}  // namespace elastic::rt
