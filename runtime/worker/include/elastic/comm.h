// RAII for MPI_Comm. A job's communicators are rebuilt at every membership change and may be
// broken (a peer died, the communicator was revoked) when they are dropped, so the destructor
// only calls MPI_Comm_free, which ULFM keeps local: it never blocks on dead peers. Predefined
// communicators (WORLD, SELF, NULL) are never freed.
#pragma once

#include <mpi.h>

#include <utility>

namespace elastic::rt {

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
  // LOCAL, never blocks.
  void reset() noexcept;
  // LOCAL, never blocks: MPIX_Comm_revoke, so peers blocked on this communicator return.
  void revoke() noexcept;

  // -1 on a null communicator. For an intercommunicator, the local rank/size.
  int rank() const noexcept;
  int size() const noexcept;

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
};

}  // namespace elastic::rt
