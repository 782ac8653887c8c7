// hwloc on this machine: counts must agree with what the OS reports, and binding must take effect.
#include "elastic/control/topology.h"

#include <gtest/gtest.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

namespace elastic::rt {
namespace {

TEST(Topology, ProbeMatchesTheOs) {
  const auto topo = probe_topology();
  ASSERT_TRUE(topo.ok()) << topo.status();
  EXPECT_GE(topo->packages, 1);
  EXPECT_GE(topo->cores, topo->packages);
  EXPECT_GE(topo->pus, topo->cores);
  cpu_set_t set;
  ASSERT_EQ(sched_getaffinity(0, sizeof(set), &set), 0);
  // hwloc reports the PUs this process may use; so does the affinity mask.
  EXPECT_EQ(topo->pus, CPU_COUNT(&set));
  std::printf("[ topology ] packages=%d numa=%d cores=%d pus=%d cuda_gpus=%d -> ranks/node %d\n",
              topo->packages, topo->numa_nodes, topo->cores, topo->pus, topo->cuda_gpus,
              default_ranks_per_node(*topo));
}

TEST(Topology, DefaultRanksPerNode) {
  EXPECT_EQ(default_ranks_per_node({2, 2, 64, 128, 4}), 4);     // GPUs win
  EXPECT_EQ(default_ranks_per_node({2, 2, 64, 128, 0}), 2);     // else sockets
  EXPECT_EQ(default_ranks_per_node({0, 0, 0, 0, 0}), 1);        // never 0
  EXPECT_EQ(default_ranks_per_node({2, 2, 64, 128, 4}, 7), 7);  // configured wins
}

// Binding changes the process's affinity, so each case runs in a child.
TEST(Topology, BindRankToShareRestrictsAffinity) {
  cpu_set_t all;
  ASSERT_EQ(sched_getaffinity(0, sizeof(all), &all), 0);
  const int n = CPU_COUNT(&all);
  for (int size : {1, 2, 3}) {
    for (int rank = 0; rank < size; ++rank) {
      int fds[2];
      ASSERT_EQ(::pipe(fds), 0);
      const pid_t pid = ::fork();
      ASSERT_GE(pid, 0);
      if (pid == 0) {
        int count = -1;
        if (bind_rank_to_share(rank, size, false).ok()) {
          cpu_set_t s;
          if (sched_getaffinity(0, sizeof(s), &s) == 0) count = CPU_COUNT(&s);
        }
        (void)!::write(fds[1], &count, sizeof(count));
        ::_exit(0);
      }
      int count = -1;
      ASSERT_EQ(::read(fds[0], &count, sizeof(count)), static_cast<ssize_t>(sizeof(count)));
      ::waitpid(pid, nullptr, 0);
      ::close(fds[0]);
      ::close(fds[1]);
      ASSERT_GE(count, 1) << rank << "/" << size;
      if (size <= n) {
        EXPECT_LE(count, (n + size - 1) / size) << rank << "/" << size;
      }
      if (size == 1) {
        EXPECT_EQ(count, n);
      }
    }
  }
  EXPECT_EQ(bind_rank_to_share(2, 2).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(bind_rank_to_share(0, 0).code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace elastic::rt
