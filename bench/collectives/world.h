// MPI start-up shared by the collectives benchmarks: init, the command line, this rank and the
// world size.
#pragma once

#include <mpi.h>

#include <cstdlib>

#include "CLI/CLI.hpp"

namespace elastic::bench {

struct World {
  int rank = 0;
  int size = 0;
};

// Every rank parses the command line with `app`; rank 0 alone prints --help or the error. Either
// ends the benchmark here (MPI finalized): exit 0 for --help, 2 for a bad command line.
inline World start_mpi(int* argc, char*** argv, CLI::App& app) {
  MPI_Init(argc, argv);
  World w;
  MPI_Comm_rank(MPI_COMM_WORLD, &w.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &w.size);
  try {
    app.parse(*argc, *argv);
  } catch (const CLI::ParseError& e) {
    const int rc = w.rank == 0 ? app.exit(e) : e.get_exit_code();
    MPI_Finalize();
    std::exit(rc == 0 ? 0 : 2);
  }
  return w;
}

}  // namespace elastic::bench
