// What a node offers ranks, from hwloc: the default ranks per node (one per CUDA GPU when the
// node has them, else one per socket) and binding a rank to its share of the node's cores (and,
// with GPUs, to the cores near its GPU). Launched ranks call bind_rank_to_share() before they
// allocate memory so first-touch pages land on their socket.
#pragma once

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace elastic::rt {

struct NodeTopology {
  int packages = 0;  // sockets
  int numa_nodes = 0;
  int cores = 0;
  int pus = 0;        // hardware threads
  int cuda_gpus = 0;  // NVIDIA GPUs hwloc sees (CUDA OS devices, else NVIDIA 3D/VGA PCI devices)
};

// Probes this machine (hwloc; I/O devices included). Internal on hwloc failure.
absl::StatusOr<NodeTopology> probe_topology();

// configured > 0 wins; else cuda_gpus if > 0, else packages (at least 1).
int default_ranks_per_node(const NodeTopology& topo, int configured = 0);

// Binds the calling process to its share of this node's cores: `local_rank` of `local_size`
// ranks on the node get disjoint, contiguous core sets (hwloc_distrib). With `gpu_local` and
// as many GPUs as ranks, rank i is bound to the cores local to GPU i instead. InvalidArgument for
// a bad rank/size; Internal with the errno text when the OS refuses.
absl::Status bind_rank_to_share(int local_rank, int local_size, bool gpu_local = true);

}  // namespace elastic::rt
