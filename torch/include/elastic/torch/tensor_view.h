// How a LibTorch tensor is seen by the collectives: its element type as coll::DataType and a
// coll::Tensor view of its storage. Shared by the gradient reducer and the state registration.
#pragma once

#include <torch/types.h>

#include "absl/status/statusor.h"
#include "elastic/collectives/types.h"

namespace elastic::libtorch {

// LOCAL. fp32, fp64, bf16 and fp16 map to coll::DataType; any other dtype is InvalidArgument
// naming `what` and the dtype.
absl::StatusOr<coll::DataType> coll_dtype(const ::torch::Tensor& t, std::string_view what);

// LOCAL. A view of a contiguous tensor's elements (host or device memory). InvalidArgument when
// the tensor is undefined, sparse, not contiguous or of a dtype coll_dtype() rejects.
absl::StatusOr<coll::Tensor> coll_view(const ::torch::Tensor& t, std::string_view what);

// LOCAL. The memory kind a tensor lives in: kHost for CPU tensors, kDevice for CUDA tensors.
coll::MemoryKind memory_kind(const ::torch::Tensor& t);

}  // namespace elastic::libtorch
