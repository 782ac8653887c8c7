// A one-hidden-layer perceptron (ReLU, softmax cross-entropy) in plain C++, with all parameters in
// ONE contiguous buffer and the gradients in another of the same layout, so that a data-parallel
// step needs a single allreduce and State registers one span.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace elastic::examples {

class Mlp {
 public:
  Mlp(std::size_t inputs, std::size_t hidden, std::size_t classes, std::uint64_t seed);

  std::span<float> params() { return params_; }
  std::span<float> grads() { return grads_; }
  std::span<float> momentum() { return momentum_; }

  // Adds the gradient of the SUMMED loss over `n` samples to grads() (call zero_grad() first) and
  // returns {summed loss, number correctly classified}.
  std::pair<double, std::size_t> accumulate(const float* x, const std::uint8_t* y, std::size_t n);
  void zero_grad();
  // SGD with momentum on grads() * scale (scale = 1 / global batch size).
  void sgd_step(float lr, float momentum, float scale);
  std::uint8_t predict(const float* x) const;

 private:
  std::size_t in_, hid_, out_;
  std::size_t w1_, b1_, w2_, b2_;  // offsets into params_/grads_
  std::vector<float> params_, grads_, momentum_;
  std::vector<float> h_, p_, dh_;  // per-sample scratch
  void forward(const float* x, float* h, float* logits) const;
};

}  // namespace elastic::examples
