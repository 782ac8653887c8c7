#include "elastic/control/topology.h"

#include <hwloc.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <memory>
#include <vector>

#include "fmt/format.h"

namespace elastic::rt {
namespace {

struct TopologyDeleter {
  void operator()(hwloc_topology* t) const { hwloc_topology_destroy(t); }
};
using Topology = std::unique_ptr<hwloc_topology, TopologyDeleter>;

absl::StatusOr<Topology> load(bool with_io) {
  hwloc_topology_t raw = nullptr;
  if (hwloc_topology_init(&raw) != 0) return absl::InternalError("hwloc_topology_init failed");
  Topology topo(raw);
  if (with_io) hwloc_topology_set_io_types_filter(raw, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
  if (hwloc_topology_load(raw) != 0) {
    return absl::InternalError(fmt::format("hwloc_topology_load: {}", std::strerror(errno)));
  }
  return topo;
}

int count(hwloc_topology_t t, hwloc_obj_type_t type) {
  const int n = hwloc_get_nbobjs_by_type(t, type);
  return n < 0 ? 0 : n;
}

bool is_nvidia_gpu(hwloc_obj_t pci) {
  // Class 0x0300 (VGA) or 0x0302 (3D controller); NVSwitch bridges (0x0680) are not GPUs.
  return pci->attr->pcidev.vendor_id == 0x10de && (pci->attr->pcidev.class_id >> 8) == 0x03;
}

// The PCI objects of the NVIDIA GPUs, in PCI bus order (CUDA_DEVICE_ORDER=PCI_BUS_ID matches).
std::vector<hwloc_obj_t> nvidia_gpus(hwloc_topology_t t) {
  std::vector<hwloc_obj_t> gpus;
  for (hwloc_obj_t p = hwloc_get_next_pcidev(t, nullptr); p != nullptr;
       p = hwloc_get_next_pcidev(t, p)) {
    if (is_nvidia_gpu(p)) gpus.push_back(p);
  }
  return gpus;
}

int cuda_osdevs(hwloc_topology_t t) {
  int n = 0;
  for (hwloc_obj_t o = hwloc_get_next_osdev(t, nullptr); o != nullptr;
       o = hwloc_get_next_osdev(t, o)) {
    if (o->attr->osdev.type == HWLOC_OBJ_OSDEV_COPROC && o->subtype != nullptr &&
        std::strcmp(o->subtype, "CUDA") == 0) {
      ++n;
    }
  }
  return n;
}

}  // namespace

absl::StatusOr<NodeTopology> probe_topology() {
  absl::StatusOr<Topology> topo = load(/*with_io=*/true);
  if (!topo.ok()) return topo.status();
  hwloc_topology_t t = topo->get();
  NodeTopology out;
  out.packages = count(t, HWLOC_OBJ_PACKAGE);
  out.numa_nodes = count(t, HWLOC_OBJ_NUMANODE);
  out.cores = count(t, HWLOC_OBJ_CORE);
  out.pus = count(t, HWLOC_OBJ_PU);
  // The CUDA plugin (when hwloc has it) names exactly the devices CUDA will see; otherwise the
  // PCI scan is the best we have without loading the CUDA driver.
  out.cuda_gpus = cuda_osdevs(t);
  if (out.cuda_gpus == 0) out.cuda_gpus = static_cast<int>(nvidia_gpus(t).size());
  return out;
}

int default_ranks_per_node(const NodeTopology& topo, int configured) {
  if (configured > 0) return configured;
  if (topo.cuda_gpus > 0) return topo.cuda_gpus;
  return topo.packages > 0 ? topo.packages : 1;
}

absl::Status bind_rank_to_share(int local_rank, int local_size, bool gpu_local) {
  if (local_size < 1 || local_rank < 0 || local_rank >= local_size) {
    return absl::InvalidArgumentError(
        fmt::format("bad local rank {} of {}", local_rank, local_size));
  }
  absl::StatusOr<Topology> topo = load(gpu_local);
  if (!topo.ok()) return topo.status();
  hwloc_topology_t t = topo->get();
  hwloc_bitmap_t set = hwloc_bitmap_alloc();
  if (set == nullptr) return absl::ResourceExhaustedError("hwloc_bitmap_alloc");
  const std::vector<hwloc_obj_t> gpus = gpu_local ? nvidia_gpus(t) : std::vector<hwloc_obj_t>{};
  if (!gpus.empty() && static_cast<int>(gpus.size()) == local_size) {
    hwloc_obj_t near = hwloc_get_non_io_ancestor_obj(t, gpus[static_cast<std::size_t>(local_rank)]);
    hwloc_bitmap_copy(set, near->cpuset);
  } else {
    std::vector<hwloc_cpuset_t> shares(static_cast<std::size_t>(local_size));
    for (auto& s : shares) s = hwloc_bitmap_alloc();
    hwloc_obj_t root = hwloc_get_root_obj(t);
    hwloc_distrib(t, &root, 1, shares.data(), static_cast<unsigned>(local_size), INT_MAX, 0);
    hwloc_bitmap_copy(set, shares[static_cast<std::size_t>(local_rank)]);
    for (auto& s : shares) hwloc_bitmap_free(s);
  }
  const int rc = hwloc_set_cpubind(t, set, HWLOC_CPUBIND_PROCESS);
  const int err = errno;
  hwloc_bitmap_free(set);
  if (rc != 0) {
    return absl::InternalError(fmt::format("hwloc_set_cpubind for local rank {}/{}: {}", local_rank,
                                           local_size, std::strerror(err)));
  }
  return absl::OkStatus();
}

}  // namespace elastic::rt
