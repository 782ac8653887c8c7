// FashionMnist::load views each image as 1 x 28 x 28: images of another size (written here as
// gzip'ed IDX files) are refused with the file named, not read past the end of the pixels.
#include "fashion_mnist_data.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "idx_reader.h"
#include "idx_test_files.h"

namespace elastic::examples {
namespace {

namespace fs = std::filesystem;

class FashionMnistDataTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("fashion_mnist_data_test_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(FashionMnistDataTest, ImagesOf28x28Load) {
  ASSERT_TRUE(idx_test::write_idx(dir_, "train", {2, 28, 28, 2 * 28 * 28, 2, {3, 7}}));
  absl::StatusOr<FashionMnist> d = FashionMnist::load(dir_, "train");
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->images().sizes(), (std::vector<std::int64_t>{2, 1, 28, 28}));
  EXPECT_EQ(d->labels()[1].item<std::int64_t>(), 7);
}

TEST_F(FashionMnistDataTest, ImagesOfAnotherSizeAreRefused) {
  ASSERT_TRUE(idx_test::write_idx(dir_, "train", {3, 2, 2, 12, 3, {0, 9, 4}}));
  absl::StatusOr<FashionMnist> d = FashionMnist::load(dir_, "train");
  ASSERT_FALSE(d.ok()) << "a 3 x 4-pixel dataset loaded as " << d->images().sizes();
  EXPECT_TRUE(absl::IsInvalidArgument(d.status())) << d.status();
  EXPECT_NE(d.status().message().find(images_file(dir_, "train").string()), std::string::npos)
      << d.status();
}

}  // namespace
}  // namespace elastic::examples
