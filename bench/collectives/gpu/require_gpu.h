// The GPU benchmarks run only when every rank sees a CUDA device; otherwise they say why on rank 0
// and exit 77 (what ctest and scripts read as "skipped").
#pragma once

#include <mpi.h>
#include <cuda_runtime.h>

#include <cstdio>

namespace elastic::bench {

// COLLECTIVE over MPI_COMM_WORLD. False (after MPI_Finalize, SKIPPED printed on rank 0) when any
// rank has no CUDA device: the caller then returns 77.
inline bool require_gpu_or_finalize(int rank) {
  int devices = 0;
  const cudaError_t probe = cudaGetDeviceCount(&devices);
  int usable = probe == cudaSuccess && devices > 0 ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &usable, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (usable != 0) return true;
  if (rank == 0)
    std::printf("SKIPPED: no CUDA device (cudaGetDeviceCount: %s)\n", cudaGetErrorString(probe));
  MPI_Finalize();
  return false;
}

}  // namespace elastic::bench
