// The NCCL backend: collectives on device memory. The ncclComm is bootstrapped over the job's MPI
// communicator (every rank's (host, GPU) is exchanged to refuse two ranks on one GPU, then rank 0's
// unique id is broadcast), initialised non-blocking and polled against a deadline, and aborted on
// timeout, on failure and when it is dropped. It lives on the GPU the caller chose
// (CreateOptions::device, default the current device) and never changes the caller's current
// device. Each collective is ordered after the caller's stream with an event and the caller's
// stream after it, and the host polls its completion against the deadline. Built only with CUDA
// (ELASTIC_HAVE_CUDA).
#pragma once

#include <mpi.h>

#include <memory>

#include "elastic/collectives/comm.h"
#include "elastic/collectives/communicator.h"
#include "elastic/collectives/factory.h"
#include "nccl/handles.h"

namespace elastic::coll::nccl {

class NcclCommunicator final : public Communicator {
 public:
  // COLLECTIVE over `comm` (see factory.h).
  static absl::StatusOr<std::unique_ptr<Communicator>> create(MPI_Comm comm, CreateOptions opts);
  // COLLECTIVE over `survivors` (see factory.h, shrink_communicator): ncclCommShrink of `old`'s
  // ncclComm without the ranks that are not in `survivors`, on `old`'s GPU; create() where this
  // NCCL cannot shrink or any survivor's `old` no longer holds its ncclComm. `old` is unusable
  // afterwards; its ncclComm is aborted when it is dropped.
  static absl::StatusOr<std::unique_ptr<Communicator>> shrink(NcclCommunicator& old,
                                                              MPI_Comm survivors,
                                                              CreateOptions opts);
  // Aborts the ncclComm (local, never waits for peers; a revoked one once it is quiescent).
  ~NcclCommunicator() override;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  MemoryKind memory() const override { return MemoryKind::kDevice; }
  std::string_view backend_name() const override { return "nccl"; }
  int device() const { return device_; }

  absl::Status allreduce(Tensor t, ReduceOp op, CallOptions opts) override;
  absl::Status broadcast(void* data, std::size_t bytes, int root, CallOptions opts) override;
  absl::Status spread(void* data, std::size_t bytes, std::span<const std::uint8_t> holds,
                      CallOptions opts) override;
  absl::Status barrier(CallOptions opts) override;
  absl::Status health() const override { return sticky_; }
  void abort(std::string_view why) override;
  absl::StatusOr<std::span<std::byte>> scratch(std::size_t bytes) override;
  absl::Status copy(void* dst, const void* src, std::size_t bytes,
                    const CallOptions& opts) override;

 private:
  NcclCommunicator() = default;
  // A communicator whose bootstrap_ is a duplicate of `comm` (rank_ and size_ set from it); the
  // ncclComm is not made yet.
  static absl::StatusOr<std::unique_ptr<NcclCommunicator>> boot(MPI_Comm comm,
                                                                Clock::time_point deadline);
  // Makes the private stream wait for the caller's stream (event ready_), enqueues `op` on the
  // private stream, records done_ there once NCCL has launched it and makes the caller's stream
  // wait for it, then polls done_ against opts.timeout.
  // Runs with the communicator's device current.
  template <typename Enqueue>
  absl::Status run(const CallOptions& opts, const char* what, Enqueue&& op);
  // Polls the communicator's async state until it leaves ncclInProgress and, with `event`, until
  // the event completes; aborts on the deadline (DeadlineExceeded) or an NCCL error (Aborted).
  absl::Status poll(Clock::time_point deadline, const char* what, cudaEvent_t event);
  // Revokes the ncclComm where NCCL can (it stays shrinkable), aborts it otherwise; sticky.
  absl::Status fail(absl::Status st);
  // Takes ownership of a non-blocking ncclComm being initialised (`init`: what the init call
  // returned), waits for it against `deadline` and creates the stream and events.
  absl::Status adopt(ncclComm_t raw, ncclResult_t init, Clock::time_point deadline,
                     const char* what);
  // A revoked ncclComm is quiescent (its async state left ncclInProgress) or the deadline passed.
  bool quiesce(Clock::time_point deadline) const;

  coll::Comm bootstrap_;  // private MPI duplicate, used only to build the ncclComm
  DeviceBuffer scratch_;
  EventHandle ready_;  // recorded on the caller's stream
  EventHandle done_;   // recorded on the private stream after each operation
  StreamHandle stream_;
  CommHandle comm_;  // last: aborted before the stream, events and buffers go
  int rank_ = 0;
  int size_ = 0;
  int device_ = -1;  // set once create() resolved it
  bool revoked_ = false;
  absl::Status sticky_;
};

}  // namespace elastic::coll::nccl
