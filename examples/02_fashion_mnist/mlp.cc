#include "mlp.h"

#include <algorithm>
#include <cmath>
#include <random>

namespace elastic::examples {

Mlp::Mlp(std::size_t inputs, std::size_t hidden, std::size_t classes, std::uint64_t seed)
    : in_(inputs), hid_(hidden), out_(classes) {
  // Layout: W1 [in][hid], b1 [hid], W2 [hid][out], b2 [out] (input-major so the inner loops are
  // contiguous axpys that the compiler vectorises).
  w1_ = 0;
  b1_ = w1_ + in_ * hid_;
  w2_ = b1_ + hid_;
  b2_ = w2_ + hid_ * out_;
  params_.assign(b2_ + out_, 0.0f);
  grads_.assign(params_.size(), 0.0f);
  momentum_.assign(params_.size(), 0.0f);
  h_.resize(hid_);
  p_.resize(out_);
  dh_.resize(hid_);
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> n1(0.0f, std::sqrt(2.0f / static_cast<float>(in_)));
  std::normal_distribution<float> n2(0.0f, std::sqrt(2.0f / static_cast<float>(hid_)));
  for (std::size_t i = 0; i < in_ * hid_; ++i) params_[w1_ + i] = n1(rng);
  for (std::size_t i = 0; i < hid_ * out_; ++i) params_[w2_ + i] = n2(rng);
}

void Mlp::forward(const float* x, float* h, float* logits) const {
  const float* w1 = &params_[w1_];
  std::copy_n(&params_[b1_], hid_, h);
  for (std::size_t i = 0; i < in_; ++i) {
    const float xi = x[i];
    if (xi == 0.0f) continue;  // about half of the pixels are background
    const float* row = w1 + i * hid_;
    for (std::size_t j = 0; j < hid_; ++j) h[j] += xi * row[j];
  }
  for (std::size_t j = 0; j < hid_; ++j) h[j] = std::max(h[j], 0.0f);
  std::copy_n(&params_[b2_], out_, logits);
  for (std::size_t j = 0; j < hid_; ++j) {
    if (h[j] == 0.0f) continue;
    const float* row = &params_[w2_ + j * out_];
    for (std::size_t k = 0; k < out_; ++k) logits[k] += h[j] * row[k];
  }
}

void Mlp::zero_grad() { std::fill(grads_.begin(), grads_.end(), 0.0f); }

std::pair<double, std::size_t> Mlp::accumulate(const float* x, const std::uint8_t* y,
                                               std::size_t n) {
  double loss = 0;
  std::size_t correct = 0;
  for (std::size_t s = 0; s < n; ++s) {
    const float* xs = x + s * in_;
    forward(xs, h_.data(), p_.data());
    const float mx = *std::max_element(p_.begin(), p_.end());
    if (static_cast<std::size_t>(std::max_element(p_.begin(), p_.end()) - p_.begin()) == y[s])
      ++correct;
    float z = 0;
    for (float& v : p_) z += (v = std::exp(v - mx));
    for (float& v : p_) v /= z;
    loss -= std::log(std::max(p_[y[s]], 1e-12f));
    p_[y[s]] -= 1.0f;  // dL/dlogits
    // Output layer.
    for (std::size_t k = 0; k < out_; ++k) grads_[b2_ + k] += p_[k];
    for (std::size_t j = 0; j < hid_; ++j) {
      float acc = 0;
      const float* w2row = &params_[w2_ + j * out_];
      float* g2row = &grads_[w2_ + j * out_];
      for (std::size_t k = 0; k < out_; ++k) {
        g2row[k] += h_[j] * p_[k];
        acc += w2row[k] * p_[k];
      }
      dh_[j] = h_[j] > 0.0f ? acc : 0.0f;
    }
    // Hidden layer.
    for (std::size_t j = 0; j < hid_; ++j) grads_[b1_ + j] += dh_[j];
    for (std::size_t i = 0; i < in_; ++i) {
      const float xi = xs[i];
      if (xi == 0.0f) continue;
      float* g1row = &grads_[w1_ + i * hid_];
      for (std::size_t j = 0; j < hid_; ++j) g1row[j] += xi * dh_[j];
    }
  }
  return {loss, correct};
}

void Mlp::sgd_step(float lr, float momentum, float scale) {
  for (std::size_t i = 0; i < params_.size(); ++i) {
    momentum_[i] = momentum * momentum_[i] + grads_[i] * scale;
    params_[i] -= lr * momentum_[i];
  }
}

std::uint8_t Mlp::predict(const float* x) const {
  std::vector<float> h(hid_), logits(out_);
  forward(x, h.data(), logits.data());
  return static_cast<std::uint8_t>(std::max_element(logits.begin(), logits.end()) - logits.begin());
}

}  // namespace elastic::examples
