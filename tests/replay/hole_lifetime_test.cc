// Hole-lifetime-aware planning: the estimators (ended holes only; Kaplan-Meier with the open holes
// censored) on hand-made holes, and the replay never reading the future of the trace (changing
// what happens after an instant leaves every decision before it unchanged).
#include "elastic/allocator/hole_lifetime.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "elastic/allocator/hole_survival.h"
#include "elastic/allocator/pool_holes.h"
#include "elastic/replay/simulator.h"

namespace elastic::replay {
namespace {

TEST(HoleLifetime, ResidualOverTheLongerHoles) {
  alloc::HoleLifetime h;
  EXPECT_DOUBLE_EQ(h.expected_residual(50), 50);  // nothing seen: as long again
  EXPECT_DOUBLE_EQ(h.expected_residual(0), 1);
  for (int i = 0; i < 9; ++i) h.observe(10);
  h.observe(1000);
  EXPECT_EQ(h.holes(), 10);
  // At age 0 every hole lasts longer: mean 109 s.
  EXPECT_NEAR(h.expected_residual(0), 109, 1e-9);
  // At 100 s only the 1000 s hole did: 900 s to go. Young holes mostly end soon, old ones last.
  EXPECT_NEAR(h.expected_residual(100), 900, 1e-9);
  EXPECT_LT(h.expected_residual(5), h.expected_residual(100));
  // Beyond every hole seen: as long again.
  EXPECT_DOUBLE_EQ(h.expected_residual(5000), 5000);
  h.observe(-1);  // ignored
  EXPECT_EQ(h.holes(), 10);
}

TEST(HoleSurvival, KaplanMeierWithOpenHolesCensored) {
  // Ended: 10, 10, 40, 100 s; open now: ages 20 and 50 s. By hand, over the distinct times:
  //   10: 6 at risk, 2 end -> S = 4/6;  20: censored;  40: 3 at risk {40, 50, 100}, 1 ends -> S =
  //   4/6 * 2/3 = 4/9;  50: censored;  100: 1 at risk, ends -> S = 0.
  alloc::HoleLifetime ended;
  for (double l : {10.0, 10.0, 40.0, 100.0}) ended.observe(l);
  const std::vector<double> open = {20, 50};
  const alloc::HoleSurvival km(ended, open);
  EXPECT_DOUBLE_EQ(km.survival(5), 1.0);
  EXPECT_NEAR(km.survival(30), 4.0 / 6, 1e-12);  // between deaths the curve is flat
  EXPECT_NEAR(km.survival(60), 4.0 / 9, 1e-12);
  EXPECT_NEAR(km.survival(90), 4.0 / 9, 1e-12);
  EXPECT_NEAR(km.survival(150), 0.0, 1e-12);
  // Ignoring the open holes (every hole ended) the same ages look shorter-lived: S(60) = 1/4.
  const alloc::HoleSurvival naive(ended, {});
  EXPECT_NEAR(naive.survival(60), 1.0 / 4, 1e-12);
  // Residual within a horizon: at 60 s nothing ends before 100 s, so 20 s of a 20 s horizon.
  EXPECT_NEAR(km.expected_residual(60, 20), 20, 1e-9);
  EXPECT_GT(km.expected_residual(60, 1e6), 40.0);  // ~ to the end of the 100 s hole
  // Nothing seen: a hole lasts the whole horizon.
  const alloc::HoleSurvival empty(alloc::HoleLifetime{}, {});
  EXPECT_DOUBLE_EQ(empty.expected_residual(5, 300), 300);
}

// elasticd's view: named nodes joining and leaving its pool give the same estimate as the holes
// above (ended 10, 10, 40, 100 s; open for 20 and 50 s at the query).
TEST(PoolHoles, NamedJoinsAndLeavesGiveTheKaplanMeierResidual) {
  alloc::PoolHoles pool;
  pool.join("a", 0);
  pool.join("b", 0);
  pool.join("a", 5);  // in the pool already: its hole still started at 0
  pool.leave("a", 10);
  pool.leave("b", 10);
  pool.leave("b", 11);  // not in the pool: nothing ends
  pool.join("a", 60);
  pool.leave("a", 100);  // 40 s
  pool.join("c", 0);
  pool.leave("c", 100);  // 100 s
  pool.join("old", 150);
  pool.join("young", 180);
  EXPECT_EQ(pool.ended().holes(), 4);
  alloc::HoleLifetime ended;
  for (double l : {10.0, 10.0, 40.0, 100.0}) ended.observe(l);
  const std::vector<double> open = {50, 20};
  const alloc::HoleSurvival km(ended, open);
  const std::vector<std::string> names = {"young", "gone", "old"};
  const std::vector<double> idle = pool.expected_idle_s(names, 200, 1e6);
  ASSERT_EQ(idle.size(), 3u);
  EXPECT_DOUBLE_EQ(idle[0], km.expected_residual(20, 1e6));
  EXPECT_DOUBLE_EQ(idle[1], 0.0);  // not in the pool
  EXPECT_DOUBLE_EQ(idle[2], km.expected_residual(50, 1e6));
  EXPECT_GT(idle[0], 0.0);
  // Past every hole that ended, a node is taken to stay: the cap.
  const std::vector<std::string> old = {"old"};
  EXPECT_DOUBLE_EQ(pool.expected_idle_s(old, 400, 300)[0], 300);
}

traces::WorkloadJob linear_job(const std::string& id, double submit) {
  traces::WorkloadJob j;
  j.id = id;
  j.grow_stall_s = 3;
  j.shrink_stall_s = 2;
  j.min_nodes = 1;
  j.max_nodes = 4;
  j.target_samples = 1e12;
  j.submit_unix = submit;
  const std::vector<int> ns = {1, 4};
  const std::vector<double> ps = {10, 30};
  j.scaling = *alloc::PiecewiseLinear::create(ns, ps);
  return j;
}

// 10 nodes with holes of many lengths; `changed` alters every hole that starts after t = 3000.
traces::HoleTrace holes(bool changed) {
  traces::HoleTrace t;
  for (int i = 0; i < 10; ++i) {
    t.node_names.push_back("n" + std::to_string(i));
    double at = 7.0 * i;
    for (int k = 0; at < 6000; ++k) {
      double len = 20 + 37 * ((i * 7 + k * 3) % 11);
      if (changed && at > 3000) len = len * 3 + 11;
      t.intervals.push_back({i, at, std::min(6000.0, at + len), at + len >= 6000});
      at += len + 15 + 5 * ((i + k) % 4);
    }
  }
  t.start = 0;
  t.end = 6000;
  return t;
}

// Replays three jobs on holes(false) and holes(true), which differ only after 3000 s: every
// decision before then must be the same, and the replays must part after it. Returns the first.
ReplayResult expect_no_look_ahead(const ReplayOptions& options) {
  const std::vector<traces::WorkloadJob> jobs = {linear_job("A", 0), linear_job("B", 5),
                                                 linear_job("C", 9)};
  absl::StatusOr<ReplayResult> a = run_replay(holes(false), jobs, options);
  absl::StatusOr<ReplayResult> b = run_replay(holes(true), jobs, options);
  EXPECT_TRUE(a.ok()) << a.status();
  EXPECT_TRUE(b.ok()) << b.status();
  if (!a.ok() || !b.ok()) return ReplayResult{};
  std::size_t compared = 0;
  for (; compared < a->timeline.size() && a->timeline[compared].time < 3000; ++compared) {
    if (compared >= b->timeline.size()) break;
    EXPECT_EQ(a->timeline[compared].time, b->timeline[compared].time);
    EXPECT_EQ(a->timeline[compared].counts, b->timeline[compared].counts)
        << "at t=" << a->timeline[compared].time;
  }
  EXPECT_LT(compared, b->timeline.size());
  EXPECT_GT(compared, 50u);
  EXPECT_NE(a->metrics.samples, b->metrics.samples);  // the future did change
  return *std::move(a);
}

TEST(HoleAwareReplay, DecisionsBeforeAnInstantIgnoreTheTraceAfterIt) {
  ReplayOptions options;
  options.solver = alloc::SolverKind::kDp;
  options.hole_aware = true;
  options.hole_horizon = true;
  expect_no_look_ahead(options);
}

TEST(HoleAwareReplay, ExpectedLossNeverReadsTheFuture) {
  ReplayOptions options;
  options.solver = alloc::SolverKind::kDp;
  options.hole_loss = true;  // Kaplan-Meier with the open holes censored
  options.horizon_s = 60;
  const ReplayResult a = expect_no_look_ahead(options);
  const std::vector<traces::WorkloadJob> jobs = {linear_job("A", 0), linear_job("B", 5),
                                                 linear_job("C", 9)};
  // Deterministic: the same input gives the same replay.
  absl::StatusOr<ReplayResult> again = run_replay(holes(false), jobs, options);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->metrics.samples, a.metrics.samples);
  EXPECT_EQ(again->metrics.rescales, a.metrics.rescales);
}

}  // namespace
}  // namespace elastic::replay
