// The MPI backend's allreduce: a pipelined reduce-scatter + allgather on MPI_Isend / MPI_Irecv in
// which every element is summed in rank order, ((x0 + x1) + x2) + ..., whatever its offset and
// whatever the element count. Two reasons:
// - Bit-reproducibility: a fused allreduce must equal one call per tensor bit for bit. libnbc's
//   and tuned's large-message algorithms (ring, Rabenseifner) start each block's sum at another
//   rank, so an element's result depends on where it sits in the buffer (3+ ranks).
// - A bound: the requests are ours, so the caller's deadline is checked while they run, and the
//   call still moves data at the speed of the blocking MPI_Allreduce (bench/collectives; libnbc's
//   MPI_Iallreduce ran at 0.1-0.6x of it from 1 MiB up).
// Each rank owns one contiguous block of the buffer (block b = elements [count*b/p, count*(b+1)/p));
// small buffers skip the allgather: every rank receives every buffer whole and folds them in the
// same order. Blocks go in segments, a few in flight, so a segment is summed while it is still in
// cache and the scratch memory stays small.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <vector>

#include "absl/status/status.h"
#include "elastic/collectives/bounded_wait.h"
#include "elastic/collectives/types.h"

namespace elastic::coll::mpi {

// Scratch state reused across calls so that a small allreduce allocates nothing.
struct OrderedScratch {
  std::vector<std::byte> segments;  // kWindow x (size - 1) received segments
  std::vector<MPI_Request> requests;
};

// COLLECTIVE over `comm` (rank `rank` of `size`), in place on `t`, sum only; bounded by
// `deadline`. On an error other requests may still be active in scratch.requests: the caller must
// revoke `comm` and then drain them. Uses the tags 1 and 2 of `comm`, which must be private to it.
absl::Status allreduce_ordered(MPI_Comm comm, int rank, int size, Tensor t,
                               Clock::time_point deadline, OrderedScratch& scratch);

}  // namespace elastic::coll::mpi
