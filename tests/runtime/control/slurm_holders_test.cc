// The Slurm feed's decisions (slurm_holders.h) on squeue text and node lists: which nodes are
// granted, which leave, where holders are submitted under the cap and the rate limit.
#include "elastic/control/slurm_holders.h"

#include <gtest/gtest.h>

#include <string>

namespace elastic::rt {
namespace {

std::vector<std::string> names(const std::vector<HostEntry>& hosts) {
  std::vector<std::string> out;
  for (const auto& h : hosts) out.push_back(h.name);
  return out;
}

TEST(SlurmHolders, ParsesOnlyHolderJobs) {
  const auto h = holders_from_squeue(
      "12 elastic-hold:h1 RUNNING 2\n"
      "13 elastic-hold:h2 PENDING 1\n"
      "14 training RUNNING 4\n"
      "15 elastic-hold: RUNNING 1\n"
      "\n");
  ASSERT_TRUE(h.ok()) << h.status();
  ASSERT_EQ(h->size(), 2u);
  EXPECT_EQ((*h)[0], (HolderJob{"12", "h1", "RUNNING", 2}));
  EXPECT_EQ((*h)[1], (HolderJob{"13", "h2", "PENDING", 1}));
  EXPECT_TRUE(holders_from_squeue("").ok());
}

TEST(SlurmHolders, BadLinesNameSourceAndLine) {
  const auto fields =
      holders_from_squeue("1 elastic-hold:h1 RUNNING 1\n2 elastic-hold:h2 RUNNING\n", "squeue");
  ASSERT_FALSE(fields.ok());
  EXPECT_EQ(fields.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(fields.status().message()).find("squeue:2:"), std::string::npos)
      << fields.status();
  const auto cpus = holders_from_squeue("1 elastic-hold:h1 RUNNING 0\n", "squeue");
  ASSERT_FALSE(cpus.ok());
  EXPECT_NE(std::string(cpus.status().message()).find("'0'"), std::string::npos) << cpus.status();
}

TEST(SlurmHolders, GrantedAreRunningHoldersNotLeaving) {
  HolderInput in;
  in.holders = {{"3", "h3", "RUNNING", 4},
                {"1", "h1", "RUNNING", 4},
                {"2", "h2", "PENDING", 4},
                {"4", "h4", "RUNNING", 4},
                {"5", "h5", "COMPLETING", 4}};
  in.leaving = {{"h4", "4"}, {"h3", "old"}};  // h3's marker is from an earlier holder
  const HolderPlan p = plan_holders(in);
  EXPECT_EQ(names(p.granted), (std::vector<std::string>{"h1", "h3"}));
  EXPECT_EQ(p.granted[0].slots, 4);
  in.slots = 1;
  EXPECT_EQ(plan_holders(in).granted[0].slots, 1);
}

TEST(SlurmHolders, SubmitsForIdleNodesWithoutHolderWithinBudgetAndCap) {
  HolderInput in;
  in.holders = {{"1", "h1", "PENDING", 1}, {"2", "h2", "CANCELLED", 1}};
  in.idle = {"h3", "h1", "h2", "h4"};
  in.submit_budget = 0;
  EXPECT_TRUE(plan_holders(in).submit.empty());
  in.submit_budget = 2;
  EXPECT_EQ(plan_holders(in).submit, (std::vector<std::string>{"h2", "h3"}));
  in.submit_budget = 10;
  EXPECT_EQ(plan_holders(in).submit, (std::vector<std::string>{"h2", "h3", "h4"}));
  in.max_holders = 2;  // h1's pending holder counts
  EXPECT_EQ(plan_holders(in).submit, (std::vector<std::string>{"h2"}));
  in.max_holders = 1;
  EXPECT_TRUE(plan_holders(in).submit.empty());
}

}  // namespace
}  // namespace elastic::rt
