// MPI start-up shared by the collectives benchmarks: init, this rank and the world size.
#pragma once

#include <mpi.h>

namespace elastic::bench {

struct World {
  int rank = 0;
  int size = 0;
};

inline World start_mpi(int* argc, char*** argv) {
  MPI_Init(argc, argv);
  World w;
  MPI_Comm_rank(MPI_COMM_WORLD, &w.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &w.size);
  return w;
}

}  // namespace elastic::bench
