#include "elastic/worker/session.h"

#include <fcntl.h>
#include <mpi-ext.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "elastic/collectives/bounded_wait.h"
#include "elastic/collectives/mpi_check.h"
#include "elastic/worker/internal/background_spawn.h"
#include "elastic/worker/internal/membership_error.h"
#include "elastic/worker/internal/protocol.h"
#include "elastic/worker/internal/repair.h"

namespace elastic::rt {

namespace {

using Clock = std::chrono::steady_clock;
constexpr unsigned kFinalizeTimeoutS = 10;

// Under the runtime each rank appends its output to the job's files in the state dir (the
// controller names them in the spawn environment), line-buffered so ranks' lines do not mix.
// Created 0600 like everything in the state dir (freopen would make them 0666 & ~umask).
void redirect_output() {
  for (auto [var, stream] :
       {std::pair{"ELASTIC_STDOUT", stdout}, std::pair{"ELASTIC_STDERR", stderr}}) {
    const char* path = std::getenv(var);
    if (path == nullptr || *path == '\0') continue;
    const int fd = ::open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) continue;
    std::fflush(stream);
    if (::dup2(fd, ::fileno(stream)) >= 0) std::setvbuf(stream, nullptr, _IOLBF, 0);
    ::close(fd);
  }
}

}  // namespace

absl::StatusOr<std::unique_ptr<Session>> Session::init(int* argc, char*** argv,
                                                       SessionOptions options) {
  // A survivor that writes to the socket of a peer that just died gets SIGPIPE from Open MPI's
  // TCP transport (seen in bench/runtime: a rank killed by signal 13 right after the ranks of
  // another node were SIGKILLed). The failure must reach us through ULFM instead.
  struct sigaction old = {};
  if (sigaction(SIGPIPE, nullptr, &old) == 0 && old.sa_handler == SIG_DFL) {
    std::signal(SIGPIPE, SIG_IGN);
  }
  // On a Slurm-fed node our processes run as a step of the holder job (elastic-slurm-agent), and a
  // preemption sends SIGTERM to every process of the job at once. The notice reaches elasticd
  // through the holder, which moves this rank off the node; dying on the signal would turn the
  // notice into a failure. elasticd --ranks-ignore-sigterm asks for this (ELASTIC_IGNORE_SIGTERM).
  if (const char* v = std::getenv("ELASTIC_IGNORE_SIGTERM"); v != nullptr && *v == '1') {
    std::signal(SIGTERM, SIG_IGN);
  }
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    // Under the runtime (spawned by elasticd, which sets ELASTIC_JOB_ID) a grow's spawns run in a
    // helper thread beside the training (background_spawn.h).
    const int wanted =
        std::getenv("ELASTIC_JOB_ID") != nullptr ? MPI_THREAD_MULTIPLE : MPI_THREAD_FUNNELED;
    int provided = 0;
    ELASTIC_MPI_CHECK(MPI_Init_thread(argc, argv, wanted, &provided));
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  std::unique_ptr<Session> s(new Session(options));
  int level = MPI_THREAD_SINGLE;
  MPI_Query_thread(&level);
  s->threaded_ = level == MPI_THREAD_MULTIPLE;
  MPI_Comm parent = MPI_COMM_NULL;
  ELASTIC_MPI_CHECK(MPI_Comm_get_parent(&parent));
  if (parent == MPI_COMM_NULL) {
    ELASTIC_MPI_CHECK(MPI_Comm_dup(MPI_COMM_WORLD, s->compute_.out()));
    MPI_Comm_set_errhandler(s->compute_.get(), MPI_ERRORS_RETURN);
    return s;
  }
  MPI_Comm_set_errhandler(parent, MPI_ERRORS_RETURN);
  redirect_output();
  if (const char* ckpt = std::getenv("ELASTIC_CHECKPOINT"); ckpt != nullptr) {
    s->checkpoint_path_ = ckpt;
  }
  coll::Comm parent_comm(parent);  // freed after the merge (see exit(): free, never disconnect)
  // New ranks go last (high = 1): the controller stays rank 0 of J.
  ELASTIC_MPI_CHECK(MPI_Intercomm_merge(parent_comm.get(), 1, s->job_.out()));
  MPI_Comm_set_errhandler(s->job_.get(), MPI_ERRORS_RETURN);
  absl::StatusOr<Event> ev = Event::kContinue;
  if (absl::Status st =
          proto::connect_all(s->job_.get(), Clock::now() + options.directive_timeout).status();
      !st.ok()) {
    s->job_.revoke();
    ev = membership_error(st);
  } else {
    ev = s->join_spawns();
  }
  if (!ev.ok() && absl::IsAborted(ev.status())) ev = s->recover();
  if (!ev.ok()) return ev.status();
  if (*ev == Event::kStop || *ev == Event::kLeave) s->exit(0);
  return s;
}

