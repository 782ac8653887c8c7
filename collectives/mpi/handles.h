// RAII for MPI handles and the one bounded wait every collective uses: an MPI_I* request is tested
// in a loop until it completes or the deadline passes (MPI has no timed wait of its own).
#pragma once

#include <mpi.h>

#include <chrono>
#include <span>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace elastic::coll::mpi {

using Clock = std::chrono::steady_clock;

// Owns an MPI communicator. Destruction frees it (MPI_Comm_free is local in Open MPI); a revoked
// communicator is freed too, which ULFM allows. Never blocks on peers.
class CommHandle {
 public:
  CommHandle() = default;
  explicit CommHandle(MPI_Comm c) : comm_(c) {}
  CommHandle(const CommHandle&) = delete;
  CommHandle& operator=(const CommHandle&) = delete;
  CommHandle(CommHandle&& o) noexcept : comm_(std::exchange(o.comm_, MPI_COMM_NULL)) {}
  CommHandle& operator=(CommHandle&& o) noexcept {
    if (this != &o) {
      reset();
      comm_ = std::exchange(o.comm_, MPI_COMM_NULL);
    }
    return *this;
  }
  ~CommHandle() { reset(); }
  MPI_Comm get() const { return comm_; }
  void reset();

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
};

// Tests `req` until done or `deadline`. OK when done; the request's error (Aborted for a process
// failure) otherwise; DeadlineExceeded when the deadline passed (the request is then still active:
// the caller must revoke the communicator and call drain()).
absl::Status wait(MPI_Request& req, Clock::time_point deadline, const char* what);
// The same for every request of `reqs` (MPI_REQUEST_NULL entries count as done).
absl::Status wait_all(std::span<MPI_Request> reqs, Clock::time_point deadline, const char* what);

// After a revoke: gives an active request a short, bounded time to complete with an error, then
// forgets it (an active collective request cannot be freed; the communicator is dead anyway).
void drain(MPI_Request& req);
void drain(std::span<MPI_Request> reqs);  // one shared 500 ms budget for all of them

// COLLECTIVE over `comm`, bounded: MPI_Comm_idup + wait; the copy returns errors (MPI_ERRORS_RETURN).
absl::StatusOr<CommHandle> dup(MPI_Comm comm, Clock::time_point deadline);

}  // namespace elastic::coll::mpi
