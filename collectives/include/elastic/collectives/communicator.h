// The collectives a data-parallel job needs over ONE membership of its ranks: allreduce (in place),
// broadcast and barrier, each bounded by a timeout. A Communicator is created after every
// membership change (grow, shrink, failure repair) from the job's MPI communicator and thrown away
// at the next one; it never repairs itself.
//
// Contract shared by every backend (MPI for host memory, NCCL for device memory):
// - allreduce / allreduce_many / broadcast / barrier are COLLECTIVE: every rank of the membership
//   must call them in the same order with the same sizes, dtypes and ops. They BLOCK the caller
//   until the operation completes locally or `CallOptions::timeout` expires.
// - Status codes carry the retry policy (see STYLE.md):
//     OK                 done;
//     DeadlineExceeded   the call did not finish in time (a peer is stuck or gone); the backend has
//                        revoked/aborted its communicator so peers blocked in the same call return
//                        too, and the communicator is now broken;
//     Aborted            a peer process failed (ULFM MPIX_ERR_PROC_FAILED / REVOKED, NCCL async
//                        error): re-form the membership, roll back to the last commit, redo the step;
//     InvalidArgument / FailedPrecondition   a caller bug (wrong root, wrong memory kind): fatal.
// - Failure is STICKY: after the first DeadlineExceeded or Aborted every later call returns Aborted
//   at once, until the caller builds a new Communicator for the repaired membership.
// - Ranks are numbered as in the MPI communicator the object was built from.
// - Not thread-safe: one thread drives a Communicator.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "elastic/collectives/types.h"

namespace elastic::coll {

class Communicator {
 public:
  virtual ~Communicator() = default;
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;

  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Where this backend expects buffers to live.
  virtual MemoryKind memory() const = 0;
  virtual std::string_view backend_name() const = 0;

  // COLLECTIVE, blocking. Reduces `t` in place over all ranks. count 0 is allowed and returns at
  // once without communicating, on every backend (Open MPI and NCCL both skip empty reductions);
  // a broken communicator still returns its sticky error.
  virtual absl::Status allreduce(Tensor t, ReduceOp op, CallOptions opts = {}) = 0;

  // COLLECTIVE, blocking. Copies `bytes` bytes at `data` from `root` to every rank, bit for bit.
  virtual absl::Status broadcast(void* data, std::size_t bytes, int root,
                                 CallOptions opts = {}) = 0;

  // COLLECTIVE, blocking. Makes the `bytes` bytes at `data` on every rank equal to what the ranks
  // with holds[rank] != 0 have there (they must agree bit for bit; root-less broadcast). `holds`
  // has size() entries, the same on every rank, at least one non-zero. Only ranks that lack the
  // data receive, each once; a holder serves one of them per round and a rank that received
  // serves from the next round on (ceil(log2(size / holders)) rounds). Far cheaper than
  // broadcast when most ranks hold the data already (the old members in a grow). A rank whose
  // part is over returns without waiting for the others.
  virtual absl::Status spread(void* data, std::size_t bytes, std::span<const std::uint8_t> holds,
                              CallOptions opts = {}) = 0;

  // COLLECTIVE, blocking. Returns when every rank has entered it.
  virtual absl::Status barrier(CallOptions opts = {}) = 0;

  // LOCAL. OK while healthy; the sticky error otherwise.
  virtual absl::Status health() const = 0;

  // LOCAL, never waits for peers (NCCL: after a revoke, up to 10 s for this rank's revoked
  // operations to stop). Revokes (MPI) / aborts (NCCL) the underlying communicator so that peers
  // blocked in a collective with us return; the object is broken afterwards (health() = Aborted).
  virtual void abort(std::string_view why) = 0;

  // LOCAL helpers that let backend-independent code (tensor fusion) stage data in the backend's
  // memory kind. `scratch` returns a buffer of at least `bytes` bytes owned by the communicator and
  // valid until the next scratch() call; `copy` copies between buffers of this memory kind and
  // has finished when it returns (NCCL: device-to-device on the communicator's stream, after its
  // earlier collectives and after the work queued so far on opts.stream, as a collective waits for
  // it; bounded by opts.timeout).
  virtual absl::StatusOr<std::span<std::byte>> scratch(std::size_t bytes) = 0;
  virtual absl::Status copy(void* dst, const void* src, std::size_t bytes,
                            const CallOptions& opts) = 0;

 protected:
  Communicator() = default;
};

}  // namespace elastic::coll
