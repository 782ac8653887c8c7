// Example 04: a LibTorch CNN on Fashion-MNIST, data-parallel and elastic with libelastic. Compared
// with a plain LibTorch data-parallel loop, the changes are (docs/libtorch.md):
//   - Session::init joins the job (standalone under `mpirun -n K`, or as a job of elasticd);
//   - StateRegistration puts the model and the optimizer's state into the State;
//   - the run loop drives the steps; each step gets its sample ids from the exactly-once Sampler
//     (get_batch) and the GradientReducer allreduces the gradients over the current membership;
//   - with --lr-ranks the learning rate follows the membership (linear scaling rule) and with
//     --lr-decay the epochs (step decay); both are set in a reset hook from the committed epoch, so a
//     joining or recovered rank uses the same rate as the others.
//
//   mpirun -n 2 libtorch_fashion_mnist --epochs 5 --lr-decay 0.5 --target-accuracy 0.91
#include <CLI/CLI.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>

#include "cnn.h"
#include "elastic/cli/number_checks.h"
#include "elastic/torch/batches.h"
#include "elastic/torch/gradient_reducer.h"
#include "elastic/torch/learning_rate.h"
#include "elastic/torch/state_registration.h"
#include "elastic/worker/run.h"
#include "elastic/worker/session.h"
#include "fashion_mnist_data.h"
#include "idx_reader.h"

namespace ex = elastic::examples;
namespace coll = elastic::coll;
namespace rt = elastic::rt;
namespace et = elastic::libtorch;

namespace {

// Test accuracy, each rank evaluating a slice and one allreduce of the counts. COLLECTIVE.
absl::StatusOr<double> test_accuracy(ex::Cnn& model, const ex::FashionMnist& test,
                                     coll::Communicator& comm) {
  ::torch::NoGradGuard no_grad;
  model->eval();
  const std::int64_t n = test.labels().size(0);
  const std::int64_t begin = n * comm.rank() / comm.size(),
                     end = n * (comm.rank() + 1) / comm.size();
  double counts[2] = {0, static_cast<double>(end - begin)};
  for (std::int64_t i = begin; i < end; i += 1000) {
    const std::int64_t j = std::min(end, i + 1000);
    const ::torch::Tensor pred = model->forward(test.images().slice(0, i, j)).argmax(1);
    counts[0] +=
        static_cast<double>(pred.eq(test.labels().slice(0, i, j)).sum().item<std::int64_t>());
  }
  model->train();
  if (absl::Status st =
          comm.allreduce(coll::Tensor{counts, 2, coll::DataType::kFloat64}, coll::ReduceOp::kSum);
      !st.ok()) {
    return st;
  }
  return counts[0] / counts[1];
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Fashion-MNIST CNN in LibTorch, data-parallel and elastic with libelastic"};
  std::string data_dir = ex::kFashionMnistDir, checkpoint, optimizer_name = "adam";
  std::uint64_t epochs = 5, commit_every = 10, seed = 1;
  std::size_t batch = 64;
  std::int64_t channels = 32;
  double lr = 1e-3, momentum = 0.9, target = 0, lr_decay = 1.0;
  int lr_ranks = 0, threads = 1;
  app.add_option("--data-dir", data_dir, "folder with the *-idx?-ubyte.gz files");
  app.add_option("--epochs", epochs, "epochs to train")->check(elastic::cli::positive());
  app.add_option("--batch", batch, "samples per rank per step")->check(elastic::cli::positive());
  app.add_option("--channels", channels,
                 "channels of the first convolution (the second has twice as many)")
      ->check(elastic::cli::positive());
  app.add_option("--optimizer", optimizer_name, "adam or sgd (with --momentum)")
      ->check(CLI::IsMember({"adam", "sgd"}));
  app.add_option("--lr", lr, "learning rate");
  app.add_option("--momentum", momentum, "SGD momentum");
  app.add_option("--lr-ranks", lr_ranks,
                 "the number of ranks --lr is meant for: the rate follows the job's size (lr x "
                 "ranks / N); 0 keeps it")
      ->check(elastic::cli::non_negative());
  app.add_option("--lr-decay", lr_decay,
                 "factor the learning rate is multiplied by after each epoch; 1 keeps it")
      ->check(CLI::Range(0.0, 1.0));
  app.add_option("--threads", threads, "LibTorch threads per rank")
      ->check(elastic::cli::positive());
  app.add_option("--seed", seed, "seed of the initialisation and the data order");
  app.add_option("--commit-every", commit_every, "steps between in-memory commits")
      ->check(elastic::cli::positive());
  app.add_option("--checkpoint", checkpoint,
                 "durable checkpoint path, resumed from when it exists");
  app.add_option("--target-accuracy", target,
                 "exit 1 when training completes below this test accuracy");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }

  auto session_or = rt::Session::init(&argc, &argv);
  if (!session_or.ok()) {
    std::fprintf(stderr, "libtorch_fashion_mnist: cannot join the job: %s\n",
                 session_or.status().ToString().c_str());
    return 3;
  }
  rt::Session& session = **session_or;
  auto fail = [&](int code, const std::string& what) {
    std::fprintf(stderr, "libtorch_fashion_mnist: %s\n", what.c_str());
    session.exit(code);
  };
  ::torch::set_num_threads(threads);
  auto train = ex::FashionMnist::load(data_dir, "train");
  if (!train.ok()) fail(2, train.status().ToString());
  auto test = ex::FashionMnist::load(data_dir, "t10k");
  if (!test.ok()) fail(2, test.status().ToString());

