// Example 04's training step (the CNN, Adam, batch 64 per rank) in samples/s, with the gradients
// averaged by elastic::torch's GradientReducer against the same model with LibTorch's own
// c10d::ProcessGroupGloo (one allreduce of all gradients flattened, as one DDP bucket would, then
// divided by the ranks). Both contenders alternate, step by step, on the same ranks, each step
// aligned by its own library's barrier (timing.h);
// ratio = gloo time / elastic time per step. Fixed synthetic batches: the data path is the same
// for both and not what is compared.
//
//   mpirun -n 2 bench_torch_training [steps=30] [channels=32]
#include <cstdio>
#include <cstdlib>

#include "../collectives/timing.h"
#include "../collectives/world.h"
#include "cnn.h"
#include "elastic/cli/number_checks.h"
#include "elastic/collectives/factory.h"
#include "elastic/torch/gradient_reducer.h"
#include "gloo_group.h"

namespace coll = elastic::coll;
namespace ex = elastic::examples;

int main(int argc, char** argv) {
  int steps = 30;
  std::int64_t channels = 32;
  CLI::App app{
      "Example 04's training step in samples/s, gradients averaged by elastic::torch "
      "against c10d::ProcessGroupGloo (run under mpirun)"};
  app.add_option("steps", steps, "Timed steps of each")
      ->check(elastic::cli::positive())
      ->capture_default_str();
  app.add_option("channels", channels, "The CNN's channels")
      ->check(elastic::cli::positive())
      ->capture_default_str();
  const auto [rank, size] = elastic::bench::start_mpi(&argc, &argv, app);
  constexpr std::int64_t kBatch = 64;
  ::torch::set_num_threads(1);
  auto comm = coll::create_communicator(MPI_COMM_WORLD, coll::Backend::kMpi);
  if (!comm.ok()) MPI_Abort(MPI_COMM_WORLD, 1);
  auto pg = elastic::bench::gloo_group(rank, size);

  ::torch::manual_seed(1);
  ex::Cnn ours(channels), theirs(channels);
  ::torch::optim::Adam opt_ours(ours->parameters()), opt_theirs(theirs->parameters());
  auto reducer = elastic::libtorch::GradientReducer::create(ours->parameters()).value();
  const ::torch::Tensor x = ::torch::randn({kBatch, 1, 28, 28});
  const ::torch::Tensor y = ::torch::randint(0, 10, {kBatch});

  auto step_ours = [&] {
    if (!reducer->begin(**comm).ok()) MPI_Abort(MPI_COMM_WORLD, 1);
    ::torch::nn::functional::cross_entropy(ours->forward(x), y).backward();
    if (!reducer->finish().ok()) MPI_Abort(MPI_COMM_WORLD, 1);
    opt_ours.step();
  };
  auto step_gloo = [&] {
    opt_theirs.zero_grad();
    ::torch::nn::functional::cross_entropy(theirs->forward(x), y).backward();
    std::vector<::torch::Tensor> grads;
    for (const auto& p : theirs->parameters()) grads.push_back(p.grad().view(-1));
    ::torch::Tensor flat = ::torch::cat(grads);
    elastic::bench::gloo_allreduce(*pg, flat);
    flat.div_(size);
    std::int64_t off = 0;
    for (auto& p : theirs->parameters()) {
      p.mutable_grad().view(-1).copy_(flat.slice(0, off, off + p.numel()));
      off += p.numel();
    }
    opt_theirs.step();
  };
  step_ours();  // warm-up: allocations, first connections
  step_gloo();
  const auto [gloo, elastic] = elastic::bench::median_seconds<2>(
      steps, {step_gloo, step_ours},
      {[&] { elastic::bench::gloo_barrier(*pg); }, [] { MPI_Barrier(MPI_COMM_WORLD); }});
  if (rank == 0) {
    std::printf(
        "# example 04 CNN (channels %lld), batch %lld per rank, %d steps, median step (slowest "
        "rank)\n",
        static_cast<long long>(channels), static_cast<long long>(kBatch), steps);
    std::printf("ranks %d: gloo %.0f samples/s, elastic %.0f samples/s, ratio %.3f\n", size,
                static_cast<double>(kBatch * size) / gloo,
                static_cast<double>(kBatch * size) / elastic, gloo / elastic);
  }
  reducer.reset();
  pg.reset();
  comm->reset();
  MPI_Finalize();
  return 0;
}
