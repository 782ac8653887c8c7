// Reads the IDX files of (Fashion-)MNIST, gzip-compressed as Debian's dataset-fashion-mnist ships
// them (/usr/share/datasets/fashion-mnist/*-idx?-ubyte.gz). Pixels become floats in [0, 1].
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace elastic::examples {

struct Dataset {
  std::size_t count = 0;
  std::size_t features = 0;          // rows * cols
  std::vector<float> images;         // count * features, row-major
  std::vector<std::uint8_t> labels;  // count, 0..9
};

inline const char* kFashionMnistDir = "/usr/share/datasets/fashion-mnist";

// Loads "<dir>/<prefix>-images-idx3-ubyte.gz" and "<dir>/<prefix>-labels-idx1-ubyte.gz"
// (prefix "train" or "t10k"). Errors name the file and the field that is wrong.
absl::StatusOr<Dataset> load_idx(const std::filesystem::path& dir, const std::string& prefix);

// "<dir>/<prefix>-images-idx3-ubyte.gz" and "<dir>/<prefix>-labels-idx1-ubyte.gz": the files
// that load_idx reads and its errors name.
std::filesystem::path images_file(const std::filesystem::path& dir, const std::string& prefix);
std::filesystem::path labels_file(const std::filesystem::path& dir, const std::string& prefix);

struct TrainTest {
  Dataset train;
  Dataset test;
};

// load_idx of "train" and "t10k", which must hold images of the same size: the model is built for
// the training images and reads each test image as that many features. InvalidArgument naming
// both image files otherwise.
absl::StatusOr<TrainTest> load_train_test(const std::filesystem::path& dir);

}  // namespace elastic::examples
