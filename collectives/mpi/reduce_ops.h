// MPI has no 16-bit float types: bf16/fp16 travel as MPI_UINT16_T and are summed by user-defined
// operators that widen to float32, add, and round back once per reduction hop.
#pragma once

#include <mpi.h>

#include <cstddef>

#include "elastic/collectives/types.h"

namespace elastic::coll::mpi {

// The MPI datatype and sum operator for `t`. Creates the user-defined operators on first use
// (thread-safe); they live until MPI_Finalize.
MPI_Datatype datatype(DataType t);
MPI_Op sum_op(DataType t);

// Divides `count` elements at `data` by `divisor`, in place (the second half of kAverage).
void scale_down(void* data, std::size_t count, DataType t, int divisor);

}  // namespace elastic::coll::mpi
