// Example 02: Fashion-MNIST, data-parallel with libelastic's building blocks: the Sampler shards
// each epoch's permutation, one allreduce per step sums gradients (plus loss/accuracy counters),
// State commits after every step and writes a durable checkpoint every N commits; a restarted run
// resumes from it. Runs under plain `mpirun -n K`.
//
//   mpirun -n 2 fashion_mnist --epochs 5 --target-accuracy 0.85
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <filesystem>

#include "elastic/collectives/factory.h"
#include "elastic/training/sampler.h"
#include "elastic/training/state.h"
#include "idx_reader.h"
#include "mlp.h"

namespace ex = elastic::examples;
namespace coll = elastic::coll;
namespace rt = elastic::rt;

namespace {

// Test accuracy, each rank evaluating a slice and one allreduce of the counts.
double test_accuracy(const ex::Mlp& model, const ex::Dataset& test, coll::Communicator& comm) {
  double counts[2] = {0, 0};
  for (std::size_t i = static_cast<std::size_t>(comm.rank()); i < test.count; i += static_cast<std::size_t>(comm.size())) {
    counts[0] += model.predict(&test.images[i * test.features]) == test.labels[i] ? 1 : 0;
    counts[1] += 1;
  }
  if (!comm.allreduce(coll::Tensor{counts, 2, coll::DataType::kFloat64}, coll::ReduceOp::kSum).ok()) return -1;
  return counts[0] / counts[1];
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Fashion-MNIST MLP, data-parallel with libelastic"};
  std::string data_dir = ex::kFashionMnistDir;
  std::string checkpoint;
  std::int64_t epochs = 5;
  std::size_t hidden = 128, batch = 32;
  float lr = 0.01f, momentum = 0.9f;
  double target = 0;
  std::uint64_t seed = 1;
  app.add_option("--data-dir", data_dir, "folder with the *-idx?-ubyte.gz files");
  app.add_option("--epochs", epochs, "epochs to train")->check(CLI::PositiveNumber);
  app.add_option("--hidden", hidden, "hidden units")->check(CLI::PositiveNumber);
  app.add_option("--batch", batch, "samples per rank per step")->check(CLI::PositiveNumber);
  app.add_option("--lr", lr, "learning rate");
  app.add_option("--seed", seed, "seed of the initialisation and the data order");
  app.add_option("--checkpoint", checkpoint, "durable checkpoint path (resumed from when it exists)");
  app.add_option("--target-accuracy", target, "exit 1 when the final test accuracy is below this");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }

  MPI_Init(&argc, &argv);
  auto fail = [](const std::string& what) {
    std::fprintf(stderr, "fashion_mnist: %s\n", what.c_str());
    MPI_Abort(MPI_COMM_WORLD, 2);
    return 2;
  };
  auto comm_or = coll::create_communicator(MPI_COMM_WORLD, coll::Backend::kMpi);
  if (!comm_or.ok()) return fail(comm_or.status().ToString());
  coll::Communicator& comm = **comm_or;

  auto train = ex::load_idx(data_dir, "train");
  if (!train.ok()) return fail(train.status().ToString());
  auto test = ex::load_idx(data_dir, "t10k");
  if (!test.ok()) return fail(test.status().ToString());

  ex::Mlp model(train->features, hidden, 10, seed);
  rt::Sampler sampler(train->count, batch, seed, comm.rank(), comm.size());
  std::int64_t step = 0;
  rt::State state(rt::StateOptions{checkpoint, 200, std::chrono::seconds(0), comm.rank() == 0});
  for (absl::Status st : {state.add_buffer("params", model.params()), state.add_buffer("momentum", model.momentum()),
                          state.add_scalar("step", &step), state.add_object("sampler", &sampler)}) {
    if (!st.ok()) return fail(st.ToString());
  }
  if (!checkpoint.empty() && comm.rank() == 0 && std::filesystem::exists(checkpoint)) {
    if (absl::Status st = state.load_checkpoint(checkpoint); !st.ok()) return fail(st.ToString());
    std::printf("resumed from %s at step %lld\n", checkpoint.c_str(), static_cast<long long>(step));
  }
  if (!state.has_commit()) {
    if (absl::Status st = state.commit(); !st.ok()) return fail(st.ToString());
  }
  // Every rank starts from rank 0's committed state (also what a joining rank does).
  if (absl::Status st = state.sync(comm, 0); !st.ok()) return fail(st.ToString());
  sampler.repartition(comm.rank(), comm.size());

  std::vector<float> xb;
  std::vector<std::uint8_t> yb;
  // The gradient buffer gets two extra slots for the loss and the number correct: one allreduce.
  std::vector<float> reduce_buf(model.grads().size() + 2);
  double epoch_loss = 0, epoch_correct = 0, epoch_seen = 0;
  const auto t0 = std::chrono::steady_clock::now();
  while (static_cast<std::int64_t>(sampler.epoch()) < epochs) {
    const std::vector<std::uint64_t> ids = sampler.batch();
    xb.resize(ids.size() * train->features);
    yb.resize(ids.size());
    for (std::size_t k = 0; k < ids.size(); ++k) {
      std::copy_n(&train->images[ids[k] * train->features], train->features, &xb[k * train->features]);
      yb[k] = train->labels[ids[k]];
    }
    model.zero_grad();
    const auto [loss, correct] = model.accumulate(xb.data(), yb.data(), ids.size());
    std::copy(model.grads().begin(), model.grads().end(), reduce_buf.begin());
    reduce_buf[reduce_buf.size() - 2] = static_cast<float>(loss);
    reduce_buf[reduce_buf.size() - 1] = static_cast<float>(correct);
    if (absl::Status st = comm.allreduce(coll::Tensor{reduce_buf.data(), reduce_buf.size(), coll::DataType::kFloat32},
                                         coll::ReduceOp::kSum);
        !st.ok()) {
      return fail(st.ToString());
    }
    std::copy_n(reduce_buf.begin(), model.grads().size(), model.grads().begin());
    const auto global = static_cast<float>(sampler.global_batch_size());
    model.sgd_step(lr, momentum, 1.0f / global);
    epoch_loss += reduce_buf[reduce_buf.size() - 2];
    epoch_correct += reduce_buf[reduce_buf.size() - 1];
    epoch_seen += global;
    const std::uint64_t epoch_before = sampler.epoch();
    sampler.advance();
    ++step;
    if (absl::Status st = state.commit(); !st.ok()) return fail(st.ToString());
    if (sampler.epoch() != epoch_before) {
      const double acc = test_accuracy(model, *test, comm);
      const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (comm.rank() == 0) {
        std::printf("epoch %llu: train loss %.4f, train acc %.4f, test acc %.4f, %.0f samples/s over %d ranks\n",
                    static_cast<unsigned long long>(epoch_before), epoch_loss / epoch_seen, epoch_correct / epoch_seen,
                    acc, static_cast<double>(step) * static_cast<double>(batch) * comm.size() / secs, comm.size());
        std::fflush(stdout);
      }
      epoch_loss = epoch_correct = epoch_seen = 0;
    }
  }
  const double acc = test_accuracy(model, *test, comm);
  if (comm.rank() == 0) std::printf("final test accuracy %.4f after %lld steps\n", acc, static_cast<long long>(step));
  comm_or->reset();
  MPI_Finalize();
  return acc >= target ? 0 : 1;
}
