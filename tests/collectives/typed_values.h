// Test values for the collectives suites (MPI and NCCL share them): small integers, so that every
// partial sum over up to 8 ranks (at most 80) is exact in every dtype (bf16 holds integers up to
// 256 exactly) and the oracle for kSum is exact equality; and their bytes in each DataType.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "elastic/collectives/half.h"
#include "elastic/collectives/types.h"

namespace elastic::coll {

inline double value(int rank, std::size_t i) {
  return static_cast<double>((i * 7 + static_cast<std::size_t>(rank) * 3) % 11);
}

inline std::vector<std::byte> encode(const std::vector<double>& v, DataType t) {
  std::vector<std::byte> out(v.size() * dtype_size(t));
  for (std::size_t i = 0; i < v.size(); ++i) {
    switch (t) {
      case DataType::kFloat32: {
        const float f = static_cast<float>(v[i]);
        std::memcpy(&out[i * 4], &f, 4);
        break;
      }
      case DataType::kFloat64:
        std::memcpy(&out[i * 8], &v[i], 8);
        break;
      case DataType::kBFloat16: {
        const std::uint16_t h = float_to_bf16(static_cast<float>(v[i]));
        std::memcpy(&out[i * 2], &h, 2);
        break;
      }
      case DataType::kFloat16: {
        const std::uint16_t h = float_to_fp16(static_cast<float>(v[i]));
        std::memcpy(&out[i * 2], &h, 2);
        break;
      }
    }
  }
  return out;
}

inline double decode(const std::vector<std::byte>& b, DataType t, std::size_t i) {
  switch (t) {
    case DataType::kFloat32: {
      float f;
      std::memcpy(&f, &b[i * 4], 4);
      return f;
    }
    case DataType::kFloat64: {
      double d;
      std::memcpy(&d, &b[i * 8], 8);
      return d;
    }
    case DataType::kBFloat16: {
      std::uint16_t h;
      std::memcpy(&h, &b[i * 2], 2);
      return bf16_to_float(h);
    }
    case DataType::kFloat16: {
      std::uint16_t h;
      std::memcpy(&h, &b[i * 2], 2);
      return fp16_to_float(h);
    }
  }
  return NAN;
}

}  // namespace elastic::coll
