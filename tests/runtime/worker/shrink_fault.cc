#include "shrink_fault.h"

#include <mpi.h>
#include <mpi-ext.h>
#include <signal.h>

namespace elastic::rt {
namespace {

int calls = 0;

}  // namespace

ShrinkFault& shrink_fault() {
  static ShrinkFault fault;
  return fault;
}

int shrink_calls() { return calls; }

}  // namespace elastic::rt

// The PMPI interposition: a definition in the program takes precedence over libmpi's for every
// caller in it (libelastic's repair is linked statically).
extern "C" int MPIX_Comm_shrink(MPI_Comm comm, MPI_Comm* newcomm) {
  using elastic::rt::shrink_fault;
  const int call = ++elastic::rt::calls;
  const int rc = PMPIX_Comm_shrink(comm, newcomm);
  int me = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  if (call == 1 && me == shrink_fault().die_after_first_on_rank) raise(SIGKILL);
  if (call == 1 && me == shrink_fault().fail_first_on_rank) {
    if (rc == MPI_SUCCESS) MPI_Comm_free(newcomm);
    *newcomm = MPI_COMM_NULL;
    return MPI_ERR_INTERN;
  }
  return rc;
}
