#include "elastic/comm.h"

#include <mpi-ext.h>

namespace elastic::rt {

namespace {
bool mpi_alive() {
  int initialized = 0;
  int finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  return initialized != 0 && finalized == 0;
}
bool predefined(MPI_Comm c) {
  return c == MPI_COMM_NULL || c == MPI_COMM_WORLD || c == MPI_COMM_SELF;
}
}  // namespace

void Comm::reset() noexcept {
  if (!predefined(comm_) && mpi_alive()) MPI_Comm_free(&comm_);
  comm_ = MPI_COMM_NULL;
}

void Comm::revoke() noexcept {
  if (comm_ != MPI_COMM_NULL && mpi_alive()) MPIX_Comm_revoke(comm_);
}

int Comm::rank() const noexcept {
  int r = -1;
  if (comm_ != MPI_COMM_NULL) MPI_Comm_rank(comm_, &r);
  return r;
}

int Comm::size() const noexcept {
  int s = -1;
  if (comm_ != MPI_COMM_NULL) MPI_Comm_size(comm_, &s);
  return s;
}

}  // namespace elastic::rt
