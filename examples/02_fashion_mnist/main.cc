// Example 02: Fashion-MNIST, data-parallel and elastic with libelastic. The Session joins the job
// (standalone under plain `mpirun -n K`, or as a job of elasticd), State holds the model and the
// optimizer, and elastic::rt::run drives the steps: it shards each epoch with the Sampler, commits
// every few steps, and handles grow, shrink and rank failures (roll back, re-shard, go on). The step
// below is the whole training-specific part: one allreduce sums gradients, loss and accuracy.
// The options, progress lines and exit codes it shares with examples 03 and 04 are in
// examples/common.
//
//   mpirun -n 2 fashion_mnist --epochs 5 --target-accuracy 0.85
//   mpirun --with-ft ulfm -n 4 fashion_mnist ...   (survives ranks being killed)
#include <CLI/CLI.hpp>
#include <memory>
#include <string>

#include "elastic/cli/number_checks.h"
#include "elastic/worker/run.h"
#include "idx_reader.h"
#include "mlp.h"
#include "training_flags.h"
#include "training_run.h"

namespace ex = elastic::examples;
namespace coll = elastic::coll;
namespace rt = elastic::rt;

namespace {

// Test accuracy, each rank evaluating a slice and one allreduce of the counts. COLLECTIVE.
absl::StatusOr<double> test_accuracy(const ex::Mlp& model, const ex::Dataset& test,
                                     coll::Communicator& comm) {
  double correct = 0, seen = 0;
  for (std::size_t i = static_cast<std::size_t>(comm.rank()); i < test.count;
       i += static_cast<std::size_t>(comm.size())) {
    correct += model.predict(&test.images[i * test.features]) == test.labels[i] ? 1 : 0;
    seen += 1;
  }
  return ex::accuracy_over_ranks(comm, correct, seen);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Fashion-MNIST MLP, data-parallel and elastic with libelastic"};
  app.option_defaults()->always_capture_default();
  std::size_t hidden = 128;
  const float momentum = 0.9f;
  ex::TrainingFlags flags;
  flags.batch = 32;
  app.add_option("--hidden", hidden, "hidden units")->check(elastic::cli::positive());
  flags.add_to(app);
  ex::parse_or_exit(app, argc, argv);

  const char* const program = "fashion_mnist";
  std::unique_ptr<rt::Session> session = ex::join_or_exit(program, &argc, &argv);
  absl::StatusOr<ex::TrainTest> data = ex::load_train_test(flags.data_dir);
  if (!data.ok()) ex::fail(*session, program, 2, data.status().ToString());
  const ex::Dataset& train = data->train;
  const ex::Dataset& test = data->test;

  ex::Mlp model(train.features, hidden, 10, flags.seed);
  rt::Sampler sampler(train.count, flags.batch, flags.seed, 0, 1);
  rt::State state;
  for (absl::Status st : {state.add_buffer("params", model.params()),
                          state.add_buffer("momentum", model.momentum())}) {
    if (!st.ok()) ex::fail(*session, program, 2, st.ToString());
  }

  std::vector<float> xb;
  std::vector<std::uint8_t> yb;
  // The gradient buffer gets two extra slots for the loss and the number correct: one allreduce.
  std::vector<float> reduce_buf(model.grads().size() + 2);
  ex::EpochMeter meter("ranks", /*local=*/false);
  float lr_now = 0;  // set when a membership starts and when an epoch ends (flags.rate)

  auto step = [&](const rt::StepContext& c) -> absl::Status {
    xb.resize(c.ids.size() * train.features);
    yb.resize(c.ids.size());
    for (std::size_t k = 0; k < c.ids.size(); ++k) {
      std::copy_n(&train.images[c.ids[k] * train.features], train.features,
                  &xb[k * train.features]);
      yb[k] = train.labels[c.ids[k]];
    }
    model.zero_grad();
    const auto [loss, correct] = model.accumulate(xb.data(), yb.data(), c.ids.size());
    std::copy(model.grads().begin(), model.grads().end(), reduce_buf.begin());
    reduce_buf[reduce_buf.size() - 2] = static_cast<float>(loss);
    reduce_buf[reduce_buf.size() - 1] = static_cast<float>(correct);
    if (absl::Status st = c.comm.allreduce(
            coll::Tensor{reduce_buf.data(), reduce_buf.size(), coll::DataType::kFloat32},
            coll::ReduceOp::kSum);
        !st.ok()) {
      return st;  // Aborted / DeadlineExceeded: the run loop repairs and redoes the step
    }
    std::copy_n(reduce_buf.begin(), model.grads().size(), model.grads().begin());
    const auto global = static_cast<float>(c.global_batch);
    model.sgd_step(lr_now, momentum, 1.0f / global);
    meter.add(reduce_buf[reduce_buf.size() - 2], reduce_buf[reduce_buf.size() - 1], global,
              c.global_batch);
    return absl::OkStatus();
  };

  rt::RunCallbacks cb;
  cb.on_reset = [&](const rt::ResetInfo& info) -> absl::Status {
    // The step divides the summed gradient by the global batch, so a membership change changes the
    // batch size. With --lr-ranks the rate follows it (linear scaling rule): each epoch then moves
    // the weights about as far at any size, and the accuracy depends less on the rescale schedule.
    // The epoch is the committed one the membership starts in (--lr-decay).
    lr_now = static_cast<float>(flags.rate(info.size, sampler.epoch()));
    ex::print_reset(info);
    meter.restart_epoch();  // statistics of rolled-back steps are dropped
    return absl::OkStatus();
  };
  const ex::Accuracy accuracy = [&](coll::Communicator& comm) {
    return test_accuracy(model, test, comm);
  };
  cb.on_epoch_end = [&](std::uint64_t epoch, coll::Communicator& comm) {
    lr_now = static_cast<float>(flags.rate(comm.size(), epoch + 1));
    return meter.end_epoch(epoch, comm, accuracy);
  };

  absl::StatusOr<rt::RunResult> result =
      rt::run(*session, state, sampler, step, flags.run_options(), cb);
  ex::finish(*session, program, result, flags, sampler.epoch(), accuracy, meter);
}
