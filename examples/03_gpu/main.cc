// Example 03: example 02's Fashion-MNIST MLP on GPUs, one rank per GPU. The forward and backward
// passes run in cuBLAS and small CUDA kernels (gpu_mlp.h); the gradients are summed over the ranks
// by ONE allreduce of device memory, through a Communicator that elastic::coll's factory picks
// from where that memory lives (device -> NCCL). The elastic run loop is the same as in 02: it
// keeps its own host (MPI) communicator for state sync and the evaluation; this program adds the
// NCCL one, built lazily inside the step for each membership (so a failure while building it is
// repaired like any other) and aborted at every membership change.
//
// elastic::rt::State holds host memory, so the parameters and momentum have pinned host mirrors:
// downloaded after every step (what commit() copies) and uploaded after every reset (what sync()
// or restore() put there).
//
//   mpirun -n 2 gpu_fashion_mnist --epochs 3 --target-accuracy 0.85     (two GPUs)
// Exits 77 (ctest's "skipped") when a rank has no usable CUDA device or a host has more ranks than
// GPUs.
#include <CLI/CLI.hpp>
#include <array>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "elastic/cli/number_checks.h"
#include "elastic/collectives/factory.h"
#include "elastic/worker/run.h"
#include "gpu_mlp.h"
#include "idx_reader.h"
#include "mlp.h"
#include "training_flags.h"
#include "training_run.h"

namespace ex = elastic::examples;
namespace coll = elastic::coll;
namespace rt = elastic::rt;

namespace {

// {rank among the ranks of `comm` on this host, ranks on this host}, by processor name in rank
// order: this process's GPU is local rank % device count, chosen once at start. The NCCL backend
// uses the current device for every membership, so the model and every later communicator stay on
// this GPU however the ranks are renumbered by a grow or shrink.
std::pair<int, int> local_rank(MPI_Comm comm) {
  int rank = 0, size = 0, len = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  std::array<char, MPI_MAX_PROCESSOR_NAME> mine{};
  MPI_Get_processor_name(mine.data(), &len);
  std::vector<char> all(static_cast<std::size_t>(size) * mine.size());
  MPI_Allgather(mine.data(), static_cast<int>(mine.size()), MPI_CHAR, all.data(),
                static_cast<int>(mine.size()), MPI_CHAR, comm);
  int local = 0, on_host = 0;
  for (int r = 0; r < size; ++r) {
    if (std::strncmp(all.data() + static_cast<std::size_t>(r) * mine.size(), mine.data(),
                     mine.size()) == 0) {
      on_host += 1;
      if (r < rank) ++local;
    }
  }
  return {local, on_host};
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "Fashion-MNIST MLP on GPUs (cuBLAS + NCCL), data-parallel and elastic with libelastic"};
  app.option_defaults()->always_capture_default();
  std::size_t hidden = 128;
  const float momentum = 0.9f;
  ex::TrainingFlags flags;
  flags.lr = 0.02;
  flags.epochs = 3;
  app.add_option("--hidden", hidden, "hidden units")->check(elastic::cli::positive());
  flags.add_to(app);
  ex::parse_or_exit(app, argc, argv);

  const char* const program = "gpu_fashion_mnist";
  std::unique_ptr<rt::Session> session_ptr = ex::join_or_exit(program, &argc, &argv);
  rt::Session& session = *session_ptr;
  auto fail = [&](int code, std::string_view what) { ex::fail(session, program, code, what); };

