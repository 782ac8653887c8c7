// Tensor fusion: many small allreduces cost one latency each; packing them into one buffer pays
// that latency once (Horovod's fusion buffer). Tensors are grouped by dtype in the order given and
// packed into the communicator's scratch buffer up to `threshold_bytes`; a tensor larger than the
// threshold is reduced on its own, in place.
#pragma once

#include <cstddef>
#include <span>

#include "absl/status/status.h"
#include "elastic/collectives/communicator.h"

namespace elastic::coll {

struct FusionOptions {
  std::size_t threshold_bytes = std::size_t{64} << 20;  // 64 MiB, Horovod's default
  CallOptions call;  // the timeout applies to EACH underlying allreduce
};

// COLLECTIVE, blocking: every rank passes the same list (same counts/dtypes, same order).
// Result equals calling comm.allreduce on every tensor separately. With the MPI backend bit for
// bit, for every dtype and rank count: it sums each element in rank order wherever the element
// sits (mpi/allreduce_ordered.h). NCCL's rings start an element's sum at a rank that depends on
// its offset, so from 3 ranks on the two may differ in rounding. All tensors must live in
// comm.memory(). Stops at the first error and returns it (the communicator is then broken).
absl::Status allreduce_fused(Communicator& comm, std::span<const Tensor> tensors, ReduceOp op,
                             const FusionOptions& opts = {});

}  // namespace elastic::coll
