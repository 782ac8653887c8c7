// CRC-32 (IEEE 802.3, zlib's) of a byte span: detects corrupted checkpoint files, and tells State::sync
// which ranks already hold root's snapshot.
#pragma once

#include <zlib.h>

#include <cstddef>
#include <cstdint>
#include <span>

namespace elastic::rt {

inline std::uint32_t crc32(std::span<const std::byte> data, std::uint32_t crc = 0) {
  return static_cast<std::uint32_t>(
      ::crc32_z(crc, reinterpret_cast<const Bytef*>(data.data()), data.size()));
}

}  // namespace elastic::rt
