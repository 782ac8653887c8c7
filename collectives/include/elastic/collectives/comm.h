// The one RAII owner of an MPI communicator in libelastic: the collectives' private duplicates and
// the runtime's communicators (a job's J and C, spawn intercommunicators) alike. They are rebuilt
// at every membership change and are often broken when dropped (a peer died, the communicator was
// revoked), so freeing is ULFM-aware: only MPI_Comm_free, which Open MPI keeps local (no message to
// any peer), so a revoked or failed communicator never hangs its owner; never
// MPI_Comm_disconnect, which waits for every peer (it hangs on a spawn + merge communicator:
// docs/runtime.md, pitfall 3). Nothing is freed before MPI_Init or after MPI_Finalize, and the
// predefined communicators (MPI_COMM_WORLD, MPI_COMM_SELF) never.
#pragma once

#include <mpi.h>

#include <utility>

#include "absl/status/statusor.h"
#include "elastic/collectives/bounded_wait.h"

namespace elastic::coll {

class Comm {
 public:
  Comm() noexcept = default;
  explicit Comm(MPI_Comm comm) noexcept : comm_(comm) {}
  ~Comm() { reset(); }
  Comm(const Comm&) = delete;
  Comm& operator=(const Comm&) = delete;
  Comm(Comm&& other) noexcept : comm_(std::exchange(other.comm_, MPI_COMM_NULL)) {}
  Comm& operator=(Comm&& other) noexcept {
    if (this != &other) {
      reset();
      comm_ = std::exchange(other.comm_, MPI_COMM_NULL);
    }
    return *this;
  }

  MPI_Comm get() const noexcept { return comm_; }
  explicit operator bool() const noexcept { return comm_ != MPI_COMM_NULL; }
  // For MPI calls that create a communicator: frees the current one first.
  MPI_Comm* out() noexcept {
    reset();
    return &comm_;
  }
  MPI_Comm release() noexcept { return std::exchange(comm_, MPI_COMM_NULL); }
  // LOCAL, never blocks: MPI_Comm_free as above.
  void reset() noexcept;
  // LOCAL, never blocks: MPIX_Comm_revoke, so peers blocked on this communicator return.
  void revoke() noexcept;

  // -1 on a null communicator. For an intercommunicator, the local rank/size.
  int rank() const noexcept;
  int size() const noexcept;

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
};

// COLLECTIVE over `comm`, bounded: MPI_Comm_idup and a wait; the copy returns errors
// (MPI_ERRORS_RETURN). A timeout revokes `comm` so that peers stuck in the same dup return;
// Aborted when a process of `comm` failed meanwhile.
absl::StatusOr<Comm> dup(MPI_Comm comm, Clock::time_point deadline,
                         const WaitPace& pace = kCollectivePace);

}  // namespace elastic::coll