  ::torch::manual_seed(seed);  // the same on every rank; a joining rank gets rank 0's state anyway
  ex::Cnn model(channels);
  std::unique_ptr<::torch::optim::Optimizer> optimizer;
  if (optimizer_name == "adam") {
    optimizer = std::make_unique<::torch::optim::Adam>(model->parameters(),
                                                       ::torch::optim::AdamOptions(lr));
  } else {
    optimizer = std::make_unique<::torch::optim::SGD>(
        model->parameters(), ::torch::optim::SGDOptions(lr).momentum(momentum));
  }
  rt::Sampler sampler(*train->size(), batch, seed, 0, 1);
  rt::State state;
  et::StateRegistration registration;
  for (absl::Status st :
       {registration.add_module(state, *model), registration.add_optimizer(state, *optimizer)}) {
    if (!st.ok()) fail(2, st.ToString());
  }
  // The loss of a step is the sum over this rank's samples divided by the GLOBAL batch, and the
  // reducer sums: the gradient is then exactly the mean over the step's samples, also when the
  // last steps of an epoch give the ranks uneven (or empty) batches.
  et::GradientReducerOptions reduce_opts;
  reduce_opts.op = et::GradientOp::kSum;
  auto reducer = et::GradientReducer::create(model->parameters(), reduce_opts);
  if (!reducer.ok()) fail(2, reducer.status().ToString());

  double epoch_loss = 0, epoch_seen = 0;
  std::int64_t samples = 0;
  const auto t0 = std::chrono::steady_clock::now();
  auto step = [&](const rt::StepContext& c) -> absl::Status {
    if (absl::Status st = (*reducer)->begin(c.comm); !st.ok()) return st;
    double loss_sum = 0;
    if (!c.ids.empty()) {  // an empty batch still takes part in the allreduce (finish)
      auto batch_data = et::get_batch(*train, c.ids);
      ::torch::Tensor loss = ::torch::nn::functional::cross_entropy(
          model->forward(batch_data.data), batch_data.target,
          ::torch::nn::functional::CrossEntropyFuncOptions().reduction(::torch::kSum));
      loss_sum = loss.item<double>();
      (loss / static_cast<double>(c.global_batch)).backward();
    }
    if (absl::Status st = (*reducer)->finish(); !st.ok())
      return st;  // Aborted: the run loop repairs
    optimizer->step();
    epoch_loss += loss_sum;  // this rank's share, printed by rank 0 as an estimate
    epoch_seen += static_cast<double>(c.ids.size());
    samples += static_cast<std::int64_t>(c.global_batch);
    return absl::OkStatus();
  };

  // The rate for `size` ranks in epoch `epoch` (0-based): the linear scaling rule and step decay.
  auto set_rate = [&](int size, std::uint64_t epoch) {
    const double ranks = lr_ranks > 0 ? static_cast<double>(size) / lr_ranks : 1.0;
    return et::set_learning_rate(*optimizer,
                                 lr * ranks * std::pow(lr_decay, static_cast<double>(epoch)));
  };
  rt::RunCallbacks cb;
  cb.on_reset = [&](const rt::ResetInfo& info) -> absl::Status {
    if (absl::Status st = set_rate(info.size, sampler.epoch()); !st.ok()) return st;
    if (info.rank == 0 && info.reason != rt::ResetReason::kStart) {
      std::printf(
          "membership %s: %d -> %d ranks at step %lld\n",
          info.reason == rt::ResetReason::kRecovered ? "repaired after a failure" : "changed",
          info.previous_size, info.size, static_cast<long long>(info.step));
      std::fflush(stdout);
    }
    epoch_loss = epoch_seen = 0;
    return absl::OkStatus();
  };
  cb.on_epoch_end = [&](std::uint64_t epoch, coll::Communicator& comm) -> absl::Status {
    if (absl::Status st = set_rate(comm.size(), epoch + 1); !st.ok()) return st;
    absl::StatusOr<double> acc = test_accuracy(model, *test, comm);
    if (!acc.ok()) return acc.status();
    if (comm.rank() == 0) {
      const double secs =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      std::printf(
          "epoch %llu: train loss %.4f (rank 0), test acc %.4f, %.0f samples/s over %d ranks\n",
          static_cast<unsigned long long>(epoch), epoch_loss / std::max(epoch_seen, 1.0), *acc,
          static_cast<double>(samples) / secs, comm.size());
      std::fflush(stdout);
    }
    epoch_loss = epoch_seen = 0;
    return absl::OkStatus();
  };

  rt::RunOptions opts;
  opts.epochs = epochs;
  opts.commit_every = commit_every;
  opts.checkpoint_path = checkpoint;
  opts.checkpoint_every_commits = 20;
  absl::StatusOr<rt::RunResult> result = rt::run(session, state, sampler, step, opts, cb);
  if (!result.ok()) fail(4, result.status().ToString());
  if (result->outcome == rt::Outcome::kLeft) session.exit(0);
  absl::StatusOr<double> acc = test_accuracy(model, *test, *result->comm);
  if (!acc.ok()) fail(4, acc.status().ToString());
  const bool completed = sampler.epoch() >= epochs;
  if (result->comm->rank() == 0) {
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf(
        "%s test accuracy %.4f after %lld steps, %.0f s (%d recoveries, %d membership changes)\n",
        completed ? "final" : "stopped by the runtime before the last epoch:", *acc,
        static_cast<long long>(result->steps), secs, result->recoveries, result->changes);
    std::fflush(stdout);
  }
  result->comm.reset();
  session.exit(!completed || *acc >= target ? 0 : 1);
}
