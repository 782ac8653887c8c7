// `elastic up`: the mpirun command line that starts elasticd (rank 0 = controller), and the
// one-machine fake-node mode (DESIGN.md "Testing many nodes on one machine"): a hostfile of
// made-up names plus a launch agent, scripts/fake_node_agent.sh, that drops the host argument
// and runs PRRTE's daemon locally with ELASTIC_FAKE_NODE=<name>.
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
  std::filesystem::path launch_agent;    // "" = mpirun's default (ssh)
  std::vector<std::string> mpirun_args;  // extra, before the program (e.g. "--mca", "coll", "^han")
  std::vector<std::string> elasticd_args;  // extra, after the program's own
};

// mpirun --with-ft ulfm -n 1 [--prtemca plm_ssh_agent AGENT] --hostfile HOSTFILE [mpirun_args]
//   ELASTICD --hostfile HOSTFILE --state-dir DIR [elasticd_args]
std::vector<std::string> compose_up_command(const UpOptions& options);
// The argv as one shell-pasteable line (arguments quoted when needed).
std::string shell_join(const std::vector<std::string>& argv);

// node01 slots=S ... nodeNN slots=S (two digits at least, zero-padded to the width of n).
std::vector<HostEntry> fake_nodes(int n, int slots = 2);

}  // namespace elastic::rt
