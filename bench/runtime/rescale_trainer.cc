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
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

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
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i];
    if (k == "--state-mb") state_mb = std::strtod(argv[i + 1], nullptr);
    if (k == "--steps") steps = std::strtol(argv[i + 1], nullptr, 10);
    if (k == "--step-us") step_us = std::strtol(argv[i + 1], nullptr, 10);
    if (k == "--checkpoint") checkpoint = argv[i + 1];
    if (k == "--warm-up-mb") warm_up_mb = std::strtod(argv[i + 1], nullptr);
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
