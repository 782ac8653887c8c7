// What the main of every training example (02-04) does around rt::run: join the job, give up with
// a message, report resets and epochs on rank 0, and end with the final accuracy and exit code.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string_view>

#include "absl/status/statusor.h"
#include "elastic/collectives/comm.h"
#include "elastic/worker/run.h"
#include "elastic/worker/session.h"
#include "training_flags.h"

namespace elastic::examples {

// Session::init; when it fails, prints "<program>: cannot join the job: ..." and exits 3.
std::unique_ptr<rt::Session> join_or_exit(const char* program, int* argc, char*** argv);

// Prints "<program>: <what>" and leaves the job with `code`.
[[noreturn]] void fail(rt::Session& session, const char* program, int code, std::string_view what);

// On rank 0: a resume from the durable checkpoint, or a membership change (grow, shrink, repair).
void print_reset(const rt::ResetInfo& info);

// The model's test accuracy over the ranks of `comm`. COLLECTIVE.
using Accuracy = std::function<absl::StatusOr<double>(coll::Communicator& comm)>;

// `correct` of `seen` test samples on this rank, summed over the ranks of `comm` by one allreduce:
// the test accuracy. COLLECTIVE.
absl::StatusOr<double> accuracy_over_ranks(coll::Communicator& comm, double correct, double seen);

// The training statistics of the current epoch, and samples/s since the start; rank 0 prints them
// at each epoch end.
class EpochMeter {
 public:
  // `unit`: what a rank is called ("ranks", "GPUs"). `local`: the statistics added are this rank's
  // share (rank 0 prints its own as an estimate); otherwise they are sums over all ranks.
  EpochMeter(const char* unit, bool local);
  // After a step: its summed loss and correct predictions over `seen` samples, and the step's
  // global batch.
  void add(double loss, double correct, double seen, std::uint64_t global_batch);
  // Drops the epoch's statistics: at an epoch end, and at a reset (rolled-back steps are dropped).
  void restart_epoch();
  // At the end of epoch `epoch` (RunCallbacks::on_epoch_end; COLLECTIVE, as `accuracy` is):
  // measures the test accuracy, prints "epoch E: train loss L, train acc A, test acc T, X
  // samples/s over N ranks" on rank 0, and starts the next epoch's statistics.
  absl::Status end_epoch(std::uint64_t epoch, coll::Communicator& comm, const Accuracy& accuracy);
  double seconds() const;

 private:
  const char* unit_;
  bool local_;
  double loss_ = 0, correct_ = 0, seen_ = 0;
  std::uint64_t samples_ = 0;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

// What every rank does with rt::run's result. An error: fail with 4. A rank that left (its node
// was released): exit 0. Otherwise every rank of the last membership measures the test accuracy,
// whatever it saw (a rank that joined after the last epoch end has no accuracy of its own, and
// when only some ranks measured, the others waited for ever in that collective: seen in the demo),
// and rank 0 prints it, or that the runtime stopped the job before its last epoch (`epochs_done`
// < flags.epochs; it resumes later from its checkpoint, and no target applies to it). Then the
// job is exited: 0, or 1 when a completed run is below --target-accuracy.
[[noreturn]] void finish(rt::Session& session, const char* program,
                         absl::StatusOr<rt::RunResult>& result, const TrainingFlags& flags,
                         std::uint64_t epochs_done, const Accuracy& accuracy,
                         const EpochMeter& meter);

}  // namespace elastic::examples
