#include "training_run.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "fmt/core.h"

namespace elastic::examples {

std::unique_ptr<rt::Session> join_or_exit(const char* program, int* argc, char*** argv) {
  absl::StatusOr<std::unique_ptr<rt::Session>> session = rt::Session::init(argc, argv);
  if (!session.ok()) {
    std::fprintf(stderr, "%s: cannot join the job: %s\n", program,
                 session.status().ToString().c_str());
    std::exit(3);
  }
  return std::move(*session);
}

void fail(rt::Session& session, const char* program, int code, std::string_view what) {
  std::fprintf(stderr, "%s: %.*s\n", program, static_cast<int>(what.size()), what.data());
  session.exit(code);
}

void print_reset(const rt::ResetInfo& info) {
  if (info.rank != 0) return;
  if (info.reason == rt::ResetReason::kStart && info.step > 0) {
    std::printf("resumed from the checkpoint at step %lld on %d ranks\n",
                static_cast<long long>(info.step), info.size);
  } else if (info.reason != rt::ResetReason::kStart) {
    std::printf("membership %s: %d -> %d ranks at step %lld\n",
                info.reason == rt::ResetReason::kRecovered ? "repaired after a failure" : "changed",
                info.previous_size, info.size, static_cast<long long>(info.step));
  }
  std::fflush(stdout);
}

absl::StatusOr<double> accuracy_over_ranks(coll::Communicator& comm, double correct, double seen) {
  double counts[2] = {correct, seen};
  if (absl::Status st =
          comm.allreduce(coll::Tensor{counts, 2, coll::DataType::kFloat64}, coll::ReduceOp::kSum);
      !st.ok()) {
    return st;
  }
  return counts[0] / counts[1];
}

EpochMeter::EpochMeter(const char* unit, bool local) : unit_(unit), local_(local) {}

void EpochMeter::add(double loss, double correct, double seen, std::uint64_t global_batch) {
  loss_ += loss;
  correct_ += correct;
  seen_ += seen;
  samples_ += global_batch;
}

void EpochMeter::restart_epoch() { loss_ = correct_ = seen_ = 0; }

absl::Status EpochMeter::end_epoch(std::uint64_t epoch, coll::Communicator& comm,
                                   const Accuracy& accuracy) {
  absl::StatusOr<double> test = accuracy(comm);
  if (!test.ok()) return test.status();
  if (comm.rank() == 0) {
    const double seen = std::max(seen_, 1.0);
    std::printf(
        "epoch %llu: train loss %.4f, train acc %.4f%s, test acc %.4f, %.0f samples/s over %d "
        "%s\n",
        static_cast<unsigned long long>(epoch), loss_ / seen, correct_ / seen,
        local_ ? " (rank 0's samples)" : "", *test, static_cast<double>(samples_) / seconds(),
        comm.size(), unit_);
    std::fflush(stdout);
  }
  restart_epoch();
  return absl::OkStatus();
}

double EpochMeter::seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void finish(rt::Session& session, const char* program, absl::StatusOr<rt::RunResult>& run,
            const TrainingFlags& flags, std::uint64_t epochs_done, const Accuracy& measure,
            const EpochMeter& meter) {
  if (!run.ok()) fail(session, program, 4, run.status().ToString());
  if (run->outcome == rt::Outcome::kLeft) session.exit(0);
  rt::RunResult& result = *run;
  if (!result.comm) {  // stopped during a repair: no communicator left to evaluate over
    if (session.rank() == 0) {
      std::printf("stopped by the runtime during a repair after %lld steps; no final evaluation\n",
                  static_cast<long long>(result.steps));
    }
    session.exit(0);
  }
  const absl::StatusOr<double> measured = measure(*result.comm);
  if (!measured.ok()) fail(session, program, 4, measured.status().ToString());
  const double accuracy = *measured;
  const bool completed = epochs_done >= flags.epochs;
  // This process's share of the job: a job the runtime stopped and restarted ran in several.
  const std::string this_run =
      fmt::format("this run: {:.0f} s, {} recoveries, {} membership changes", meter.seconds(),
                  result.recoveries, result.changes);
  if (result.comm->rank() == 0 && completed) {
    std::printf("final test accuracy %.4f after %lld steps (%s)\n", accuracy,
                static_cast<long long>(result.steps), this_run.c_str());
  } else if (result.comm->rank() == 0) {
    std::printf(
        "stopped by the runtime in epoch %llu of %llu: test accuracy %.4f after %lld steps (%s); "
        "not a completed run, so no accuracy target applies\n",
        static_cast<unsigned long long>(epochs_done + 1),
        static_cast<unsigned long long>(flags.epochs), accuracy,
        static_cast<long long>(result.steps), this_run.c_str());
  }
  std::fflush(stdout);
  result.comm.reset();
  session.exit(!completed || accuracy >= flags.target_accuracy ? 0 : 1);
}

}  // namespace elastic::examples
