// LibTorch's own data-parallel allreduce as the baseline of the torch benchmarks: a
// c10d::ProcessGroupGloo over the ranks of MPI_COMM_WORLD: a FileStore whose name rank 0 chooses
// and broadcasts, in $ELASTIC_GLOO_STORE_DIR (default /tmp; ranks on several hosts need a directory
// they share), and gloo's TCP transport on the address the host's name resolves to (gloo's default
// device: the loopback on one machine, the host's own network on the cluster in a box).
#pragma once

#include <mpi.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <torch/csrc/distributed/c10d/FileStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>

namespace elastic::bench {

inline c10::intrusive_ptr<::c10d::ProcessGroupGloo> gloo_group(int rank, int size) {
  char path[256] = {0};
  if (rank == 0) {
    const char* dir = std::getenv("ELASTIC_GLOO_STORE_DIR");
    std::snprintf(path, sizeof(path), "%s/elastic_bench_gloo_%d", dir != nullptr ? dir : "/tmp",
                  static_cast<int>(::getpid()));
  }
  MPI_Bcast(path, sizeof(path), MPI_CHAR, 0, MPI_COMM_WORLD);
  auto store = c10::make_intrusive<::c10d::FileStore>(path, size);
  auto opts = ::c10d::ProcessGroupGloo::Options::create();
  opts->devices.push_back(::c10d::ProcessGroupGloo::createDefaultDevice());
  auto pg = c10::make_intrusive<::c10d::ProcessGroupGloo>(store, rank, size, opts);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) ::unlink(path);
  return pg;
}

// Sum of `t` over the group, in place, blocking.
inline void gloo_allreduce(::c10d::ProcessGroupGloo& pg, const ::torch::Tensor& t) {
  std::vector<at::Tensor> v{t};
  pg.allreduce(v)->wait();
}

// gloo's own barrier over the group, blocking (the gloo contender's alignment, timing.h).
inline void gloo_barrier(::c10d::ProcessGroupGloo& pg) { pg.barrier()->wait(); }

}  // namespace elastic::bench
