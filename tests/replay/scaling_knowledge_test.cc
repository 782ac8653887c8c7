// The replay's learn mode (--scaling learned): the planner, fed only noisy progress reports through
// elasticd's ScalingModel, reaches the allocation the true tables give; planning without
// scalability information (none) does not; a fixed seed gives the same replay, learned and with
// active probing (--scaling probing), whose tables are optimistic one step beyond what was measured.
#include "elastic/replay/scaling_knowledge.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "elastic/replay/simulator.h"

namespace elastic::replay {
namespace {

traces::WorkloadJob amdahl_job(const std::string& id, double r1, double serial, double submit) {
  traces::WorkloadJob j;
  j.id = id;
  j.grow_stall_s = 1;
  j.shrink_stall_s = 1;
  j.min_nodes = 1;
  j.max_nodes = 8;
  j.target_samples = 1e12;  // never finishes
  j.submit_unix = submit;
  std::vector<int> ns;
  std::vector<double> ps;
  for (int n = 1; n <= 8; ++n) {
    ns.push_back(n);
    ps.push_back(r1 * n / (1 + serial * (n - 1)));
  }
  j.scaling = *alloc::PiecewiseLinear::create(ns, ps);
  j.value = j.scaling;
  return j;
}

// 8 nodes idle for 20,000 s. B (r(1) = 100, serial fraction 0.5: r(8) = 178) arrives first and
// takes all 8; A (linear, 110 per node) arrives at 100. With the true tables every node goes to A.
traces::HoleTrace eight_nodes() {
  traces::HoleTrace t;
  for (int i = 0; i < 8; ++i) {
    t.node_names.push_back("n" + std::to_string(i));
    t.intervals.push_back({i, 0, 20000, true});
  }
  t.start = 0;
  t.end = 20000;
  return t;
}

const std::vector<traces::WorkloadJob> kTwoJobs = {amdahl_job("B", 100, 0.5, 0),
                                                   amdahl_job("A", 110, 0.0, 100)};

ReplayResult replay_with(ScalingSource source, const traces::HoleTrace& trace,
                         const std::vector<traces::WorkloadJob>& workload, std::uint64_t seed = 1) {
  ReplayOptions options;
  options.solver = alloc::SolverKind::kDp;
  options.horizon_s = 100;
  options.scaling = source;
  options.learn.seed = seed;
  absl::StatusOr<ReplayResult> r = run_replay(trace, workload, options);
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? *std::move(r) : ReplayResult{};
}

std::vector<std::pair<int, int>> final_counts(const ReplayResult& r) {
  return r.timeline.empty() ? std::vector<std::pair<int, int>>{} : r.timeline.back().counts;
}

TEST(LearnMode, LearnedConvergesToTheOraclePlanAndNoneDoesNot) {
  const traces::HoleTrace trace = eight_nodes();
  const ReplayResult oracle = replay_with(ScalingSource::kOracle, trace, kTwoJobs);
  const ReplayResult learned = replay_with(ScalingSource::kLearned, trace, kTwoJobs);
  const ReplayResult none = replay_with(ScalingSource::kNone, trace, kTwoJobs);
  const std::vector<std::pair<int, int>> all_to_a = {{1, 8}};
  EXPECT_EQ(final_counts(oracle), all_to_a);
  EXPECT_EQ(final_counts(learned), all_to_a);
  EXPECT_EQ(final_counts(none), (std::vector<std::pair<int, int>>{{0, 8}}));  // B keeps them
  // Learning costs a little: B first runs at 8, A is measured before it gets every node.
  EXPECT_GT(learned.metrics.reports, 0);
  EXPECT_GT(learned.metrics.samples, 0.97 * oracle.metrics.samples);
  EXPECT_LE(learned.metrics.samples, oracle.metrics.samples);
  EXPECT_LT(none.metrics.samples, 0.3 * oracle.metrics.samples);  // 178/s against 880/s
  EXPECT_EQ(oracle.metrics.reports, 0);
  EXPECT_EQ(none.metrics.reports, 0);
}

// Nodes come and go (a fixed pseudo-random pattern) under three jobs with different curves, so
// that plans depend on what was learned and on the noise.
traces::HoleTrace churning_nodes() {
  traces::HoleTrace t;
  std::uint64_t x = 12345;
  auto next = [&] {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<double>(x >> 33) / static_cast<double>(1ULL << 31);
  };
  for (int i = 0; i < 12; ++i) {
    t.node_names.push_back("n" + std::to_string(i));
    double at = 0;
    while (at < 5000) {
      const double idle = 50 + 400 * next();
      t.intervals.push_back({i, at, std::min(5000.0, at + idle), at + idle >= 5000});
      at += idle + 20 + 200 * next();
    }
  }
  t.start = 0;
  t.end = 5000;
  return t;
}

class LearnModes : public ::testing::TestWithParam<ScalingSource> {};

TEST_P(LearnModes, FixedSeedGivesTheSameReplay) {
  const traces::HoleTrace trace = churning_nodes();
  const std::vector<traces::WorkloadJob> jobs = {
      amdahl_job("A", 100, 0.3, 0), amdahl_job("B", 80, 0.0, 10), amdahl_job("C", 150, 0.8, 20)};
  const ReplayResult a = replay_with(GetParam(), trace, jobs, 7);
  const ReplayResult b = replay_with(GetParam(), trace, jobs, 7);
  EXPECT_GT(a.metrics.reports, 100);
  EXPECT_GT(a.metrics.rescales, 10);
  EXPECT_EQ(a.metrics.samples, b.metrics.samples);
  EXPECT_EQ(a.metrics.rescales, b.metrics.rescales);
  EXPECT_EQ(a.metrics.learned_replans, b.metrics.learned_replans);
  ASSERT_EQ(a.timeline.size(), b.timeline.size());
  for (std::size_t i = 0; i < a.timeline.size(); ++i) {
    ASSERT_EQ(a.timeline[i].time, b.timeline[i].time);
    ASSERT_EQ(a.timeline[i].counts, b.timeline[i].counts) << "at t=" << a.timeline[i].time;
  }
}

INSTANTIATE_TEST_SUITE_P(LearnedAndProbing, LearnModes,
                         ::testing::Values(ScalingSource::kLearned, ScalingSource::kProbing));

// What probing changes in the tables the planner gets. Three jobs are measured exactly at 1 and 2
// nodes (serial fractions 0, 0.5 and 0.6), a fourth (linear, 60 per node) at 1 node only. Learned
// plans the fourth with the median serial fraction (0.5): its 2nd node looks worth 20. Probing
// plans its 2nd node with the better quarter's (0: worth 60) and the rest along the median again.
TEST(ProbingMode, TablesAreOptimisticOneStepBeyondTheMeasuredCounts) {
  const std::vector<traces::WorkloadJob> jobs = {
      amdahl_job("J0", 100, 0.0, 0), amdahl_job("J1", 100, 0.5, 0), amdahl_job("J2", 100, 0.6, 0),
      amdahl_job("J3", 60, 0.0, 0)};
  const auto tables = [&](ScalingSource source) {
    ScalingKnowledge knowledge(jobs, source, LearnOptions{.noise = 0});
    for (std::size_t w = 0; w < 3; ++w) {
      for (int n : {1, 2}) knowledge.report(w, n, jobs[w].scaling.at(n) * 10, 10);
    }
    knowledge.report(3, 1, 600, 10);
    const std::vector<std::size_t> admitted = {0, 1, 2, 3};
    knowledge.update_priors(admitted);
    std::vector<alloc::PiecewiseLinear> out;
    for (std::size_t w = 0; w < 4; ++w) {
      alloc::Job job;
      knowledge.fill(w, job);
      out.push_back(job.scaling);
    }
    return out;
  };
  const std::vector<alloc::PiecewiseLinear> learned = tables(ScalingSource::kLearned);
  const std::vector<alloc::PiecewiseLinear> probing = tables(ScalingSource::kProbing);
  const auto shape = [](double s, int n) { return n / (1 + s * (n - 1)); };
  EXPECT_NEAR(learned[3].at(2), 60 * shape(0.5, 2), 1e-9);
  EXPECT_NEAR(probing[3].at(2), 120, 1e-9);
  EXPECT_NEAR(probing[3].at(8), 120 * shape(0.5, 8) / shape(0.5, 2), 1e-9);
  EXPECT_NEAR(probing[3].at(1), 60, 1e-9);
  // J0 is fitted linear (nothing more optimistic); J1 and J2 probe 3 and 4 nodes along s = 0.
  for (int n = 1; n <= 8; ++n) EXPECT_NEAR(probing[0].at(n), learned[0].at(n), 1e-9) << n;
  EXPECT_NEAR(probing[1].at(4), jobs[1].scaling.at(2) * 2, 1e-9);
  EXPECT_NEAR(probing[1].at(2), learned[1].at(2), 1e-9);
  EXPECT_GT(probing[2].at(3), learned[2].at(3));
}

}  // namespace
}  // namespace elastic::replay
