// For the examples' tests: writes a pair of gzip'ed IDX files as load_idx reads them, with any
// header and any number of pixel and label bytes, so that a test can hand the reader a malformed
// or small dataset.
#pragma once

#include <zlib.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "idx_reader.h"

namespace elastic::examples::idx_test {

// What one pair of files says: the images' header and pixel bytes, the labels' header and bytes.
struct IdxFiles {
  std::uint32_t count = 3, rows = 2, cols = 2;
  std::size_t pixels = 12;        // bytes after the images' header
  std::uint32_t label_count = 3;  // the labels' header
  std::vector<std::uint8_t> labels = {0, 9, 4};
};

inline bool write_gz(const std::filesystem::path& path, const std::vector<std::uint8_t>& bytes) {
  gzFile f = gzopen(path.c_str(), "wb");
  if (f == nullptr) return false;
  bool written = true;
  if (!bytes.empty()) {
    written = gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size())) ==
              static_cast<int>(bytes.size());
  }
  return gzclose(f) == Z_OK && written;
}

// images_file(dir, prefix) and labels_file(dir, prefix); pixel i is i % 256. False when a file
// cannot be written.
inline bool write_idx(const std::filesystem::path& dir, const std::string& prefix,
                      const IdxFiles& f) {
  auto put_be32 = [](std::vector<std::uint8_t>& out, std::uint32_t v) {
    for (int shift = 24; shift >= 0; shift -= 8)
      out.push_back(static_cast<std::uint8_t>(v >> shift));
  };
  std::vector<std::uint8_t> img;
  for (std::uint32_t v : {std::uint32_t{2051}, f.count, f.rows, f.cols}) put_be32(img, v);
  for (std::size_t i = 0; i < f.pixels; ++i) img.push_back(static_cast<std::uint8_t>(i % 256));
  std::vector<std::uint8_t> lbl;
  for (std::uint32_t v : {std::uint32_t{2049}, f.label_count}) put_be32(lbl, v);
  lbl.insert(lbl.end(), f.labels.begin(), f.labels.end());
  return write_gz(images_file(dir, prefix), img) && write_gz(labels_file(dir, prefix), lbl);
}

}  // namespace elastic::examples::idx_test