  // Every rank needs a GPU; decide together so that no rank waits in a collective for a peer that
  // left.
  int devices = 0;
  const cudaError_t probe = cudaGetDeviceCount(&devices);
  int usable = (probe == cudaSuccess && devices > 0) ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &usable, 1, MPI_INT, MPI_MIN, session.comm());
  if (usable == 0) {
    if (probe != cudaSuccess || devices == 0) {
      std::printf(
          "SKIPPED: no usable CUDA device on rank %d (cudaGetDeviceCount: %s, %d devices)\n",
          session.rank(), cudaGetErrorString(probe), devices);
    }
    std::fflush(stdout);
    session.exit(77);
  }
  // NCCL does not support two ranks of one communicator on the same GPU (it may hang).
  const auto [local, on_host] = local_rank(session.comm());
  int short_of_gpus = on_host > devices ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &short_of_gpus, 1, MPI_INT, MPI_MAX, session.comm());
  if (short_of_gpus != 0) {
    if (on_host > devices) {
      std::printf("SKIPPED: NCCL needs one GPU per rank: %d ranks on this host, %d GPU(s)\n",
                  on_host, devices);
    }
    std::fflush(stdout);
    session.exit(77);
  }
  const int device = local % devices;
  if (cudaError_t rc = cudaSetDevice(device); rc != cudaSuccess) fail(4, cudaGetErrorString(rc));

  absl::StatusOr<ex::TrainTest> data = ex::load_train_test(flags.data_dir);
  if (!data.ok()) fail(2, data.status().ToString());
  const ex::Dataset& train = data->train;
  const ex::Dataset& test = data->test;
  auto train_dev = ex::upload(train);
  if (!train_dev.ok()) fail(4, train_dev.status().ToString());
  auto test_dev = ex::upload(test);
  if (!test_dev.ok()) fail(4, test_dev.status().ToString());

  // The same initialisation as example 02 (same seed -> same parameters).
  ex::Mlp init(train.features, hidden, 10, flags.seed);
  auto model_or = ex::GpuMlp::create(train.features, hidden, 10, init.params(), flags.batch);
  if (!model_or.ok()) fail(4, model_or.status().ToString());
  ex::GpuMlp& model = **model_or;

  ex::PinnedArray<float> params_host, momentum_host;
  if (params_host.allocate(model.param_count()) != cudaSuccess ||
      momentum_host.allocate(model.param_count()) != cudaSuccess) {
    fail(4, "cannot allocate the pinned host mirrors");
  }
  std::copy(init.params().begin(), init.params().end(), params_host.data());
  std::fill_n(momentum_host.data(), momentum_host.size(), 0.0f);

  rt::Sampler sampler(train.count, flags.batch, flags.seed, 0, 1);
  rt::State state;
  for (absl::Status st : {state.add_buffer("params", params_host.span()),
                          state.add_buffer("momentum", momentum_host.span())}) {
    if (!st.ok()) fail(2, st.ToString());
  }

  std::unique_ptr<coll::Communicator> nccl;  // one per membership, built at its first step
  std::array<float, 2> stats{};
  ex::EpochMeter meter("GPUs", /*local=*/false);
  float lr_now = 0;  // set when a membership starts and when an epoch ends (flags.rate)

  auto step = [&](const rt::StepContext& c) -> absl::Status {
    if (nccl == nullptr) {
      auto made = coll::create_communicator(session.comm(), coll::memory_kind(model.grads()));
      if (!made.ok()) return made.status();  // Aborted / DeadlineExceeded: repaired by the run loop
      nccl = std::move(*made);
    }
    if (absl::Status st = model.compute_gradients(*train_dev, c.ids); !st.ok()) return st;
    // Ordered after the gradient kernels on the model's stream by an event: no host sync first.
    if (absl::Status st = nccl->allreduce(
            coll::Tensor{model.grads(), model.grad_count(), coll::DataType::kFloat32},
            coll::ReduceOp::kSum, coll::CallOptions{.stream = model.stream()});
        !st.ok()) {
      return st;
    }
    const auto global = static_cast<float>(c.global_batch);
    if (absl::Status st = model.sgd_step(lr_now, momentum, 1.0f / global); !st.ok()) return st;
    if (absl::Status st = model.download(params_host.data(), momentum_host.data(), stats.data());
        !st.ok())
      return st;
    meter.add(stats[0], stats[1], global, c.global_batch);
    return absl::OkStatus();
  };

  rt::RunCallbacks cb;
  cb.on_reset = [&](const rt::ResetInfo& info) -> absl::Status {
    // The old membership's NCCL communicator may include dead or departed ranks: abort it (local,
    // never waits for peers) rather than destroy it; the next step builds one for the new
    // membership.
    if (nccl != nullptr) nccl->abort("membership changed");
    nccl.reset();
    lr_now = static_cast<float>(flags.rate(info.size, sampler.epoch()));
    ex::print_reset(info);
    meter.restart_epoch();
    // The mirrors now hold the synced (or restored) commit: that is the model from here on.
    return model.upload(params_host.data(), momentum_host.data());
  };
  const ex::Accuracy test_accuracy = [&](coll::Communicator& comm) -> absl::StatusOr<double> {
    const auto r = static_cast<std::size_t>(comm.rank()), n = static_cast<std::size_t>(comm.size());
    absl::StatusOr<std::size_t> correct =
        model.count_correct(*test_dev, test.count * r / n, test.count * (r + 1) / n);
    if (!correct.ok()) return correct.status();
    return ex::accuracy_over_ranks(
        comm, static_cast<double>(*correct),
        static_cast<double>(test.count * (r + 1) / n - test.count * r / n));
  };
  cb.on_epoch_end = [&](std::uint64_t epoch, coll::Communicator& comm) {
    lr_now = static_cast<float>(flags.rate(comm.size(), epoch + 1));
    return meter.end_epoch(epoch, comm, test_accuracy);
  };

  absl::StatusOr<rt::RunResult> result =
      rt::run(session, state, sampler, step, flags.run_options(), cb);
  nccl.reset();  // the evaluation runs on the host communicator
  ex::finish(session, program, result, flags, sampler.epoch(), test_accuracy, meter);
}
