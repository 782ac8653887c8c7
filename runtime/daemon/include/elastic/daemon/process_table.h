// Which of the runtime's processes still run, as PRRTE knows them (PMIx process tables). elasticd
// sees its own host's processes in /proc; a rank on another host is known to have exited only
// through PRRTE: that host's daemon tells mpirun once every local process of the rank's job there
// has terminated, and mpirun answers PMIx queries from elasticd (its own PMIx client).
#pragma once

#include <compare>
#include <set>
#include <string>

#include "absl/status/statusor.h"

namespace elastic::rt {

struct ProcessKey {
  std::string node;  // PRRTE's node name (the name the rank was placed with)
  int pid = 0;
  auto operator<=>(const ProcessKey&) const = default;
};

// The (node, pid) of every process of every other job of this mpirun that has not terminated.
// Unavailable: PMIx refused to list the jobs (not under PRRTE, or mpirun is going away);
// DeadlineExceeded: a query went unanswered for 2 s.
absl::StatusOr<std::set<ProcessKey>> running_processes();

}  // namespace elastic::rt
