// A tensor as bytes and back, for the parts of the State that torch owns and may (re)allocate:
// optimizer state (created lazily by the first step) and tensors not in host memory. Format:
// u8 defined; then u8 scalar type, u64 element count and the elements (native byte order, as the
// State's own snapshots). Bit-exact: the elements are copied, never converted.
#pragma once

#include <torch/types.h>

#include <cstddef>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "src/bytes.h"

namespace elastic::libtorch {

// LOCAL. Appends `t` (any device, layout or dtype; copied through host memory when needed).
void put_tensor(std::vector<std::byte>& out, const ::torch::Tensor& t);

// LOCAL. Reads a tensor written by put_tensor into a new contiguous CPU tensor (undefined when an
// undefined tensor was written). DataLoss naming `what` when the input is short or malformed.
absl::StatusOr<::torch::Tensor> get_tensor(rt::Reader& in, std::string_view what);

// LOCAL. Copies `src` (a CPU tensor from get_tensor) into `dst` bit for bit, on dst's device.
// FailedPrecondition naming `what` when dtype or element count differ.
absl::Status copy_into(const ::torch::Tensor& src, ::torch::Tensor& dst, std::string_view what);

}  // namespace elastic::libtorch
