// Example 02's MLP (one ReLU hidden layer, softmax cross-entropy, SGD with momentum) on a GPU: the
// GEMMs run in cuBLAS, the rest in the small kernels of kernels.cu. Parameters, gradients and the
// momentum use the SAME flat layout as examples::Mlp (W1 [in][hid], b1, W2 [hid][out], b2), so the
// two are interchangeable and cross-checked by gpu_mlp_test. The gradient buffer has two extra
// slots after the gradients, {summed loss, number correct}, so that ONE allreduce of grads()
// combines the gradients and the step's statistics over the ranks.
//
// Every method enqueues on the model's own stream; sync() waits for it. Datasets live on the device
// (Fashion-MNIST is 190 MB as floats), so a step uploads only the sample ids.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gpu_buffer.h"
#include "idx_reader.h"

namespace elastic::examples {

struct DeviceDataset {
  std::size_t count = 0;
  std::size_t features = 0;
  DeviceArray<float> images;
  DeviceArray<std::uint8_t> labels;
};

// Copies a host dataset to the current device.
absl::StatusOr<DeviceDataset> upload(const Dataset& d);

class GpuMlp {
 public:
  // On the current device. `init` holds the initial parameters in examples::Mlp's layout (e.g.
  // Mlp(inputs, hidden, classes, seed).params()); momentum starts at 0. `max_batch` bounds the
  // samples of one compute_gradients / evaluate chunk.
  static absl::StatusOr<std::unique_ptr<GpuMlp>> create(std::size_t inputs, std::size_t hidden,
                                                        std::size_t classes,
                                                        std::span<const float> init,
                                                        std::size_t max_batch);

  std::size_t param_count() const { return params_.size(); }
  // param_count() gradients + {loss, correct}, on the device.
  float* grads() const { return grads_.data(); }
  std::size_t grad_count() const { return grads_.size(); }
  float* params() const { return params_.data(); }
  float* momentum() const { return momentum_.data(); }
  cudaStream_t stream() const { return stream_.get(); }

  // Overwrites grads() with the gradient of the SUMMED loss over samples `ids` of `data` (plus the
  // two statistics). Empty `ids` gives zeros (the rank still takes part in the allreduce).
  // ids.size() <= max_batch.
  absl::Status compute_gradients(const DeviceDataset& data, std::span<const std::uint64_t> ids);
  // SGD with momentum on grads() * scale (scale = 1 / global batch).
  absl::Status sgd_step(float lr, float mu, float scale);
  // Number of samples in [begin, end) of `data` classified correctly. Synchronises.
  absl::StatusOr<std::size_t> count_correct(const DeviceDataset& data, std::size_t begin,
                                            std::size_t end);

  // Host <-> device copies of parameters and momentum (param_count() floats each); synchronise.
  absl::Status download(float* params, float* momentum, float* stats /* 2 floats, may be null */);
  absl::Status upload(const float* params, const float* momentum);
  absl::Status sync();

 private:
  GpuMlp() = default;
  absl::Status forward(const DeviceDataset& data, std::span<const std::uint64_t> ids);

  std::size_t in_ = 0, hid_ = 0, out_ = 0, max_batch_ = 0;
  std::size_t w1_ = 0, b1_ = 0, w2_ = 0, b2_ = 0;  // offsets, as in examples::Mlp
  Stream stream_;
  Cublas blas_;
  DeviceArray<float> params_, grads_, momentum_;
  DeviceArray<float> x_, h_, logits_, dh_, ones_, eval_stats_;
  DeviceArray<std::uint8_t> y_;
  DeviceArray<std::uint64_t> ids_;
  PinnedArray<std::uint64_t> ids_host_;
  PinnedArray<float> stats_host_;
};

}  // namespace elastic::examples
