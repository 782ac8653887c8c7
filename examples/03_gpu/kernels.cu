#include "kernels.h"

namespace elastic::examples::kernels {
namespace {

constexpr unsigned kThreads = 256;

unsigned blocks_for(std::size_t count) {
  const std::size_t b = (count + kThreads - 1) / kThreads;
  return static_cast<unsigned>(b < 65535 * 16 ? b
                                              : 65535 * 16);  // grid-stride loops cover the rest
}

__global__ void gather_kernel(const float* images, const std::uint8_t* labels,
                              const std::uint64_t* ids, std::size_t n, std::size_t features,
                              float* x, std::uint8_t* y) {
  const std::size_t total = n * features;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < total;
       i += std::size_t{gridDim.x} * blockDim.x) {
    const std::size_t k = i / features, f = i % features;
    x[i] = images[ids[k] * features + f];
    if (f == 0) y[k] = labels[ids[k]];
  }
}

__global__ void bias_relu_kernel(float* h, const float* b, std::size_t rows, std::size_t total) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < total;
       i += std::size_t{gridDim.x} * blockDim.x) {
    h[i] = fmaxf(h[i] + b[i % rows], 0.0f);
  }
}

// One thread per sample: the class count is small (10), so a per-thread loop beats a reduction.
__global__ void softmax_xent_kernel(const float* logits, const float* b, const std::uint8_t* y,
                                    std::size_t classes, std::size_t n, float* dlogits,
                                    float* stats) {
  const std::size_t k = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (k >= n) return;
  const float* z = logits + k * classes;
  std::size_t arg = 0;
  float mx = z[0] + b[0];
  for (std::size_t c = 1; c < classes; ++c) {
    const float v = z[c] + b[c];
    if (v > mx) mx = v, arg = c;
  }
  float sum = 0.0f;
  for (std::size_t c = 0; c < classes; ++c) sum += expf(z[c] + b[c] - mx);
  const std::size_t label = y[k];
  const float p_label = expf(z[label] + b[label] - mx) / sum;
  if (stats != nullptr) {
    atomicAdd(&stats[0], -logf(fmaxf(p_label, 1e-12f)));
    if (arg == label) atomicAdd(&stats[1], 1.0f);
  }
  if (dlogits != nullptr) {
    for (std::size_t c = 0; c < classes; ++c) {
      dlogits[k * classes + c] = expf(z[c] + b[c] - mx) / sum - (c == label ? 1.0f : 0.0f);
    }
  }
}

__global__ void relu_backward_kernel(float* dh, const float* h, std::size_t count) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < count;
       i += std::size_t{gridDim.x} * blockDim.x) {
    if (h[i] <= 0.0f) dh[i] = 0.0f;
  }
}

__global__ void sgd_kernel(float* p, float* m, const float* g, std::size_t count, float lr,
                           float mu, float scale) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < count;
       i += std::size_t{gridDim.x} * blockDim.x) {
    m[i] = mu * m[i] + g[i] * scale;
    p[i] -= lr * m[i];
  }
}

}  // namespace

cudaError_t gather(const float* images, const std::uint8_t* labels, const std::uint64_t* ids,
                   std::size_t n, std::size_t features, float* x, std::uint8_t* y,
                   cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  gather_kernel<<<blocks_for(n * features), kThreads, 0, stream>>>(images, labels, ids, n, features,
                                                                   x, y);
  return cudaGetLastError();
}

cudaError_t bias_relu(float* h, const float* b, std::size_t rows, std::size_t n,
                      cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  bias_relu_kernel<<<blocks_for(rows * n), kThreads, 0, stream>>>(h, b, rows, rows * n);
  return cudaGetLastError();
}

cudaError_t softmax_xent(const float* logits, const float* b, const std::uint8_t* y,
                         std::size_t classes, std::size_t n, float* dlogits, float* stats,
                         cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  softmax_xent_kernel<<<blocks_for(n), kThreads, 0, stream>>>(logits, b, y, classes, n, dlogits,
                                                              stats);
  return cudaGetLastError();
}

cudaError_t relu_backward(float* dh, const float* h, std::size_t count, cudaStream_t stream) {
  if (count == 0) return cudaSuccess;
  relu_backward_kernel<<<blocks_for(count), kThreads, 0, stream>>>(dh, h, count);
  return cudaGetLastError();
}

cudaError_t sgd_momentum(float* p, float* m, const float* g, std::size_t count, float lr, float mu,
                         float scale, cudaStream_t stream) {
  if (count == 0) return cudaSuccess;
  sgd_kernel<<<blocks_for(count), kThreads, 0, stream>>>(p, m, g, count, lr, mu, scale);
  return cudaGetLastError();
}

}  // namespace elastic::examples::kernels