absl::StatusOr<Event> Session::join_spawns() {
  const auto deadline = Clock::now() + options_.directive_timeout;
  int more = 0;
  MPI_Request req = MPI_REQUEST_NULL;
  ELASTIC_MPI_CHECK(MPI_Irecv(&more, 1, MPI_INT, 0, proto::kTagSpawns, job_.get(), &req));
  if (absl::Status st = coll::wait(req, deadline, "spawn count", coll::kControlPace); !st.ok()) {
    revoke_all();
    return membership_error(st);
  }
  if (more < 0 || more > proto::kMaxSpawns) {
    revoke_all();
    return absl::AbortedError(absl::StrCat("invalid spawn count ", more, " from the controller"));
  }
  if (more > 0) {
    spawn_->start(job_.get(), more, proto::WarmUp{}, /*threaded=*/false,
                  options_.directive_timeout);
    if (absl::Status st = adopt_spawn(); !st.ok()) {
      revoke_all();
      return st;
    }
  } else {  // the last node of a series: C with the ranks whose part is over too
    absl::Status st =
        proto::make_compute(job_.get(), prepared_.compute, &prepared_.duplicate, deadline);
    if (st.ok()) st = proto::warm_up(prepared_.compute.get(), proto::WarmUp{}, deadline);
    if (!st.ok()) {
      prepared_.compute.revoke();
      revoke_all();
      return membership_error(st);
    }
  }
  return follow();
}

Session::Session(SessionOptions options)
    : options_(options), spawn_(std::make_unique<BackgroundSpawn>()) {}

Session::~Session() {
  if (progress_req_ != MPI_REQUEST_NULL) {
    int initialized = 0;
    int finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    if (initialized && !finalized) {
      MPI_Cancel(&progress_req_);
      MPI_Request_free(&progress_req_);
    }
  }
}

absl::StatusOr<Event> Session::follow() {
  bool changed = false;
  // Any failure here leaves J in an unknown state for the others: revoke it so that nobody (the
  // controller included) waits for this rank, and report Aborted so that the caller repairs.
  auto broken = [this](absl::Status st) {
    revoke_all();
    return membership_error(st);
  };
  if (absl::Status st = adopt_spawn(); !st.ok()) return broken(st);
  for (;;) {
    proto::RawHeader raw{};
    const auto deadline = Clock::now() + options_.directive_timeout;
    if (absl::Status st = proto::exchange_ints(raw, false, job_.get(), deadline, "directive");
        !st.ok()) {
      return broken(st);
    }
    absl::StatusOr<proto::Header> h = proto::decode(raw, job_.size());
    if (!h.ok()) {
      std::fprintf(stderr, "elastic: %s\n", std::string(h.status().message()).c_str());
      return broken(h.status());
    }
    generation_ = h->generation;
    switch (h->directive) {
      case proto::Directive::kLeave: {
        std::vector<int> leaving(static_cast<std::size_t>(h->count));
        if (absl::Status st =
                proto::exchange_ints(leaving, false, job_.get(), deadline, "leaving list");
            !st.ok()) {
          return broken(st);
        }
        if (absl::Status st = proto::validate_leaving(leaving, *h, job_.size()); !st.ok()) {
          std::fprintf(stderr, "elastic: %s\n", std::string(st.message()).c_str());
          return broken(st);
        }
        const int me = job_.rank();
        bool leave = false;
        for (int r : leaving) leave = leave || r == me;
        coll::Comm next;
        if (const int rc = MPI_Comm_split(job_.get(), leave ? MPI_UNDEFINED : 0, me, next.out());
            rc != MPI_SUCCESS) {
          return broken(coll::mpi_status(rc, "MPI_Comm_split(leave)", __FILE__, __LINE__));
        }
        if (leave) return Event::kLeave;
        MPI_Comm_set_errhandler(next.get(), MPI_ERRORS_RETURN);
        job_ = std::move(next);
        prepared_ = {};  // built for the J before the split
        changed = true;
        break;
      }
      case proto::Directive::kResume: {
        const bool grown = !compute_ || compute_.size() != job_.size() - 1;
        duplicate_ = std::move(prepared_.duplicate);
        if (prepared_.compute) {
          compute_ = std::move(prepared_.compute);  // built by the grow (join_spawns)
        } else if (absl::Status st = proto::make_compute(job_.get(), compute_, nullptr, deadline);
                   !st.ok()) {
          return broken(st);
        }
        return changed || grown || h->reason != proto::Reason::kPlan ? Event::kChanged
                                                                     : Event::kContinue;
      }
      case proto::Directive::kStop:
        return Event::kStop;
    }
  }
}

