// The training program of the rescale benchmark (run_bench.sh): the elastic run loop (run.h) over a
// model of --state-mb MB (synced to every new membership, as a real job's would be) with a small
// gradient allreduce per step. The same binary runs under elasticd's protocol (spawned by
// rescale_bench) and standalone under plain mpirun for the restart baseline, where rank 0 loads the
// durable checkpoint at start and prints "first_step <unix time>" after its first step. Under the
// runtime, rank 0 prints "resize OLD NEW STALL" after its first step at a new size: STALL is the
// time from the end of its last step at the old size to the end of that step (seconds, one step's
// own time included), i.e. how long the membership change held the training up.
//   rescale_trainer [--state-mb MB] [--steps N] [--step-us US] [--checkpoint FILE]
//                   [--warm-up-mb MB]   (SessionOptions::warm_up_max_bytes; 0: no warm-up)
#include <sys/time.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "elastic/cli/exit_code.h"
#include "elastic/cli/number_checks.h"
#include "elastic/worker/run.h"

namespace {

double unix_now() {
  timeval tv{};
  gettimeofday(&tv, nullptr);
  return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) * 1e-6;
}

}  // namespace

int main(int argc, char** argv) {
  double state_mb = 4;
  long steps = 1000000;
  long step_us = 1000;
  std::string checkpoint;
  double warm_up_mb = -1;  // the Session's default
  CLI::App app{"The training program of the rescale benchmark (run_bench.sh, rescale_bench)"};
  app.add_option("--state-mb", state_mb, "Model state (MB), synced to every new membership")
      ->check(elastic::cli::non_negative_megabytes())
      ->capture_default_str();
  app.add_option("--steps", steps, "Steps to train")
      ->check(elastic::cli::positive())
      ->capture_default_str();
  app.add_option("--step-us", step_us, "Sleep per step (microseconds)")
      ->check(elastic::cli::non_negative())
      ->capture_default_str();
  app.add_option("--checkpoint", checkpoint,
                 "Durable checkpoint: loaded at start by rank 0 when it exists (restart baseline)");
  app.add_option("--warm-up-mb", warm_up_mb,
                 "SessionOptions::warm_up_max_bytes in MB (0: no warm-up; default: the Session's)")
      ->check(elastic::cli::non_negative_megabytes());
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help is 0; CLI11's own codes (106, 109, ...) are not ours
    return app.exit(e) == 0 ? elastic::cli::kExitOk : elastic::cli::kExitBadInput;
  }
  // The model exists before Session::init, as the user guide says ("Before Session::init"): a
  // joining rank's init returns at the switch to the new membership.
  std::vector<float> model(static_cast<std::size_t>(state_mb * 1024 * 1024 / sizeof(float)), 1.0f);
  std::vector<float> grad(256, 0.0f);
  // The progress record is what the benchmark's controller times: send it every step.
  elastic::rt::SessionOptions so;
  so.progress_period = std::chrono::milliseconds(0);
  if (warm_up_mb >= 0) {
    so.warm_up_max_bytes = static_cast<std::uint64_t>(warm_up_mb * 1024 * 1024);
  }
  auto session = elastic::rt::Session::init(&argc, &argv, so);
  if (!session.ok()) {
    std::fprintf(stderr, "rescale_trainer: %s\n", std::string(session.status().message()).c_str());
    return 3;
  }
  elastic::rt::Session& s = **session;
  elastic::rt::State state;
  if (absl::Status st = state.add_buffer("model", model); !st.ok()) s.exit(2);
  // One sample per rank and step; the sampler materialises each epoch's permutation, so keep the
  // dataset small and run as many epochs as --steps needs.
  const std::uint64_t dataset = 1 << 16;
  elastic::rt::Sampler sampler(dataset, 1, 7, s.rank(), s.size());
  elastic::rt::RunOptions opts;
  opts.epochs = static_cast<std::uint64_t>(steps) * 16 / dataset + 1;
  opts.commit_every = 10;
  if (!checkpoint.empty()) {
    opts.checkpoint_path = checkpoint;
    opts.checkpoint_every_commits = 20;
  }
  bool first = true;
  int last_size = 0;
  double last_end = 0;
  auto step = [&](const elastic::rt::StepContext& c) -> absl::Status {
    for (float& g : grad) g = 1.0f;
    absl::Status st = c.comm.allreduce(
        elastic::coll::Tensor{grad.data(), grad.size(), elastic::coll::DataType::kFloat32},
        elastic::coll::ReduceOp::kSum);
    if (!st.ok()) return st;
    model[0] += grad[0] * 1e-6f;
    if (first && !s.under_runtime() && c.comm.rank() == 0) {
      std::printf("first_step %.6f\n", unix_now());
      std::fflush(stdout);
    }
    first = false;
    if (step_us > 0) usleep(static_cast<useconds_t>(step_us));
    const double end = unix_now();
    if (s.under_runtime() && c.comm.rank() == 0 && last_size != 0 && c.comm.size() != last_size) {
      std::printf("resize %d %d %.6f\n", last_size, c.comm.size(), end - last_end);
      std::fflush(stdout);
    }
    last_size = c.comm.size();
    last_end = end;
    return absl::OkStatus();
  };
  absl::StatusOr<elastic::rt::RunResult> r = elastic::rt::run(s, state, sampler, step, opts);
  if (!r.ok()) {
    std::fprintf(stderr, "rescale_trainer: %s\n", std::string(r.status().message()).c_str());
    s.exit(4);
  }
  s.exit(0);
}
