// A tensor as bytes and back, for the parts of the State that torch owns and may (re)allocate:
// optimizer state (created lazily by the first step) and tensors not in host memory. Format:
// u8 defined; then u8 scalar type, u64 element count and the elements (native byte order, as the
// State's own snapshots). Bit-exact: the elements are copied, never converted.
//
// Reading is split so that a Checkpointable's check() can refuse everything its load() would
// without copying any element: read_tensor() parses and validates, check_fits() compares with the
// tensor it would go into, and only to_tensor() / copy_into() copy the elements.
#pragma once

#include <torch/types.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "src/bytes.h"

namespace elastic::libtorch {

// A tensor written by put_tensor, still in the bytes.
struct SavedTensor {
  bool defined = false;
  c10::ScalarType type = c10::ScalarType::Undefined;
  std::int64_t numel = 0;
  std::span<const std::byte> data;  // numel * elementSize(type) bytes
};

// LOCAL. Appends `t` (any device, layout or dtype; copied through host memory when needed).
void put_tensor(std::vector<std::byte>& out, const ::torch::Tensor& t);

// LOCAL. Reads the next tensor written by put_tensor. DataLoss naming `what` when the input is
// short or malformed, or names a scalar type no plain tensor has (Undefined, quantized types,
// unknown codes). Never throws, whatever the bytes.
absl::StatusOr<SavedTensor> read_tensor(rt::Reader& in, std::string_view what);

// LOCAL. A new contiguous 1-D CPU tensor holding the elements of `s` (undefined when `s` is).
::torch::Tensor to_tensor(const SavedTensor& s);

// LOCAL. FailedPrecondition naming `what` unless `s` is of dst's scalar type and element count:
// the saved tensor belongs to another model.
absl::Status check_fits(const SavedTensor& s, const ::torch::Tensor& dst, std::string_view what);

// LOCAL. check_fits, then copies the elements of `s` into `dst` bit for bit, on dst's device.
absl::Status copy_into(const SavedTensor& s, ::torch::Tensor& dst, std::string_view what);

}  // namespace elastic::libtorch
