// Which of the runtime's processes still run, as PRRTE knows them (PMIx process tables), and how
// to end one. elasticd sees its own host's processes in /proc; a rank on another host is known to
// have exited only through PRRTE: that host's daemon tells mpirun once every local process of the
// rank's job there has terminated, and mpirun answers PMIx queries and job-control requests from
// elasticd (its own PMIx client).
#pragma once

#include <compare>
#include <cstdint>
#include <map>
#include <span>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace elastic::rt {

struct ProcessKey {
  std::string node;  // PRRTE's node name (the name the rank was placed with)
  int pid = 0;
  auto operator<=>(const ProcessKey&) const = default;
};

// A process as PRRTE names it: its job (PMIx namespace) and rank there.
struct PrrteProc {
  std::string nspace;
  std::uint32_t rank = 0;
};

// Every process of every other job of this mpirun that has not terminated, by (node, pid).
// Unavailable: PMIx refused to list the jobs (not under PRRTE, or mpirun is going away);
// DeadlineExceeded: a query went unanswered for 2 s.
absl::StatusOr<std::map<ProcessKey, PrrteProc>> running_processes();

// Asks mpirun to kill `procs` (PMIX_JOB_CTRL_KILL: each one's daemon sends it SIGCONT, SIGTERM,
// then SIGKILL, and reports it terminated). Returns once mpirun has taken the request, not once
// the processes are gone: running_processes() says when. Unavailable / DeadlineExceeded as above.
absl::Status kill_processes(std::span<const PrrteProc> procs);

}  // namespace elastic::rt
