// Plain value types shared by every collectives backend: element types, reduction operations,
// a non-owning tensor view and the per-call options. Kept free of MPI/NCCL/CUDA headers so that
// training code can include it without pulling a backend in.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace elastic::coll {

enum class DataType : std::uint8_t { kFloat32, kFloat64, kBFloat16, kFloat16 };

// kAverage is a sum divided by the communicator size, computed in the element type's precision
// (bf16/fp16 are accumulated in float32 and rounded once per reduction hop).
enum class ReduceOp : std::uint8_t { kSum, kAverage };

// Where a buffer lives; the factory picks the backend from it (host -> MPI, device -> NCCL).
enum class MemoryKind : std::uint8_t { kHost, kDevice };

constexpr std::size_t dtype_size(DataType t) {
  switch (t) {
    case DataType::kFloat32:
      return 4;
    case DataType::kFloat64:
      return 8;
    case DataType::kBFloat16:
    case DataType::kFloat16:
      return 2;
  }
  return 0;
}

std::string_view dtype_name(DataType t);

// A non-owning view of `count` elements at `data` (host or device memory). Operations are in place.
struct Tensor {
  void* data = nullptr;
  std::size_t count = 0;
  DataType dtype = DataType::kFloat32;

  std::size_t bytes() const { return count * dtype_size(dtype); }
};

// Every collective call is bounded: it either completes within `timeout` or returns
// DeadlineExceeded and leaves the communicator broken (see communicator.h).
struct CallOptions {
  std::chrono::milliseconds timeout{std::chrono::seconds(60)};
  // Device backends (NCCL) only; the MPI backend ignores it. The CUDA stream (a cudaStream_t, kept
  // as void* so that this header needs no CUDA) on which the caller produced the buffer and will
  // consume it. The collective starts on the device after the work already enqueued there (an
  // event, no host synchronisation) and work enqueued there later runs after it, so the caller
  // need not synchronise its stream first. nullptr: the legacy default stream of the
  // communicator's device (work on other streams must then be complete before the call). The
  // timeout also covers the caller's work that the collective waits for.
  void* stream = nullptr;
};

}  // namespace elastic::coll
