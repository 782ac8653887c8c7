// Allreduce of LibTorch tensors: elastic::coll (MPI backend, the path GradientReducer takes)
// against LibTorch's c10d::ProcessGroupGloo on the same ranks, fp32 sum, 1 KiB to 64 MiB (x4).
// Ratios are measured in the same run (timing.h: interleaved samples, each aligned by its own
// library's barrier, slowest rank, median); ratio = gloo time / elastic time (> 1: elastic is
// faster).
//
//   mpirun -n 2 bench_torch_allreduce [max_bytes=64 MiB]
#include <torch/utils.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "../collectives/timing.h"
#include "../collectives/world.h"
#include "elastic/cli/number_checks.h"
#include "elastic/collectives/factory.h"
#include "elastic/torch/tensor_view.h"
#include "gloo_group.h"

namespace coll = elastic::coll;

int main(int argc, char** argv) {
  std::size_t max_bytes = std::size_t{64} << 20;
  CLI::App app{
      "Allreduce of LibTorch tensors: elastic::coll against c10d::ProcessGroupGloo "
      "(run under mpirun)"};
  app.add_option("max_bytes", max_bytes, "The largest tensor (from 1 KiB, x4)")
      ->check(elastic::cli::positive())
      ->capture_default_str();
  const auto [rank, size] = elastic::bench::start_mpi(&argc, &argv, app);
  ::torch::set_num_threads(1);
  auto comm = coll::create_communicator(MPI_COMM_WORLD, coll::Backend::kMpi);
  if (!comm.ok()) {
    std::fprintf(stderr, "bench: %s\n", comm.status().ToString().c_str());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  auto pg = elastic::bench::gloo_group(rank, size);
  if (rank == 0) {
    std::printf(
        "# %d ranks; torch float32 sum; median of interleaved samples, each aligned by its own "
        "library's barrier (slowest rank)\n",
        size);
    std::printf("%10s %12s %12s %7s\n", "bytes", "gloo_us", "elastic_us", "ratio");
  }
  for (std::size_t bytes = 1024; bytes <= max_bytes; bytes *= 4) {
    const auto n = static_cast<std::int64_t>(bytes / 4);
    ::torch::Tensor a = ::torch::ones({n}), b = ::torch::ones({n});
    const coll::Tensor view = elastic::libtorch::coll_view(b, "bench").value();
    const int samples =
        static_cast<int>(std::clamp<std::size_t>((std::size_t{1} << 30) / bytes, 9, 300));
    const auto [gloo, ours] = elastic::bench::median_seconds<2>(
        samples,
        {[&] { elastic::bench::gloo_allreduce(*pg, a); },
         [&] {
           if (absl::Status st = (*comm)->allreduce(view, coll::ReduceOp::kSum); !st.ok())
             MPI_Abort(MPI_COMM_WORLD, 1);
         }},
        {[&] { elastic::bench::gloo_barrier(*pg); }, [] { MPI_Barrier(MPI_COMM_WORLD); }});
    if (rank == 0) {
      std::printf("%10zu %12.1f %12.1f %7.3f\n", bytes, gloo * 1e6, ours * 1e6, gloo / ours);
      std::fflush(stdout);
    }
  }
  pg.reset();
  comm->reset();
  MPI_Finalize();
  return 0;
}
