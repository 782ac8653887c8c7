// The watcher sees atomic replaces (write temp + rename, as adapters do), in-place rewrites and
// deletions; rejects bad versions while keeping the last good one. Every case runs twice: with
// inotify (its safety-net poll set to an hour, so only inotify can deliver) and with polling
// forced.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <string>

#include "elastic/control/hostfile.h"
#include "temp_dir.h"

namespace elastic::rt {
namespace {

using namespace std::chrono_literals;
using testing::TempDir;
using testing::write_text;

// An update arrives well within this; wait() returns as soon as it does.
constexpr auto kPatience = 20s;

void replace_atomically(const std::filesystem::path& path, std::string_view text) {
  const auto tmp = path.parent_path() / ".hosts.tmp";
  write_text(tmp, text);
  std::filesystem::rename(tmp, path);
}

class WatcherTest : public ::testing::TestWithParam<bool> {
 protected:
  bool polling() const { return GetParam(); }
  HostfileWatcherOptions options() const {
    HostfileWatcherOptions o;
    o.force_polling = polling();
    o.poll_interval = polling() ? 20ms : std::chrono::milliseconds(3600s);
    return o;
  }
  TempDir dir_;
  std::filesystem::path path_ = dir_ / "granted.hosts";
};

TEST_P(WatcherTest, SeesAtomicReplaceAndReportsDiff) {
  write_text(path_, "node01 slots=2\nnode02 slots=2\n");
  auto w = HostfileWatcher::create(path_, options());
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_EQ((*w)->polling(), polling());
  EXPECT_EQ((*w)->hosts().size(), 2u);
  EXPECT_FALSE((*w)->wait(0ms).has_value());

  replace_atomically(path_, "node02 slots=2\nnode03 slots=2\nnode04 slots=2\n");
  const auto u = (*w)->wait(kPatience);
  ASSERT_TRUE(u.has_value());
  ASSERT_TRUE(u->status.ok()) << u->status;
  EXPECT_EQ(u->hosts.size(), 3u);
  ASSERT_EQ(u->added.size(), 2u);
  EXPECT_EQ(u->added[0].name, "node03");
  EXPECT_EQ(u->added[1].name, "node04");
  EXPECT_EQ(u->removed, std::vector<std::string>{"node01"});
  EXPECT_EQ((*w)->hosts(), u->hosts);

  // A second replace is seen too: the directory watch survives the inode swap.
  replace_atomically(path_, "node02 slots=4\n");
  const auto u2 = (*w)->wait(kPatience);
  ASSERT_TRUE(u2.has_value());
  ASSERT_TRUE(u2->status.ok()) << u2->status;
  EXPECT_EQ(u2->removed, (std::vector<std::string>{"node03", "node04"}));
  ASSERT_EQ(u2->resized.size(), 1u);
  EXPECT_EQ(u2->resized[0].slots, 4);
}

TEST_P(WatcherTest, CorruptVersionIsRejectedAndLastGoodKept) {
  write_text(path_, "node01 slots=2\nnode02 slots=2\n");
  auto w = HostfileWatcher::create(path_, options());
  ASSERT_TRUE(w.ok()) << w.status();

  replace_atomically(path_, "node01 slots=2\nnode02 slots=lots\n");
  const auto bad = (*w)->wait(kPatience);
  ASSERT_TRUE(bad.has_value());
  EXPECT_EQ(bad->status.code(), absl::StatusCode::kInvalidArgument);
  const std::string msg(bad->status.message());
  EXPECT_NE(msg.find("granted.hosts:2:"), std::string::npos) << msg;
  EXPECT_NE(msg.find("slots=lots"), std::string::npos) << msg;
  EXPECT_EQ(bad->hosts.size(), 2u);
  EXPECT_TRUE(bad->added.empty());
  EXPECT_TRUE(bad->removed.empty());
  EXPECT_EQ((*w)->hosts().size(), 2u);

  // The same bad content again is not re-reported.
  replace_atomically(path_, "node01 slots=2\nnode02 slots=lots\n");
  EXPECT_FALSE((*w)->wait(polling() ? 200ms : 500ms).has_value());

  // The next good version is diffed against the last GOOD one.
  replace_atomically(path_, "node01 slots=2\nnode03 slots=2\n");
  const auto good = (*w)->wait(kPatience);
  ASSERT_TRUE(good.has_value());
  ASSERT_TRUE(good->status.ok()) << good->status;
  EXPECT_EQ(good->removed, std::vector<std::string>{"node02"});
  ASSERT_EQ(good->added.size(), 1u);
  EXPECT_EQ(good->added[0].name, "node03");
}

TEST_P(WatcherTest, InPlaceRewriteAndDeletion) {
  write_text(path_, "a slots=1\n");
  auto w = HostfileWatcher::create(path_, options());
  ASSERT_TRUE(w.ok()) << w.status();

  write_text(path_, "a slots=1\nb slots=1\n");  // truncate + write + close: IN_CLOSE_WRITE
  const auto u = (*w)->wait(kPatience);
  ASSERT_TRUE(u.has_value());
  ASSERT_TRUE(u->status.ok()) << u->status;
  ASSERT_EQ(u->added.size(), 1u);
  EXPECT_EQ(u->added[0].name, "b");

  std::filesystem::remove(path_);
  const auto gone = (*w)->wait(kPatience);
  ASSERT_TRUE(gone.has_value());
  EXPECT_EQ(gone->status.code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(gone->hosts.size(), 2u);  // nothing accepted is lost
  EXPECT_EQ((*w)->hosts().size(), 2u);

  replace_atomically(path_, "b slots=1\n");
  const auto back = (*w)->wait(kPatience);
  ASSERT_TRUE(back.has_value());
  ASSERT_TRUE(back->status.ok()) << back->status;
  EXPECT_EQ(back->removed, std::vector<std::string>{"a"});
}

TEST_P(WatcherTest, OtherFilesInTheDirectoryAreIgnored) {
  write_text(path_, "a slots=1\n");
  auto w = HostfileWatcher::create(path_, options());
  ASSERT_TRUE(w.ok()) << w.status();
  write_text(dir_ / "unrelated.txt", "x");
  replace_atomically(dir_ / "other.hosts", "z slots=1\n");
  EXPECT_FALSE((*w)->wait(polling() ? 200ms : 500ms).has_value());
  EXPECT_EQ((*w)->hosts().size(), 1u);
}

TEST_P(WatcherTest, StartupRules) {
  // A bad initial file is an error naming the line.
  write_text(path_, "ok slots=1\nbad slots=x\n");
  auto bad = HostfileWatcher::create(path_, options());
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(std::string(bad.status().message()).find("granted.hosts:2:"), std::string::npos);

  // A missing file is an error unless allowed; when allowed, its arrival is an update.
  std::filesystem::remove(path_);
  EXPECT_EQ(HostfileWatcher::create(path_, options()).status().code(), absl::StatusCode::kNotFound);
  HostfileWatcherOptions o = options();
  o.allow_missing = true;
  auto w = HostfileWatcher::create(path_, o);
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_TRUE((*w)->hosts().empty());
  replace_atomically(path_, "n1 slots=2\n");
  const auto u = (*w)->wait(kPatience);
  ASSERT_TRUE(u.has_value());
  ASSERT_TRUE(u->status.ok()) << u->status;
  ASSERT_EQ(u->added.size(), 1u);
  EXPECT_EQ(u->added[0].name, "n1");
}

// inotify only: a writer closes the file (the event is queued) and opens it again to rewrite it
// in place before the watcher looks. The event is about the finished version; the file now holds
// half of the next one, and a watcher that trusted the event took it (hosts b and c "removed").
// The later write events say a writer is at it: nothing is taken until it closes the file.
TEST(HostfileWatcher, AWriterBackAtItBeforeTheWatcherLooksIsNotTakenHalfDone) {
  TempDir dir;
  const auto path = dir / "granted.hosts";
  write_text(path, "a slots=1\nb slots=1\nc slots=1\n");
  HostfileWatcherOptions o;
  o.poll_interval = std::chrono::milliseconds(3600s);
  auto w = HostfileWatcher::create(path, o);
  ASSERT_TRUE(w.ok()) << w.status();
  ASSERT_FALSE((*w)->polling()) << "inotify is not available here";

  write_text(path, "a slots=1\nb slots=1\nc slots=1\nd slots=1\n");  // done: IN_CLOSE_WRITE
  std::FILE* f = std::fopen(path.c_str(), "w");                      // back at it
  ASSERT_NE(f, nullptr);
  std::fputs("a slots=1\n", f);
  std::fflush(f);
  const auto half = (*w)->wait(300ms);
  EXPECT_FALSE(half.has_value()) << "took a half-written version: "
                                 << (half ? half->removed.size() : 0) << " hosts removed";
  EXPECT_EQ((*w)->hosts().size(), 3u);

  std::fputs("b slots=1\nc slots=1\nd slots=1\ne slots=1\n", f);
  std::fclose(f);
  const auto done = (*w)->wait(kPatience);
  ASSERT_TRUE(done.has_value());
  ASSERT_TRUE(done->status.ok()) << done->status;
  EXPECT_TRUE(done->removed.empty());
  ASSERT_EQ(done->added.size(), 2u);
  EXPECT_EQ(done->added[0].name, "d");
  EXPECT_EQ(done->added[1].name, "e");
}

INSTANTIATE_TEST_SUITE_P(Modes, WatcherTest, ::testing::Values(false, true),
                         [](const auto& p) { return p.param ? "polling" : "inotify"; });

}  // namespace
}  // namespace elastic::rt
