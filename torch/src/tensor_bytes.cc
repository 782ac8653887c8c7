#include "src/tensor_bytes.h"

#include <cstring>
#include <string>

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

absl::StatusOr<SavedTensor> read_tensor(rt::Reader& in, std::string_view what) {
  auto bad = [&](std::string_view why) {
    return absl::DataLossError(absl::StrCat(std::string(what), ": ", std::string(why)));
  };
  const std::optional<std::uint8_t> defined = in.get<std::uint8_t>();
  if (!defined || *defined > 1) return bad("truncated or malformed tensor header");
  if (*defined == 0) return SavedTensor{};
  const std::optional<std::uint8_t> type = in.get<std::uint8_t>();
  const std::optional<std::uint64_t> numel = in.get<std::uint64_t>();
  if (!type || !numel) return bad("truncated tensor header");
  // c10::elementSize throws for Undefined, and torch::empty for the quantized types (they need a
  // quantizer): neither is a tensor that put_tensor wrote.
  const auto st = static_cast<c10::ScalarType>(*type);
  if (*type >= static_cast<std::uint8_t>(c10::ScalarType::NumOptions) ||
      st == c10::ScalarType::Undefined || c10::isQIntType(st)) {
    return bad(absl::StrCat("scalar type ", *type, " is not one of a plain tensor"));
  }
  // Compared by division: numel * elementSize can wrap 64 bits and match a short input.
  const std::size_t size = c10::elementSize(st);
  if (*numel > in.left() / size) {
    return bad(absl::StrCat("truncated tensor data (", *numel, " elements of ", size, " bytes, ",
                            in.left(), " bytes left)"));
  }
  const std::span<const std::byte> data = *in.take(static_cast<std::size_t>(*numel) * size);
  return SavedTensor{true, st, static_cast<std::int64_t>(*numel), data};
}

::torch::Tensor to_tensor(const SavedTensor& s) {
  if (!s.defined) return ::torch::Tensor();
  ::torch::Tensor t = ::torch::empty({s.numel}, ::torch::TensorOptions().dtype(s.type));
  if (!s.data.empty()) std::memcpy(t.data_ptr(), s.data.data(), s.data.size());
  return t;
}

absl::Status check_fits(const SavedTensor& s, const ::torch::Tensor& dst, std::string_view what) {
  if (s.defined && dst.defined() && s.type == dst.scalar_type() && s.numel == dst.numel()) {
    return absl::OkStatus();
  }
  const std::string saved =
      s.defined ? absl::StrCat(c10::toString(s.type), "[", s.numel, "]") : "undefined";
  const std::string registered =
      dst.defined() ? absl::StrCat(c10::toString(dst.scalar_type()), "[", dst.numel(), "]")
                    : "undefined";
  return absl::FailedPreconditionError(absl::StrCat(std::string(what), ": saved as ", saved,
                                                    ", registered as ", registered,
                                                    ": the model differs between ranks or runs"));
}

absl::Status copy_into(const SavedTensor& s, ::torch::Tensor& dst, std::string_view what) {
  if (absl::Status st = check_fits(s, dst, what); !st.ok()) return st;
  ::torch::NoGradGuard no_grad;
  // Strides and device are dst's: copy_ handles both, bit for bit.
  dst.copy_(to_tensor(s).view(dst.sizes()));
  return absl::OkStatus();
}

}  // namespace elastic::libtorch
