// MPI_Comm_spawn_multiple with a deadline. Stock Open MPI 5.0.7 never returns from a spawn whose
// children end before they connect: the parent waits for their connection data in a PMIx lookup
// that nothing ends (its 600 s timeout in ompi/dpm is not enforced: no return after 720 s). Our
// patches 0012 and 0013 make such a spawn fail at every parent rank once the spawned job has ended
// (the command exited before MPI_Init, its host died with its daemon); a command that hangs before
// MPI_Init, or a spawn stuck anywhere else, still never returns, and no spawn info key reaches
// PRRTE with a timeout. So the call runs in a helper thread (elasticd initialises MPI with
// MPI_THREAD_MULTIPLE) and the caller stops waiting at the deadline; the helper keeps everything
// the call uses and cleans up if MPI ever returns (possibly never: one blocked thread per
// abandoned spawn).
#pragma once

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "elastic/collectives/comm.h"

namespace elastic::rt {

// One command of a spawn: `procs` processes of `command` (a spawn of several commands is one
// MPI_Comm_spawn_multiple, one new job).
struct SpawnRequest {
  std::string command;
  std::vector<std::string> args;
  int procs = 1;
  std::vector<std::pair<std::string, std::string>> info;  // MPI_Info keys and values
  // NAME=VALUE settings for the spawned processes. Passed on the command line of env(1), which
  // execs `command` in place: the PMIX_ENVAR info key would take them only up to MPI_MAX_INFO_VAL
  // (255) characters in all, and MPI_Info_set refuses a longer value.
  std::vector<std::string> env;
};

// env(1), through which a SpawnRequest's env reaches the spawned processes.
inline constexpr const char* kEnvProgram = "/usr/bin/env";

// COLLECTIVE over `*parent` with the caller as root (rank 0), or LOCAL when `parent` is null (the
// caller spawns alone, on a private duplicate of MPI_COMM_SELF). Blocks at most `timeout` when MPI
// provides MPI_THREAD_MULTIPLE; otherwise the spawn runs inline and is not bounded.
// Returns the intercommunicator (MPI_ERRORS_RETURN). Errors (membership_error.h): Unavailable (the
// spawn was refused: `*parent` is intact), Aborted (a parent rank failed), Internal (MPI_Info or
// the private duplicate of MPI_COMM_SELF failed before the spawn); DeadlineExceeded when the spawn
// did not return in time: then `*parent` has been revoked (the other parent ranks, blocked in
// their part of the spawn, return with an error) and handed to the helper thread, so it is null on
// return; the abandoned spawn's intercommunicator is revoked and freed if it ever completes.
// `commands` must not be empty.
absl::StatusOr<coll::Comm> bounded_spawn(const std::vector<SpawnRequest>& commands,
                                         coll::Comm* parent, std::chrono::milliseconds timeout);

}  // namespace elastic::rt
