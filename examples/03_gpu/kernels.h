// The element-wise and per-sample kernels of the GPU MLP (everything that is not a GEMM). Matrices
// are column-major with one column per sample, as cuBLAS sees them: H is hidden x n, logits are
// classes x n. Each launcher enqueues on `stream` and returns the launch error (cudaGetLastError).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace elastic::examples::kernels {

// x[:, k] = images[ids[k], :] and y[k] = labels[ids[k]] for k < n (the batch gather).
cudaError_t gather(const float* images, const std::uint8_t* labels, const std::uint64_t* ids,
                   std::size_t n, std::size_t features, float* x, std::uint8_t* y,
                   cudaStream_t stream);

// h[j, k] = max(h[j, k] + b[j], 0) over a rows x n matrix.
cudaError_t bias_relu(float* h, const float* b, std::size_t rows, std::size_t n,
                      cudaStream_t stream);

// Per sample k: adds b to logits[:, k], and with `stats` = {loss, correct} adds the cross-entropy
// loss and 1 when argmax == y[k]; with `dlogits` non-null writes softmax - onehot(y[k]) there.
cudaError_t softmax_xent(const float* logits, const float* b, const std::uint8_t* y,
                         std::size_t classes, std::size_t n, float* dlogits, float* stats,
                         cudaStream_t stream);

// dh *= (h > 0), element-wise over `count` elements.
cudaError_t relu_backward(float* dh, const float* h, std::size_t count, cudaStream_t stream);

// SGD with momentum on the summed gradient: m = mu * m + g * scale; p -= lr * m.
cudaError_t sgd_momentum(float* p, float* m, const float* g, std::size_t count, float lr, float mu,
                         float scale, cudaStream_t stream);

}  // namespace elastic::examples::kernels
