// `elastic feed slurm`: the Slurm feed's holder jobs. Slurm grants a node to us only through a
// running job, so the feed keeps one single-node holder job (elastic-holder, a batch job named
// "elastic-hold:<node>") on each idle node of a preemptible partition, and the hostfile lists
// exactly the nodes whose holder runs. A main-queue job preempts a holder with SIGTERM (and
// SIGKILL KillWait later); the holder then writes <holder dir>/<node>.leaving, the feed drops the
// node from the hostfile at once (elasticd shrinks the job off it on notice), and writes
// <node>.released once elasticd's status.json shows no job on the node, which lets the holder exit
// so the main job starts. With --vacate-for, the feed also lists the main partitions' pending jobs
// and gives back, ahead of Slurm's next scheduling pass, as many holders as the jobs Slurm has
// not looked at yet need (node off the hostfile, released once vacated, then scancel), so that
// the pass finds idle nodes. The holder dir must be shared by the head node and the compute nodes;
// each node's holders append their output to <node>.out there.
// BLOCKS: runs until `stop` is set or a fatal error (the partition does not exist).
#pragma once

#include <atomic>

#include "absl/status/status.h"
#include "elastic/control/feed.h"

namespace elastic::rt {

// The slurm row's holder feed (feeds.def): `feed` is that row, whose command (with -p PARTITION)
// and parser give the partition's idle nodes. InvalidArgument when the partition does not exist
// (checked when Slurm first answers). squeue, sinfo or sbatch failing (slurmctld down, a refused
// submission) is reported on stderr and the last good hostfile is kept.
absl::Status run_slurm_holders(const Feed& feed, const HolderFeedOptions& o,
                               const std::atomic<bool>& stop);

}  // namespace elastic::rt
