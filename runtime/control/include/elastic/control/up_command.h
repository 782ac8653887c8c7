// `elastic up`: the mpirun command line that starts elasticd (rank 0 = controller). Two modes:
// on a cluster, mpirun gets the granted hostfile (and optionally a launch agent) so PRRTE can
// start its daemons on those nodes; with fake nodes (one machine), the hostfile names are only
// labels: mpirun gets no hostfile and elasticd runs every rank here, tagged
// ELASTIC_FAKE_NODE=<name> (docs/runtime.md, Known limitations: a PRRTE daemon per fake node
// takes only one spawn in Open MPI 5.0.7).
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
  bool fake_nodes = false;               // label mode (elasticd --fake-nodes)
  std::filesystem::path launch_agent;    // cluster mode only; "" = mpirun's default (ssh)
  std::vector<std::string> mpirun_args;  // extra, before the program (e.g. "--mca", "coll", "^han")
  std::vector<std::string> elasticd_args;  // extra, after the program's own
};

// Cluster:    mpirun --with-ft ulfm -n 1 --bind-to none [--prtemca plm_ssh_agent AGENT]
//               --hostfile HOSTFILE [mpirun_args] ELASTICD --hostfile HOSTFILE --state-dir DIR
//               [elasticd_args]
// Fake nodes: mpirun --with-ft ulfm -n 1 --bind-to none [mpirun_args]
//               ELASTICD --hostfile HOSTFILE --state-dir DIR --fake-nodes [elasticd_args]
// (--bind-to none: the launch line elasticd_main.cc prescribes and its end-to-end tests use.)
std::vector<std::string> compose_up_command(const UpOptions& options);
// The argv as one shell-pasteable line (arguments quoted when needed).
std::string shell_join(const std::vector<std::string>& argv);

// node01 slots=S ... nodeNN slots=S (two digits at least, zero-padded to the width of n).
std::vector<HostEntry> fake_nodes(int n, int slots = 2);

}  // namespace elastic::rt
