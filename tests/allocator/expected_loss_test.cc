// Expected-loss gains (expected_loss.h): a grow onto a node pays only when the node is expected to
// stay past the break-even time, which grows with the job's size; growing jobs take the longest-
// lived free nodes; a job that ends while a node would still be idle is not grown onto it when
// another job would keep it; a job that ends before its nodes leave is valued to its finish; the
// exact solvers stay exact on the gains tables (brute force).
#include "elastic/allocator/expected_loss.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <string>

#include "brute_force.h"
#include "elastic/allocator/allocator.h"
#include "elastic/allocator/build_count_model.h"
#include "elastic/allocator/solver_table.h"

namespace elastic::alloc {
namespace {

constexpr double kForever = std::numeric_limits<double>::infinity();

// 10 samples/s per node up to 64 nodes; grow stall 3 s, shrink stall 2 s.
Job linear_job(const std::string& id, std::vector<std::string> held) {
  Job j;
  j.id = id;
  j.min_nodes = 1;
  j.max_nodes = 64;
  j.scaling = *PiecewiseLinear::create(std::vector<int>{0, 64}, std::vector<double>{0, 640});
  j.grow_stall_s = 3;
  j.shrink_stall_s = 2;
  j.nodes = std::move(held);
  return j;
}

// `held` nodes h1.. (never leaving) held by one job, and free nodes f1.. with the given expected
// idle times; horizon 100 s.
Problem problem_with(int held, std::vector<double> free_idle_s) {
  Problem p;
  p.solver = SolverKind::kDp;
  p.horizon_s = 100;
  p.expect_departures = true;
  std::vector<std::string> names;
  for (int i = 1; i <= held; ++i) {
    names.push_back("h" + std::to_string(i));
    p.nodes.push_back({names.back(), "", false, kForever});
  }
  for (std::size_t i = 0; i < free_idle_s.size(); ++i) {
    p.nodes.push_back({"f" + std::to_string(i + 1), "", false, free_idle_s[i]});
  }
  p.jobs = {linear_job("a", names)};
  return p;
}

TEST(ExpectedLoss, NodeOutlookIsTheExponentialResidual) {
  const NodeOutlook forever = node_outlook(kForever, 100);
  EXPECT_EQ(forever.stay_s, 100);
  EXPECT_EQ(forever.leave_p, 0);
  const NodeOutlook o = node_outlook(50, 100);
  EXPECT_NEAR(o.leave_p, 1 - std::exp(-2.0), 1e-12);
  EXPECT_NEAR(o.stay_s, 50 * (1 - std::exp(-2.0)), 1e-12);
}

TEST(ExpectedLoss, GainsByHand) {
  // Holds 2 nodes that stay; one free node expected to stay 1000 s.
  const PiecewiseLinear value =
      *PiecewiseLinear::create(std::vector<int>{0, 64}, std::vector<double>{0, 640});
  const LossJob job{&value, 1, 3, 2};
  const std::vector<double> held{kForever, kForever};
  const std::vector<double> free{1000};
  const std::vector<double> gains = expected_gains(job, 3, 100, held, free, {});
  ASSERT_EQ(gains.size(), 4u);
  const double p = 1 - std::exp(-0.1);
  EXPECT_NEAR(gains[2], 2000, 1e-9);           // keep: 2 nodes x 10/s x 100 s
  EXPECT_NEAR(gains[1], 1000 - 2 * 10, 1e-9);  // shrink: stall at the new size
  EXPECT_NEAR(gains[0], 0, 1e-9);
  EXPECT_NEAR(gains[3], 2000 + 10 * 1000 * p - 3 * 30 - 2 * 20 * p, 1e-9);
}

TEST(ExpectedLoss, GrowsOnlyOntoNodesThatStayPastBreakEven) {
  // Job at 2 nodes, grow stall 3 s x 30/s = 90, the new node adds 10/s: it must stay ~10 s.
  for (const auto& [idle_s, expected] : {std::pair{5.0, 2}, std::pair{1000.0, 3}}) {
    absl::StatusOr<Allocation> a = allocate(problem_with(2, {idle_s}));
    ASSERT_TRUE(a.ok()) << a.status();
    EXPECT_EQ(a->jobs[0].count, expected) << "expected idle " << idle_s << " s";
  }
  // Without expect_departures the hints play no part: BFTrainer's gain grows onto it.
  Problem plain = problem_with(2, {5.0});
  plain.expect_departures = false;
  EXPECT_EQ(allocate(plain)->jobs[0].count, 3);
}

TEST(ExpectedLoss, BreakEvenGrowsWithTheJobsSize) {
  // A node expected to stay 20 s is worth taking for a job at 1 node, not for one at 8: one more
  // node adds 10/s either way, but the stalls are charged at the whole job's rate.
  absl::StatusOr<Allocation> small = allocate(problem_with(1, {20}));
  absl::StatusOr<Allocation> large = allocate(problem_with(8, {20}));
  ASSERT_TRUE(small.ok() && large.ok());
  EXPECT_EQ(small->jobs[0].count, 2);
  EXPECT_EQ(large->jobs[0].count, 8);
}

TEST(ExpectedLoss, GrowingJobTakesTheLongestLivedFreeNodes) {
  absl::StatusOr<Allocation> a = allocate(problem_with(1, {2, 5000, 30}));
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_EQ(a->jobs[0].count, 3);  // 5000 s and 30 s pay, 2 s does not
  EXPECT_EQ(a->jobs[0].nodes, (std::vector<std::string>{"f2", "f3", "h1"}));
}

TEST(ExpectedLoss, GrowOfAJobThatFinishesPaysItsSuccessorsStallIfTheNodeOutlivesIt) {
  // As GainsByHand, with 10/s per node; the free node's expected idle time is 200 s. With 100
  // samples left, at 3 nodes the job finishes 3 + 100/30 s from now; the node it took is then
  // still idle with probability e^{-t/200} and is granted again, paying the grow stall once more:
  // 3 s x the 10/s a node makes for the next job. A finish past the horizon (3,000 samples left:
  // 3 + 100 s) is charged too, spread over the time the job holds the node (100/103 of it).
  // Keeping or shrinking is unchanged.
  const PiecewiseLinear value =
      *PiecewiseLinear::create(std::vector<int>{0, 64}, std::vector<double>{0, 640});
  const std::vector<double> held{kForever, kForever};
  const std::vector<double> free{200};
  const std::vector<double> open = expected_gains({&value, 1, 3, 2}, 3, 100, held, free, {});
  for (const double left : {100.0, 3000.0, 0.0}) {
    const double finish_s = 3 + left / 30;
    const std::vector<double> ending =
        expected_gains({&value, 1, 3, 2, &value, left, 10}, 3, 100, held, free, {});
    const double spread = std::min(1.0, 100 / finish_s);
    EXPECT_NEAR(ending[3], open[3] - 3 * 10 * std::exp(-finish_s / 200) * spread, 1e-9)
        << left << " samples left";
    for (int n = 0; n <= 2; ++n) EXPECT_NEAR(ending[n], open[n], 1e-9) << n << " nodes";
  }
}

TEST(ExpectedLoss, FinishChargeSparesTheMinimumEveryJobEndsOn) {
  // A job that holds nothing and has 100 samples left: whichever job the first node goes to ends
  // on it some day, so a start (0 -> 1) is not charged; a start on 2 nodes is charged for the
  // second, on which the next job stalls, at the mean chance that a node outlives the job.
  const PiecewiseLinear value =
      *PiecewiseLinear::create(std::vector<int>{0, 64}, std::vector<double>{0, 640});
  const std::vector<double> free{kForever, 300};
  const std::vector<double> open = expected_gains({&value, 1, 3, 2}, 2, 100, {}, free, {});
  const std::vector<double> ending =
      expected_gains({&value, 1, 3, 2, &value, 100, 10}, 2, 100, {}, free, {});
  EXPECT_NEAR(ending[1], open[1], 1e-9);
  const double outlives = (1 + std::exp(-(3 + 100.0 / 20) / 300)) / 2;
  EXPECT_NEAR(ending[2], open[2] - 3 * 10 * outlives, 1e-9);
}

TEST(ExpectedLoss, FinishChargeNeverLeavesANodeIdle) {
  // The next job would make 1,000/s on the node, so the finish charge (3 s x 1,000/s) exceeds what
  // the node is worth to this job over the horizon (100 s x 10/s less its 3 s x 30/s grow stall):
  // the grow stays (barely) better than keeping 2 nodes, so with no other job the node is used.
  const PiecewiseLinear value =
      *PiecewiseLinear::create(std::vector<int>{0, 64}, std::vector<double>{0, 640});
  const std::vector<double> held{kForever, kForever};
  const std::vector<double> free{kForever};
  const std::vector<double> open = expected_gains({&value, 1, 3, 2}, 3, 100, held, free, {});
  const std::vector<double> ending =
      expected_gains({&value, 1, 3, 2, &value, 100, 1000}, 3, 100, held, free, {});
  EXPECT_GT(ending[3], ending[2]);
  EXPECT_LT(ending[3] - ending[2], 1e-3 * (open[3] - open[2]));
}

TEST(ExpectedLoss, FreeNodeGoesToTheJobThatKeepsIt) {
  // Jobs a and b hold 2 nodes each and one node is free. a's grow stall is the smaller (3 s
  // against 3.5 s), so the node is a's while both run on; once a is 50 samples from its end, it
  // would give the node back within the horizon, and the node goes to b. Neither job shrinks.
  for (const auto& [left, grower] : {std::pair{kForever, 0}, std::pair{50.0, 1}}) {
    Problem p = problem_with(0, {kForever, kForever, kForever, kForever, kForever});
    p.jobs = {linear_job("a", {"f1", "f2"}), linear_job("b", {"f3", "f4"})};
    p.jobs[0].remaining_samples = left;
    p.jobs[1].grow_stall_s = 3.5;
    absl::StatusOr<Allocation> a = allocate(p);
    ASSERT_TRUE(a.ok()) << a.status();
    EXPECT_EQ(a->jobs[grower].count, 3) << left << " samples left to a";
    EXPECT_EQ(a->jobs[1 - grower].count, 2) << left << " samples left to a";
  }
}

TEST(ExpectedLoss, JobThatFinishesBeforeItsNodesLeaveIsValuedToItsFinish) {
  // 10/s per node, nodes that stay, horizon 100 s, grow stall 3 s, no node held. With 1,000
  // samples left the job ends 100/n s from now at n nodes, before W = 1,000 s: it is worth its
  // samples over W (1/s) and then what its nodes make for the next job (s = 4/s each) until W,
  // w(n) = 1 + 4 n (1 - 0.1 / n), instead of 10 n. The finish charge is the same either way, so
  // the gains differ by (T - U) (w_W(n) - 10 n). A job that ends after W keeps its rate.
  const PiecewiseLinear value =
      *PiecewiseLinear::create(std::vector<int>{0, 64}, std::vector<double>{0, 640});
  const std::vector<double> free{kForever, kForever, kForever};
  const LossJob ending{&value, 1, 3, 2, &value, 1000, 4};
  LossJob to_finish = ending;
  to_finish.window_s = 1000;
  const std::vector<double> rate = expected_gains(ending, 3, 100, {}, free, {});
  const std::vector<double> finish = expected_gains(to_finish, 3, 100, {}, free, {});
  EXPECT_NEAR(finish[0], 0, 1e-9);
  for (int n = 1; n <= 3; ++n) {
    const double w = 1 + 4 * n * (1 - 0.1 / n);
    EXPECT_NEAR(finish[n] - rate[n], (100 - 3) * (w - 10 * n), 1e-9) << n << " nodes";
  }
  LossJob long_job = to_finish;
  long_job.remaining_samples = 1e6;  // 100,000 s at 1 node, 33,333 s at 3: after W
  EXPECT_EQ(expected_gains(long_job, 3, 100, {}, free, {}),
            expected_gains({&value, 1, 3, 2, &value, 1e6, 4}, 3, 100, {}, free, {}));
}

TEST(ExpectedLoss, FreeNodeGoesToAJobThatRunsOnNotToOneThatWouldOnlyFinishSooner) {
  // a makes 100/s per node and has 2,000 samples left (20 s at 1 node); b and c make 10/s per node
  // and run on. Each holds a node and one node is free; a can use 2. By rate the node is a's
  // (+100/s); valued to the finish, a ends long before its nodes leave either way, so a second
  // node only frees it 10 s sooner for the next job, and the node goes to b or c.
  for (const bool to_finish : {false, true}) {
    Problem p = problem_with(0, {kForever, kForever, kForever, kForever});
    p.jobs = {linear_job("a", {"f1"}), linear_job("b", {"f2"}), linear_job("c", {"f3"})};
    p.jobs[0].scaling =
        *PiecewiseLinear::create(std::vector<int>{0, 64}, std::vector<double>{0, 6400});
    p.jobs[0].max_nodes = 2;
    p.jobs[0].remaining_samples = 2000;
    p.finish_window_scale = to_finish ? 1.0 : 0.0;
    absl::StatusOr<Allocation> a = allocate(p);
    ASSERT_TRUE(a.ok()) << a.status();
    EXPECT_EQ(a->jobs[0].count, to_finish ? 1 : 2) << "value to the finish: " << to_finish;
    EXPECT_EQ(a->jobs[1].count + a->jobs[2].count, to_finish ? 3 : 2);
  }
}

TEST(ExpectedLoss, LongerFinishWindowValuesMoreJobsToTheirFinish) {
  // As above, but a has 1.2e7 samples left: 120,000 s at 1 node, 60,000 s at 2. The nodes never
  // leave, so the pool's mean expected idle time is the estimators' cap (86,400 s). With that
  // window a finishes within it only at 2 nodes, which raise its value from its rate (100/s) to
  // 1.2e7/86,400 + 2 s (1 - 60,000/86,400) = 145/s, and a takes the free node. With twice the
  // window a finishes within it at 1 node too, a second node then only frees both sooner (+s =
  // 10/s, less a's larger grow stall), and the node goes to b or c.
  for (const double scale : {1.0, 2.0}) {
    Problem p = problem_with(0, {kForever, kForever, kForever, kForever});
    p.jobs = {linear_job("a", {"f1"}), linear_job("b", {"f2"}), linear_job("c", {"f3"})};
    p.jobs[0].scaling =
        *PiecewiseLinear::create(std::vector<int>{0, 64}, std::vector<double>{0, 6400});
    p.jobs[0].max_nodes = 2;
    p.jobs[0].remaining_samples = 1.2e7;
    p.finish_window_scale = scale;
    absl::StatusOr<Allocation> a = allocate(p);
    ASSERT_TRUE(a.ok()) << a.status();
    EXPECT_EQ(a->jobs[0].count, scale == 1.0 ? 2 : 1) << "window scale " << scale;
    EXPECT_EQ(a->jobs[1].count + a->jobs[2].count, scale == 1.0 ? 2 : 3);
  }
}

TEST(ExpectedLoss, FinishWindowScaleMustBeFiniteAndNonNegative) {
  for (const double scale : {-1.0, std::numeric_limits<double>::quiet_NaN(), kForever}) {
    Problem p = problem_with(1, {});
    p.finish_window_scale = scale;
    const absl::StatusOr<Allocation> a = allocate(p);
    ASSERT_FALSE(a.ok()) << scale;
    EXPECT_NE(a.status().message().find("finish_window_scale"), std::string::npos) << a.status();
  }
}

TEST(ExpectedLoss, ExactSolversMatchBruteForceOnGainsTables) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> idle(1, 400);
  std::uniform_int_distribution<int> size(0, 3);
  for (int trial = 0; trial < 40; ++trial) {
    Problem p;
    p.horizon_s = 120;
    p.expect_departures = true;
    const int jobs = 3;
    std::vector<int> current;
    IdleOutlook outlook;
    int pool = 0;
    for (int j = 0; j < jobs; ++j) {
      Job job = linear_job("j" + std::to_string(j), {});
      job.max_nodes = 4 + j;
      job.scaling = *PiecewiseLinear::create(
          std::vector<int>{0, 1, 2, 4, 8}, std::vector<double>{0, 10, 19.0 - j, 30, 40.0 + 3 * j});
      p.jobs.push_back(job);
      current.push_back(size(rng));
      std::vector<double>& held = outlook.held_s.emplace_back();
      for (int k = 0; k < current.back(); ++k) held.push_back(idle(rng));
      pool += current.back();
    }
    for (int k = 0; k < 4; ++k) outlook.free_s.push_back(idle(rng));
    pool += 4;
    std::vector<std::size_t> index(jobs);
    std::iota(index.begin(), index.end(), 0);
    absl::StatusOr<CountModel> model = build_count_model(p, index, current, pool, &outlook);
    ASSERT_TRUE(model.ok()) << model.status();
    const testing::BruteForceResult best = testing::brute_force(*model);
    for (SolverKind kind : {SolverKind::kDp, SolverKind::kMilp}) {
      absl::StatusOr<CountSolution> s = find_solver(kind)->solve(*model, SolveOptions{});
      ASSERT_TRUE(s.ok()) << s.status();
      EXPECT_TRUE(testing::near(s->objective, best.best, 1e-7))
          << "trial " << trial << " solver " << static_cast<int>(kind) << ": " << s->objective
          << " vs " << best.best;
    }
  }
}

}  // namespace
}  // namespace elastic::alloc
