#include "elastic/worker/internal/repair.h"

#include <mpi-ext.h>

#include <chrono>
#include <vector>

#include "absl/strings/str_cat.h"
#include "elastic/collectives/bounded_wait.h"
#include "elastic/collectives/mpi_check.h"

namespace elastic::rt {

namespace {

// Bounded MPIX_Comm_iagree: `flag` is AND-ed over the survivors. The agreement also completes
// (with MPIX_ERR_PROC_FAILED) when a new failure is detected; the flag is still uniform then.
absl::Status agree(MPI_Comm comm, int& flag, std::chrono::milliseconds timeout) {
  MPI_Request req = MPI_REQUEST_NULL;
  ELASTIC_MPI_CHECK(MPIX_Comm_iagree(comm, &flag, &req));
  absl::Status st =
      coll::wait(req, coll::Clock::now() + timeout, "MPI_Test(iagree)", coll::kControlPace);
  if (absl::IsDeadlineExceeded(st)) {
    return absl::DeadlineExceededError(
        absl::StrCat("MPIX_Comm_iagree did not complete within ", timeout.count(), " ms"));
  }
  return st;
}

}  // namespace

absl::StatusOr<coll::Comm> repair_comm(const coll::Comm& broken, const RepairOptions& options) {
  MPIX_Comm_revoke(broken.get());
  MPI_Comm current = broken.get();
  coll::Comm shrunk;
  absl::Status last = absl::AbortedError("repair_comm: no attempt made");
  for (int attempt = 0; attempt < options.max_attempts; ++attempt) {
    // Bound for the blocking shrink: agree first that every live member has entered the repair.
    // A member that is alive but elsewhere (it finalized without failing, or gave up on this
    // communicator) never joins; the shrink would wait for it forever, the agreement times out.
    int present = 1;
    if (absl::Status st = agree(current, present, options.agree_timeout);
        absl::IsDeadlineExceeded(st)) {
      return absl::DeadlineExceededError(
          absl::StrCat("repair_comm: not every live member joined the repair: ", st.message()));
    }
    coll::Comm next;
    const int rc = MPIX_Comm_shrink(current, next.out());
    int ok = rc == MPI_SUCCESS ? 1 : 0;
    if (ok) MPI_Comm_set_errhandler(next.get(), MPI_ERRORS_RETURN);
    // First agreement: did everybody get the shrunken communicator?
    absl::Status st = agree(ok ? next.get() : current, ok, options.agree_timeout);
    if (absl::IsDeadlineExceeded(st)) return st;
    if (ok && st.ok()) {
      // Second agreement, on the new communicator itself: it is usable by all (no new failure).
      int usable = 1;
      st = agree(next.get(), usable, options.agree_timeout);
      if (absl::IsDeadlineExceeded(st)) return st;
      if (st.ok() && usable) {
        MPI_Comm_set_errhandler(next.get(), MPI_ERRORS_RETURN);
        return next;
      }
    }
    last = st.ok() ? absl::AbortedError("repair_comm: a survivor failed to shrink") : st;
    // A new failure during the repair: shrink the newest communicator again.
    if (next) {
      MPIX_Comm_revoke(next.get());
      shrunk = std::move(next);
      current = shrunk.get();
    }
  }
  return absl::AbortedError(absl::StrCat("repair_comm: gave up after ", options.max_attempts,
                                         " attempts; last error: ", last.message()));
}

std::vector<int> missing_ranks(MPI_Comm before, MPI_Comm after) {
  MPI_Group gb = MPI_GROUP_NULL;
  MPI_Group ga = MPI_GROUP_NULL;
  MPI_Comm_group(before, &gb);
  MPI_Comm_group(after, &ga);
  int n = 0;
  MPI_Group_size(gb, &n);
  std::vector<int> ranks(static_cast<std::size_t>(n));
  std::vector<int> mapped(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) ranks[static_cast<std::size_t>(i)] = i;
  MPI_Group_translate_ranks(gb, n, ranks.data(), ga, mapped.data());
  std::vector<int> missing;
  for (int i = 0; i < n; ++i) {
    if (mapped[static_cast<std::size_t>(i)] == MPI_UNDEFINED) missing.push_back(i);
  }
  MPI_Group_free(&gb);
  MPI_Group_free(&ga);
  return missing;
}

}  // namespace elastic::rt
