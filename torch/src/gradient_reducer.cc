// The bucketed gradient allreduce (gradient_reducer.h): buckets built once, filled by tensor hooks,
// reduced strictly in order.
#include "elastic/torch/gradient_reducer.h"

#include <torch/cuda.h>

#include "absl/strings/str_cat.h"
#include "elastic/torch/tensor_view.h"

namespace elastic::libtorch {

absl::StatusOr<std::unique_ptr<GradientReducer>> GradientReducer::create(
    std::vector<::torch::Tensor> params, GradientReducerOptions options) {
  if (options.bucket_bytes == 0)
    return absl::InvalidArgumentError("GradientReducer: bucket_bytes must be > 0");
  std::unique_ptr<GradientReducer> r(new GradientReducer(options));
  // Reverse registration order: backward produces the last layers' gradients first.
  std::vector<std::size_t> order;
  for (std::size_t i = params.size(); i-- > 0;) {
    const ::torch::Tensor& p = params[i];
    if (!p.defined() || !p.requires_grad()) continue;
    if (absl::StatusOr<coll::Tensor> v =
            coll_view(p, absl::StrCat("GradientReducer: parameter ", i));
        !v.ok()) {
      return v.status();
    }
    order.push_back(i);
  }
  // Bucket assignment: consecutive parameters of one dtype and device, up to bucket_bytes. Every
  // rank computes the same buckets from the same model.
  struct Open {
    ::torch::TensorOptions opts;
    std::size_t bucket;
    std::size_t bytes;
  };
  std::vector<Open> open;  // the bucket being filled per (dtype, device)
  std::vector<std::int64_t> sizes;
  std::vector<::torch::TensorOptions> bucket_opts;
  for (std::size_t i : order) {
    const ::torch::Tensor& p = params[i];
    const std::size_t bytes = p.nbytes();
    Open* o = nullptr;
    for (Open& c : open) {
      if (c.opts.dtype() == p.dtype() && c.opts.device() == p.device()) o = &c;
    }
    if (o == nullptr || o->bytes + bytes > options.bucket_bytes) {
      if (o == nullptr) o = &open.emplace_back(Open{p.options(), 0, 0});
      o->bucket = sizes.size();
      o->bytes = 0;
      sizes.push_back(0);
      bucket_opts.push_back(p.options().requires_grad(false));
    }
    r->slots_.push_back(Slot{p, i, o->bucket, sizes[o->bucket], 0, false});
    sizes[o->bucket] += p.numel();
    o->bytes += bytes;
  }
  for (std::size_t b = 0; b < sizes.size(); ++b) {
    r->buckets_.push_back(Bucket{::torch::zeros({sizes[b]}, bucket_opts[b]), 0, 0});
  }
  for (std::size_t s = 0; s < r->slots_.size(); ++s) {
    Slot& slot = r->slots_[s];
    ++r->buckets_[slot.bucket].slots;
    GradientReducer* self = r.get();
    slot.hook = slot.param.register_hook(
        [self, s](const ::torch::Tensor& grad) { self->on_gradient(s, grad); });
  }
  return r;
}

GradientReducer::~GradientReducer() {
  for (Slot& s : slots_) s.param.remove_hook(s.hook);
}

absl::Status GradientReducer::begin(coll::Communicator& comm) {
  for (const Bucket& b : buckets_) {
    if (memory_kind(b.flat) != comm.memory()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "GradientReducer: parameters on ", b.flat.device().str(),
          " but the communicator's backend is ", std::string(comm.backend_name()),
          ": build it with coll::Backend::kNccl for CUDA parameters, kMpi for CPU ones"));
    }
  }
  ::torch::NoGradGuard no_grad;
  for (Bucket& b : buckets_) {
    b.flat.zero_();
    b.pending = b.slots;
  }
  for (Slot& s : slots_) s.ready = false;
  comm_ = &comm;
  next_bucket_ = 0;
  reduced_in_backward_ = 0;
  status_ = absl::OkStatus();
  refused_ = absl::OkStatus();
  return absl::OkStatus();
}

void GradientReducer::on_gradient(std::size_t s, const ::torch::Tensor& grad) {
  if (comm_ == nullptr || !grad.defined()) return;  // not armed: a backward outside a training step
  Slot& slot = slots_[s];
  // A gradient the reducer cannot take is refused, not thrown (an exception would leave backward
  // in the middle of the graph), and left out: the buckets are still reduced, all of them and in
  // order as on every other rank, and finish() returns the refusal afterwards.
  if (grad.is_sparse() && refused_.ok()) {
    refused_ = absl::InvalidArgumentError(absl::StrCat(
        "GradientReducer: parameter ", slot.index,
        " (in the order given to create()) got a "
        "sparse gradient (an Embedding with sparse=true?): only dense gradients are reduced"));
  }
  if (slot.ready && slot.bucket < next_bucket_) {
    if (refused_.ok()) {
      refused_ = absl::FailedPreconditionError(absl::StrCat(
          "GradientReducer: a second gradient for parameter ", slot.index,
          " in one step, after "
          "its bucket was reduced: one backward per begin()/finish() (gradient accumulation over "
          "several backward calls is not supported)"));
    }
    return;
  }
  Bucket& b = buckets_[slot.bucket];
  if (!grad.is_sparse()) {
    ::torch::NoGradGuard no_grad;
    // add_, not copy_: a second gradient before its bucket is reduced (the same parameter used
    // twice in the graph) adds up as .grad() would.
    b.flat.narrow(0, slot.offset, slot.param.numel()).add_(grad.reshape({-1}));
  }
  if (slot.ready) return;
  slot.ready = true;
  --b.pending;
  const std::size_t before = next_bucket_;
  reduce_ready(false);
  reduced_in_backward_ += next_bucket_ - before;
}

void GradientReducer::reduce_ready(bool all) {
  while (next_bucket_ < buckets_.size() && (all || buckets_[next_bucket_].pending == 0)) {
    Bucket& b = buckets_[next_bucket_++];
    if (!status_.ok()) continue;  // sticky: the communicator is broken, every rank will repair
    if (b.flat.is_cuda()) ::torch::cuda::synchronize(b.flat.device().index());
    absl::StatusOr<coll::Tensor> v = coll_view(b.flat, "GradientReducer bucket");
    if (!v.ok()) {
      status_ = v.status();
      continue;
    }
    const coll::ReduceOp op =
        options_.op == GradientOp::kAverage ? coll::ReduceOp::kAverage : coll::ReduceOp::kSum;
    status_ = comm_->allreduce(*v, op, options_.call);
  }
}

absl::Status GradientReducer::finish() {
  if (comm_ == nullptr)
    return absl::FailedPreconditionError("GradientReducer::finish() without begin()");
  reduce_ready(true);
  comm_ = nullptr;
  if (!status_.ok()) return status_;
  if (!refused_.ok()) return refused_;  // every bucket was reduced: the ranks stay in step
  ::torch::NoGradGuard no_grad;
  for (Slot& s : slots_) {
    const ::torch::Tensor reduced =
        buckets_[s.bucket].flat.narrow(0, s.offset, s.param.numel()).view(s.param.sizes());
    ::torch::Tensor& grad = s.param.mutable_grad();
    if (grad.defined()) {
      grad.copy_(reduced);
    } else {
      grad = reduced.clone();
    }
  }
  return absl::OkStatus();
}

}  // namespace elastic::libtorch
