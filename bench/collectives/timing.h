// The timing loop shared by the collectives benchmarks (MPI on the host, NCCL on GPUs). Ranks must
// run the same iteration counts, which Google Benchmark's adaptive loop cannot guarantee across
// processes, so the loop is fixed: a sample runs each contender once, each call barrier-aligned,
// and a call's time is the slowest rank's. Alternating the contenders sample by sample makes
// background load (this machine is shared) hit all of them alike; the median per contender is
// reported.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <functional>
#include <vector>

namespace elastic::bench {

// COLLECTIVE over MPI_COMM_WORLD: every rank passes the same `samples` and contenders. Contender
// c is aligned by `align[c]`, a barrier of its own library, so that no rank spins in one library
// while the other's threads want its core (a standalone loop saw gloo's thread wait for the next
// scheduler tick behind MPI_Barrier, docs/libtorch.md): each contender runs as it would alone.
template <std::size_t N>
std::array<double, N> median_seconds(int samples,
                                     const std::array<std::function<void()>, N>& contenders,
                                     const std::array<std::function<void()>, N>& align) {
  std::array<std::vector<double>, N> t;
  for (int i = 0; i < samples; ++i) {
    std::array<double, N> dt{};
    for (std::size_t c = 0; c < N; ++c) {
      align[c]();
      const auto t0 = std::chrono::steady_clock::now();
      contenders[c]();
      dt[c] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }
    MPI_Allreduce(MPI_IN_PLACE, dt.data(), static_cast<int>(N), MPI_DOUBLE, MPI_MAX,
                  MPI_COMM_WORLD);
    for (std::size_t c = 0; c < N; ++c) t[c].push_back(dt[c]);
  }
  std::array<double, N> median{};
  for (std::size_t c = 0; c < N; ++c) {
    std::nth_element(t[c].begin(), t[c].begin() + static_cast<long>(t[c].size() / 2), t[c].end());
    median[c] = t[c][t[c].size() / 2];
  }
  return median;
}

// The same, every contender aligned by MPI_Barrier.
template <std::size_t N>
std::array<double, N> median_seconds(int samples,
                                     const std::array<std::function<void()>, N>& contenders) {
  std::array<std::function<void()>, N> align;
  align.fill([] { MPI_Barrier(MPI_COMM_WORLD); });
  return median_seconds<N>(samples, contenders, align);
}

}  // namespace elastic::bench
