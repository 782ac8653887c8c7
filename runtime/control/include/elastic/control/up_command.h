// `elastic up`: the mpirun command line that starts elasticd (rank 0 = controller) where mpirun
// runs (the stable head node). Two modes: on a cluster, mpirun knows only the head node; elasticd
// adds each granted node to PRRTE when it first spawns there (the PMIX_ADD_HOST info key), so the
// pool can grow with nodes that were not granted at start, and PRRTE starts its daemon on a node
// through the launch agent (ssh by default). With fake nodes (label mode, a fallback for machines
// where no cluster in a box can be built), the hostfile names are only labels: elasticd runs every
// rank here, tagged ELASTIC_FAKE_NODE=<name>, and says so.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "elastic/control/hostfile.h"

namespace elastic::rt {

struct UpOptions {
  std::filesystem::path mpirun = "mpirun";
  std::filesystem::path elasticd = "elasticd";
  std::filesystem::path hostfile;  // the watched hostfile (elasticd --hostfile)
  std::filesystem::path state_dir;
  bool fake_nodes = false;             // label mode (elasticd --fake-nodes)
  std::filesystem::path launch_agent;  // cluster mode only; "" = mpirun's default (ssh)
  // Our processes on a Slurm-fed node run as steps of its holder job (launch_agent is then
  // elastic-slurm-agent): PRRTE's daemons stay attached to the agent (--leave-session-attached)
  // and the ranks ignore the preemption's SIGTERM (elasticd --ranks-ignore-sigterm).
  bool slurm_steps = false;
  std::vector<std::string> mpirun_args;  // extra, before the program (e.g. "--mca", "coll", "^han")
  std::vector<std::string> elasticd_args;  // extra, after the program's own
};

// PRRTE routes its messages over a tree of daemons with this many children per daemon (64 by
// default): on a larger allocation a daemon relays for others, and the loss of its node cut them
// off too (their nodes marked lost, their ranks killed). With this radix mpirun's own daemon is
// every other daemon's parent up to that many hosts, so a node's loss costs that node only. Below
// 46341, so that PRRTE's radix arithmetic (radix squared, in an int) cannot overflow.
inline constexpr int kFlatRoutingRadix = 16384;

// Cluster:    mpirun --with-ft ulfm -n 1 --bind-to none --prtemca rml_base_radix 16384
//               [--prtemca plm_ssh_agent AGENT] [--leave-session-attached] [mpirun_args]
//               ELASTICD --hostfile HOSTFILE --state-dir DIR [--ranks-ignore-sigterm] [elasticd_args]
//             (the two in brackets with slurm_steps)
// Fake nodes: mpirun --with-ft ulfm -n 1 --bind-to none [mpirun_args]
//               ELASTICD --hostfile HOSTFILE --state-dir DIR --fake-nodes [elasticd_args]
// (--bind-to none: the launch line elasticd_main.cc prescribes and its end-to-end tests use.)
std::vector<std::string> compose_up_command(const UpOptions& options);
// The argv as one shell-pasteable line (arguments quoted when needed).
std::string shell_join(const std::vector<std::string>& argv);

// node01 slots=S ... nodeNN slots=S (two digits at least, zero-padded to the width of n).
std::vector<HostEntry> fake_nodes(int n, int slots = 2);

}  // namespace elastic::rt
