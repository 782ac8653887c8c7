// One policy for the errors of a change of membership — a spawn, the merge with the new ranks,
// connect_all, a directive or list exchanged over J — on the controller (JobGroup) and on the
// ranks (Session, take_part_in_spawns) alike. The code carries what to do (STYLE.md "Errors"):
//   Unavailable       the spawn was refused (an unknown host, a command that cannot start): the
//                     communicator it ran on is intact, so the job goes on and the grow or start
//                     is tried again later;
//   Aborted           a process failed, J was revoked, or MPI failed otherwise in the middle of
//                     the change: J cannot be trusted; revoke it, repair it, redo the step;
//   anything else     (DeadlineExceeded, InvalidArgument, ...) unchanged.
// LOCAL, pure: no MPI call.
#pragma once

#include "absl/status/status.h"

namespace elastic::rt {

// What MPI_Comm_spawn (or one of its processes' error codes) reported, as coll::mpi_status
// states it: Aborted stays (a parent failed), Internal becomes Unavailable (refused).
absl::Status spawn_error(const absl::Status& st);

// Any other failure during a change of membership: Internal becomes Aborted.
absl::Status membership_error(const absl::Status& st);

}  // namespace elastic::rt
