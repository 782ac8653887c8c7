// main() of the gtest programs run under `mpirun --with-ft ulfm` in which a rank is killed: MPI with
// threads, the tests, then an exit without MPI_Finalize.
#include <mpi.h>
#include <gtest/gtest.h>

#include <cstdlib>

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  ::testing::InitGoogleTest(&argc, argv);
  const int rc = RUN_ALL_TESTS();
  std::_Exit(rc);  // a killed peer can hang MPI_Finalize (docs/runtime.md "Known limitations")
}
