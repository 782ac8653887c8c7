// RAII for the NCCL communicator, the CUDA stream and device buffers. A communicator is ABORTED,
// not destroyed, unless it is known healthy: ncclCommDestroy may block on peers that are gone
// (c10d made the same change). Destructors never throw and never wait for peers.
#pragma once

#include <cuda_runtime.h>
#include <nccl.h>

#include <cstddef>
#include <utility>

namespace elastic::coll::nccl {

class CommHandle {
 public:
  CommHandle() = default;
  explicit CommHandle(ncclComm_t c) : comm_(c) {}
  CommHandle(const CommHandle&) = delete;
  CommHandle& operator=(const CommHandle&) = delete;
  CommHandle(CommHandle&& o) noexcept
      : comm_(std::exchange(o.comm_, nullptr)), healthy_(o.healthy_) {}
  CommHandle& operator=(CommHandle&& o) noexcept {
    if (this != &o) {
      reset();
      comm_ = std::exchange(o.comm_, nullptr);
      healthy_ = o.healthy_;
    }
    return *this;
  }
  ~CommHandle() { reset(); }
  ncclComm_t get() const { return comm_; }
  void mark_unhealthy() { healthy_ = false; }
  // Aborts now (local, non-blocking) and forgets the communicator.
  void abort() {
    if (comm_ != nullptr) ncclCommAbort(comm_);
    comm_ = nullptr;
  }
  void reset() {
    if (comm_ == nullptr) return;
    if (healthy_) {
      ncclCommDestroy(comm_);
    } else {
      ncclCommAbort(comm_);
    }
    comm_ = nullptr;
  }

 private:
  ncclComm_t comm_ = nullptr;
  bool healthy_ = true;
};

class StreamHandle {
 public:
  StreamHandle() = default;
  explicit StreamHandle(cudaStream_t s) : s_(s) {}
  StreamHandle(const StreamHandle&) = delete;
  StreamHandle& operator=(const StreamHandle&) = delete;
  StreamHandle(StreamHandle&& o) noexcept : s_(std::exchange(o.s_, nullptr)) {}
  StreamHandle& operator=(StreamHandle&& o) noexcept {
    if (this != &o) {
      if (s_ != nullptr) cudaStreamDestroy(s_);
      s_ = std::exchange(o.s_, nullptr);
    }
    return *this;
  }
  ~StreamHandle() {
    if (s_ != nullptr) cudaStreamDestroy(s_);
  }
  cudaStream_t get() const { return s_; }

 private:
  cudaStream_t s_ = nullptr;
};

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept
      : p_(std::exchange(o.p_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      release();
      p_ = std::exchange(o.p_, nullptr);
      bytes_ = std::exchange(o.bytes_, 0);
    }
    return *this;
  }
  ~DeviceBuffer() { release(); }
  // Grows (never shrinks) to at least `bytes`; old contents are not kept.
  cudaError_t reserve(std::size_t bytes) {
    if (bytes <= bytes_) return cudaSuccess;
    release();
    const cudaError_t rc = cudaMalloc(&p_, bytes);
    if (rc == cudaSuccess) bytes_ = bytes;
    return rc;
  }
  std::byte* data() const { return static_cast<std::byte*>(p_); }

 private:
  void release() {
    if (p_ != nullptr) cudaFree(p_);
    p_ = nullptr;
    bytes_ = 0;
  }
  void* p_ = nullptr;
  std::size_t bytes_ = 0;
};

}  // namespace elastic::coll::nccl
