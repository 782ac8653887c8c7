// RAII for the CUDA resources of example 03: device arrays, pinned host arrays (the host mirrors
// that elastic::rt::State registers, since State holds host memory only), a stream and a cuBLAS
// handle. Copy deleted, move noexcept; destructors never throw.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <span>
#include <utility>

namespace elastic::examples {

// cudaMalloc'ed (kDevice) or cudaMallocHost'ed (kPinned) array of T.
template <typename T, bool kPinned = false>
class CudaArray {
 public:
  CudaArray() = default;
  CudaArray(const CudaArray&) = delete;
  CudaArray& operator=(const CudaArray&) = delete;
  CudaArray(CudaArray&& o) noexcept
      : p_(std::exchange(o.p_, nullptr)), n_(std::exchange(o.n_, 0)) {}
  CudaArray& operator=(CudaArray&& o) noexcept {
    if (this != &o) {
      release();
      p_ = std::exchange(o.p_, nullptr);
      n_ = std::exchange(o.n_, 0);
    }
    return *this;
  }
  ~CudaArray() { release(); }

  // Replaces the contents with `n` uninitialised elements.
  cudaError_t allocate(std::size_t n) {
    release();
    if (n == 0) return cudaSuccess;
    void* p = nullptr;
    const cudaError_t rc =
        kPinned ? cudaMallocHost(&p, n * sizeof(T)) : cudaMalloc(&p, n * sizeof(T));
    if (rc == cudaSuccess) p_ = static_cast<T*>(p), n_ = n;
    return rc;
  }
  T* data() const { return p_; }
  std::size_t size() const { return n_; }
  std::size_t bytes() const { return n_ * sizeof(T); }
  std::span<T> span() const { return {p_, n_}; }

 private:
  void release() {
    if (p_ != nullptr) {
      if constexpr (kPinned) {
        cudaFreeHost(p_);
      } else {
        cudaFree(p_);
      }
    }
    p_ = nullptr;
    n_ = 0;
  }
  T* p_ = nullptr;
  std::size_t n_ = 0;
};

template <typename T>
using DeviceArray = CudaArray<T, false>;
template <typename T>
using PinnedArray = CudaArray<T, true>;

class Stream {
 public:
  Stream() = default;
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  Stream(Stream&& o) noexcept : s_(std::exchange(o.s_, nullptr)) {}
  Stream& operator=(Stream&& o) noexcept {
    if (this != &o) std::swap(s_, o.s_);
    return *this;
  }
  ~Stream() {
    if (s_ != nullptr) cudaStreamDestroy(s_);
  }
  cudaError_t create() { return cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking); }
  cudaStream_t get() const { return s_; }

 private:
  cudaStream_t s_ = nullptr;
};

class Cublas {
 public:
  Cublas() = default;
  Cublas(const Cublas&) = delete;
  Cublas& operator=(const Cublas&) = delete;
  Cublas(Cublas&& o) noexcept : h_(std::exchange(o.h_, nullptr)) {}
  Cublas& operator=(Cublas&& o) noexcept {
    if (this != &o) std::swap(h_, o.h_);
    return *this;
  }
  ~Cublas() {
    if (h_ != nullptr) cublasDestroy(h_);
  }
  cublasStatus_t create() { return cublasCreate(&h_); }
  cublasHandle_t get() const { return h_; }

 private:
  cublasHandle_t h_ = nullptr;
};

}  // namespace elastic::examples
