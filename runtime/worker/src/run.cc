// The elastic run loop (run.h): one step, one commit, one step boundary at a time; any failure is
// turned into recover -> restore -> re-form, any membership change into commit -> re-form.
#include "elastic/worker/run.h"

#include <cstdio>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "elastic/worker/internal/stall_watchdog.h"

namespace elastic::rt {

namespace {

using Clock = std::chrono::steady_clock;

// Aborted: a peer failed; DeadlineExceeded: a peer is stuck (and the communicator was revoked so
// that everybody else returns too). Both are repaired the same way.
bool is_failure(const absl::Status& st) {
  return absl::IsAborted(st) || absl::IsDeadlineExceeded(st);
}

class SessionMembership final : public Membership {
 public:
  explicit SessionMembership(Session& s) : s_(s) {}
  MPI_Comm comm() const override { return s_.comm(); }
  absl::StatusOr<Event> step_boundary(bool done) override { return s_.step_boundary(done); }
  absl::StatusOr<Event> recover() override { return s_.recover(); }
  void report(std::int64_t samples) override { s_.report(samples); }
  coll::Comm take_duplicate() override { return s_.take_duplicate(); }
  void set_state_bytes(std::uint64_t bytes) override { s_.set_state_bytes(bytes); }

 private:
  Session& s_;
};

class Loop {
 public:
  Loop(Membership& m, State& state, Sampler& sampler, StepFn step, RunOptions opts, RunCallbacks cb)
      : m_(m),
        state_(state),
        sampler_(sampler),
        step_fn_(std::move(step)),
        opts_(std::move(opts)),
        cb_(std::move(cb)),
        watchdog_(opts_.stall_timeout),
        last_checkpoint_(Clock::now()) {}

  absl::StatusOr<RunResult> go();

 private:
  absl::Status form(ResetReason reason);
  absl::StatusOr<Event> iterate();
  absl::StatusOr<Event> repair(absl::Status cause);
  // `checkpoint_now`: rank 0 writes the durable checkpoint whether or not one is due.
  absl::Status commit(bool checkpoint_now = false);
  RunResult finish(Outcome outcome);

