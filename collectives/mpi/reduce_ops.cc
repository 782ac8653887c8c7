#include "mpi/reduce_ops.h"

#include <cstdint>

#include "elastic/collectives/half.h"

namespace elastic::coll::mpi {
namespace {

// Built for AVX-512, AVX2 and baseline x86-64, picked at load time: the sum runs at memory speed
// like MPI's own AVX operators. Vector lanes add the same pairs as the scalar loop, so the bits do
// not depend on which version runs.
#if defined(__x86_64__) && defined(__GNUC__)
#define ELASTIC_VECTOR_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define ELASTIC_VECTOR_CLONES
#endif

// Fixed-length inner blocks: -O2's cheap vectoriser takes those, not a loop of unknown length.
template <typename T>
inline void add_blocks(T* __restrict dst, const T* __restrict src, std::size_t n) {
  constexpr std::size_t kBlock = 64 / sizeof(T);
  std::size_t i = 0;
  for (; i + kBlock <= n; i += kBlock) {
    for (std::size_t j = 0; j < kBlock; ++j) dst[i + j] += src[i + j];
  }
  for (; i < n; ++i) dst[i] += src[i];
}

ELASTIC_VECTOR_CLONES void add_f32(float* dst, const float* src, std::size_t n) {
  add_blocks(dst, src, n);
}
ELASTIC_VECTOR_CLONES void add_f64(double* dst, const double* src, std::size_t n) {
  add_blocks(dst, src, n);
}

template <float (*ToFloat)(std::uint16_t), std::uint16_t (*FromFloat)(float)>
void add16(std::uint16_t* dst, const std::uint16_t* src, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) dst[i] = FromFloat(ToFloat(dst[i]) + ToFloat(src[i]));
}

template <typename T>
void divide(T* p, std::size_t n, T d) {
  for (std::size_t i = 0; i < n; ++i) p[i] /= d;
}

template <float (*ToFloat)(std::uint16_t), std::uint16_t (*FromFloat)(float)>
void divide16(std::uint16_t* p, std::size_t n, float d) {
  for (std::size_t i = 0; i < n; ++i) p[i] = FromFloat(ToFloat(p[i]) / d);
}

}  // namespace

void accumulate(void* dst, const void* src, std::size_t count, DataType t) {
  switch (t) {
    case DataType::kFloat32:
      add_f32(static_cast<float*>(dst), static_cast<const float*>(src), count);
      break;
    case DataType::kFloat64:
      add_f64(static_cast<double*>(dst), static_cast<const double*>(src), count);
      break;
    case DataType::kBFloat16:
      add16<bf16_to_float, float_to_bf16>(static_cast<std::uint16_t*>(dst),
                                          static_cast<const std::uint16_t*>(src), count);
      break;
    case DataType::kFloat16:
      add16<fp16_to_float, float_to_fp16>(static_cast<std::uint16_t*>(dst),
                                          static_cast<const std::uint16_t*>(src), count);
      break;
  }
}

void scale_down(void* data, std::size_t count, DataType t, int divisor) {
  switch (t) {
    case DataType::kFloat32:
      divide(static_cast<float*>(data), count, static_cast<float>(divisor));
      break;
    case DataType::kFloat64:
      divide(static_cast<double*>(data), count, static_cast<double>(divisor));
      break;
    case DataType::kBFloat16:
      divide16<bf16_to_float, float_to_bf16>(static_cast<std::uint16_t*>(data), count,
                                             static_cast<float>(divisor));
      break;
    case DataType::kFloat16:
      divide16<fp16_to_float, float_to_fp16>(static_cast<std::uint16_t*>(data), count,
                                             static_cast<float>(divisor));
      break;
  }
}

}  // namespace elastic::coll::mpi
