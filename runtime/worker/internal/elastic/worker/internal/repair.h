// The one ULFM repair of libelastic, used by the controller and by every rank of a job after a
// process failure. Canonical order (ulfm-testing tutorial/10.respawn.c), with a bounded agreement
// first so that the blocking shrink only starts once every live member is there:
// revoke -> agree -> shrink -> agree -> [spawn + merge are done afterwards by the controller
// through the follow() protocol, see protocol.h] -> agree -> restore the error handler, inside a
// bounded retry loop: a failure during the repair itself makes the agreement fail and the loop
// shrinks again.
#pragma once

#include <vector>

#include "absl/status/statusor.h"
#include "elastic/collectives/comm.h"
#include "elastic/worker/repair_options.h"

namespace elastic::rt {

// COLLECTIVE over the survivors of `broken`, blocking. Revokes `broken` (idempotent), and returns
// a new communicator of the survivors, ranks renumbered in the old order, with MPI_ERRORS_RETURN.
// `broken` is left to the caller (it is still needed to tell who died: see failed_ranks()).
// Errors: Aborted when max_attempts shrinks all saw new failures, DeadlineExceeded on an
// agreement that timed out (the caller should give up on the job: its last durable checkpoint).
absl::StatusOr<coll::Comm> repair_comm(const coll::Comm& broken, const RepairOptions& options = {});

// LOCAL. The ranks of `before` that are not in `after` (ascending).
std::vector<int> missing_ranks(MPI_Comm before, MPI_Comm after);

}  // namespace elastic::rt
