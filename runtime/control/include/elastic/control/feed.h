// Scheduler adapters: turn a scheduler's node listing into the hostfile of idle nodes the daemon
// may use. The exact input formats (so recorded outputs can be tested):
//   Slurm:  sinfo -h -N -o "%N %T %c"   -> "<node> <long state> <cpus>" per node and partition;
//           a node is idle when its state is exactly "idle" (no "*", "~", "#", "!", "%", "$",
//           "@", "^", "-" suffix: those mean not responding, powered down, reserved, ...).
//   PBS:    pbsnodes -a                 -> blocks "<node>\n  key = value\n..." separated by blank
//           lines; idle when state is exactly "free" and no jobs are assigned (empty/absent
//           "jobs", resources_assigned.ncpus 0 when present).
// Slots come from the CPU count (%c; resources_available.ncpus, pcpus or np) unless overridden.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "elastic/control/hostfile.h"

namespace elastic::rt {

inline constexpr std::string_view kSinfoFormat = "%N %T %c";
inline constexpr std::string_view kSinfoCommand = "sinfo -h -N -o \"%N %T %c\"";
inline constexpr std::string_view kPbsnodesCommand = "pbsnodes -a";

// `slots` > 0 replaces the CPU count. Nodes listed several times (one line per partition) appear
// once. InvalidArgument names "<source>:<line>" and the token for unparseable input.
absl::StatusOr<std::vector<HostEntry>> idle_nodes_from_sinfo(std::string_view text, int slots = 0,
                                                             std::string_view source = "<sinfo>");
absl::StatusOr<std::vector<HostEntry>> idle_nodes_from_pbsnodes(
    std::string_view text, int slots = 0, std::string_view source = "<pbsnodes>");

}  // namespace elastic::rt
