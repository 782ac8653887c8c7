#include "elastic/worker/internal/background_spawn.h"

#include <mpi-ext.h>

#include <utility>

#include "elastic/collectives/mpi_check.h"
#include "elastic/worker/internal/membership_error.h"
#include "elastic/worker/internal/protocol.h"

namespace elastic::rt {

SpawnOutcome take_part_in_spawns(MPI_Comm job, int count, proto::WarmUp warm,
                                 std::chrono::milliseconds timeout, MPI_Comm* current,
                                 std::mutex* mu) {
  using Clock = std::chrono::steady_clock;
  SpawnOutcome out;
  // What revoke() reaches from the other thread: always a communicator that is still alive, so a
  // new one is published before the one it replaces is freed.
  auto publish = [current, mu](MPI_Comm c) {
    if (current == nullptr) return;
    std::lock_guard<std::mutex> lock(*mu);
    *current = c;
  };
  MPI_Comm on = job;
  publish(on);
  for (int i = 0; i < count; ++i) {
    // The controller spawns with MPI_Comm_spawn_multiple; arguments other than root and comm are
    // ignored on non-root ranks.
    coll::Comm inter;
    if (const int rc = MPI_Comm_spawn_multiple(0, nullptr, nullptr, nullptr, nullptr, 0, on,
                                               inter.out(), MPI_ERRCODES_IGNORE);
        rc != MPI_SUCCESS) {
      out.error = spawn_error(coll::mpi_status(rc, "MPI_Comm_spawn_multiple", __FILE__, __LINE__));
      break;
    }
    coll::Comm merged;
    if (const int rc = MPI_Intercomm_merge(inter.get(), 0, merged.out()); rc != MPI_SUCCESS) {
      out.error = membership_error(coll::mpi_status(rc, "MPI_Intercomm_merge", __FILE__, __LINE__));
      break;
    }
    MPI_Comm_set_errhandler(merged.get(), MPI_ERRORS_RETURN);
    publish(merged.get());
    if (absl::Status st = proto::connect_all(merged.get(), Clock::now() + timeout).status();
        !st.ok()) {
      merged.revoke();
      out.error = membership_error(st);
      out.job = std::move(merged);  // the survivors repair this one, as the controller does
      break;
    }
    out.job = std::move(merged);
    on = out.job.get();
  }
  if (out.error.ok() && count > 0) {
    const auto deadline = Clock::now() + timeout;
    absl::Status st = proto::make_compute(out.job.get(), out.compute, &out.duplicate, deadline);
    if (st.ok()) {
      publish(out.compute.get());
      st = proto::warm_up(out.compute.get(), warm, deadline);
    }
    if (!st.ok()) {
      publish(out.job.get());  // before the compute communicator is freed
      out.job.revoke();
      out.compute.revoke();
      out.compute.reset();
      out.duplicate.reset();
      out.error = membership_error(st);
    }
  }
  publish(MPI_COMM_NULL);
  return out;
}

BackgroundSpawn::~BackgroundSpawn() {
  if (active()) {
    revoke();
    result_.wait();
  }
}

void BackgroundSpawn::start(MPI_Comm job, int count, proto::WarmUp warm, bool threaded,
                            std::chrono::milliseconds timeout) {
  if (threaded) {
    result_ = std::async(std::launch::async, [this, job, count, warm, timeout] {
      return take_part_in_spawns(job, count, warm, timeout, &current_, &mu_);
    });
    return;
  }
  std::promise<SpawnOutcome> done;
  done.set_value(take_part_in_spawns(job, count, warm, timeout));
  result_ = done.get_future();
}

bool BackgroundSpawn::finished() const {
  return active() && result_.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
}

SpawnOutcome BackgroundSpawn::take() { return result_.get(); }

void BackgroundSpawn::revoke() {
  std::lock_guard<std::mutex> lock(mu_);
  if (current_ != MPI_COMM_NULL) MPIX_Comm_revoke(current_);
}

}  // namespace elastic::rt
