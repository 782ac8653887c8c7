// Scheduler adapters on recorded outputs (data/): only truly idle nodes become hostfile lines.
#include "elastic/control/feed.h"

#include <gtest/gtest.h>

#include <string>

#include "elastic/control/atomic_file.h"

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

}  // namespace
}  // namespace elastic::rt
