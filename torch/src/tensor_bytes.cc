#include "src/tensor_bytes.h"

#include <cstring>

#include "absl/strings/str_cat.h"

namespace elastic::libtorch {

void put_tensor(std::vector<std::byte>& out, const ::torch::Tensor& t) {
  rt::put(out, static_cast<std::uint8_t>(t.defined() ? 1 : 0));
  if (!t.defined()) return;
  const ::torch::Tensor host = t.to(::torch::kCPU).contiguous();
  rt::put(out, static_cast<std::uint8_t>(host.scalar_type()));
  rt::put(out, static_cast<std::uint64_t>(host.numel()));
  rt::put_bytes(out, host.data_ptr(), host.nbytes());
}

absl::StatusOr<::torch::Tensor> get_tensor(rt::Reader& in, std::string_view what) {
  auto bad = [&](std::string_view why) {
    return absl::DataLossError(absl::StrCat(std::string(what), ": ", std::string(why)));
  };
  const std::optional<std::uint8_t> defined = in.get<std::uint8_t>();
  if (!defined || *defined > 1) return bad("truncated or malformed tensor header");
  if (*defined == 0) return ::torch::Tensor();
  const std::optional<std::uint8_t> type = in.get<std::uint8_t>();
  const std::optional<std::uint64_t> numel = in.get<std::uint64_t>();
  if (!type || !numel) return bad("truncated tensor header");
  if (*type >= static_cast<std::uint8_t>(c10::ScalarType::NumOptions))
    return bad("unknown scalar type");
  const auto st = static_cast<c10::ScalarType>(*type);
  const std::size_t bytes = static_cast<std::size_t>(*numel) * c10::elementSize(st);
  const std::optional<std::span<const std::byte>> data = in.take(bytes);
  if (!data)
    return bad(
        absl::StrCat("truncated tensor data (", bytes, " bytes expected, ", in.left(), " left)"));
  ::torch::Tensor t =
      ::torch::empty({static_cast<std::int64_t>(*numel)}, ::torch::TensorOptions().dtype(st));
  if (bytes > 0) std::memcpy(t.data_ptr(), data->data(), bytes);
  return t;
}

absl::Status copy_into(const ::torch::Tensor& src, ::torch::Tensor& dst, std::string_view what) {
  if (src.scalar_type() != dst.scalar_type() || src.numel() != dst.numel()) {
    return absl::FailedPreconditionError(absl::StrCat(
        std::string(what), ": saved as ", std::string(c10::toString(src.scalar_type())), "[",
        src.numel(), "], registered as ", std::string(c10::toString(dst.scalar_type())), "[",
        dst.numel(), "]: the model differs between ranks or runs"));
  }
  ::torch::NoGradGuard no_grad;
  dst.copy_(
      src.view(dst.sizes()));  // strides and device are dst's: copy_ handles both, bit for bit
  return absl::OkStatus();
}

}  // namespace elastic::libtorch
