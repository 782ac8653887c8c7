// Allreduce bandwidth of elastic::coll (MPI backend) against raw MPI_Allreduce on the same ranks,
// 1 KiB to 256 MiB, and tensor fusion (100 tensors of 4 KiB) against one allreduce per tensor.
// Reports ratios measured in the same run (timing.h: interleaved, barrier-aligned samples, slowest
// rank, median).
//
//   mpirun -n 2 bench_collectives [max_bytes=256 MiB] [min_bytes=1 KiB]   (sizes go up x4)
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "elastic/cli/number_checks.h"
#include "elastic/collectives/factory.h"
#include "elastic/collectives/fusion.h"
#include "timing.h"
#include "world.h"

namespace coll = elastic::coll;
using elastic::bench::median_seconds;

namespace {

void check(const absl::Status& st) {
  if (!st.ok()) {
    std::fprintf(stderr, "bench: %s\n", st.ToString().c_str());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t max_bytes = std::size_t{256} << 20;
  std::size_t min_bytes = 1024;
  CLI::App app{
      "Allreduce of elastic::coll (MPI backend) against raw MPI_Allreduce, and tensor "
      "fusion against one allreduce per tensor (run under mpirun)"};
  app.add_option("max_bytes", max_bytes, "The largest message (sizes go up x4)")
      ->check(elastic::cli::positive())
      ->capture_default_str();
  app.add_option("min_bytes", min_bytes, "The smallest message")
      ->check(elastic::cli::positive())
      ->capture_default_str();
  const auto [rank, size] = elastic::bench::start_mpi(&argc, &argv, app);
  auto comm_or = coll::create_communicator(MPI_COMM_WORLD, coll::Backend::kMpi);
  check(comm_or.status());
  coll::Communicator& comm = **comm_or;

  if (rank == 0) {
    // Every elastic call is bounded (here by the default 60 s): no blocking path exists.
    std::printf(
        "# %d ranks; float32 sum; median of interleaved barrier-aligned samples (slowest rank)\n",
        size);
    std::printf("%10s %12s %12s %10s %10s %7s\n", "bytes", "raw_us", "elastic_us", "raw_GB/s",
                "el_GB/s", "ratio");
  }
  for (std::size_t bytes = min_bytes; bytes <= max_bytes; bytes *= 4) {
    const std::size_t n = bytes / 4;
    std::vector<float> a(n, 1.0f), b(n, 1.0f);
    const int samples =
        static_cast<int>(std::clamp<std::size_t>((std::size_t{1} << 30) / bytes, 9, 300));
    const auto [raw, ours] = median_seconds<2>(
        samples, {[&] {
                    MPI_Allreduce(MPI_IN_PLACE, a.data(), static_cast<int>(n), MPI_FLOAT, MPI_SUM,
                                  MPI_COMM_WORLD);
                  },
                  [&] {
                    check(comm.allreduce(coll::Tensor{b.data(), n, coll::DataType::kFloat32},
                                         coll::ReduceOp::kSum));
                  }});
    if (rank == 0) {
      std::printf("%10zu %12.1f %12.1f %10.3f %10.3f %7.3f\n", bytes, raw * 1e6, ours * 1e6,
                  static_cast<double>(bytes) / raw / 1e9, static_cast<double>(bytes) / ours / 1e9,
                  raw / ours);
      std::fflush(stdout);
    }
  }

  // Fusion: 100 tensors of 4 KiB. Besides the two contenders, the raw MPI_Allreduce per tensor
  // (our per-call overhead), one elastic allreduce of the packed size alone (the fused call minus
  // packing and unpacking) and one raw MPI_Allreduce of that size (the floor for that step).
  constexpr std::size_t kTensors = 100, kFloats = 1024;
  std::vector<std::vector<float>> data(kTensors, std::vector<float>(kFloats, 1.0f));
  std::vector<float> packed(kTensors * kFloats, 1.0f);
  std::vector<coll::Tensor> tensors;
  for (auto& d : data) tensors.push_back(coll::Tensor{d.data(), kFloats, coll::DataType::kFloat32});
  const auto [raw_each, each, fused, alone, raw_alone] = median_seconds<5>(
      300,
      {[&] {
         for (auto& d : data)
           MPI_Allreduce(MPI_IN_PLACE, d.data(), kFloats, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
       },
       [&] {
         for (const coll::Tensor& t : tensors) check(comm.allreduce(t, coll::ReduceOp::kSum));
       },
       [&] { check(coll::allreduce_fused(comm, tensors, coll::ReduceOp::kSum)); },
       [&] {
         check(comm.allreduce(coll::Tensor{packed.data(), packed.size(), coll::DataType::kFloat32},
                              coll::ReduceOp::kSum));
       },
       [&] {
         MPI_Allreduce(MPI_IN_PLACE, packed.data(), static_cast<int>(packed.size()), MPI_FLOAT,
                       MPI_SUM, MPI_COMM_WORLD);
       }});
  if (rank == 0) {
    std::printf(
        "# fusion, %zu tensors of %zu KiB: one each %.1f us (raw MPI_Allreduce each %.1f us), "
        "fused %.1f us "
        "(its allreduce alone %.1f us, raw MPI_Allreduce of that size %.1f us), speed-up %.2fx\n",
        kTensors, kFloats * 4 / 1024, each * 1e6, raw_each * 1e6, fused * 1e6, alone * 1e6,
        raw_alone * 1e6, each / fused);
  }
  comm_or->reset();
  MPI_Finalize();
  return 0;
}
