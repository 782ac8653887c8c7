// The element-wise arithmetic of the MPI backend's allreduce. bf16/fp16 widen to float32, add (or
// divide) and round back once per step, so a sum over p ranks rounds p - 1 times.
#pragma once

#include <cstddef>

#include "elastic/collectives/types.h"

namespace elastic::coll::mpi {

// dst[i] = dst[i] + src[i] for `count` elements (bf16/fp16 widened to float32 and rounded once).
// Commutative bit for bit, which the rank-ordered allreduce relies on.
void accumulate(void* dst, const void* src, std::size_t count, DataType t);

// Divides `count` elements at `data` by `divisor`, in place (the second half of kAverage).
void scale_down(void* data, std::size_t count, DataType t, int divisor);

}  // namespace elastic::coll::mpi
