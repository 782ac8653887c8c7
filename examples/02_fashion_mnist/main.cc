// Example 02: Fashion-MNIST, data-parallel and elastic with libelastic. The Session joins the job
// (standalone under plain `mpirun -n K`, or as a job of elasticd), State holds the model and the
// optimizer, and elastic::rt::run drives the steps: it shards each epoch with the Sampler, commits
// every few steps, and handles grow, shrink and rank failures (roll back, re-shard, go on). The step
// below is the whole training-specific part: one allreduce sums gradients, loss and accuracy.
//
//   mpirun -n 2 fashion_mnist --epochs 5 --target-accuracy 0.85
//   mpirun --with-ft ulfm -n 4 fashion_mnist ...   (survives ranks being killed)
#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <string>

#include "elastic/cli/number_checks.h"
#include "elastic/worker/run.h"
#include "elastic/worker/session.h"
#include "idx_reader.h"
#include "mlp.h"

namespace ex = elastic::examples;
namespace coll = elastic::coll;
namespace rt = elastic::rt;

namespace {

// Test accuracy, each rank evaluating a slice and one allreduce of the counts. COLLECTIVE.
absl::StatusOr<double> test_accuracy(const ex::Mlp& model, const ex::Dataset& test,
                                     coll::Communicator& comm) {
  double counts[2] = {0, 0};
  for (std::size_t i = static_cast<std::size_t>(comm.rank()); i < test.count;
       i += static_cast<std::size_t>(comm.size())) {
    counts[0] += model.predict(&test.images[i * test.features]) == test.labels[i] ? 1 : 0;
    counts[1] += 1;
  }
  if (absl::Status st =
          comm.allreduce(coll::Tensor{counts, 2, coll::DataType::kFloat64}, coll::ReduceOp::kSum);
      !st.ok()) {
    return st;
  }
  return counts[0] / counts[1];
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Fashion-MNIST MLP, data-parallel and elastic with libelastic"};
  std::string data_dir = ex::kFashionMnistDir;
  std::string checkpoint;
  std::uint64_t epochs = 5, commit_every = 10;
  std::size_t hidden = 128, batch = 32;
  float lr = 0.01f, momentum = 0.9f;
  int lr_ranks = 0;
  double target = 0;
  std::uint64_t seed = 1;
  app.add_option("--data-dir", data_dir, "folder with the *-idx?-ubyte.gz files");
  app.add_option("--epochs", epochs, "epochs to train")->check(elastic::cli::positive());
  app.add_option("--hidden", hidden, "hidden units")->check(elastic::cli::positive());
  app.add_option("--batch", batch, "samples per rank per step")->check(elastic::cli::positive());
  app.add_option("--lr", lr, "learning rate");
  app.add_option("--lr-ranks", lr_ranks,
                 "the number of ranks --lr is meant for: the rate follows the job's size (linear "
                 "scaling rule, "
                 "lr x ranks / N); 0 keeps it constant")
      ->check(elastic::cli::non_negative());
  app.add_option("--seed", seed, "seed of the initialisation and the data order");
  app.add_option("--commit-every", commit_every, "steps between in-memory commits")
      ->check(elastic::cli::positive());
  app.add_option("--checkpoint", checkpoint,
                 "durable checkpoint path, resumed from when it exists (default under elasticd: "
                 "the job's folder in the "
                 "state dir)");
  app.add_option("--target-accuracy", target,
                 "exit 1 when training completes below this test accuracy (not when the runtime "
                 "stops the job)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }

  auto session_or = rt::Session::init(&argc, &argv);
  if (!session_or.ok()) {
    std::fprintf(stderr, "fashion_mnist: cannot join the job: %s\n",
                 session_or.status().ToString().c_str());
    return 3;
  }
  rt::Session& session = **session_or;
  auto fail = [&](int code, const std::string& what) {
    std::fprintf(stderr, "fashion_mnist: %s\n", what.c_str());
    session.exit(code);
  };

  auto train = ex::load_idx(data_dir, "train");
  if (!train.ok()) fail(2, train.status().ToString());
  auto test = ex::load_idx(data_dir, "t10k");
  if (!test.ok()) fail(2, test.status().ToString());

  ex::Mlp model(train->features, hidden, 10, seed);
  rt::Sampler sampler(train->count, batch, seed, 0, 1);
  rt::State state;
  for (absl::Status st : {state.add_buffer("params", model.params()),
                          state.add_buffer("momentum", model.momentum())}) {
    if (!st.ok()) fail(2, st.ToString());
  }

  std::vector<float> xb;
  std::vector<std::uint8_t> yb;
  // The gradient buffer gets two extra slots for the loss and the number correct: one allreduce.
  std::vector<float> reduce_buf(model.grads().size() + 2);
  double epoch_loss = 0, epoch_correct = 0, epoch_seen = 0;
  std::int64_t samples = 0;
  const auto t0 = std::chrono::steady_clock::now();
  float lr_now = lr;

  auto step = [&](const rt::StepContext& c) -> absl::Status {
    xb.resize(c.ids.size() * train->features);
    yb.resize(c.ids.size());
    for (std::size_t k = 0; k < c.ids.size(); ++k) {
      std::copy_n(&train->images[c.ids[k] * train->features], train->features,
                  &xb[k * train->features]);
      yb[k] = train->labels[c.ids[k]];
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
    epoch_loss += reduce_buf[reduce_buf.size() - 2];
    epoch_correct += reduce_buf[reduce_buf.size() - 1];
    epoch_seen += global;
    samples += static_cast<std::int64_t>(c.global_batch);
    return absl::OkStatus();
  };

  rt::RunCallbacks cb;
  cb.on_reset = [&](const rt::ResetInfo& info) -> absl::Status {
    // The step divides the summed gradient by the global batch, so a membership change changes the
    // batch size. With --lr-ranks the rate follows it (linear scaling rule): each epoch then moves
    // the weights about as far at any size, and the accuracy depends less on the rescale schedule.
    lr_now = lr_ranks > 0 ? lr * static_cast<float>(info.size) / static_cast<float>(lr_ranks) : lr;
    if (info.rank == 0 && info.reason == rt::ResetReason::kStart && info.step > 0) {
      std::printf("resumed from the checkpoint at step %lld on %d ranks\n",
                  static_cast<long long>(info.step), info.size);
      std::fflush(stdout);
    }
    if (info.rank == 0 && info.reason != rt::ResetReason::kStart) {
      std::printf(
          "membership %s: %d -> %d ranks at step %lld\n",
          info.reason == rt::ResetReason::kRecovered ? "repaired after a failure" : "changed",
          info.previous_size, info.size, static_cast<long long>(info.step));
      std::fflush(stdout);
    }
    epoch_loss = epoch_correct = epoch_seen = 0;  // statistics of rolled-back steps are dropped
    return absl::OkStatus();
  };
  cb.on_epoch_end = [&](std::uint64_t epoch, coll::Communicator& comm) -> absl::Status {
    absl::StatusOr<double> acc = test_accuracy(model, *test, comm);
    if (!acc.ok()) return acc.status();
    if (comm.rank() == 0) {
      const double secs =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      std::printf(
          "epoch %llu: train loss %.4f, train acc %.4f, test acc %.4f, %.0f samples/s over %d "
          "ranks\n",
          static_cast<unsigned long long>(epoch), epoch_loss / epoch_seen,
          epoch_correct / epoch_seen, *acc, static_cast<double>(samples) / secs, comm.size());
      std::fflush(stdout);
    }
    epoch_loss = epoch_correct = epoch_seen = 0;
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
  // Every rank of the last membership measures, whatever it saw: a rank that joined after the last
  // epoch end has no accuracy of its own, and skipping the collective on the others left it waiting
  // forever in this allreduce (seen in the demo: an orphan rank of a stopped job).
  absl::StatusOr<double> acc = test_accuracy(model, *test, *result->comm);
  if (!acc.ok()) fail(4, acc.status().ToString());
  const double final_acc = *acc;
  // The runtime may stop a job before its last epoch (its nodes were taken back; it resumes later
  // from the checkpoint). That is not a failed run: the target applies to a completed one only.
  const bool completed = sampler.epoch() >= epochs;
  if (result->comm->rank() == 0 && completed) {
    std::printf(
        "final test accuracy %.4f after %lld steps (%d recoveries, %d membership changes)\n",
        final_acc, static_cast<long long>(result->steps), result->recoveries, result->changes);
  } else if (result->comm->rank() == 0) {
    std::printf(
        "stopped by the runtime in epoch %llu of %llu: test accuracy %.4f after %lld steps (%d "
        "recoveries, %d "
        "membership changes); not a completed run, so no accuracy target applies\n",
        static_cast<unsigned long long>(sampler.epoch() + 1),
        static_cast<unsigned long long>(epochs), final_acc, static_cast<long long>(result->steps),
        result->recoveries, result->changes);
  }
  result->comm.reset();
  session.exit(!completed || final_acc >= target ? 0 : 1);
}
