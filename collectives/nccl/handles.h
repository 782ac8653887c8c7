// RAII for the NCCL communicator, CUDA streams, events, device buffers and the current device.
// A communicator is always ABORTED, never destroyed: ncclCommDestroy without ncclCommFinalize waits
// for the other ranks on the host (an intra-node barrier), and ncclCommFinalize waits for global
// quiescence, so either can block on a peer that is gone or busy elsewhere (c10d moved to
// ncclCommAbort for the same reason). Nothing is lost: a communicator lives for one membership and
// is dropped only after its last collective completed on every rank (the membership change is
// agreed over MPI) or after a failure. Destructors never throw and never wait for peers.
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
  CommHandle(CommHandle&& o) noexcept : comm_(std::exchange(o.comm_, nullptr)) {}
  CommHandle& operator=(CommHandle&& o) noexcept {
    if (this != &o) {
      abort();
      comm_ = std::exchange(o.comm_, nullptr);
    }
    return *this;
  }
  ~CommHandle() { abort(); }
  ncclComm_t get() const { return comm_; }
  // Local and non-blocking for our non-blocking communicators (NCCL sets the abort flag, so kernels
  // in flight exit, and reclaims the resources on its own thread); forgets the communicator.
  void abort() {
    if (comm_ != nullptr) ncclCommAbort(comm_);
    comm_ = nullptr;
  }

 private:
  ncclComm_t comm_ = nullptr;
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
  // cudaStreamDestroy returns at once; work still queued finishes first.
  ~StreamHandle() {
    if (s_ != nullptr) cudaStreamDestroy(s_);
  }
  cudaStream_t get() const { return s_; }

 private:
  cudaStream_t s_ = nullptr;
};

class EventHandle {
 public:
  EventHandle() = default;
  explicit EventHandle(cudaEvent_t e) : e_(e) {}
  EventHandle(const EventHandle&) = delete;
  EventHandle& operator=(const EventHandle&) = delete;
  EventHandle(EventHandle&& o) noexcept : e_(std::exchange(o.e_, nullptr)) {}
  EventHandle& operator=(EventHandle&& o) noexcept {
    if (this != &o) {
      if (e_ != nullptr) cudaEventDestroy(e_);
      e_ = std::exchange(o.e_, nullptr);
    }
    return *this;
  }
  ~EventHandle() {
    if (e_ != nullptr) cudaEventDestroy(e_);
  }
  cudaEvent_t get() const { return e_; }

 private:
  cudaEvent_t e_ = nullptr;
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
  // Grows (never shrinks) to at least `bytes` on the current device; old contents are not kept.
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

// Makes `device` current for the guard's lifetime and then restores the caller's device, so that
// the backend's CUDA calls go to the communicator's GPU and the caller's own calls stay where the
// caller put them. status() is the error of switching, if any.
class DeviceGuard {
 public:
  explicit DeviceGuard(int device) {
    rc_ = cudaGetDevice(&saved_);
    if (rc_ == cudaSuccess && saved_ != device) {
      rc_ = cudaSetDevice(device);
      switched_ = rc_ == cudaSuccess;
    }
  }
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;
  ~DeviceGuard() {
    if (switched_) cudaSetDevice(saved_);
  }
  cudaError_t status() const { return rc_; }

 private:
  int saved_ = 0;
  bool switched_ = false;
  cudaError_t rc_ = cudaSuccess;
};

}  // namespace elastic::coll::nccl