  Membership& m_;
  State& state_;
  Sampler& sampler_;
  StepFn step_fn_;
  RunOptions opts_;
  RunCallbacks cb_;
  StallWatchdog watchdog_;  // bounds each call of the user's code (RunOptions::stall_timeout)
  std::unique_ptr<coll::Communicator> comm_;
  // Registered in the State: rolled back and synced with the model.
  std::int64_t step_ = 0;
  int size_ = 0;
  int recoveries_ = 0;
  int changes_ = 0;
  std::uint64_t commits_since_checkpoint_ = 0;
  Clock::time_point last_checkpoint_;
  std::vector<std::uint64_t> ids_;
};

// 1 build the Communicator, 2 (start) load the durable checkpoint, 3 sync from rank 0,
// 4 re-partition the sampler, 5 on_reset. See run.h.
absl::Status Loop::form(ResetReason reason) {
  if (comm_) comm_.reset();
  coll::Comm duplicate = m_.take_duplicate();  // made by a grow before the switch
  absl::StatusOr<std::unique_ptr<coll::Communicator>> c =
      duplicate ? coll::create_communicator(std::move(duplicate), coll::Backend::kMpi, opts_.create)
                : coll::create_communicator(m_.comm(), coll::Backend::kMpi, opts_.create);
  if (!c.ok()) return c.status();
  comm_ = std::move(*c);
  if (reason == ResetReason::kStart && comm_->rank() == 0 && !opts_.checkpoint_path.empty()) {
    // Rank 0 alone: the sync below makes its copy everyone's. A rank that joins a running job
    // enters here too (kStart is its first membership) and is never rank 0 while an older rank
    // lives: it must not read a file of the whole state from the shared file system while the job
    // waits for it in the sync, nor fail the grow because it cannot.
    std::error_code ec;
    if (std::filesystem::exists(opts_.checkpoint_path, ec)) {
      if (absl::Status st = state_.load_checkpoint(opts_.checkpoint_path); !st.ok()) {
        return absl::FailedPreconditionError(
            absl::StrCat("cannot resume from the checkpoint: ", st.ToString()));
      }
    }
  }
  // Only the sync's root needs a commit of its own: everyone else receives root's. A joiner's
  // commit would be a copy into fresh memory, and fresh memory is slow where page faults are
  // (150-200 ms for 4 MB in a joiner on the box, in the middle of the grow stall).
  if (comm_->rank() == 0 && !state_.has_commit()) {
    if (absl::Status st = state_.commit(); !st.ok()) return st;
  }
  if (absl::Status st = state_.sync(*comm_, 0, opts_.call); !st.ok()) return st;
  sampler_.repartition(comm_->rank(), comm_->size());
  const int previous = size_;
  size_ = comm_->size();
  if (cb_.on_reset) {
    const ResetInfo info{reason,        comm_->rank(),
                         comm_->size(), reason == ResetReason::kStart ? 0 : previous,
                         step_,         comm_.get()};
    const StallWatchdog::Watch watch = watchdog_.watch("on_reset", comm_->rank(), step_);
    if (absl::Status st = cb_.on_reset(info); !st.ok()) return st;
  }
  return absl::OkStatus();
}

absl::Status Loop::commit(bool checkpoint_now) {
  if (absl::Status st = state_.commit(); !st.ok()) return st;
  m_.set_state_bytes(state_.snapshot_bytes());
  ++commits_since_checkpoint_;
  if (opts_.checkpoint_path.empty() || comm_->rank() != 0) return absl::OkStatus();
  const bool by_count = opts_.checkpoint_every_commits > 0 &&
                        commits_since_checkpoint_ >= opts_.checkpoint_every_commits;
  const bool by_time = opts_.checkpoint_every.count() > 0 &&
                       Clock::now() - last_checkpoint_ >= opts_.checkpoint_every;
  if (!checkpoint_now && !by_count && !by_time) return absl::OkStatus();
  commits_since_checkpoint_ = 0;
  last_checkpoint_ = Clock::now();
  // The durable checkpoint is the fallback, not the training: a full disk must not stop a healthy
  // job, so the error is reported and the next checkpoint tried as usual.
  if (absl::Status st = state_.save_checkpoint(opts_.checkpoint_path); !st.ok()) {
    std::fprintf(stderr, "elastic::run: durable checkpoint failed: %s\n", st.ToString().c_str());
  }
  return absl::OkStatus();
}

// One step (unless the epochs are done), the step boundary, then the commit. A step is committed
// only once it passed its boundary, where its samples enter the job's count: a rank whose boundary
// fails rolls back over the step and redoes it, so the count never misses a kept step (committed
// before its boundary, a step kept by every survivor lost the dead ranks' samples from the count).
absl::StatusOr<Event> Loop::iterate() {
  bool due = false;
  if (sampler_.epoch() < opts_.epochs) {
    ids_ = sampler_.batch();
    const std::uint64_t epoch = sampler_.epoch();
    const StepContext ctx{*comm_, ids_, sampler_.global_batch_size(), epoch, step_};
    {
      const StallWatchdog::Watch watch = watchdog_.watch("step", comm_->rank(), step_);
      if (absl::Status st = step_fn_(ctx); !st.ok()) return st;
    }
    sampler_.advance();
    ++step_;
    if (opts_.auto_report) m_.report(static_cast<std::int64_t>(ids_.size()));
    const bool epoch_end = sampler_.epoch() != epoch;
    if (epoch_end && cb_.on_epoch_end) {
      const StallWatchdog::Watch watch = watchdog_.watch("on_epoch_end", comm_->rank(), step_);
      if (absl::Status st = cb_.on_epoch_end(epoch, *comm_); !st.ok()) return st;
    }
    const std::uint64_t every = opts_.commit_every == 0 ? 1 : opts_.commit_every;
    due = epoch_end || static_cast<std::uint64_t>(step_) % every == 0;
  }
  absl::StatusOr<Event> ev = m_.step_boundary(sampler_.epoch() >= opts_.epochs);
  // kChanged and kRecovered commit in go(); kStop and kLeave need no commit.
  if (ev.ok() && *ev == Event::kContinue && due) {
    if (absl::Status st = commit(); !st.ok()) return st;
  }
  return ev;
}

// recover -> restore -> re-form, again if the re-forming itself meets a failure.
absl::StatusOr<Event> Loop::repair(absl::Status cause) {
  for (;;) {
    if (recoveries_ >= opts_.max_recoveries) {
      return absl::AbortedError(absl::StrCat("elastic::run: giving up after ", recoveries_,
                                             " recoveries; last failure: ", cause.ToString()));
    }
    ++recoveries_;
    // Peers blocked in a collective of ours must return (the backend revoked already when the
    // failure surfaced there; a failure seen by the step boundary did not touch comm_).
    if (comm_) comm_->abort(std::string(cause.message()));
    absl::StatusOr<Event> ev = m_.recover();
    if (!ev.ok()) return ev.status();
    if (*ev == Event::kLeave) return *ev;
    if (*ev == Event::kStop) {
      // Stopped instead of repaired: the step under way is not kept (back to the last commit, as
      // RunResult::steps says), and the survivors have no communicator of their own (comm_ is
      // aborted; the stop came instead of the next one).
      comm_.reset();
      if (state_.has_commit()) {
        if (absl::Status st = state_.restore(); !st.ok()) return st;
      }
      return *ev;
    }
    // Nothing committed yet only when the failure hit the very first forming: form() commits.
    if (state_.has_commit()) {
      if (absl::Status st = state_.restore(); !st.ok()) return st;
    }
    absl::Status st = form(ResetReason::kRecovered);
    if (st.ok()) return Event::kContinue;
    if (!is_failure(st)) return st;
    cause = std::move(st);
  }
}

RunResult Loop::finish(Outcome outcome) {
  RunResult r;
  r.outcome = outcome;
  r.steps = step_;
  r.recoveries = recoveries_;
  r.changes = changes_;
  if (outcome == Outcome::kFinished) r.comm = std::move(comm_);
  return r;
}

absl::StatusOr<RunResult> Loop::go() {
  for (absl::Status st : {state_.add_object("elastic.sampler", &sampler_),
                          state_.add_scalar("elastic.step", &step_)}) {
    if (!st.ok()) return st;
  }
  absl::Status st = form(ResetReason::kStart);
  for (;;) {
    absl::StatusOr<Event> ev = st.ok() ? iterate() : absl::StatusOr<Event>(st);
    const bool passed = ev.ok();  // the step boundary (a repair leaves the step unfinished)
    if (!ev.ok()) {
      if (!is_failure(ev.status())) return ev.status();
      ev = repair(ev.status());
      if (!ev.ok()) return ev.status();
    }
    st = absl::OkStatus();
    switch (*ev) {
      case Event::kContinue:
        break;
      case Event::kChanged:
      case Event::kRecovered:
        // Every survivor finished the same step (the boundary succeeded everywhere): keep it.
        ++changes_;
        st = state_.commit();
        if (st.ok()) st = form(ResetReason::kChanged);
        break;
      case Event::kStop:
        // Stopped by the runtime, or the last epoch done: every rank passed this boundary, so the
        // step is kept and checkpointed, and a restart goes on from here instead of redoing the
        // steps since the last checkpoint (seen in the demo: 177 steps redone after a stop; after
        // the last step, the last epoch's on_epoch_end ran twice).
        if (passed) {
          if (absl::Status stop = commit(/*checkpoint_now=*/true); !stop.ok()) return stop;
        }
        return finish(Outcome::kFinished);
      case Event::kLeave:
        return finish(Outcome::kLeft);
    }
  }
}

}  // namespace

absl::StatusOr<RunResult> run(Membership& membership, State& state, Sampler& sampler, StepFn step,
                              RunOptions options, RunCallbacks callbacks) {
  if (options.stall_timeout.count() < 0) {
    return absl::InvalidArgumentError(absl::StrCat("elastic::run: RunOptions::stall_timeout is ",
                                                   options.stall_timeout.count(),
                                                   " ms; it must be 0 (off) or positive"));
  }
  Loop loop(membership, state, sampler, std::move(step), std::move(options), std::move(callbacks));
  return loop.go();
}

absl::StatusOr<RunResult> run(Session& session, State& state, Sampler& sampler, StepFn step,
                              RunOptions options, RunCallbacks callbacks) {
  SessionMembership m(session);
  if (options.checkpoint_path.empty() && !session.checkpoint_path().empty()) {
    options.checkpoint_path = session.checkpoint_path();
    if (options.checkpoint_every_commits == 0 && options.checkpoint_every.count() == 0) {
      options.checkpoint_every = kRuntimeCheckpointEvery;
    }
  }
  return run(m, state, sampler, std::move(step), std::move(options), std::move(callbacks));
}

}  // namespace elastic::rt
