// `elastic feed slurm`: the Slurm feed as holder jobs. Slurm grants a node to us only through a
// running job, so the feed keeps one single-node holder job (elastic-holder, a batch job named
// "elastic-hold:<node>") on each idle node of a preemptible partition, and the hostfile lists
// exactly the nodes whose holder runs. A main-queue job preempts a holder with SIGTERM (and
// SIGKILL KillWait later); the holder then writes <holder dir>/<node>.leaving, the feed drops the
// node from the hostfile at once (elasticd shrinks the job off it on notice), and writes
// <node>.released once elasticd's status.json shows no job on the node, which lets the holder exit
// so the main job starts. The holder dir must be shared by the head node and the compute nodes;
// each node's holders append their output to <node>.out there.
// BLOCKS: runs until `stop` is set or a fatal error (the partition does not exist).
#pragma once

#include <atomic>
#include <filesystem>
#include <string>

#include "absl/status/status.h"

namespace elastic::rt {

struct SlurmFeedOptions {
  std::string partition = "scavenger";
  std::filesystem::path hostfile;
  std::filesystem::path holder_dir;   // the <node>.leaving / <node>.released files
  std::filesystem::path status_path;  // elasticd's status.json (absent: release at once)
  std::string holder_command;         // what each holder job runs (shell words)
  int max_holders = 0;                // 0 = one per idle node
  double submit_per_s = 4;            // sbatch calls per second, at most
  int slots = 0;                      // > 0 replaces the node's CPU count
  double every_s = 1;                 // squeue/sinfo period; leaving files are read every 0.1 s
};

// InvalidArgument when the partition does not exist (checked when Slurm first answers). squeue,
// sinfo or sbatch failing (slurmctld down, a refused submission) is reported on stderr and the
// last good hostfile is kept.
absl::Status run_slurm_feed(const SlurmFeedOptions& o, const std::atomic<bool>& stop);

}  // namespace elastic::rt