void Session::mark_steps() {
  step_mark_ = Clock::now();
  step_mark_steps_ = steps_;
}

absl::Status Session::send_progress(bool force) {
  if (!job_ || compute_.rank() != 0) return absl::OkStatus();
  // Nothing goes to the controller on J while a grow builds the next J: the controller frees J
  // once it has the next one, and in Open MPI 5.0.7 a message that reaches a freed communicator
  // waits for the next communicator given the same index, whose creation then aborts the
  // process ("PML OB1 received a message from a rank outside the valid range": elasticd died so
  // in the e2e churn case, in MPI_Comm_spawn). Forced reports come after the switch.
  if (!force && (spawn_->active() || next_job_)) return absl::OkStatus();
  const auto now = Clock::now();
  if (!force && now - last_progress_ < options_.progress_period) return absl::OkStatus();
  if (progress_req_ != MPI_REQUEST_NULL) {
    int done = 0;
    ELASTIC_MPI_CHECK(MPI_Test(&progress_req_, &done, MPI_STATUS_IGNORE));
    // A forced report must go out; the previous one (a few bytes, sent eagerly) is done or
    // completes at once.
    if (!done && force) ELASTIC_MPI_CHECK(MPI_Wait(&progress_req_, MPI_STATUS_IGNORE));
    if (!done && !force) return absl::OkStatus();
  }
  const double dt = std::chrono::duration<double>(now - last_progress_).count();
  const bool first = last_progress_ == Clock::time_point{};
  const std::int64_t steps = steps_ - step_mark_steps_;
  const double stepping = std::chrono::duration<double>(now - step_mark_).count();
  const proto::Progress p{
      static_cast<double>(samples_total_),
      first ? 0.0 : static_cast<double>(samples_total_ - last_progress_samples_) / dt,
      static_cast<double>(steps_), static_cast<double>(compute_.size()),
      first || steps <= 0 ? 0.0 : stepping / static_cast<double>(steps)};
  progress_buf_[0] = p.samples_total;
  progress_buf_[1] = p.samples_per_s;
  progress_buf_[2] = p.steps;
  progress_buf_[3] = p.ranks;
  progress_buf_[4] = p.step_s;
  last_progress_ = now;
  last_progress_samples_ = samples_total_;
  mark_steps();
  ELASTIC_MPI_CHECK(MPI_Isend(progress_buf_, proto::kProgressDoubles, MPI_DOUBLE, 0,
                              proto::kTagProgress, job_.get(), &progress_req_));
  return absl::OkStatus();
}

absl::Status Session::settle_spawn() {
  if (!spawn_->active()) return absl::OkStatus();
  SpawnOutcome out = spawn_->take();
  if (out.job) {
    next_job_ = std::move(out.job);
    next_ = {std::move(out.compute), std::move(out.duplicate)};
  }
  if (absl::IsUnavailable(out.error)) {
    // Refused (e.g. no such host): J is intact, and nodes spawned before the refusal still join.
    std::fprintf(stderr, "elastic: a grow was refused: %s\n",
                 std::string(out.error.message()).c_str());
    return absl::OkStatus();
  }
  return out.error;
}

