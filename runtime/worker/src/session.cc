#include "elastic/session.h"

#include <mpi-ext.h>
#include <unistd.h>

#include <array>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "elastic/collectives/mpi_check.h"
#include "elastic/protocol.h"

namespace elastic::rt {

namespace {

using Clock = std::chrono::steady_clock;
constexpr unsigned kFinalizeTimeoutS = 10;

// C = J without the controller (J rank 0), in J order. MPI_Comm_create_group is collective over
// the ranks only, so the controller never waits on it.
absl::Status make_compute(MPI_Comm job, Comm& compute) {
  MPI_Group all = MPI_GROUP_NULL;
  MPI_Group ranks = MPI_GROUP_NULL;
  ELASTIC_MPI_CHECK(MPI_Comm_group(job, &all));
  const int controller = 0;
  int rc = MPI_Group_excl(all, 1, &controller, &ranks);
  if (rc == MPI_SUCCESS) rc = MPI_Comm_create_group(job, ranks, proto::kTagCompute, compute.out());
  MPI_Group_free(&all);
  if (ranks != MPI_GROUP_NULL) MPI_Group_free(&ranks);
  ELASTIC_MPI_CHECK(rc);
  MPI_Comm_set_errhandler(compute.get(), MPI_ERRORS_RETURN);
  return absl::OkStatus();
}

// Under the runtime each rank appends its output to the job's files in the state dir (the
// controller names them in the spawn environment), line-buffered so ranks' lines do not mix.
void redirect_output() {
  for (auto [var, stream] :
       {std::pair{"ELASTIC_STDOUT", stdout}, std::pair{"ELASTIC_STDERR", stderr}}) {
    const char* path = std::getenv(var);
    if (path == nullptr || *path == '\0') continue;
    if (std::freopen(path, "a", stream) != nullptr) std::setvbuf(stream, nullptr, _IOLBF, 0);
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
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    int provided = 0;
    ELASTIC_MPI_CHECK(MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided));
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  std::unique_ptr<Session> s(new Session(options));
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
  Comm parent_comm(parent);  // freed after the merge (see exit(): free, never disconnect)
  // New ranks go last (high = 1): the controller stays rank 0 of J.
  ELASTIC_MPI_CHECK(MPI_Intercomm_merge(parent_comm.get(), 1, s->job_.out()));
  MPI_Comm_set_errhandler(s->job_.get(), MPI_ERRORS_RETURN);
  absl::StatusOr<Event> ev = Event::kContinue;
  if (absl::Status st =
          proto::connect_all(s->job_.get(), Clock::now() + options.directive_timeout).status();
      !st.ok()) {
    s->job_.revoke();
    ev = absl::IsInternal(st) ? absl::AbortedError(st.message()) : st;
  } else {
    ev = s->follow();
  }
  if (!ev.ok() && absl::IsAborted(ev.status())) ev = s->recover();
  if (!ev.ok()) return ev.status();
  if (*ev == Event::kStop || *ev == Event::kLeave) s->exit(0);
  return s;
}

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
    compute_.revoke();
    job_.revoke();
    if (absl::IsInternal(st)) return absl::AbortedError(st.message());
    return st;
  };
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
      case proto::Directive::kSpawn: {
        // Arguments other than root and comm are ignored on non-root ranks.
        char empty[] = "";
        Comm inter;
        if (const int rc = MPI_Comm_spawn(empty, MPI_ARGV_NULL, 0, MPI_INFO_NULL, 0, job_.get(),
                                          inter.out(), MPI_ERRCODES_IGNORE);
            rc != MPI_SUCCESS) {
          return broken(coll::mpi_status(rc, "MPI_Comm_spawn", __FILE__, __LINE__));
        }
        Comm merged;
        if (const int rc = MPI_Intercomm_merge(inter.get(), 0, merged.out()); rc != MPI_SUCCESS) {
          return broken(coll::mpi_status(rc, "MPI_Intercomm_merge", __FILE__, __LINE__));
        }
        MPI_Comm_set_errhandler(merged.get(), MPI_ERRORS_RETURN);
        job_ = std::move(merged);
        if (absl::Status st = proto::connect_all(job_.get(), deadline).status(); !st.ok()) {
          return broken(st);
        }
        changed = true;
        break;
      }
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
        Comm next;
        if (const int rc = MPI_Comm_split(job_.get(), leave ? MPI_UNDEFINED : 0, me, next.out());
            rc != MPI_SUCCESS) {
          return broken(coll::mpi_status(rc, "MPI_Comm_split(leave)", __FILE__, __LINE__));
        }
        if (leave) return Event::kLeave;
        MPI_Comm_set_errhandler(next.get(), MPI_ERRORS_RETURN);
        job_ = std::move(next);
        changed = true;
        break;
      }
      case proto::Directive::kResume: {
        if (absl::Status st = make_compute(job_.get(), compute_); !st.ok()) return broken(st);
        return changed || h->reason != 0 ? Event::kChanged : Event::kContinue;
      }
      case proto::Directive::kStop:
        return Event::kStop;
    }
  }
}

