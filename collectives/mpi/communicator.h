// The MPI backend: collectives on host memory over a private duplicate of the job communicator,
// as non-blocking requests tested against a deadline: allreduce is our own rank-ordered
// reduce-scatter + allgather on MPI_Isend/Irecv (allreduce_ordered.h), broadcast and barrier are
// MPI_Ibcast / MPI_Ibarrier, spread is rounds of MPI_Isend/Irecv pairs (spread_plan.h).
#pragma once

#include <mpi.h>

#include <memory>
#include <string>
#include <vector>

#include "elastic/collectives/bounded_wait.h"
#include "elastic/collectives/comm.h"
#include "elastic/collectives/communicator.h"
#include "elastic/collectives/factory.h"
#include "mpi/allreduce_ordered.h"

namespace elastic::coll::mpi {

class MpiCommunicator final : public Communicator {
 public:
  // COLLECTIVE over `comm` (see factory.h).
  static absl::StatusOr<std::unique_ptr<Communicator>> create(MPI_Comm comm, CreateOptions opts);
  // Works on `own` itself (factory.h: a duplicate made for it).
  static std::unique_ptr<Communicator> adopt(Comm own);

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  MemoryKind memory() const override { return MemoryKind::kHost; }
  std::string_view backend_name() const override { return "mpi"; }

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
  MpiCommunicator(Comm comm, int rank, int size);
  // An error from posting a request: a process failure there is sticky too.
  absl::Status posted(absl::Status st);
  // Waits for `req`; on a timeout or failure revokes the communicator and makes the error sticky.
  absl::Status finish(MPI_Request& req, Clock::time_point deadline, const char* what);
  // After a collective completed locally: Aborted when a peer revoked the communicator meanwhile.
  absl::Status confirm(const char* what);

  Comm comm_;
  int rank_;
  int size_;
  absl::Status sticky_;
  std::vector<std::byte> scratch_;
  OrderedScratch ordered_;
};

}  // namespace elastic::coll::mpi
