// The ONE place where a collectives backend is chosen: MPI for host memory, NCCL for device
// memory (only when libelastic was built with CUDA; ELASTIC_HAVE_CUDA). Training code builds one
// Communicator per membership from the job's MPI communicator, e.g. after each rescale:
//
//   auto comm = elastic::coll::create_communicator(job_comm, elastic::coll::memory_kind(params.data()));
#pragma once

#include <mpi.h>

#include <chrono>
#include <cstdint>
#include <memory>

#include "absl/status/statusor.h"
#include "elastic/collectives/comm.h"
#include "elastic/collectives/communicator.h"

namespace elastic::coll {

enum class Backend : std::uint8_t { kMpi, kNccl };

// CreateOptions::device: the caller's current CUDA device (cudaGetDevice) at create().
inline constexpr int kCurrentDevice = -1;

struct CreateOptions {
  // Bounds the whole construction (MPI_Comm_idup; for NCCL also the exchange of (host, GPU), the
  // unique-id broadcast and the non-blocking ncclCommInitRankConfig, which is aborted when the
  // deadline passes).
  std::chrono::milliseconds timeout{std::chrono::seconds(60)};
  // NCCL only (the MPI backend ignores it): the CUDA device the communicator, its stream and its
  // scratch buffer live on. The backend never picks a GPU itself: the application chooses one per
  // process once (e.g. local rank % GPUs at start), keeps its model there, and every communicator
  // of every later membership uses the same one. create() and the collectives leave the caller's
  // current device as it was.
  int device = kCurrentDevice;
};

// LOCAL, non-blocking. kDevice when `ptr` is CUDA device (or managed) memory, kHost otherwise
// (always kHost without CUDA support). Uses cudaPointerGetAttributes.
MemoryKind memory_kind(const void* ptr);

// True when this build has the backend (kMpi always; kNccl only with CUDA + NCCL).
bool backend_available(Backend b);

// COLLECTIVE over `comm`, blocking up to opts.timeout. The Communicator works on its own
// duplicate of `comm` (MPI_Comm_idup), so its traffic never mixes with the caller's; `comm` itself
// is neither owned nor modified and may be freed/repaired by the caller afterwards (a Communicator
// for the old membership must then be dropped). kNccl uses opts.device (default: the caller's
// current device) and needs one GPU per rank: when two ranks on one host name the same GPU, every
// rank returns FailedPrecondition naming the host and the device (NCCL does not support it and may
// hang). Errors: Unavailable (backend not built), InvalidArgument (no such device),
// FailedPrecondition (shared or unusable GPU, on every rank), DeadlineExceeded, Aborted (a peer
// failed).
absl::StatusOr<std::unique_ptr<Communicator>> create_communicator(MPI_Comm comm, Backend backend,
                                                                  CreateOptions opts = {});
// Same, over `own`: a duplicate the caller made for this Communicator and uses for nothing else.
// The MPI backend takes it over instead of duplicating it again (one context-id agreement less
// at a membership change); NCCL builds from it as above and frees it.
absl::StatusOr<std::unique_ptr<Communicator>> create_communicator(Comm own, Backend backend,
                                                                  CreateOptions opts = {});
// Same, with the backend that fits buffers of `kind` (kHost -> kMpi, kDevice -> kNccl).
absl::StatusOr<std::unique_ptr<Communicator>> create_communicator(MPI_Comm comm, MemoryKind kind,
                                                                  CreateOptions opts = {});

// COLLECTIVE over `survivors`, blocking up to opts.timeout: the communicator of a membership that
// only LOST ranks of `old`'s (a repair after a failure, MPIX_Comm_shrink; or ranks leaving on
// notice), built from `old` instead of from scratch. `survivors` must hold only ranks of `old`'s
// membership, in their old order (as MPIX_Comm_shrink and MPI_Comm_split keyed by the old rank
// give them). NCCL: ncclCommShrink of `old`'s ncclComm on the same GPU (NCCL >= 2.27.3 at build
// and at run time), also after `old` failed (its ncclComm is revoked, not aborted, where NCCL has
// ncclCommRevoke), so no unique id, no topology search and no new connections to the survivors'
// peers; where that is not possible on every survivor (older NCCL, `old` explicitly aborted) all
// fall back to create_communicator with `old`'s device. MPI: create_communicator(survivors).
// `old` is unusable afterwards (every call returns Aborted); dropping it releases it (for NCCL
// that teardown is left to the caller's drop, off the path to the new communicator). Errors: as create_communicator, and InvalidArgument when
// `survivors` is not such a subset.
absl::StatusOr<std::unique_ptr<Communicator>> shrink_communicator(Communicator& old,
                                                                  MPI_Comm survivors,
                                                                  CreateOptions opts = {});

}  // namespace elastic::coll
