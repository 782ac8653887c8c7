// load_idx and load_train_test on gzip'ed IDX files written here: a small valid set reads back as
// written, and each malformed header (a pixel count that wraps 64 bits, no items, empty images,
// counts that disagree, short files, labels > 9) is an error naming the file, never a dataset
// whose sizes disagree with its header.
#include "idx_reader.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include "idx_test_files.h"

namespace elastic::examples {
namespace {

namespace fs = std::filesystem;

using idx_test::IdxFiles;

class IdxReaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("idx_reader_test_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  void write(const std::string& prefix, const IdxFiles& f) {
    ASSERT_TRUE(idx_test::write_idx(dir_, prefix, f)) << dir_;
  }

  std::string images_path() const { return images_file(dir_, "train").string(); }
  std::string labels_path() const { return labels_file(dir_, "train").string(); }

  fs::path dir_;
};

TEST_F(IdxReaderTest, ReadsWhatWasWritten) {
  write("train", IdxFiles{});
  absl::StatusOr<Dataset> d = load_idx(dir_, "train");
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->count, 3u);
  EXPECT_EQ(d->features, 4u);
  ASSERT_EQ(d->images.size(), 12u);
  for (std::size_t i = 0; i < 12; ++i) EXPECT_FLOAT_EQ(d->images[i], static_cast<float>(i) / 255);
  EXPECT_EQ(d->labels, (std::vector<std::uint8_t>{0, 9, 4}));
}

struct BadCase {
  const char* name;
  IdxFiles files;
  absl::StatusCode code;
  bool names_labels;  // the error is about the labels' file, not the images'
};
void PrintTo(const BadCase& c, std::ostream* os) { *os << c.name; }  // not 72 bytes in hex

class IdxReaderBadTest : public IdxReaderTest, public ::testing::WithParamInterface<BadCase> {};

// 16 images of 2^30 x 2^30 pixels: 16 * 2^60 bytes wraps to 0 in 64 bits, which a header-only
// file matched, and the model then read 2^60 floats per image from an empty buffer.
const BadCase kBadCases[] = {
    {"PixelCountWraps",
     {16, 1u << 30, 1u << 30, 0, 16, std::vector<std::uint8_t>(16, 1)},
     absl::StatusCode::kDataLoss,
     false},
    {"NoItems", {0, 28, 28, 0, 0, {}}, absl::StatusCode::kInvalidArgument, false},
    {"NoRows", {3, 0, 28, 0, 3, {1, 2, 3}}, absl::StatusCode::kInvalidArgument, false},
    {"NoColumns", {3, 28, 0, 0, 3, {1, 2, 3}}, absl::StatusCode::kInvalidArgument, false},
    {"LabelCountDiffers", {3, 2, 2, 12, 2, {1, 2}}, absl::StatusCode::kInvalidArgument, true},
    {"ImagesShort", {3, 2, 2, 11, 3, {1, 2, 3}}, absl::StatusCode::kDataLoss, false},
    {"ImagesLong", {3, 2, 2, 13, 3, {1, 2, 3}}, absl::StatusCode::kDataLoss, false},
    {"LabelsShort", {3, 2, 2, 12, 3, {1, 2}}, absl::StatusCode::kDataLoss, true},
    {"LabelAbove9", {3, 2, 2, 12, 3, {1, 10, 3}}, absl::StatusCode::kInvalidArgument, true},
};

TEST_P(IdxReaderBadTest, IsAnErrorNamingTheFile) {
  const BadCase& c = GetParam();
  write("train", c.files);
  absl::StatusOr<Dataset> d = load_idx(dir_, "train");
  ASSERT_FALSE(d.ok()) << "accepted: " << d->count << " items of " << d->features << " features, "
                       << d->images.size() << " pixels";
  EXPECT_EQ(d.status().code(), c.code) << d.status();
  const std::string file = c.names_labels ? labels_path() : images_path();
  EXPECT_NE(d.status().message().find(file), std::string::npos) << d.status();
}

INSTANTIATE_TEST_SUITE_P(Headers, IdxReaderBadTest, ::testing::ValuesIn(kBadCases),
                         [](const auto& p) { return std::string(p.param.name); });

TEST_F(IdxReaderTest, MissingFileIsNotFound) {
  absl::StatusOr<Dataset> d = load_idx(dir_, "train");
  EXPECT_TRUE(absl::IsNotFound(d.status())) << d.status();
  EXPECT_NE(d.status().message().find(images_path()), std::string::npos) << d.status();
}

TEST_F(IdxReaderTest, TrainAndTestOfOneSizeLoad) {
  write("train", IdxFiles{});
  write("t10k", IdxFiles{2, 2, 2, 8, 2, {5, 6}});
  absl::StatusOr<TrainTest> d = load_train_test(dir_);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->train.count, 3u);
  EXPECT_EQ(d->test.count, 2u);
}

// The model is built for the training images (2 x 2): 3 x 3 test images are refused, not read
// with the training images' stride.
TEST_F(IdxReaderTest, TestImagesOfAnotherSizeAreRefused) {
  write("train", IdxFiles{});
  write("t10k", IdxFiles{2, 3, 3, 18, 2, {5, 6}});
  absl::StatusOr<TrainTest> d = load_train_test(dir_);
  ASSERT_FALSE(d.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(d.status())) << d.status();
  EXPECT_NE(d.status().message().find(images_file(dir_, "t10k").string()), std::string::npos)
      << d.status();
  EXPECT_NE(d.status().message().find(images_path()), std::string::npos) << d.status();
}

}  // namespace
}  // namespace elastic::examples
