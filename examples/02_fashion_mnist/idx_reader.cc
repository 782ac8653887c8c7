#include "idx_reader.h"

#include <zlib.h>

#include <array>
#include <memory>
#include <utility>

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

std::filesystem::path images_file(const std::filesystem::path& dir, const std::string& prefix) {
  return dir / (prefix + "-images-idx3-ubyte.gz");
}

std::filesystem::path labels_file(const std::filesystem::path& dir, const std::string& prefix) {
  return dir / (prefix + "-labels-idx1-ubyte.gz");
}

absl::StatusOr<Dataset> load_idx(const std::filesystem::path& dir, const std::string& prefix) {
  const auto img_path = images_file(dir, prefix);
  const auto lbl_path = labels_file(dir, prefix);
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
  if (d.count == 0) {
    // The training loop shards the items and the test accuracy divides by their number.
    return absl::InvalidArgumentError(
        absl::StrCat("'", img_path.string(), "': item count (header bytes 4-7) is 0"));
  }
  const std::uint32_t rows = be32(*img, 8), cols = be32(*img, 12);
  if (rows == 0 || cols == 0) {
    return absl::InvalidArgumentError(absl::StrCat("'", img_path.string(), "': images of ", rows,
                                                   " x ", cols, " pixels (header bytes 8-15)"));
  }
  if (be32(*lbl, 4) != d.count) {
    return absl::InvalidArgumentError(absl::StrCat("'", lbl_path.string(), "': item count ",
                                                   be32(*lbl, 4), " differs from the images' ",
                                                   d.count));
  }
  // count * rows * cols can exceed 64 bits; a product that wrapped could match a short file and
  // leave fewer pixels than count * features for the model to read.
  std::size_t pixels = 0;
  if (__builtin_mul_overflow(std::size_t{rows}, std::size_t{cols}, &d.features) ||
      __builtin_mul_overflow(d.count, d.features, &pixels) || pixels != img->size() - 16) {
    return absl::DataLossError(absl::StrCat("'", img_path.string(), "': the header's ", d.count,
                                            " images of ", rows, " x ", cols, " pixels need ",
                                            d.count, " * ", rows, " * ", cols,
                                            " bytes after it, the file has ", img->size() - 16));
  }
  if (lbl->size() - 8 != d.count) {
    return absl::DataLossError(absl::StrCat("'", lbl_path.string(), "': the header's ", d.count,
                                            " labels need ", d.count,
                                            " bytes after it, the file has ", lbl->size() - 8));
  }
  d.images.resize(pixels);
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

absl::StatusOr<TrainTest> load_train_test(const std::filesystem::path& dir) {
  absl::StatusOr<Dataset> train = load_idx(dir, "train");
  if (!train.ok()) return train.status();
  absl::StatusOr<Dataset> test = load_idx(dir, "t10k");
  if (!test.ok()) return test.status();
  if (test->features != train->features) {
    return absl::InvalidArgumentError(absl::StrCat(
        "'", images_file(dir, "t10k").string(), "': images of ", test->features, " pixels, '",
        images_file(dir, "train").string(), "' (the model's input) of ", train->features));
  }
  return TrainTest{std::move(*train), std::move(*test)};
}

}  // namespace elastic::examples
