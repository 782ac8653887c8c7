#include "idx_reader.h"

#include <zlib.h>

#include <array>
#include <memory>

#include "absl/strings/str_cat.h"

namespace elastic::examples {
namespace {

struct GzCloser {
  void operator()(gzFile f) const { gzclose(f); }
};
using GzFile = std::unique_ptr<std::remove_pointer_t<gzFile>, GzCloser>;

absl::StatusOr<std::vector<std::uint8_t>> read_gz(const std::filesystem::path& p) {
  GzFile f(gzopen(p.c_str(), "rb"));
  if (!f) return absl::NotFoundError(absl::StrCat("cannot open '", p.string(), "'"));
  std::vector<std::uint8_t> out;
  std::array<std::uint8_t, 1 << 16> buf{};
  for (;;) {
    const int n = gzread(f.get(), buf.data(), static_cast<unsigned>(buf.size()));
    if (n < 0) return absl::DataLossError(absl::StrCat("'", p.string(), "': gzip error"));
    if (n == 0) break;
    out.insert(out.end(), buf.begin(), buf.begin() + n);
  }
  return out;
}

std::uint32_t be32(const std::vector<std::uint8_t>& b, std::size_t off) {
  return (std::uint32_t{b[off]} << 24) | (std::uint32_t{b[off + 1]} << 16) |
         (std::uint32_t{b[off + 2]} << 8) | std::uint32_t{b[off + 3]};
}

}  // namespace

absl::StatusOr<Dataset> load_idx(const std::filesystem::path& dir, const std::string& prefix) {
  const auto img_path = dir / (prefix + "-images-idx3-ubyte.gz");
  const auto lbl_path = dir / (prefix + "-labels-idx1-ubyte.gz");
  absl::StatusOr<std::vector<std::uint8_t>> img = read_gz(img_path);
  if (!img.ok()) return img.status();
  absl::StatusOr<std::vector<std::uint8_t>> lbl = read_gz(lbl_path);
  if (!lbl.ok()) return lbl.status();
  if (img->size() < 16 || be32(*img, 0) != 2051) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", img_path.string(), "': magic is not 2051 (IDX3 ubyte)"));
  }
  if (lbl->size() < 8 || be32(*lbl, 0) != 2049) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", lbl_path.string(), "': magic is not 2049 (IDX1 ubyte)"));
  }
  Dataset d;
  d.count = be32(*img, 4);
  d.features = std::size_t{be32(*img, 8)} * be32(*img, 12);
  if (be32(*lbl, 4) != d.count) {
    return absl::InvalidArgumentError(absl::StrCat("'", lbl_path.string(), "': item count ",
                                                   be32(*lbl, 4), " differs from the images' ",
                                                   d.count));
  }
  if (img->size() != 16 + d.count * d.features || lbl->size() != 8 + d.count) {
    return absl::DataLossError(
        absl::StrCat("'", img_path.string(), "' or its labels: size does not match the header"));
  }
  d.images.resize(d.count * d.features);
  for (std::size_t i = 0; i < d.images.size(); ++i)
    d.images[i] = static_cast<float>((*img)[16 + i]) / 255.0f;
  d.labels.assign(lbl->begin() + 8, lbl->end());
  for (std::size_t i = 0; i < d.count; ++i) {
    if (d.labels[i] > 9) {
      return absl::InvalidArgumentError(absl::StrCat("'", lbl_path.string(), "': label ",
                                                     int{d.labels[i]}, " of item ", i, " > 9"));
    }
  }
  return d;
}

}  // namespace elastic::examples
