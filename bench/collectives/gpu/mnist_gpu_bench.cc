// Fashion-MNIST training throughput of example 03's GPU MLP, samples/s per rank and over all ranks:
// the compute alone (forward, backward, SGD) and the full data-parallel step (plus the allreduce of
// the gradients through elastic::coll's NCCL path and the host mirror download the elastic run loop
// needs), so the ratio shows what data parallelism and elasticity cost per step. Fixed step counts
// (ranks must agree), median of 5 timed blocks (../timing.h).
//
//   mpirun -n 1 bench_mnist_gpu [steps=400] [data_dir]
// Exits 77 without a CUDA device.
#include <mpi.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "../timing.h"
#include "../world.h"
#include "elastic/collectives/factory.h"
#include "gpu_mlp.h"
#include "idx_reader.h"
#include "mlp.h"
#include "require_gpu.h"

namespace coll = elastic::coll;
namespace ex = elastic::examples;

namespace {

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "bench_mnist_gpu: %s\n", what.c_str());
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::abort();
}

void check(const absl::Status& st) {
  if (!st.ok()) die(st.ToString());
}

}  // namespace

int main(int argc, char** argv) {
  int steps = 400;
  std::string data_dir = ex::kFashionMnistDir;
  CLI::App app{
      "Fashion-MNIST samples/s of example 03's GPU MLP: compute alone against the full "
      "data-parallel step (run under mpirun; exits 77 without a CUDA device)"};
  app.add_option("steps", steps, "Steps, in 5 timed blocks")
      ->check(CLI::Range(5, 1 << 30))
      ->capture_default_str();
  app.add_option("data_dir", data_dir, "The Fashion-MNIST IDX files")
      ->check(CLI::ExistingDirectory)
      ->capture_default_str();
  const auto [rank, size] = elastic::bench::start_mpi(&argc, &argv, app);

  if (!elastic::bench::require_gpu_or_finalize(rank)) return 77;
  // Built first: the factory selects this rank's GPU, where the model then lives.
  auto nccl = coll::create_communicator(MPI_COMM_WORLD, coll::Backend::kNccl);
  if (!nccl.ok()) die(nccl.status().ToString());

  auto train = ex::load_idx(data_dir, "train");
  if (!train.ok()) die(train.status().ToString());
  auto dev = ex::upload(*train);
  if (!dev.ok()) die(dev.status().ToString());

  if (rank == 0) {
    std::printf("# %d rank(s), %d steps per block, median of 5 blocks\n", size, steps / 5);
    std::printf("%8s %8s %16s %16s %16s %8s\n", "hidden", "batch", "compute_smp/s", "dp_step_smp/s",
                "dp_total_smp/s", "ratio");
  }
  for (const std::size_t hidden : {std::size_t{128}, std::size_t{1024}}) {
    for (const std::size_t batch : {std::size_t{64}, std::size_t{512}}) {
      ex::Mlp init(train->features, hidden, 10, 1);
      auto model_or = ex::GpuMlp::create(train->features, hidden, 10, init.params(), batch);
      if (!model_or.ok()) die(model_or.status().ToString());
      ex::GpuMlp& model = **model_or;
      std::vector<float> params(model.param_count()), momentum(model.param_count());
      std::mt19937_64 rng(static_cast<std::uint64_t>(rank) + 1);
      std::vector<std::uint64_t> ids(batch);
      auto next_ids = [&] {
        for (auto& id : ids) id = rng() % train->count;
      };
      auto compute_step = [&] {
        next_ids();
        check(model.compute_gradients(*dev, ids));
        check(model.sgd_step(0.01f, 0.9f,
                             1.0f / static_cast<float>(batch * static_cast<std::size_t>(size))));
        check(model.sync());
      };
      auto dp_step = [&] {
        next_ids();
        check(model.compute_gradients(*dev, ids));
        check(model.sync());
        check((*nccl)->allreduce(
            coll::Tensor{model.grads(), model.grad_count(), coll::DataType::kFloat32},
            coll::ReduceOp::kSum));
        check(model.sgd_step(0.01f, 0.9f,
                             1.0f / static_cast<float>(batch * static_cast<std::size_t>(size))));
        check(model.download(params.data(), momentum.data(), nullptr));
      };
      for (int i = 0; i < 10; ++i) compute_step(), dp_step();  // warm-up (cuBLAS, NCCL channels)
      const int per_block = steps / 5;
      const auto [compute_s, dp_s] =
          elastic::bench::median_seconds<2>(5, {[&] {
                                                  for (int i = 0; i < per_block; ++i)
                                                    compute_step();
                                                },
                                                [&] {
                                                  for (int i = 0; i < per_block; ++i) dp_step();
                                                }});
      const double block_samples = static_cast<double>(per_block) * static_cast<double>(batch);
      const double compute = block_samples / compute_s,
                   dp = block_samples / dp_s;  // samples/s per rank
      if (rank == 0) {
        std::printf("%8zu %8zu %16.0f %16.0f %16.0f %8.3f\n", hidden, batch, compute, dp, dp * size,
                    dp / compute);
        std::fflush(stdout);
      }
    }
  }
  nccl->reset();
  MPI_Finalize();
  return 0;
}
