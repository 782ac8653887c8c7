// Data-parallel gradients for a LibTorch model over the job's collectives: after backward every
// rank holds the same gradient, the average (or sum) over the ranks of the gradients each computed
// on its own batch. Parameters are fused into buckets (by dtype and device, in reverse
// registration order, about the order backward produces their gradients, as c10d's DDP does), and
// each bucket's allreduce is started from a tensor hook as soon as its last gradient is ready,
// before backward has computed the earlier layers' gradients.
//
//   auto reducer = elastic::libtorch::GradientReducer::create(model->parameters());   // once
//   step: (*reducer)->begin(ctx.comm);             // LOCAL: arm the hooks for this step
//         loss.backward();                       // buckets are allreduced from the hooks
//         (COLLECTIVE) absl::Status st = (*reducer)->finish(); // COLLECTIVE: the rest; .grad() =
//         the result if (!st.ok()) return st;               // Aborted / DeadlineExceeded: the run
//         loop repairs optimizer.step();
//
// Collectives: every rank must call begin/backward/finish in the same steps. Buckets are always
// reduced in bucket order (a bucket waits for the ones before it), so the sequence of allreduces
// is the same on every rank even when some parameters get no gradient on some ranks (unused
// layers, a rank with an empty batch at the end of an epoch that skips backward): such buckets
// are reduced by finish(), with zeros for the missing gradients.
// Blocking: the hooks block the autograd thread for their bucket's allreduce (the Communicator is
// blocking, and MPI is initialised FUNNELED standalone, so no helper thread may call it).
// Communication thus starts early, but does not yet run beside the remaining backward computation.
// Memory: CPU parameters with the MPI backend; CUDA parameters need a Communicator built with
// coll::Backend::kNccl (the reducer synchronises the device before each bucket's allreduce). The
// CUDA path compiles against a CUDA LibTorch but is NOT tested (no GPU in CI).
// Results: finish() REPLACES each parameter's .grad() with the reduced gradient of this step's
// backward (zero_grad() is therefore not needed; gradient accumulation over several backward
// calls in one step is not supported: a gradient that comes after its bucket was reduced makes
// finish() return FailedPrecondition, and a sparse gradient InvalidArgument, once every bucket
// was reduced as on the other ranks, without it; .grad() is then left as it is). Communication
// errors in a hook are kept and returned by finish(); later buckets are then not reduced (the
// communicator is broken anyway: sticky failure).
#pragma once

#include <torch/types.h>

#include <cstddef>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "elastic/collectives/communicator.h"

namespace elastic::libtorch {

enum class GradientOp {
  kAverage,  // sum over ranks / number of ranks: for a loss that is a mean over the local batch
  kSum,      // sum over ranks: for a loss already divided by the global batch (uneven batches)
};

struct GradientReducerOptions {
  // Bytes per bucket (a bigger parameter has a bucket of its own). Small enough that the first
  // bucket is ready early in backward, big enough to amortise a collective's latency.
  std::size_t bucket_bytes = std::size_t{4} << 20;
  GradientOp op = GradientOp::kAverage;
  coll::CallOptions call;  // the timeout applies to each bucket's allreduce
};

class GradientReducer {
 public:
  // LOCAL. Registers a hook on every parameter that requires a gradient (the others are left
  // alone). InvalidArgument naming the parameter when one is sparse, not contiguous or not
  // fp32/fp64/bf16/fp16, or when options.bucket_bytes is 0. The parameters must outlive the
  // reducer.
  static absl::StatusOr<std::unique_ptr<GradientReducer>> create(
      std::vector<::torch::Tensor> params, GradientReducerOptions options = {});
  // Removes the hooks.
  ~GradientReducer();
  GradientReducer(const GradientReducer&) = delete;
  GradientReducer& operator=(const GradientReducer&) = delete;
  GradientReducer(GradientReducer&&) = delete;  // the hooks refer to this object
  GradientReducer& operator=(GradientReducer&&) = delete;

  // LOCAL. Arms the hooks for one backward over `comm` (zeroes the buckets). FailedPrecondition
  // when the parameters' memory does not match comm.memory(). `comm` must outlive finish().
  absl::Status begin(coll::Communicator& comm);
  // COLLECTIVE over the Communicator given to begin(), blocking (each allreduce bounded by
  // options.call.timeout). Reduces the buckets backward left and writes every parameter's .grad().
  // Returns the first error of this step (a hook's or its own); FailedPrecondition without begin().
  absl::Status finish();

  std::size_t bucket_count() const { return buckets_.size(); }
  // Buckets whose allreduce was started from a hook during the last backward (the others by
  // finish()).
  std::size_t buckets_reduced_in_backward() const { return reduced_in_backward_; }

 private:
  struct Slot {
    ::torch::Tensor param;
    std::size_t index = 0;  // in create()'s list, for messages
    std::size_t bucket = 0;
    std::int64_t offset = 0;  // elements into the bucket
    unsigned hook = 0;
    bool ready = false;
  };
  struct Bucket {
    ::torch::Tensor flat;  // the fused gradients, dtype and device of its parameters
    std::size_t slots = 0;
    std::size_t pending = 0;
  };
  explicit GradientReducer(GradientReducerOptions options) : options_(options) {}
  void on_gradient(std::size_t slot, const ::torch::Tensor& grad);
  // Reduces buckets in order while the next one is complete (or all of them when `all`).
  void reduce_ready(bool all);

  GradientReducerOptions options_;
  std::vector<Slot> slots_;
  std::vector<Bucket> buckets_;
  coll::Communicator* comm_ = nullptr;  // non-null between begin() and finish()
  std::size_t next_bucket_ = 0;
  std::size_t reduced_in_backward_ = 0;
  absl::Status status_;   // the step's first communication error: later buckets are skipped
  absl::Status refused_;  // a gradient left out (sparse, or after its bucket): finish() says so
};

}  // namespace elastic::libtorch
