// The one ULFM repair of libelastic, used by the controller and by every rank of a job after a
// process failure. Canonical order (ulfm-testing tutorial/10.respawn.c), with a bounded agreement
// first so that the blocking shrink only starts once every live member is there:
// revoke -> agree -> shrink -> agree -> [spawn + merge are done afterwards by the controller
// through the follow() protocol, see protocol.h] -> agree -> restore the error handler, inside a
// bounded retry loop: a failure during the repair itself makes the agreement fail and the loop
// shrinks again.
#pragma once

#include <chrono>

#include "absl/status/statusor.h"
#include "elastic/collectives/comm.h"

namespace elastic::rt {

struct RepairOptions {
  int max_attempts = 5;
  // Bounds each agreement (MPIX_Comm_iagree + test loop). MPIX_Comm_shrink has no non-blocking
  // form in Open MPI 5.0.7; it completes once every survivor has entered it, which the agreement
  // before it checks within this bound (a live member that never joins => DeadlineExceeded).
  std::chrono::milliseconds agree_timeout{std::chrono::seconds(60)};
};

// COLLECTIVE over the survivors of `broken`, blocking. Revokes `broken` (idempotent), and returns
// a new communicator of the survivors, ranks renumbered in the old order, with MPI_ERRORS_RETURN.
// `broken` is left to the caller (it is still needed to tell who died: see failed_ranks()).
// Errors: Aborted when max_attempts shrinks all saw new failures, DeadlineExceeded on an
// agreement that timed out (the caller should give up on the job: its last durable checkpoint).
absl::StatusOr<coll::Comm> repair_comm(const coll::Comm& broken, const RepairOptions& options = {});

// LOCAL. The ranks of `before` that are not in `after` (ascending).
std::vector<int> missing_ranks(MPI_Comm before, MPI_Comm after);

}  // namespace elastic::rt
