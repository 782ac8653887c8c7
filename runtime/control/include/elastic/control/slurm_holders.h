// The Slurm feed's decisions, without Slurm: which nodes are granted (a running holder job holds
// each), which are leaving (their holder got SIGTERM: preempted by a main-queue job), and where
// to submit new holders. A holder is a single-node batch job named "elastic-hold:<node>" in the
// preemptible partition; squeue's view of them is parsed from
//   squeue -h -u USER -p PARTITION -o "%i %j %T %C"   -> "<job id> <name> <state> <cpus>"
// (other jobs of the user in the partition are ignored). Vacating ahead of Slurm: which holders to
// give back when main-queue jobs are submitted, before Slurm's next scheduling pass preempts
// them; the pending jobs are parsed from
//   squeue -h -t PD -p MAIN_PARTITIONS -o "%i %D %r"   -> "<job id> <nodes> <reason>"
// LOCAL: pure functions, nothing blocks.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "elastic/control/hostfile.h"
#include "elastic/control/status.h"

namespace elastic::rt {

inline constexpr std::string_view kHolderJobPrefix = "elastic-hold:";
inline constexpr std::string_view kHolderSqueueFormat = "%i %j %T %C";
inline constexpr std::string_view kPendingSqueueFormat = "%i %D %r";

struct HolderJob {
  std::string job_id;
  std::string node;
  std::string state;  // squeue's long state: PENDING, RUNNING, COMPLETING, PREEMPTED, ...
  int cpus = 1;
  friend bool operator==(const HolderJob&, const HolderJob&) = default;
};

// InvalidArgument naming "<source>:<line>" and the token for a line that is not 4 fields, has
// a CPU count that is not a positive integer, or is a holder for a node no hostfile can name.
absl::StatusOr<std::vector<HolderJob>> holders_from_squeue(std::string_view text,
                                                           std::string_view source = "<squeue>");

struct HolderInput {
  std::vector<HolderJob> holders;
  std::vector<std::string> idle;               // idle in the partition (sinfo), no job on them
  std::map<std::string, std::string> leaving;  // node -> the holder job that got SIGTERM
  int max_holders = 0;                         // 0 = no cap
  int submit_budget = 0;                       // submissions allowed now (rate limit)
  int slots = 0;                               // > 0 replaces the holder's CPU count
};

struct HolderPlan {
  std::vector<HostEntry> granted;   // running holders not leaving: the hostfile, sorted by name
  std::vector<std::string> submit;  // idle nodes to submit a holder for, in name order
};

// Holders that are pending, running or completing count against the cap and keep their node from
// a second submission; a leaving node is not granted even though its holder still runs.
HolderPlan plan_holders(const HolderInput& in);

struct PendingJob {
  std::string job_id;
  int nodes = 1;       // the fewest nodes it asks for
  std::string reason;  // "None": slurmctld has not tried to schedule it yet
  friend bool operator==(const PendingJob&, const PendingJob&) = default;
};

// InvalidArgument naming "<source>:<line>" for a line with fewer than 3 fields or a node count
// that is not a positive integer. The reason is the rest of the line (it may hold spaces).
absl::StatusOr<std::vector<PendingJob>> pending_from_squeue(std::string_view text,
                                                            std::string_view source = "<squeue>");

struct VacateInput {
  std::vector<PendingJob> pending;  // in squeue's order (priority, highest first)
  int free = 0;                     // idle nodes without a holder, and nodes given back already
  std::vector<std::string> held;    // nodes of running holders neither leaving nor vacating
  std::vector<std::string> busy;    // nodes where elasticd runs a job (status.json)
  std::vector<std::string> slow;    // busy nodes whose job would not leave in time: kept
  int on_the_way = 0;               // nodes whose holder is leaving or vacating now
};

struct VacatePlan {
  int demand = 0;                   // nodes the fresh pending jobs that fit here ask for
  std::vector<std::string> vacate;  // holders to give back now: idle ones first, then by name
};

// Only jobs slurmctld has not looked at yet (reason "None") count: once it has, it preempts what
// it needs itself, and a job it left pending (Resources, Priority, Dependency...) would not start
// on the nodes we gave back. A job that asks for more than free + on the way + held nodes cannot
// start by our nodes alone and is skipped; the others count in priority order while they fit.
// Holders on `slow` nodes are never given back (Slurm may still preempt them).
VacatePlan plan_vacate(const VacateInput& in);

// A job's processes are on the node, running or ending (busy, exiting, leaving).
bool in_use(const NodeStatus& n);

// elasticd writes status.json at least every 0.2 s while its loop runs; older than this, it is
// inside a verb (a grow's spawns, a stop) and would release a node only once that is over.
inline constexpr double kStaleStatusS = 1.0;

// From elasticd's snapshot taken at `s.time` (read at unix time `now`): in.busy gets the nodes
// where a job of elasticd's runs or its processes are still ending; in.slow those of them that
// would not leave within a step of `max_step_s`: every one when the snapshot is stale, else a node
// whose processes are ending (no job) or whose job's step time is unknown (0) or longer.
void classify_busy(const StatusSnapshot& s, double now, double max_step_s, VacateInput& in);

}  // namespace elastic::rt
