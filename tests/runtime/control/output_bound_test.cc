#include "elastic/control/output_bound.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "elastic/control/atomic_file.h"
#include "temp_dir.h"

namespace elastic::rt {
namespace {

using testing::TempDir;

std::string lines(int first, int count) {
  std::string s;
  for (int i = first; i < first + count; ++i) s += "line " + std::to_string(i) + " ......\n";
  return s;
}

std::string contents(const std::filesystem::path& p) { return read_file(p).value_or(""); }

TEST(OutputBound, LeavesAFileWithinTheBoundAndAMissingOneAlone) {
  TempDir tmp;
  const auto f = tmp / "stdout";
  EXPECT_EQ(bound_output(f, 100).value_or(99), 0u);
  EXPECT_FALSE(std::filesystem::exists(f));
  ASSERT_TRUE(write_file_atomic(f, lines(0, 5)).ok());
  const std::string before = contents(f);
  ASSERT_LE(before.size(), 100u);
  EXPECT_EQ(bound_output(f, 100).value_or(99), 0u);
  EXPECT_EQ(contents(f), before);
}

TEST(OutputBound, KeepsTheWholeLinesOfTheFirstHalfAndSaysWhatWasDropped) {
  TempDir tmp;
  const auto f = tmp / "stderr";
  const std::string all = lines(0, 1000);  // 16-18 bytes a line
  ASSERT_TRUE(write_file_atomic(f, all).ok());
  absl::StatusOr<std::uint64_t> dropped = bound_output(f, 4000);
  ASSERT_TRUE(dropped.ok()) << dropped.status();
  const std::string now = contents(f);
  const std::size_t marker = now.find("[elasticd: ");
  ASSERT_NE(marker, std::string::npos);
  // The head is a prefix of the original output, cut after a whole line, at most half the bound.
  const std::string head = now.substr(0, marker);
  EXPECT_LE(head.size(), 2000u);
  EXPECT_GT(head.size(), 1900u);
  EXPECT_EQ(all.compare(0, head.size(), head), 0);
  EXPECT_EQ(head.back(), '\n');
  EXPECT_EQ(*dropped, all.size() - head.size());
  EXPECT_NE(now.find(std::to_string(*dropped) + " bytes of output dropped"), std::string::npos);
  EXPECT_EQ(now.back(), '\n');
  // Bounded again later: the same head, one marker.
  ASSERT_TRUE(write_file_atomic(f, now + lines(5000, 500)).ok());
  ASSERT_TRUE(bound_output(f, 4000).ok());
  const std::string again = contents(f);
  EXPECT_EQ(again.substr(0, head.size()), head);
  EXPECT_EQ(again.find("[elasticd: ", marker + 1), std::string::npos);
}

// The lines after the marker: whole, in the order written (-1 when there are none).
long check_after_marker(const std::string& text) {
  const std::size_t marker = text.find("[elasticd: ");
  EXPECT_NE(marker, std::string::npos);
  if (marker == std::string::npos) return -1;
  long last = -1;
  for (std::size_t pos = text.find('\n', marker) + 1; pos < text.size();) {
    const std::size_t end = text.find('\n', pos);
    if (end == std::string::npos) break;
    const std::string l = text.substr(pos, end - pos);
    long n = -1;
    EXPECT_EQ(std::sscanf(l.c_str(), "line %ld ......", &n), 1) << "torn line: " << l;
    EXPECT_GT(n, last);
    last = n;
    pos = end + 1;
  }
  return last;
}

// A writer that appends as the ranks do (O_APPEND, one write per line) while the file is cut
// back again and again: what the file holds after the marker are whole lines, in the order they
// were written, and once the writer is stopped the file is within the bound with its head kept.
TEST(OutputBound, AnAppendingWriterGoesOnAfterTheMarker) {
  TempDir tmp;
  const auto f = tmp / "stdout";
  const pid_t writer = ::fork();
  ASSERT_GE(writer, 0);
  if (writer == 0) {
    const int fd = ::open(f.c_str(), O_WRONLY | O_APPEND | O_CREAT, 0600);
    for (int i = 0;; ++i) {
      const std::string l = "line " + std::to_string(i) + " ......\n";
      if (::write(fd, l.data(), l.size()) < 0) ::_exit(1);
    }
  }
  constexpr std::uint64_t kBound = 64 * 1024;
  std::uint64_t dropped = 0;
  long last = -1;
  for (int round = 0; round < 100000 && last < 0; ++round) {
    absl::StatusOr<std::uint64_t> d = bound_output(f, kBound);
    ASSERT_TRUE(d.ok()) << d.status();
    dropped += *d;
    ::usleep(1000);
    if (round < 200 || dropped == 0) continue;
    ::kill(writer, SIGSTOP);  // a write in flight completes first (O_APPEND writes are atomic)
    last = check_after_marker(contents(f));
    if (last < 0) ::kill(writer, SIGCONT);
  }
  EXPECT_GT(last, 0);
  ASSERT_TRUE(bound_output(f, kBound).ok());
  ::kill(writer, SIGKILL);
  ::waitpid(writer, nullptr, 0);
  const std::string now = contents(f);
  EXPECT_LE(now.size(), kBound);
  EXPECT_EQ(now.rfind("line 0 ", 0), 0u);  // the head is kept
}

}  // namespace
}  // namespace elastic::rt
