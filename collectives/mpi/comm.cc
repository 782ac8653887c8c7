// The communicator owner and the bounded dup (elastic/collectives/comm.h).
#include "elastic/collectives/comm.h"

#include <mpi-ext.h>

#include "absl/strings/str_cat.h"
#include "elastic/collectives/mpi_check.h"

namespace elastic::coll {
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

// Open MPI 5.0.7 reports a peer that dies during MPI_Comm_idup's context-id agreement as
// MPI_ERR_INTERN from the call itself (libnbc aborts the schedule with MPIX_ERR_PROC_FAILED and
// the code is lost: seen on the cluster in a box when the host the job had just grown onto was
// killed, tests/runtime/daemon/fmnist.sh churn_kill). When `comm` knows of a failed process, the
// error is that failure: Aborted, after a revoke so that every peer leaves the dup too.
absl::Status failure_aware(MPI_Comm comm, absl::Status st) {
  if (!absl::IsInternal(st)) return st;
  const int n = failed_processes(comm);
  if (n == 0) return st;
  MPIX_Comm_revoke(comm);
  return absl::AbortedError(
      absl::StrCat(st.message(), " (", n, " process(es) of the communicator failed)"));
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

absl::StatusOr<Comm> dup(MPI_Comm comm, Clock::time_point deadline, const WaitPace& pace) {
  MPI_Comm out = MPI_COMM_NULL;
  MPI_Request req = MPI_REQUEST_NULL;
  absl::Status st =
      mpi_status(MPI_Comm_idup(comm, &out, &req), "MPI_Comm_idup", __FILE__, __LINE__);
  if (st.ok()) st = wait(req, deadline, "MPI_Comm_idup", pace);
  if (!st.ok()) {
    if (absl::IsDeadlineExceeded(st)) {
      MPIX_Comm_revoke(comm);  // release peers stuck in the same dup
      drain(req);
    }
    return failure_aware(comm, std::move(st));
  }
  Comm h(out);
  ELASTIC_MPI_CHECK(MPI_Comm_set_errhandler(out, MPI_ERRORS_RETURN));
  return h;
}

}  // namespace elastic::coll
