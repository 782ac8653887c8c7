// IEEE binary16 <-> binary32 with round-to-nearest-even, subnormals, infinities and NaN.
#include "elastic/collectives/half.h"

#include <cmath>

namespace elastic::coll {

float fp16_to_float(std::uint16_t h) {
  const std::uint32_t sign = std::uint32_t{h & 0x8000u} << 16;
  const std::uint32_t exp = (h >> 10) & 0x1fu;
  const std::uint32_t mant = h & 0x3ffu;
  if (exp == 0) {
    const float v = static_cast<float>(mant) * 0x1p-24f;  // zero or subnormal
    return sign != 0 ? -v : v;
  }
  if (exp == 31) return std::bit_cast<float>(sign | 0x7f800000u | (mant << 13));
  return std::bit_cast<float>(sign | ((exp + 112u) << 23) | (mant << 13));
}

std::uint16_t float_to_fp16(float f) {
  const std::uint32_t x = std::bit_cast<std::uint32_t>(f);
  const auto sign = static_cast<std::uint16_t>((x >> 16) & 0x8000u);
  const std::uint32_t ax = x & 0x7fffffffu;
  if (ax > 0x7f800000u) return static_cast<std::uint16_t>(sign | 0x7e00u);   // NaN
  if (ax >= 0x477ff000u) return static_cast<std::uint16_t>(sign | 0x7c00u);  // >= 65520 -> inf
  if (ax < 0x38800000u) {  // below 2^-14: subnormal (or zero) in fp16
    const float scaled = std::bit_cast<float>(ax) * 0x1p24f;  // exact: a power-of-two scale
    return static_cast<std::uint16_t>(sign | static_cast<std::uint16_t>(std::nearbyint(scaled)));
  }
  const std::uint32_t rounded = ax + 0xfffu + ((ax >> 13) & 1u) - (112u << 23);
  return static_cast<std::uint16_t>(sign | (rounded >> 13));
}

}  // namespace elastic::coll
