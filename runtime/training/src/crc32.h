// CRC-32 (IEEE 802.3, as zlib's crc32) used to detect corrupted checkpoint files.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace elastic::rt {

std::uint32_t crc32(std::span<const std::byte> data, std::uint32_t crc = 0);

}  // namespace elastic::rt
