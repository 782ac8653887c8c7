#include "gpu_mlp.h"

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gpu_check.h"
#include "kernels.h"

namespace elastic::examples {
namespace {

int as_int(std::size_t v) { return static_cast<int>(v); }

}  // namespace

absl::StatusOr<DeviceDataset> upload(const Dataset& d) {
  DeviceDataset out;
  out.count = d.count;
  out.features = d.features;
  EX_CUDA_CHECK(out.images.allocate(d.images.size()));
  EX_CUDA_CHECK(out.labels.allocate(d.labels.size()));
  EX_CUDA_CHECK(
      cudaMemcpy(out.images.data(), d.images.data(), out.images.bytes(), cudaMemcpyHostToDevice));
  EX_CUDA_CHECK(
      cudaMemcpy(out.labels.data(), d.labels.data(), out.labels.bytes(), cudaMemcpyHostToDevice));
  // A pageable cudaMemcpy may return before its DMA lands; the model's non-blocking stream must
  // not overtake it.
  EX_CUDA_CHECK(cudaDeviceSynchronize());
  return out;
}

absl::StatusOr<std::unique_ptr<GpuMlp>> GpuMlp::create(std::size_t inputs, std::size_t hidden,
                                                       std::size_t classes,
                                                       std::span<const float> init,
                                                       std::size_t max_batch) {
  std::unique_ptr<GpuMlp> m(new GpuMlp());
  m->in_ = inputs, m->hid_ = hidden, m->out_ = classes,
  m->max_batch_ = std::max<std::size_t>(max_batch, 1);
  m->w1_ = 0;
  m->b1_ = m->w1_ + inputs * hidden;
  m->w2_ = m->b1_ + hidden;
  m->b2_ = m->w2_ + hidden * classes;
  const std::size_t p = m->b2_ + classes;
  if (init.size() != p) {
    return absl::InvalidArgumentError(
        absl::StrCat("GpuMlp: ", init.size(), " initial parameters, expected ", p));
  }
  EX_CUDA_CHECK(m->stream_.create());
  EX_CUBLAS_CHECK(m->blas_.create());
  EX_CUBLAS_CHECK(cublasSetStream(m->blas_.get(), m->stream_.get()));
  const std::size_t b = m->max_batch_;
  EX_CUDA_CHECK(m->params_.allocate(p));
  EX_CUDA_CHECK(m->grads_.allocate(p + 2));
  EX_CUDA_CHECK(m->momentum_.allocate(p));
  EX_CUDA_CHECK(m->x_.allocate(inputs * b));
  EX_CUDA_CHECK(m->h_.allocate(hidden * b));
  EX_CUDA_CHECK(m->logits_.allocate(classes * b));
  EX_CUDA_CHECK(m->dh_.allocate(hidden * b));
  EX_CUDA_CHECK(m->ones_.allocate(b));
  EX_CUDA_CHECK(m->eval_stats_.allocate(2));
  EX_CUDA_CHECK(m->y_.allocate(b));
  EX_CUDA_CHECK(m->ids_.allocate(b));
  EX_CUDA_CHECK(m->ids_host_.allocate(b));
  EX_CUDA_CHECK(m->stats_host_.allocate(2));
  const std::vector<float> ones(b, 1.0f);
  EX_CUDA_CHECK(cudaMemcpy(m->ones_.data(), ones.data(), m->ones_.bytes(), cudaMemcpyHostToDevice));
  EX_CUDA_CHECK(
      cudaMemcpy(m->params_.data(), init.data(), m->params_.bytes(), cudaMemcpyHostToDevice));
  EX_CUDA_CHECK(cudaMemset(m->momentum_.data(), 0, m->momentum_.bytes()));
  EX_CUDA_CHECK(cudaMemset(m->grads_.data(), 0, m->grads_.bytes()));
  EX_CUDA_CHECK(cudaDeviceSynchronize());  // as in upload(): before the non-blocking stream runs
  return m;
}

// x_ <- the samples, h_ <- relu(W1 x + b1), logits_ <- W2 h (b2 is added by the softmax kernel).
absl::Status GpuMlp::forward(const DeviceDataset& data, std::span<const std::uint64_t> ids) {
  const std::size_t n = ids.size();
  if (n > max_batch_)
    return absl::InvalidArgumentError(absl::StrCat("GpuMlp: batch ", n, " > max ", max_batch_));
  // The gather kernel reads in_ floats per sample: a dataset of smaller images would be overread.
  if (data.features != in_) {
    return absl::InvalidArgumentError(absl::StrCat("GpuMlp: samples of ", data.features,
                                                   " features for a model of ", in_, " inputs"));
  }
  for (const std::uint64_t id : ids) {
    if (id >= data.count)
      return absl::OutOfRangeError(absl::StrCat("GpuMlp: sample ", id, " >= ", data.count));
  }
  // The pinned staging buffer may still feed the previous chunk's copy.
  EX_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
  std::copy(ids.begin(), ids.end(), ids_host_.data());
  EX_CUDA_CHECK(cudaMemcpyAsync(ids_.data(), ids_host_.data(), n * sizeof(std::uint64_t),
                                cudaMemcpyHostToDevice, stream_.get()));
  EX_CUDA_CHECK(kernels::gather(data.images.data(), data.labels.data(), ids_.data(), n, in_,
                                x_.data(), y_.data(), stream_.get()));
  const float one = 1.0f, zero = 0.0f;
  const float* p = params_.data();
  // Column-major views: W1 is hid x in, X is in x n, H is hid x n, W2 is out x hid, logits out x n.
  EX_CUBLAS_CHECK(cublasSgemm(blas_.get(), CUBLAS_OP_N, CUBLAS_OP_N, as_int(hid_), as_int(n),
                              as_int(in_), &one, p + w1_, as_int(hid_), x_.data(), as_int(in_),
                              &zero, h_.data(), as_int(hid_)));
  EX_CUDA_CHECK(kernels::bias_relu(h_.data(), p + b1_, hid_, n, stream_.get()));
  EX_CUBLAS_CHECK(cublasSgemm(blas_.get(), CUBLAS_OP_N, CUBLAS_OP_N, as_int(out_), as_int(n),
                              as_int(hid_), &one, p + w2_, as_int(out_), h_.data(), as_int(hid_),
                              &zero, logits_.data(), as_int(out_)));
  return absl::OkStatus();
}

absl::Status GpuMlp::compute_gradients(const DeviceDataset& data,
                                       std::span<const std::uint64_t> ids) {
  const std::size_t n = ids.size();
  if (n == 0) {
    EX_CUDA_CHECK(cudaMemsetAsync(grads_.data(), 0, grads_.bytes(), stream_.get()));
    return absl::OkStatus();
  }
  if (absl::Status st = forward(data, ids); !st.ok()) return st;
  const float one = 1.0f, zero = 0.0f;
  const float* p = params_.data();
  float* g = grads_.data();
  float* stats = g + param_count();
  EX_CUDA_CHECK(cudaMemsetAsync(stats, 0, 2 * sizeof(float), stream_.get()));
  // dL/dlogits overwrites the logits in place (each thread reads its column before writing it).
  EX_CUDA_CHECK(kernels::softmax_xent(logits_.data(), p + b2_, y_.data(), out_, n, logits_.data(),
                                      stats, stream_.get()));
  const float* dl = logits_.data();
  // gb2 = dL 1;  gW2 = dL H^T;  dH = W2^T dL, masked by the ReLU;  gb1 = dH 1;  gW1 = dH X^T.
  EX_CUBLAS_CHECK(cublasSgemv(blas_.get(), CUBLAS_OP_N, as_int(out_), as_int(n), &one, dl,
                              as_int(out_), ones_.data(), 1, &zero, g + b2_, 1));
  EX_CUBLAS_CHECK(cublasSgemm(blas_.get(), CUBLAS_OP_N, CUBLAS_OP_T, as_int(out_), as_int(hid_),
                              as_int(n), &one, dl, as_int(out_), h_.data(), as_int(hid_), &zero,
                              g + w2_, as_int(out_)));
  EX_CUBLAS_CHECK(cublasSgemm(blas_.get(), CUBLAS_OP_T, CUBLAS_OP_N, as_int(hid_), as_int(n),
                              as_int(out_), &one, p + w2_, as_int(out_), dl, as_int(out_), &zero,
                              dh_.data(), as_int(hid_)));
  EX_CUDA_CHECK(kernels::relu_backward(dh_.data(), h_.data(), hid_ * n, stream_.get()));
  EX_CUBLAS_CHECK(cublasSgemv(blas_.get(), CUBLAS_OP_N, as_int(hid_), as_int(n), &one, dh_.data(),
                              as_int(hid_), ones_.data(), 1, &zero, g + b1_, 1));
  EX_CUBLAS_CHECK(cublasSgemm(blas_.get(), CUBLAS_OP_N, CUBLAS_OP_T, as_int(hid_), as_int(in_),
                              as_int(n), &one, dh_.data(), as_int(hid_), x_.data(), as_int(in_),
                              &zero, g + w1_, as_int(hid_)));
  return absl::OkStatus();
}

absl::Status GpuMlp::sgd_step(float lr, float mu, float scale) {
  EX_CUDA_CHECK(kernels::sgd_momentum(params_.data(), momentum_.data(), grads_.data(),
                                      param_count(), lr, mu, scale, stream_.get()));
  return absl::OkStatus();
}

absl::StatusOr<std::size_t> GpuMlp::count_correct(const DeviceDataset& data, std::size_t begin,
                                                  std::size_t end) {
  EX_CUDA_CHECK(cudaMemsetAsync(eval_stats_.data(), 0, eval_stats_.bytes(), stream_.get()));
  std::vector<std::uint64_t> ids;
  for (std::size_t lo = begin; lo < end; lo += max_batch_) {
    const std::size_t hi = std::min(end, lo + max_batch_);
    ids.resize(hi - lo);
    for (std::size_t i = lo; i < hi; ++i) ids[i - lo] = i;
    if (absl::Status st = forward(data, ids); !st.ok()) return st;
    EX_CUDA_CHECK(kernels::softmax_xent(logits_.data(), params_.data() + b2_, y_.data(), out_,
                                        ids.size(), nullptr, eval_stats_.data(), stream_.get()));
  }
  EX_CUDA_CHECK(cudaMemcpyAsync(stats_host_.data(), eval_stats_.data(), eval_stats_.bytes(),
                                cudaMemcpyDeviceToHost, stream_.get()));
  EX_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
  return static_cast<std::size_t>(stats_host_.data()[1]);
}

absl::Status GpuMlp::download(float* params, float* momentum, float* stats) {
  EX_CUDA_CHECK(cudaMemcpyAsync(params, params_.data(), params_.bytes(), cudaMemcpyDeviceToHost,
                                stream_.get()));
  EX_CUDA_CHECK(cudaMemcpyAsync(momentum, momentum_.data(), momentum_.bytes(),
                                cudaMemcpyDeviceToHost, stream_.get()));
  if (stats != nullptr) {
    EX_CUDA_CHECK(cudaMemcpyAsync(stats, grads_.data() + param_count(), 2 * sizeof(float),
                                  cudaMemcpyDeviceToHost, stream_.get()));
  }
  return sync();
}

absl::Status GpuMlp::upload(const float* params, const float* momentum) {
  EX_CUDA_CHECK(cudaMemcpyAsync(params_.data(), params, params_.bytes(), cudaMemcpyHostToDevice,
                                stream_.get()));
  EX_CUDA_CHECK(cudaMemcpyAsync(momentum_.data(), momentum, momentum_.bytes(),
                                cudaMemcpyHostToDevice, stream_.get()));
  return sync();
}

absl::Status GpuMlp::sync() {
  EX_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
  return absl::OkStatus();
}

}  // namespace elastic::examples
