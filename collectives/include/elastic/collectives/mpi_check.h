// The MPI check macro of libelastic: turns an MPI return code into an absl::Status that names the
// call, file:line and MPI's error string. ULFM codes (process failed, communicator revoked) map to
// Aborted, which tells the caller to repair the membership and redo the step; anything else is
// Internal. Shared by collectives/ and runtime/ so that there is one MPI check macro.
#pragma once

#include <mpi.h>

#include "absl/status/status.h"

namespace elastic::coll {

// OK for MPI_SUCCESS; otherwise a Status as described above.
absl::Status mpi_status(int rc, const char* call_text, const char* file, int line);

// True for MPIX_ERR_PROC_FAILED, MPIX_ERR_PROC_FAILED_PENDING and MPIX_ERR_REVOKED.
bool is_process_failure(int rc);

// How many processes of `comm` this process knows to have failed (MPIX_Comm_get_failed; local, no
// communication). A failure can be known without any call on `comm` reporting it: MPI_Iprobe never
// does, so a process that only probes must ask.
int failed_processes(MPI_Comm comm);

}  // namespace elastic::coll

// Evaluates an MPI call; on failure returns the Status from the enclosing function.
#define ELASTIC_MPI_CHECK(call)                                                       \
  do {                                                                                \
    if (const int elastic_mpi_rc_ = (call); elastic_mpi_rc_ != 0) {                   \
      return ::elastic::coll::mpi_status(elastic_mpi_rc_, #call, __FILE__, __LINE__); \
    }                                                                                 \
  } while (0)
