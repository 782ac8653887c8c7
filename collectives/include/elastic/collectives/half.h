// Software conversions between float32 and the two 16-bit float formats (bfloat16, IEEE fp16).
// Used by the MPI backend's reduction operator and by tests; round-to-nearest-even, NaN kept NaN.
#pragma once

#include <bit>
#include <cstdint>

namespace elastic::coll {

inline float bf16_to_float(std::uint16_t h) { return std::bit_cast<float>(std::uint32_t{h} << 16); }

inline std::uint16_t float_to_bf16(float f) {
  const std::uint32_t u = std::bit_cast<std::uint32_t>(f);
  if ((u & 0x7fffffffu) > 0x7f800000u)
    return static_cast<std::uint16_t>((u >> 16) | 0x40u);  // quiet NaN
  const std::uint32_t rounding = 0x7fffu + ((u >> 16) & 1u);
  return static_cast<std::uint16_t>((u + rounding) >> 16);
}

float fp16_to_float(std::uint16_t h);
std::uint16_t float_to_fp16(float f);

}  // namespace elastic::coll
