// The NCCL backend: collectives on device memory. The ncclComm is bootstrapped over the job's MPI
// communicator (rank 0's unique id is broadcast), initialised non-blocking and polled against a
// deadline, and aborted on timeout or failure; one rank per GPU (local rank % device count).
// Built only with CUDA (ELASTIC_HAVE_CUDA).
#pragma once

#include <mpi.h>

#include <memory>

#include "elastic/collectives/communicator.h"
#include "elastic/collectives/factory.h"
#include "mpi/handles.h"
#include "nccl/handles.h"

namespace elastic::coll::nccl {

class NcclCommunicator final : public Communicator {
 public:
  // COLLECTIVE over `comm` (see factory.h).
  static absl::StatusOr<std::unique_ptr<Communicator>> create(MPI_Comm comm, CreateOptions opts);

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  MemoryKind memory() const override { return MemoryKind::kDevice; }
  std::string_view backend_name() const override { return "nccl"; }
  int device() const { return device_; }

  absl::Status allreduce(Tensor t, ReduceOp op, CallOptions opts) override;
  absl::Status broadcast(void* data, std::size_t bytes, int root, CallOptions opts) override;
  absl::Status barrier(CallOptions opts) override;
  absl::Status health() const override { return sticky_; }
  void abort(std::string_view why) override;
  absl::StatusOr<std::span<std::byte>> scratch(std::size_t bytes) override;
  absl::Status copy(void* dst, const void* src, std::size_t bytes) override;

 private:
  NcclCommunicator() = default;
  // Polls the communicator's async error and the stream until the enqueued work is done, the
  // deadline passes (abort, DeadlineExceeded) or NCCL reports an error (abort, Aborted).
  absl::Status finish(std::chrono::milliseconds timeout, const char* what);
  absl::Status fail(absl::Status st);

  mpi::CommHandle bootstrap_;  // private MPI duplicate, used only to build the ncclComm
  CommHandle comm_;
  StreamHandle stream_;
  DeviceBuffer scratch_;
  int rank_ = 0;
  int size_ = 0;
  int device_ = 0;
  absl::Status sticky_;
};

}  // namespace elastic::coll::nccl