absl::Status Session::send_progress(bool force) {
  if (!job_ || compute_.rank() != 0) return absl::OkStatus();
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
  const proto::Progress p{static_cast<double>(samples_total_),
                          last_progress_ == Clock::time_point{}
                              ? 0.0
                              : static_cast<double>(samples_total_ - last_progress_samples_) / dt,
                          static_cast<double>(steps_), static_cast<double>(compute_.size())};
  progress_buf_[0] = p.samples_total;
  progress_buf_[1] = p.samples_per_s;
  progress_buf_[2] = p.steps;
  progress_buf_[3] = p.ranks;
  last_progress_ = now;
  last_progress_samples_ = samples_total_;
  ELASTIC_MPI_CHECK(MPI_Isend(progress_buf_, proto::kProgressDoubles, MPI_DOUBLE, 0,
                              proto::kTagProgress, job_.get(), &progress_req_));
  return absl::OkStatus();
}

absl::StatusOr<Event> Session::step_boundary(bool done) {
  double order = 0;
  if (job_ && compute_.rank() == 0) {
    int flag = 0;
    MPI_Status status;
    ELASTIC_MPI_CHECK(MPI_Iprobe(0, proto::kTagOrder, job_.get(), &flag, &status));
    if (flag) {
      int code = 0;
      if (const int rc =
              MPI_Recv(&code, 1, MPI_INT, 0, proto::kTagOrder, job_.get(), MPI_STATUS_IGNORE);
          rc != MPI_SUCCESS) {
        compute_.revoke();
        job_.revoke();
        return coll::mpi_status(rc, "MPI_Recv(order)", __FILE__, __LINE__);
      }
      order = code == proto::kOrderFollow ? 1 : 0;
    }
  }
  // The job's sample count travels with rank 0's contribution, so that every rank holds the same
  // total: a rank that joined late adopts it at its first boundary, and the count the controller
  // gets stays right when the leader changes (seen in the demo: a new leader reporting only the
  // samples since it joined).
  std::array<double, 4> buf{static_cast<double>(pending_samples_), order, done ? 1.0 : 0.0,
                            compute_.rank() == 0 ? static_cast<double>(samples_total_) : 0.0};
  if (const int rc =
          MPI_Allreduce(MPI_IN_PLACE, buf.data(), 4, MPI_DOUBLE, MPI_SUM, compute_.get());
      rc != MPI_SUCCESS) {
    compute_.revoke();
    job_.revoke();
    return coll::mpi_status(rc, "MPI_Allreduce(step boundary)", __FILE__, __LINE__);
  }
  pending_samples_ = 0;
  samples_total_ = static_cast<std::int64_t>(buf[3] + buf[0]);
  ++steps_;
  if (!job_) return buf[2] > 0 ? Event::kStop : Event::kContinue;
  // Before a directive (an order, or the end) the count goes out in full: a plan that stops the
  // job takes it with the stop (JobGroup::stop) instead of losing the last period's samples.
  if (absl::Status st = send_progress(buf[1] > 0 || buf[2] > 0); !st.ok()) return st;
  if (buf[2] > 0 && compute_.rank() == 0) {
    int code = 0;
    ELASTIC_MPI_CHECK(MPI_Send(&code, 1, MPI_INT, 0, proto::kTagDone, job_.get()));
  }
  if (buf[1] > 0 || buf[2] > 0) {
    absl::StatusOr<Event> ev = follow();
    if (!ev.ok()) {
      compute_.revoke();
      job_.revoke();
    }
    return ev;
  }
  return Event::kContinue;
}

absl::StatusOr<Event> Session::recover() {
  compute_.revoke();
  if (!job_) {
    absl::StatusOr<Comm> fixed = repair_comm(compute_, options_.repair);
    if (!fixed.ok()) return fixed.status();
    compute_ = *std::move(fixed);
    return Event::kRecovered;
  }
  for (int attempt = 0; attempt < options_.repair.max_attempts; ++attempt) {
    absl::StatusOr<Comm> fixed = repair_comm(job_, options_.repair);
    if (!fixed.ok()) return fixed.status();
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
  if (job_ && code != 0) {
    int payload[2] = {code, job_.rank()};
    MPI_Send(payload, 2, MPI_INT, 0, proto::kTagExit, job_.get());  // eager: never blocks long
  }
  // Peers must not wait for this rank in a collective on C (a finalized rank is not a failed
  // process to ULFM, so they could wait forever). J stays: the controller must still receive the
  // kTagExit above; it revokes J itself when it does.
  if (code != 0) compute_.revoke();
  compute_.reset();
  job_.reset();
  MPI_Finalize();
  std::exit(code);
}

}  // namespace elastic::rt
