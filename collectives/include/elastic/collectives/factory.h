// The ONE place where a collectives backend is chosen: MPI for host memory, NCCL for device
// memory (only when libelastic was built with CUDA; ELASTIC_HAVE_CUDA). Training code builds one
// Communicator per membership from the job's MPI communicator, e.g. after each rescale:
//
//   auto comm = elastic::coll::create_communicator(job_comm, elastic::coll::memory_kind(params.data()));
#pragma once

#include <memory>

#include <mpi.h>

#include "absl/status/statusor.h"
#include "elastic/collectives/communicator.h"

namespace elastic::coll {

enum class Backend : std::uint8_t { kMpi, kNccl };

struct CreateOptions {
  // Bounds the whole construction (MPI_Comm_idup; for NCCL also the unique-id broadcast and the
  // non-blocking ncclCommInitRankConfig, which is aborted when the deadline passes).
  std::chrono::milliseconds timeout{std::chrono::seconds(60)};
};

// LOCAL, non-blocking. kDevice when `ptr` is CUDA device (or managed) memory, kHost otherwise
// (always kHost without CUDA support). Uses cudaPointerGetAttributes.
MemoryKind memory_kind(const void* ptr);

// True when this build has the backend (kMpi always; kNccl only with CUDA + NCCL).
bool backend_available(Backend b);

// COLLECTIVE over `comm`, blocking up to opts.timeout. The Communicator works on its own
// duplicate of `comm` (MPI_Comm_idup), so its traffic never mixes with the caller's; `comm` itself
// is neither owned nor modified and may be freed/repaired by the caller afterwards (a Communicator
// for the old membership must then be dropped). kNccl picks GPU (local rank % device count): one
// rank per GPU. Errors: Unavailable (backend not built), DeadlineExceeded, Aborted (a peer failed).
absl::StatusOr<std::unique_ptr<Communicator>> create_communicator(MPI_Comm comm, Backend backend,
                                                                  CreateOptions opts = {});
// Same, with the backend that fits buffers of `kind` (kHost -> kMpi, kDevice -> kNccl).
absl::StatusOr<std::unique_ptr<Communicator>> create_communicator(MPI_Comm comm, MemoryKind kind,
                                                                  CreateOptions opts = {});

}  // namespace elastic::coll
