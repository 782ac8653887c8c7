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
#include <memory>
#include <string>

#include "cnn.h"
#include "elastic/cli/number_checks.h"
#include "elastic/torch/batches.h"
#include "elastic/torch/gradient_reducer.h"
#include "elastic/torch/learning_rate.h"
#include "elastic/torch/state_registration.h"
#include "elastic/worker/run.h"
#include "fashion_mnist_data.h"
#include "training_flags.h"
#include "training_run.h"

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
  double correct = 0;
  for (std::int64_t i = begin; i < end; i += 1000) {
    const std::int64_t j = std::min(end, i + 1000);
    const ::torch::Tensor pred = model->forward(test.images().slice(0, i, j)).argmax(1);
    correct +=
        static_cast<double>(pred.eq(test.labels().slice(0, i, j)).sum().item<std::int64_t>());
  }
  model->train();
  return ex::accuracy_over_ranks(comm, correct, static_cast<double>(end - begin));
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Fashion-MNIST CNN in LibTorch, data-parallel and elastic with libelastic"};
  app.option_defaults()->always_capture_default();
  std::string optimizer_name = "adam";
  std::int64_t channels = 32;
  double momentum = 0.9;
  int threads = 1;
  ex::TrainingFlags flags;
  flags.lr = 1e-3;
  app.add_option("--channels", channels,
                 "channels of the first convolution (the second has twice as many)")
      ->check(elastic::cli::positive());
  app.add_option("--optimizer", optimizer_name, "adam or sgd (with --momentum)")
      ->check(CLI::IsMember({"adam", "sgd"}));
  app.add_option("--momentum", momentum, "SGD momentum");
  app.add_option("--threads", threads, "LibTorch threads per rank")
      ->check(elastic::cli::positive());
  flags.add_to(app);
  ex::parse_or_exit(app, argc, argv);

  const char* const program = "libtorch_fashion_mnist";
  std::unique_ptr<rt::Session> session = ex::join_or_exit(program, &argc, &argv);
  ::torch::set_num_threads(threads);
  auto train = ex::FashionMnist::load(flags.data_dir, "train");
  if (!train.ok()) ex::fail(*session, program, 2, train.status().ToString());
  auto test = ex::FashionMnist::load(flags.data_dir, "t10k");
  if (!test.ok()) ex::fail(*session, program, 2, test.status().ToString());

  // The same seed on every rank; a joining rank gets rank 0's state anyway.
  ::torch::manual_seed(flags.seed);
  ex::Cnn model(channels);
  std::unique_ptr<::torch::optim::Optimizer> optimizer;
  if (optimizer_name == "adam") {
    optimizer = std::make_unique<::torch::optim::Adam>(model->parameters(),
                                                       ::torch::optim::AdamOptions(flags.lr));
  } else {
    optimizer = std::make_unique<::torch::optim::SGD>(
        model->parameters(), ::torch::optim::SGDOptions(flags.lr).momentum(momentum));
  }
  rt::Sampler sampler(*train->size(), flags.batch, flags.seed, 0, 1);
  rt::State state;
  et::StateRegistration registration;
  for (absl::Status st :
       {registration.add_module(state, *model), registration.add_optimizer(state, *optimizer)}) {
    if (!st.ok()) ex::fail(*session, program, 2, st.ToString());
  }
  // The loss of a step is the sum over this rank's samples divided by the GLOBAL batch, and the
  // reducer sums: the gradient is then exactly the mean over the step's samples, also when the
  // last steps of an epoch give the ranks uneven (or empty) batches.
  et::GradientReducerOptions reduce_opts;
  reduce_opts.op = et::GradientOp::kSum;
  auto reducer = et::GradientReducer::create(model->parameters(), reduce_opts);
  if (!reducer.ok()) ex::fail(*session, program, 2, reducer.status().ToString());

  ex::EpochMeter meter("ranks", /*local=*/true);  // loss and accuracy of rank 0's samples
  auto step = [&](const rt::StepContext& c) -> absl::Status {
    if (absl::Status st = (*reducer)->begin(c.comm); !st.ok()) return st;
    double loss_sum = 0, correct = 0;
    if (!c.ids.empty()) {  // an empty batch still takes part in the allreduce (finish)
      auto batch_data = et::get_batch(*train, c.ids);
      const ::torch::Tensor out = model->forward(batch_data.data);
      ::torch::Tensor loss = ::torch::nn::functional::cross_entropy(
          out, batch_data.target,
          ::torch::nn::functional::CrossEntropyFuncOptions().reduction(::torch::kSum));
      loss_sum = loss.item<double>();
      correct = static_cast<double>(out.argmax(1).eq(batch_data.target).sum().item<std::int64_t>());
      (loss / static_cast<double>(c.global_batch)).backward();
    }
    if (absl::Status st = (*reducer)->finish(); !st.ok())
      return st;  // Aborted: the run loop repairs
    optimizer->step();
    meter.add(loss_sum, correct, static_cast<double>(c.ids.size()), c.global_batch);
    return absl::OkStatus();
  };

  auto set_rate = [&](int size, std::uint64_t epoch) {
    return et::set_learning_rate(*optimizer, flags.rate(size, epoch));
  };
  rt::RunCallbacks cb;
  cb.on_reset = [&](const rt::ResetInfo& info) -> absl::Status {
    if (absl::Status st = set_rate(info.size, sampler.epoch()); !st.ok()) return st;
    ex::print_reset(info);
    meter.restart_epoch();
    return absl::OkStatus();
  };
  const ex::Accuracy accuracy = [&](coll::Communicator& comm) {
    return test_accuracy(model, *test, comm);
  };
  cb.on_epoch_end = [&](std::uint64_t epoch, coll::Communicator& comm) -> absl::Status {
    if (absl::Status st = set_rate(comm.size(), epoch + 1); !st.ok()) return st;
    return meter.end_epoch(epoch, comm, accuracy);
  };

  absl::StatusOr<rt::RunResult> result =
      rt::run(*session, state, sampler, step, flags.run_options(), cb);
  ex::finish(*session, program, result, flags, sampler.epoch(), accuracy, meter);
}
