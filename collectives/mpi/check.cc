// MPI error codes -> absl::Status (see elastic/collectives/mpi_check.h).
#include <mpi.h>
#include <mpi-ext.h>

#include <string>

#include "absl/strings/str_cat.h"
#include "elastic/collectives/mpi_check.h"

namespace elastic::coll {

bool is_process_failure(int rc) {
  int cls = rc;
  if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
  return cls == MPIX_ERR_PROC_FAILED || cls == MPIX_ERR_PROC_FAILED_PENDING ||
         cls == MPIX_ERR_REVOKED;
}

int failed_processes(MPI_Comm comm) {
  MPI_Group failed = MPI_GROUP_NULL;
  int n = 0;
  if (MPIX_Comm_get_failed(comm, &failed) == MPI_SUCCESS) {
    MPI_Group_size(failed, &n);
    MPI_Group_free(&failed);
  }
  return n;
}

absl::Status mpi_status(int rc, const char* call_text, const char* file, int line) {
  if (rc == MPI_SUCCESS) return absl::OkStatus();
  char text[MPI_MAX_ERROR_STRING] = {};
  int len = 0;
  if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS) len = 0;
  std::string msg =
      absl::StrCat(call_text, " failed at ", file, ":", line, ": ",
                   std::string(text, static_cast<std::size_t>(len)), " (code ", rc, ")");
  if (is_process_failure(rc)) return absl::AbortedError(std::move(msg));
  return absl::InternalError(std::move(msg));
}

}  // namespace elastic::coll
