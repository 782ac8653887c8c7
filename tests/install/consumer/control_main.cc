// Uses the installed control plane: parses a job spec (toml++ inside elastic::control) and probes
// this node (hwloc inside it). Prints "max_nodes=3 cores>0=1".
#include <cstdio>

#include "elastic/control/job_spec.h"
#include "elastic/control/topology.h"

int main() {
  const auto spec = elastic::rt::parse_job_spec("command = \"train\"\nmax_nodes = 3\n");
  if (!spec.ok()) {
    std::fprintf(stderr, "%s\n", spec.status().ToString().c_str());
    return 1;
  }
  const auto topology = elastic::rt::probe_topology();
  if (!topology.ok()) {
    std::fprintf(stderr, "%s\n", topology.status().ToString().c_str());
    return 1;
  }
  std::printf("max_nodes=%d cores>0=%d\n", spec->max_nodes, topology->cores > 0);
  return 0;
}
