// The tensor format of elastic::torch's mirrors and optimizer state (src/tensor_bytes.h) on bytes
// from a corrupted or foreign snapshot: every header is DataLoss or a tensor whose data is all
// there, never an exception (an Undefined or quantized scalar type, an element count whose size
// in bytes wraps 64 bits); and what was written reads back bit for bit.
#include "src/tensor_bytes.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

namespace elastic::libtorch {
namespace {

std::vector<std::byte> header(std::uint8_t type, std::uint64_t numel) {
  std::vector<std::byte> out;
  rt::put(out, std::uint8_t{1});
  rt::put(out, type);
  rt::put(out, numel);
  return out;
}

TEST(TensorBytes, RoundTripsBitForBit) {
  for (const ::torch::Dtype type : {::torch::kFloat32, ::torch::kBFloat16, ::torch::kInt64,
                                    ::torch::kBool, ::torch::kComplexDouble}) {
    const ::torch::Tensor t = ::torch::ones({3, 5}, type).t();  // not contiguous
    std::vector<std::byte> bytes;
    put_tensor(bytes, t);
    rt::Reader in(bytes);
    absl::StatusOr<SavedTensor> s = read_tensor(in, "t");
    ASSERT_TRUE(s.ok()) << s.status();
    EXPECT_EQ(in.left(), 0u);
    EXPECT_TRUE(::torch::equal(to_tensor(*s).view(t.sizes()), t)) << type;
    ::torch::Tensor dst = ::torch::zeros({5, 3}, type);
    EXPECT_TRUE(copy_into(*s, dst, "t").ok());
    EXPECT_TRUE(::torch::equal(dst, t)) << type;
  }
}

// Every scalar type code with one element's worth of bytes (16, the largest element): a tensor
// whose type put_tensor writes, or DataLoss.
TEST(TensorBytes, EveryTypeCodeIsATensorOrDataLoss) {
  for (int code = 0; code < 256; ++code) {
    std::vector<std::byte> bytes = header(static_cast<std::uint8_t>(code), 1);
    bytes.resize(bytes.size() + 16);
    rt::Reader in(bytes);
    absl::StatusOr<SavedTensor> s;
    EXPECT_NO_THROW(s = read_tensor(in, "t")) << "type code " << code;
    if (!s.ok()) {
      EXPECT_TRUE(absl::IsDataLoss(s.status())) << s.status();
      continue;
    }
    EXPECT_EQ(s->numel, 1);
    EXPECT_NO_THROW(EXPECT_EQ(to_tensor(*s).scalar_type(), s->type)) << "type code " << code;
  }
}

TEST(TensorBytes, UndefinedAndQuantizedTypesAreDataLoss) {
  for (const c10::ScalarType type : {c10::ScalarType::Undefined, c10::ScalarType::QInt8,
                                     c10::ScalarType::QUInt8, c10::ScalarType::QInt32}) {
    std::vector<std::byte> bytes = header(static_cast<std::uint8_t>(type), 4);
    bytes.resize(bytes.size() + 16);
    rt::Reader in(bytes);
    absl::StatusOr<SavedTensor> s;
    EXPECT_NO_THROW(s = read_tensor(in, "model.w"));
    EXPECT_TRUE(absl::IsDataLoss(s.status())) << s.status();
    EXPECT_NE(s.status().message().find("model.w"), std::string::npos) << s.status();
  }
}

// 2^61 float64s are 2^64 bytes: 0 after the wrap, which an empty input "holds".
TEST(TensorBytes, ElementCountWhoseSizeWrapsIsDataLoss) {
  for (const std::uint64_t numel :
       {std::uint64_t{1} << 61, (std::uint64_t{1} << 61) + 1, std::uint64_t{1} << 63,
        std::numeric_limits<std::uint64_t>::max()}) {
    const std::vector<std::byte> bytes =
        header(static_cast<std::uint8_t>(::torch::kFloat64), numel);
    rt::Reader in(bytes);
    absl::StatusOr<SavedTensor> s;
    EXPECT_NO_THROW(s = read_tensor(in, "t")) << numel;
    EXPECT_TRUE(absl::IsDataLoss(s.status())) << numel << ": " << s.status();
  }
}

TEST(TensorBytes, ShortDataIsDataLoss) {
  std::vector<std::byte> bytes = header(static_cast<std::uint8_t>(::torch::kFloat32), 3);
  bytes.resize(bytes.size() + 11);
  rt::Reader in(bytes);
  EXPECT_TRUE(absl::IsDataLoss(read_tensor(in, "t").status()));
}

TEST(TensorBytes, AnotherDtypeOrSizeDoesNotFit) {
  std::vector<std::byte> bytes;
  put_tensor(bytes, ::torch::ones({6}, ::torch::kFloat32));
  rt::Reader in(bytes);
  absl::StatusOr<SavedTensor> s = read_tensor(in, "t");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_TRUE(check_fits(*s, ::torch::zeros({2, 3}, ::torch::kFloat32), "t").ok());
  ::torch::Tensor other_dtype = ::torch::zeros({6}, ::torch::kFloat64);
  ::torch::Tensor other_size = ::torch::zeros({7}, ::torch::kFloat32);
  EXPECT_TRUE(absl::IsFailedPrecondition(copy_into(*s, other_dtype, "t")));
  EXPECT_TRUE(absl::IsFailedPrecondition(copy_into(*s, other_size, "t")));
  EXPECT_TRUE(::torch::equal(other_dtype, ::torch::zeros({6}, ::torch::kFloat64)));
}

}  // namespace
}  // namespace elastic::libtorch
