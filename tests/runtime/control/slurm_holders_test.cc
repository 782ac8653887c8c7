// The Slurm feed's decisions (slurm_holders.h) on squeue text and node lists: which nodes are
// granted, which leave, where holders are submitted under the cap and the rate limit, and which
// holders are given back ahead of Slurm for pending main-queue jobs.
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
  // Found by the squeue fuzz target: a holder's node goes into the hostfile, which elasticd
  // refuses whole for one name it cannot take.
  const auto name =
      holders_from_squeue("1 elastic-hold:h1 RUNNING 1\n2 elastic-hold:h#2 RUNNING 1\n", "squeue");
  ASSERT_FALSE(name.ok());
  EXPECT_EQ(name.status().message(), "squeue:2: holder job for an invalid host name: 'h#2'");
}

// Found by the squeue fuzz target: two running holders on one node (a second submitted by a feed
// restarted with a stale view) granted it twice, a hostfile elasticd refuses ("duplicate host").
TEST(SlurmHolders, ANodeHeldTwiceIsGrantedOnce) {
  HolderInput in;
  in.holders = {{"1", "h1", "RUNNING", 4}, {"2", "h2", "RUNNING", 4}, {"3", "h1", "RUNNING", 2}};
  const HolderPlan plan = plan_holders(in);
  ASSERT_EQ(plan.granted.size(), 2u);
  EXPECT_EQ(plan.granted[0].name, "h1");
  EXPECT_EQ(plan.granted[0].slots, 4);
  EXPECT_EQ(plan.granted[1].name, "h2");
  EXPECT_TRUE(parse_hostfile(format_hostfile(plan.granted), "granted").ok());
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

TEST(SlurmHolders, ParsesPendingJobsWithReasonsOfSeveralWords) {
  const auto p = pending_from_squeue(
      "40 2 None\n"
      "41 1 ReqNodeNotAvail, UnavailableNodes:h3\n"
      "\n");
  ASSERT_TRUE(p.ok()) << p.status();
  ASSERT_EQ(p->size(), 2u);
  EXPECT_EQ((*p)[0], (PendingJob{"40", 2, "None"}));
  EXPECT_EQ((*p)[1], (PendingJob{"41", 1, "ReqNodeNotAvail, UnavailableNodes:h3"}));
  const auto bad = pending_from_squeue("40 2 None\n41 x None\n", "squeue");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(std::string(bad.status().message()).find("squeue:2:"), std::string::npos)
      << bad.status();
  EXPECT_NE(std::string(bad.status().message()).find("'x'"), std::string::npos) << bad.status();
  EXPECT_FALSE(pending_from_squeue("40 2\n").ok());
}

TEST(SlurmHolders, VacatesWhatNewJobsNeedBeyondFreeNodesIdleHoldersFirst) {
  VacateInput in;
  in.held = {"h4", "h1", "h3", "h2"};
  in.busy = {"h1", "h2", "h3"};  // h4's holder has no job of elasticd's on it
  in.pending = {{"50", 2, "None"}};
  VacatePlan p = plan_vacate(in);
  EXPECT_EQ(p.demand, 2);
  EXPECT_EQ(p.vacate, (std::vector<std::string>{"h4", "h1"}));
  in.free = 1;  // an idle node covers one of the two
  EXPECT_EQ(plan_vacate(in).vacate, (std::vector<std::string>{"h4"}));
  in.on_the_way = 1;  // and a holder Slurm preempted already the other
  p = plan_vacate(in);
  EXPECT_EQ(p.demand, 2);
  EXPECT_TRUE(p.vacate.empty());
}

// A job that steps slower than --vacate-max-step (or not measured yet) would leave after Slurm's
// pass had preempted another holder anyway: its nodes are kept, the others given back.
TEST(SlurmHolders, NodesOfSlowJobsAreNotGivenBack) {
  VacateInput in;
  in.held = {"h1", "h2", "h3", "h4"};
  in.busy = {"h1", "h2", "h3", "h4"};
  in.slow = {"h1", "h3"};
  in.pending = {{"50", 3, "None"}};
  VacatePlan p = plan_vacate(in);
  EXPECT_EQ(p.demand, 3);  // Slurm can still preempt the slow ones: they count for fitting
  EXPECT_EQ(p.vacate, (std::vector<std::string>{"h2", "h4"}));
  in.slow = in.busy;
  p = plan_vacate(in);
  EXPECT_EQ(p.demand, 3);
  EXPECT_TRUE(p.vacate.empty());
}

// Which nodes elasticd would leave within a step: from its status.json, as the feed reads it.
TEST(SlurmHolders, BusyNodesFromStatusAndWhichWouldLeaveTooLate) {
  StatusSnapshot s;
  s.time = 1000.0;
  s.nodes = {{"h1", 1, "busy", "fast"},     {"h2", 1, "busy", "slow"}, {"h3", 1, "busy", "new"},
             {"h4", 1, "exiting", ""},      {"h5", 1, "free", ""},     {"h6", 1, "leaving", "fast"},
             {"h7", 1, "busy", "vanished"}, {"h8", 1, "lost", ""}};
  JobStatus fast, slow, fresh;
  fast.id = "fast";
  fast.step_s = 0.02;
  slow.id = "slow";
  slow.step_s = 0.4;
  fresh.id = "new";  // no step time yet: starting
  s.jobs = {fast, slow, fresh};
  VacateInput in;
  classify_busy(s, 1000.5, 0.25, in);
  EXPECT_EQ(in.busy, (std::vector<std::string>{"h1", "h2", "h3", "h4", "h6", "h7"}));
  // h4: processes of a job that left it are ending (0.7-1.4 s in the demo); h7: a job the
  // snapshot does not list.
  EXPECT_EQ(in.slow, (std::vector<std::string>{"h2", "h3", "h4", "h7"}));
  // elasticd has not written for more than kStaleStatusS: inside a verb, every node waits.
  VacateInput stale;
  classify_busy(s, 1000.0 + kStaleStatusS + 0.1, 0.25, stale);
  EXPECT_EQ(stale.slow, stale.busy);
  VacateInput wide;
  classify_busy(s, 1000.5, 0.5, wide);
  EXPECT_EQ(wide.slow, (std::vector<std::string>{"h3", "h4", "h7"}));
}

TEST(SlurmHolders, OnlyJobsSlurmHasNotLookedAtThatFitCount) {
  VacateInput in;
  in.held = {"h1", "h2", "h3"};
  in.free = 1;
  // 60: Slurm left it pending (it preempts for what it starts itself); 61: more nodes than the
  // box has; 62 fits; 63 would not fit after 62, so 64 (lower priority) does not count either.
  in.pending = {{"60", 1, "Resources"},
                {"61", 5, "None"},
                {"62", 3, "None"},
                {"63", 2, "None"},
                {"64", 1, "None"}};
  const VacatePlan p = plan_vacate(in);
  EXPECT_EQ(p.demand, 3);
  EXPECT_EQ(p.vacate, (std::vector<std::string>{"h1", "h2"}));
  in.pending = {{"60", 1, "Priority"}, {"61", 1, "Dependency"}};
  EXPECT_EQ(plan_vacate(in).demand, 0);
  EXPECT_TRUE(plan_vacate(in).vacate.empty());
}

}  // namespace
}  // namespace elastic::rt
