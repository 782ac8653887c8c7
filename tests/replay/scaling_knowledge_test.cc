// The replay's learn mode (--scaling learned): the planner, fed only noisy progress reports through
// elasticd's ScalingModel, reaches the allocation the true tables give; planning without
// scalability information (none) does not; a fixed seed gives the same replay.
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

TEST(LearnMode, FixedSeedGivesTheSameReplay) {
  const traces::HoleTrace trace = churning_nodes();
  const std::vector<traces::WorkloadJob> jobs = {
      amdahl_job("A", 100, 0.3, 0), amdahl_job("B", 80, 0.0, 10), amdahl_job("C", 150, 0.8, 20)};
  const ReplayResult a = replay_with(ScalingSource::kLearned, trace, jobs, 7);
  const ReplayResult b = replay_with(ScalingSource::kLearned, trace, jobs, 7);
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

}  // namespace
}  // namespace elastic::replay
