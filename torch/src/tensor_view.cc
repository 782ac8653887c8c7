#include "elastic/torch/tensor_view.h"

#include "absl/strings/str_cat.h"

namespace elastic::libtorch {

absl::StatusOr<coll::DataType> coll_dtype(const ::torch::Tensor& t, std::string_view what) {
  switch (t.scalar_type()) {
    case ::torch::kFloat32:
      return coll::DataType::kFloat32;
    case ::torch::kFloat64:
      return coll::DataType::kFloat64;
    case ::torch::kBFloat16:
      return coll::DataType::kBFloat16;
    case ::torch::kFloat16:
      return coll::DataType::kFloat16;
    default:
      return absl::InvalidArgumentError(
          absl::StrCat(std::string(what), ": dtype ", std::string(c10::toString(t.scalar_type())),
                       " is not reduced by the collectives (fp32, fp64, bf16, fp16 are)"));
  }
}

absl::StatusOr<coll::Tensor> coll_view(const ::torch::Tensor& t, std::string_view what) {
  if (!t.defined())
    return absl::InvalidArgumentError(absl::StrCat(std::string(what), ": undefined tensor"));
  if (t.is_sparse())
    return absl::InvalidArgumentError(
        absl::StrCat(std::string(what), ": sparse tensors are not supported"));
  if (!t.is_contiguous())
    return absl::InvalidArgumentError(
        absl::StrCat(std::string(what), ": tensor is not contiguous"));
  absl::StatusOr<coll::DataType> dt = coll_dtype(t, what);
  if (!dt.ok()) return dt.status();
  return coll::Tensor{t.data_ptr(), static_cast<std::size_t>(t.numel()), *dt};
}

coll::MemoryKind memory_kind(const ::torch::Tensor& t) {
  return t.is_cuda() ? coll::MemoryKind::kDevice : coll::MemoryKind::kHost;
}

}  // namespace elastic::libtorch
