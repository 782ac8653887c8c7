// GzLineReader (through read_lines) on files written here, plain and gzip-compressed alike: lines
// across its read chunks, line ends, a byte order mark, and the bytes a text line must not hold.
#include "elastic/traces/gz_line_reader.h"

#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "elastic/traces/read_lines.h"

namespace elastic::traces {
namespace {

namespace fs = std::filesystem;

class GzLineReaderTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("gz_line_reader_test_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  bool gzip() const { return GetParam(); }

  // `bytes` as a file, gzip-compressed when the parameter says so.
  std::string write(const std::string& bytes) {
    const fs::path path = dir_ / (gzip() ? "lines.csv.gz" : "lines.csv");
    if (gzip()) {
      gzFile f = gzopen(path.c_str(), "wb");
      EXPECT_NE(f, nullptr);
      EXPECT_EQ(gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size())),
                static_cast<int>(bytes.size()));
      EXPECT_EQ(gzclose(f), Z_OK);
    } else {
      std::ofstream(path, std::ios::binary) << bytes;
    }
    return path.string();
  }

  fs::path dir_;
};

// A directory is bad input, said as such (it read as an I/O error: exit 1, "cannot read").
TEST(GzLineReader, ADirectoryIsBadInput) {
  const fs::path dir = fs::temp_directory_path();
  absl::StatusOr<GzLineReader> r = GzLineReader::open(dir.string());
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(r.status())) << r.status();
  EXPECT_NE(r.status().message().find(dir.string() + ": is a directory, not a file"),
            std::string::npos)
      << r.status();
}

// 20,000 lines of 0-40 bytes (about 400 KiB): many cross the reader's 64 KiB chunks.
TEST_P(GzLineReaderTest, LinesAcrossChunksComeBackAsWritten) {
  std::mt19937 rng(5);
  std::vector<std::string> want;
  std::string text;
  for (int i = 0; i < 20'000; ++i) {
    std::string line(static_cast<std::size_t>(std::uniform_int_distribution<int>(0, 40)(rng)),
                     static_cast<char>('a' + i % 26));
    text += line + (i % 3 == 0 ? "\r\n" : "\n");
    want.push_back(std::move(line));
  }
  const auto got = read_lines(write(text));
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(*got, want);
}

TEST_P(GzLineReaderTest, LastLineWithoutNewlineAndEmptyLinesAreKept) {
  const auto got = read_lines(write("a\n\n\r\nlast"));
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(*got, (std::vector<std::string>{"a", "", "", "last"}));
  const auto none = read_lines(write(""));
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

// A spreadsheet's UTF-8 export starts with EF BB BF: the header's first name was "\xEF\xBB\xBFjob".
TEST_P(GzLineReaderTest, AByteOrderMarkIsDropped) {
  const auto got = read_lines(write("\xEF\xBB\xBFjob,Tcup\nJ1,18\n\xEF\xBB\xBFx\n"));
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(*got, (std::vector<std::string>{"job,Tcup", "J1,18", "\xEF\xBB\xBFx"}));
}

// A NUL byte used to end the line for strlen: "n1,0,100\0\nn2,0,50" was read as one line (the
// next one's fields joined to it, every later line number one off).
TEST_P(GzLineReaderTest, ANulByteIsAnErrorNamingLineAndColumn) {
  const std::string path = write(std::string("node,start,end\nn1,0,100\0\nn2,0,50\n", 32));
  const auto got = read_lines(path);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(got.status().message(), path + ":2:9: a NUL byte: not a text file, or a damaged one");
}

INSTANTIATE_TEST_SUITE_P(Files, GzLineReaderTest, ::testing::Values(false, true),
                         [](const auto& p) { return p.param ? "gzip" : "plain"; });

}  // namespace
}  // namespace elastic::traces