absl::Status Session::adopt_spawn() {
  absl::Status st = settle_spawn();
  if (next_job_) {
    job_ = std::move(next_job_);
    prepared_ = std::move(next_);
  }
  return st;
}

void Session::revoke_all() {
  compute_.revoke();
  job_.revoke();
  next_job_.revoke();
  spawn_->revoke();
}

absl::StatusOr<Event> Session::step_boundary(bool done) {
  double order = 0;
  double spawns = 0;
  if (spawn_->active()) ++grow_overlap_steps_;
  if (job_ && spawn_->finished()) {
    if (absl::Status st = settle_spawn(); !st.ok()) {
      revoke_all();
      return st;
    }
  }
  if (job_ && compute_.rank() == 0) {
    // Orders and grows reach the leader on J (no grow is ever announced while one is under way).
    for (const int tag : {proto::kTagOrder, proto::kTagSpawns}) {
      if (tag == proto::kTagSpawns && (spawn_->active() || next_job_)) continue;
      int flag = 0;
      MPI_Status status;
      ELASTIC_MPI_CHECK(MPI_Iprobe(0, tag, job_.get(), &flag, &status));
      if (!flag) continue;
      int code = 0;
      if (const int rc = MPI_Recv(&code, 1, MPI_INT, 0, tag, job_.get(), MPI_STATUS_IGNORE);
          rc != MPI_SUCCESS) {
        revoke_all();
        return coll::mpi_status(rc, "MPI_Recv(order)", __FILE__, __LINE__);
      }
      if (tag == proto::kTagOrder) order = code == proto::kOrderFollow ? 1 : 0;
      if (tag == proto::kTagSpawns) spawns = std::clamp(code, 0, proto::kMaxSpawns);
    }
  }
  // The job's sample count travels with rank 0's contribution, so that every rank holds the same
  // total: a rank that joined late adopts it at its first boundary, and the count the controller
  // gets stays right when the leader changes (seen in the demo: a new leader reporting only the
  // samples since it joined). `ready` counts the ranks whose part in a grow's spawns is over.
  enum { kSamples, kOrder, kDone, kTotal, kSpawns, kReady, kFields };
  std::array<double, kFields> buf{};
  buf[kSamples] = static_cast<double>(pending_samples_);
  buf[kOrder] = order;
  buf[kDone] = done ? 1.0 : 0.0;
  buf[kTotal] = compute_.rank() == 0 ? static_cast<double>(samples_total_) : 0.0;
  buf[kSpawns] = spawns;
  buf[kReady] = next_job_ ? 1.0 : 0.0;
  if (const int rc =
          MPI_Allreduce(MPI_IN_PLACE, buf.data(), kFields, MPI_DOUBLE, MPI_SUM, compute_.get());
      rc != MPI_SUCCESS) {
    revoke_all();
    return coll::mpi_status(rc, "MPI_Allreduce(step boundary)", __FILE__, __LINE__);
  }
  pending_samples_ = 0;
  samples_total_ = static_cast<std::int64_t>(buf[kTotal] + buf[kSamples]);
  ++steps_;
  if (!job_) return buf[kDone] > 0 ? Event::kStop : Event::kContinue;
  const bool finishing = buf[kDone] > 0;
  if (buf[kSpawns] > 0 && !finishing) {
    // Every rank starts its part now; the leader confirms, so the controller starts the spawns.
    const int count = static_cast<int>(buf[kSpawns]);
    if (compute_.rank() == 0) {
      ELASTIC_MPI_CHECK(MPI_Send(&count, 1, MPI_INT, 0, proto::kTagSpawns, job_.get()));
    }
    grow_overlap_steps_ = 0;
    spawn_->start(
        job_.get(), count,
        proto::WarmUp{.holds = true, .bytes = std::min(state_bytes_, options_.warm_up_max_bytes)},
        threaded_, options_.directive_timeout);
  }
  const bool grown = buf[kReady] == static_cast<double>(compute_.size());
  if (buf[kOrder] == 0 && !finishing && !grown) {
    if (absl::Status st = send_progress(false); !st.ok()) return st;
    return Event::kContinue;
  }
  // Before a directive the count goes out in full (on the J the controller now uses): a plan
  // that stops the job takes it with the stop (JobGroup::stop) instead of losing the last
  // period's samples.
  if (absl::Status st = adopt_spawn(); !st.ok()) {
    revoke_all();
    return st;
  }
  if (absl::Status st = send_progress(true); !st.ok()) return st;
  if (finishing && compute_.rank() == 0) {
    // Also the leader's answer to a grow announced at this boundary: none of it takes place.
    int code = 0;
    ELASTIC_MPI_CHECK(MPI_Send(&code, 1, MPI_INT, 0, proto::kTagDone, job_.get()));
  }
  absl::StatusOr<Event> ev = follow();
  if (!ev.ok()) revoke_all();
  mark_steps();  // the directive's stall is not a step
  return ev;
}

