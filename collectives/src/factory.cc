// The one place that knows which backends exist and picks one (STYLE.md: no self-registration,
// no #if ladders elsewhere).
#include "elastic/collectives/factory.h"

#include "mpi/communicator.h"
#ifdef ELASTIC_HAVE_CUDA
#include <cuda_runtime.h>

#include "nccl/communicator.h"
#endif

namespace elastic::coll {

MemoryKind memory_kind(const void* ptr) {
#ifdef ELASTIC_HAVE_CUDA
  cudaPointerAttributes attr{};
  if (ptr != nullptr && cudaPointerGetAttributes(&attr, ptr) == cudaSuccess &&
      (attr.type == cudaMemoryTypeDevice || attr.type == cudaMemoryTypeManaged)) {
    return MemoryKind::kDevice;
  }
  cudaGetLastError();  // a host pointer (or no device) is not an error for us: clear it
#else
  (void)ptr;
#endif
  return MemoryKind::kHost;
}

bool backend_available(Backend b) {
  switch (b) {
    case Backend::kMpi:
      return true;
    case Backend::kNccl:
#ifdef ELASTIC_HAVE_CUDA
      return true;
#else
      return false;
#endif
  }
  return false;
}

absl::StatusOr<std::unique_ptr<Communicator>> create_communicator(MPI_Comm comm, Backend backend,
                                                                  CreateOptions opts) {
  switch (backend) {
    case Backend::kMpi:
      return mpi::MpiCommunicator::create(comm, opts);
    case Backend::kNccl:
#ifdef ELASTIC_HAVE_CUDA
      return nccl::NcclCommunicator::create(comm, opts);
#else
      return absl::UnavailableError("the NCCL backend was not built (libelastic without CUDA)");
#endif
  }
  return absl::InvalidArgumentError("unknown collectives backend");
}

absl::StatusOr<std::unique_ptr<Communicator>> create_communicator(Comm own, Backend backend,
                                                                  CreateOptions opts) {
  if (backend == Backend::kMpi) return mpi::MpiCommunicator::adopt(std::move(own));
  return create_communicator(own.get(), backend, opts);
}

absl::StatusOr<std::unique_ptr<Communicator>> create_communicator(MPI_Comm comm, MemoryKind kind,
                                                                  CreateOptions opts) {
  return create_communicator(comm, kind == MemoryKind::kDevice ? Backend::kNccl : Backend::kMpi,
                             opts);
}

absl::StatusOr<std::unique_ptr<Communicator>> shrink_communicator(Communicator& old,
                                                                  MPI_Comm survivors,
                                                                  CreateOptions opts) {
#ifdef ELASTIC_HAVE_CUDA
  if (auto* nccl_old = dynamic_cast<nccl::NcclCommunicator*>(&old); nccl_old != nullptr) {
    return nccl::NcclCommunicator::shrink(*nccl_old, survivors, opts);
  }
#endif
  old.abort("replaced by a new communicator (shrink)");
  return mpi::MpiCommunicator::create(survivors, opts);
}

}  // namespace elastic::coll
