// Scheduler feeds: the table, the parsers on recorded outputs (data/): only truly idle nodes
// become hostfile lines; and run_feed, once and polling.
#include "elastic/control/feed.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <set>
#include <string>
#include <thread>

#include "elastic/control/atomic_file.h"
#include "fmt/format.h"
#include "temp_dir.h"

namespace elastic::rt {
namespace {

std::string data(std::string_view name) {
  auto text = read_file(std::filesystem::path(ELASTIC_CONTROL_TEST_DATA) / name);
  EXPECT_TRUE(text.ok()) << text.status();
  return text.ok() ? *text : std::string();
}

std::vector<std::string> names(const std::vector<HostEntry>& hosts) {
  std::vector<std::string> out;
  for (const auto& h : hosts) out.push_back(h.name);
  return out;
}

TEST(FeedSlurm, IdleNodesOnlyOncePerNode) {
  const auto hosts = idle_nodes_from_sinfo(data("sinfo_N_T_c.txt"), 0, "sinfo.txt");
  ASSERT_TRUE(hosts.ok()) << hosts.status();
  EXPECT_EQ(names(*hosts),
            (std::vector<std::string>{"nid00002", "nid00004", "nid00009", "nid00014"}));
  EXPECT_EQ((*hosts)[0].slots, 128);
  EXPECT_EQ((*hosts)[2].slots, 64);
  const auto fixed = idle_nodes_from_sinfo(data("sinfo_N_T_c.txt"), 4, "sinfo.txt");
  ASSERT_TRUE(fixed.ok());
  for (const auto& h : *fixed) EXPECT_EQ(h.slots, 4);
}

TEST(FeedSlurm, CompressedNodeListsAsSinfoWithoutNPrintsThem) {
  // sinfo -h -o "%N %T %c" of the same machine as sinfo_N_T_c.txt: the same idle nodes.
  const auto per_node = idle_nodes_from_sinfo(data("sinfo_N_T_c.txt"), 0, "sinfo.txt");
  const auto grouped = idle_nodes_from_sinfo(data("sinfo_T_c.txt"), 0, "sinfo.txt");
  ASSERT_TRUE(per_node.ok() && grouped.ok()) << per_node.status() << grouped.status();
  const auto by_name = [](std::vector<HostEntry> v) {
    std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
    return v;
  };
  EXPECT_EQ(by_name(*grouped), by_name(*per_node));
  const auto bad = idle_nodes_from_sinfo("n1 idle 4\nn[3-1] idle 4\n", 0, "sinfo.txt");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "sinfo.txt:2: a range must not run backwards: '3-1'");
}

TEST(FeedSlurm, MalformedLineNamed) {
  const auto hosts = idle_nodes_from_sinfo(data("sinfo_malformed.txt"), 0, "sinfo.txt");
  ASSERT_FALSE(hosts.ok());
  EXPECT_NE(std::string(hosts.status().message()).find("sinfo.txt:2:"), std::string::npos)
      << hosts.status();
  EXPECT_FALSE(idle_nodes_from_sinfo("n1 idle many\n").ok());
  const auto none = idle_nodes_from_sinfo("");
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

TEST(FeedPbs, PbsProFreeAndUnassignedOnly) {
  const auto hosts = idle_nodes_from_pbsnodes(data("pbsnodes_a.txt"), 0, "pbsnodes.txt");
  ASSERT_TRUE(hosts.ok()) << hosts.status();
  // s25b0n0 is "free" but shares a job (16 cpus assigned): not idle.
  EXPECT_EQ(names(*hosts), (std::vector<std::string>{"x3001c0s13b0n0", "x3001c0s19b1n0"}));
  EXPECT_EQ((*hosts)[0].slots, 64);
}

TEST(FeedPbs, TorqueStyle) {
  const auto hosts = idle_nodes_from_pbsnodes(data("pbsnodes_torque.txt"), 0, "torque.txt");
  ASSERT_TRUE(hosts.ok()) << hosts.status();
  EXPECT_EQ(names(*hosts), (std::vector<std::string>{"node001", "node003"}));
  EXPECT_EQ((*hosts)[1].slots, 16);
}

TEST(FeedPbs, MalformedNamed) {
  const auto orphan = idle_nodes_from_pbsnodes("    state = free\n", 0, "p.txt");
  ASSERT_FALSE(orphan.ok());
  EXPECT_NE(std::string(orphan.status().message()).find("p.txt:1:"), std::string::npos);
  const auto no_eq = idle_nodes_from_pbsnodes("n1\n    state free\n", 0, "p.txt");
  ASSERT_FALSE(no_eq.ok());
  EXPECT_NE(std::string(no_eq.status().message()).find("p.txt:2:"), std::string::npos);
  const auto bad_cpus = idle_nodes_from_pbsnodes("n1\n    state = free\n    np = x\n", 0, "p.txt");
  EXPECT_FALSE(bad_cpus.ok());
}

// Found by fuzzing (tests/fuzz/feeds_fuzz.cc): a node name the hostfile rejects ('wwww;www')
// became a hostfile line, and elasticd then rejected every version of that hostfile. The exact
// input, then the same in both feeds by hand: the listing is an error naming the line.
TEST(FeedNames, AHostfileCannotTakeIsAnError) {
  const auto found =
      read_file(std::filesystem::path(ELASTIC_FUZZ_REGRESSIONS) / "feeds/pbs_invalid_host_name");
  ASSERT_TRUE(found.ok()) << found.status();
  const auto fuzzed = idle_nodes_from_pbsnodes(*found, 0, "p.txt");
  ASSERT_FALSE(fuzzed.ok());
  EXPECT_NE(std::string(fuzzed.status().message()).find("p.txt:1: invalid host name 'node00w"),
            std::string::npos)
      << fuzzed.status();
  const auto pbs = idle_nodes_from_pbsnodes(
      "n1\n    state = free\n    np = 2\n\nn;2\n"
      "    state = free\n    np = 2\n",
      0, "p.txt");
  ASSERT_FALSE(pbs.ok());
  EXPECT_EQ(pbs.status().message(), "p.txt:5: invalid host name 'n;2'");
  const auto slurm = idle_nodes_from_sinfo("n1 idle 4\nn$[1-2] idle 4\n", 0, "s.txt");
  ASSERT_FALSE(slurm.ok());
  EXPECT_EQ(slurm.status().message(), "s.txt:2: invalid host name 'n$1'");
  // Names the hostfile takes still pass, and busy nodes are not checked (they are not written).
  const auto busy = idle_nodes_from_sinfo("n1 idle 4\nn;2 allocated 4\n", 0, "s.txt");
  ASSERT_TRUE(busy.ok()) << busy.status();
  EXPECT_EQ(names(*busy), std::vector<std::string>{"n1"});
}

TEST(FeedTable, RowsAndLookUp) {
  std::set<std::string_view> names;
  for (const Feed& f : feed_table()) {
    EXPECT_TRUE(names.insert(f.name).second) << "feed " << f.name << " listed twice";
    EXPECT_FALSE(f.command.empty()) << f.name;
    EXPECT_NE(f.parse, nullptr) << f.name;
    EXPECT_EQ(find_feed(f.name), &f);
    EXPECT_NE(feed_help().find(f.name), std::string::npos) << feed_help();
  }
  EXPECT_EQ(find_feed("slurm")->parse, &idle_nodes_from_sinfo);
  EXPECT_NE(find_feed("slurm")->holders, nullptr);
  EXPECT_EQ(find_feed("pbs")->parse, &idle_nodes_from_pbsnodes);
  EXPECT_EQ(find_feed("pbs")->holders, nullptr);
  EXPECT_EQ(find_feed("lsf"), nullptr);
  EXPECT_EQ(find_feed("trace"), nullptr);  // a replay, not a scheduler (feed_trace.h)
}

// A feed whose command prints a recorded sinfo, so that run_feed's command path runs here. The
// row refers to `command`, which must outlive it.
Feed sinfo_by_command(const std::string& command) {
  return Feed{"slurm", command, idle_nodes_from_sinfo, nullptr, ""};
}

std::string hostfile_text(const std::filesystem::path& p) {
  auto text = read_file(p);
  return text.ok() ? *text : "(" + std::string(text.status().message()) + ")";
}

TEST(RunFeed, OnceFromTheCommandOrARecordedFile) {
  testing::TempDir dir;
  const std::atomic<bool> stop{false};
  const std::string recorded = std::string(ELASTIC_CONTROL_TEST_DATA) + "/sinfo_N_T_c.txt";
  FeedOptions o;
  o.hostfile = dir / "hosts";
  ASSERT_TRUE(run_feed(sinfo_by_command("cat '" + recorded + "'"), o, stop).ok());
  EXPECT_EQ(hostfile_text(o.hostfile),
            "nid00002 slots=128\nnid00004 slots=128\nnid00009 slots=64\nnid00014 slots=128\n");
  o.input = recorded;
  o.slots = 2;
  ASSERT_TRUE(run_feed(*find_feed("slurm"), o, stop).ok());
  EXPECT_EQ(hostfile_text(o.hostfile),
            "nid00002 slots=2\nnid00004 slots=2\nnid00009 slots=2\nnid00014 slots=2\n");
  // No idle node at all is a hostfile without nodes, not the old one kept.
  testing::write_text(dir / "busy.txt", "n1 allocated 8\n");
  o.input = (dir / "busy.txt").string();
  ASSERT_TRUE(run_feed(*find_feed("slurm"), o, stop).ok());
  EXPECT_EQ(hostfile_text(o.hostfile), "");
}

TEST(RunFeed, OnceBadInputIsReturnedAndTheHostfileKept) {
  testing::TempDir dir;
  const std::atomic<bool> stop{false};
  FeedOptions o;
  o.hostfile = dir / "hosts";
  testing::write_text(o.hostfile, "old slots=1\n");
  o.input = std::string(ELASTIC_CONTROL_TEST_DATA) + "/sinfo_malformed.txt";
  const absl::Status bad = run_feed(*find_feed("slurm"), o, stop);
  EXPECT_EQ(bad.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(bad.message().find("sinfo_malformed.txt:2:"), std::string::npos) << bad;
  o.input.clear();  // run the command, which fails
  const absl::Status failed = run_feed(sinfo_by_command("exit 3"), o, stop);
  EXPECT_EQ(failed.code(), absl::StatusCode::kUnavailable) << failed;
  o.input = (dir / "missing.txt").string();
  EXPECT_FALSE(run_feed(*find_feed("slurm"), o, stop).ok());
  EXPECT_EQ(hostfile_text(o.hostfile), "old slots=1\n");
}

// Polls `hostfile` until it reads `want` (up to 30 s: a bound for a stuck feed, not a timing).
bool becomes(const std::filesystem::path& hostfile, const std::string& want) {
  for (int i = 0; i < 3000; ++i) {
    if (hostfile_text(hostfile) == want) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

TEST(RunFeed, PollingFollowsTheListingKeepsTheLastGoodOneAndStops) {
  testing::TempDir dir;
  std::atomic<bool> stop{false};
  const std::filesystem::path listing = dir / "listing.txt", calls = dir / "calls";
  // The command appends a line to `calls` each time it has printed the listing.
  const std::string command =
      fmt::format("cat '{}' && echo >> '{}'", listing.string(), calls.string());
  const Feed feed = sinfo_by_command(command);
  const auto polls = [&] {
    const std::string text = hostfile_text(calls);
    return std::count(text.begin(), text.end(), '\n');
  };
  // Replaced atomically (rename), so that a poll never reads half a listing.
  const auto record = [&](std::string_view text) {
    testing::write_text(dir / "listing.new", text);
    std::filesystem::rename(dir / "listing.new", listing);
  };
  FeedOptions o;
  o.hostfile = dir / "hosts";
  o.every_s = 0.01;
  record("n1 idle 4\n");
  absl::Status result = absl::UnknownError("still running");
  std::thread poller([&] { result = run_feed(feed, o, stop); });
  EXPECT_TRUE(becomes(o.hostfile, "n1 slots=4\n")) << hostfile_text(o.hostfile);
  record("n[1-3] idle 4\n");
  EXPECT_TRUE(becomes(o.hostfile, "n1 slots=4\nn2 slots=4\nn3 slots=4\n"))
      << hostfile_text(o.hostfile);
  // A bad listing is reported and skipped: two more polls (so one read it whole) leave the
  // last good hostfile in place.
  record("n1 idle many\n");
  const auto seen = polls();
  for (int i = 0; i < 3000 && polls() < seen + 2; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_GE(polls(), seen + 2);
  EXPECT_EQ(hostfile_text(o.hostfile), "n1 slots=4\nn2 slots=4\nn3 slots=4\n");
  record("n2 idle 4\n");
  EXPECT_TRUE(becomes(o.hostfile, "n2 slots=4\n")) << hostfile_text(o.hostfile);
  stop = true;
  poller.join();
  EXPECT_TRUE(result.ok()) << result;
}

}  // namespace
}  // namespace elastic::rt