absl::StatusOr<Event> Session::recover() {
  revoke_all();
  // The samples reported since the last boundary belong to a step that did not pass it here: its
  // state is rolled back and the step redone (reported again), or rank 0 passed it and counted
  // them already.
  pending_samples_ = 0;
  duplicate_.reset();  // of the C being repaired
  if (!job_) {
    absl::StatusOr<coll::Comm> fixed = repair_comm(compute_, options_.repair);
    if (!fixed.ok()) return fixed.status();
    compute_ = *std::move(fixed);
    return Event::kRecovered;
  }
  // The controller repairs the newest J it built; so does every rank (a spawn under way returns
  // once its communicator is revoked).
  (void)adopt_spawn();
  prepared_ = {};  // the repair replaces J
  for (int attempt = 0; attempt < options_.repair.max_attempts; ++attempt) {
    absl::StatusOr<coll::Comm> fixed = repair_comm(job_, options_.repair);
    if (!fixed.ok()) return fixed.status();
    // The controller is J's rank 0 (joiners go last, survivors keep their order). Without it
    // nobody would send the next directive, and the ranks would train on for a runtime that is
    // gone, holding their nodes, until the directive's timeout.
    if (const std::vector<int> lost = missing_ranks(job_.get(), fixed->get());
        !lost.empty() && lost.front() == 0) {
      return absl::FailedPreconditionError(
          "recover: the runtime (elasticd, the job communicator's rank 0) is gone; the job stops "
          "here, and a restarted elasticd restarts it from its durable checkpoint");
    }
    job_ = *std::move(fixed);
    absl::StatusOr<Event> ev = follow();
    if (ev.ok()) return *ev == Event::kChanged || *ev == Event::kContinue ? Event::kRecovered : *ev;
    if (!absl::IsAborted(ev.status())) return ev.status();
  }
  return absl::AbortedError("recover: the job communicator kept failing");
}

void Session::exit(int code) {
  std::fflush(stdout);
  std::fflush(stderr);
  // Free, never MPI_Comm_disconnect: disconnecting a merged spawn communicator hangs in Open MPI
  // 5.0.7, while free + MPI_Finalize is clean (tests/runtime/daemon/pitfalls.sh). After a peer
  // failure MPI_Finalize can still hang; the alarm turns that into a signal death, which ULFM's
  // mpirun tolerates (an _exit without MPI_Finalize would abort the whole mpirun).
  alarm(kFinalizeTimeoutS);  // also bounds the sends below if the controller is gone
  if (progress_req_ != MPI_REQUEST_NULL) MPI_Wait(&progress_req_, MPI_STATUS_IGNORE);
  // Not while a grow builds the next J (see send_progress): the controller may have freed J.
  if (job_ && code != 0 && !spawn_->active() && !next_job_) {
    int payload[2] = {code, job_.rank()};
    MPI_Send(payload, 2, MPI_INT, 0, proto::kTagExit, job_.get());  // eager: never blocks long
  }
  // Peers must not wait for this rank in a collective on C (a finalized rank is not a failed
  // process to ULFM, so they could wait forever). J stays: the controller must still receive the
  // kTagExit above; it revokes J itself when it does.
  if (code != 0) compute_.revoke();
  if (spawn_->active()) {
    spawn_->revoke();
    (void)spawn_->take();
  }
  compute_.reset();
  next_job_.reset();
  job_.reset();
  MPI_Finalize();
  std::exit(code);
}

}  // namespace elastic::rt
