// The lp_solve MILPs: the backend on tiny models, the count MILP on hand-computed instances, its
// time-limit behaviour, and both formulations against a brute-force enumerator and each other.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "brute_force.h"
#include "elastic/allocator/count_model.h"
#include "elastic/allocator/piecewise_linear.h"
#include "elastic/allocator/solvers.h"
#include "milp_count.h"
#include "milp_model.h"

namespace elastic::alloc {
namespace {

PiecewiseLinear table(std::vector<int> counts, std::vector<double> values) {
  absl::StatusOr<PiecewiseLinear> t = PiecewiseLinear::create(counts, values);
  EXPECT_TRUE(t.ok()) << t.status();
  return t.ok() ? *t : PiecewiseLinear();
}

// Costs follow DESIGN.md: U*v(C) and D*v(C), zero when the job sits below its minimum.
CountJob make_job(int current, int lo, int hi, PiecewiseLinear value, double grow_stall = 0,
                  double shrink_stall = 0, bool must_run = false) {
  CountJob job;
  job.current = current;
  job.lo = lo;
  job.hi = hi;
  job.must_run = must_run;
  const double at_current = current >= lo ? value.at(current) : 0.0;
  job.value = std::move(value);
  job.grow_cost = grow_stall * at_current;
  job.shrink_cost = shrink_stall * at_current;
  return job;
}

bool near(double a, double b) {
  return std::abs(a - b) <= 1e-9 * std::max({1.0, std::abs(a), std::abs(b)});
}

// Checks that `s` is a feasible allocation whose objective is the exact sum of gains.
void expect_consistent(const CountModel& model, const CountSolution& s) {
  ASSERT_EQ(s.counts.size(), model.jobs.size());
  long used = 0;
  double sum = 0;
  for (std::size_t j = 0; j < s.counts.size(); ++j) {
    EXPECT_TRUE(model.allowed(j, s.counts[j])) << "job " << j << " count " << s.counts[j];
    used += s.counts[j];
    if (model.allowed(j, s.counts[j])) sum += model.gain(j, s.counts[j]);
  }
  EXPECT_LE(used, model.pool);
  EXPECT_TRUE(near(sum, s.objective)) << sum << " vs " << s.objective;
}

double brute_force(const CountModel& model) { return testing::brute_force(model).best; }

CountSolution solve(const CountModel& model, bool node_level = false, double limit_s = 60,
                    bool presolve = false) {
  SolveOptions options;
  options.time_limit_s = limit_s;
  options.presolve = presolve;
  absl::StatusOr<CountSolution> s =
      node_level ? solve_node_milp(model, options) : solve_milp(model, options);
  EXPECT_TRUE(s.ok()) << s.status();
  if (!s.ok()) return {};
  expect_consistent(model, *s);
  return *s;
}

// ---- the backend -------------------------------------------------------------------------

TEST(LpSolveBackend, SolvesSmallIntegerProgram) {
  // max 3x + 2y, x + y <= 4.5, x <= 2.5, x, y integer >= 0  =>  x = 2, y = 2, 10.
  MilpModel m;
  const int x = m.add_column(0, 2.5, true, 3);
  const int y = m.add_column(0, kMilpInfinity, true, 2);
  m.add_row({{x, 1}, {y, 1}}, MilpSense::kLessEqual, 4.5);
  absl::StatusOr<MilpResult> r = solve_with_lp_solve(m, 10);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->status, MilpStatus::kOptimal);
  EXPECT_NEAR(r->values[0], 2, 1e-9);
  EXPECT_NEAR(r->values[1], 2, 1e-9);
  EXPECT_NEAR(r->objective, 10, 1e-9);
}

TEST(LpSolveBackend, Sos2PicksAdjacentPoints) {
  // Points 0, 1, 2 with values 0, 0, 10: lambda0 = lambda2 = 1/2 would give 5 at x = 1, but SOS2
  // only allows neighbours, so with x fixed to 1 the best is lambda1 = 1, value 0.
  MilpModel m;
  std::vector<int> lambda;
  for (double v : {0.0, 0.0, 10.0}) lambda.push_back(m.add_column(0, 1, false, v));
  const int x = m.add_column(1, 1, false, 0);
  m.add_row({{lambda[0], 1}, {lambda[1], 1}, {lambda[2], 1}}, MilpSense::kEqual, 1);
  m.add_row({{lambda[1], 1}, {lambda[2], 2}, {x, -1}}, MilpSense::kEqual, 0);
  m.sos2.push_back({lambda, 0});
  absl::StatusOr<MilpResult> r = solve_with_lp_solve(m, 10);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->status, MilpStatus::kOptimal);
  EXPECT_NEAR(r->objective, 0, 1e-9);
  EXPECT_NEAR(r->values[static_cast<std::size_t>(lambda[1])], 1, 1e-9);
}

TEST(LpSolveBackend, ReportsInfeasible) {
  MilpModel m;
  const int x = m.add_column(0, 10, true, 1);
  m.add_row({{x, 2}}, MilpSense::kEqual, 3);  // 2x = 3 has no integer solution
  absl::StatusOr<MilpResult> r = solve_with_lp_solve(m, 10);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->status, MilpStatus::kInfeasible);
  EXPECT_TRUE(r->values.empty());
}

TEST(LpSolveBackend, RejectsMalformedModels) {
  MilpModel bad_column;
  bad_column.add_column(2, 1, false, 0);
  EXPECT_EQ(solve_with_lp_solve(bad_column, 1).status().code(), absl::StatusCode::kInvalidArgument);
  MilpModel bad_row;
  bad_row.add_column(0, 1, false, 0);
  bad_row.add_row({{1, 1.0}}, MilpSense::kLessEqual, 1);
  EXPECT_EQ(solve_with_lp_solve(bad_row, 1).status().code(), absl::StatusCode::kInvalidArgument);
  MilpModel bad_sos;
  bad_sos.add_column(0, 1, false, 0);
  bad_sos.sos2.push_back({{0, 3}, 0});
  EXPECT_EQ(solve_with_lp_solve(bad_sos, 1).status().code(), absl::StatusCode::kInvalidArgument);
}

// ---- the count MILP on hand-computed instances ---------------------------------------------

// One job holding 2 nodes, 10 samples/s per node up to 4, T = 10, pool 4:
// keep = 200; grow to 4 = 400 - U*20; shrink to 1 = 100 - D*20.
CountModel one_job(double grow_stall, double shrink_stall, int pool = 4) {
  CountModel m;
  m.pool = pool;
  m.horizon_s = 10;
  m.jobs.push_back(make_job(2, 1, 4, table({1, 4}, {10, 40}), grow_stall, shrink_stall));
  return m;
}

TEST(CountMilp, GrowsWhenTheStallIsCheap) {
  const CountSolution s = solve(one_job(5, 0));  // grow to 4: 400 - 100 = 300 > 200
  EXPECT_EQ(s.status, SolveStatus::kOptimal);
  EXPECT_EQ(s.counts, std::vector<int>{4});
  EXPECT_DOUBLE_EQ(s.objective, 300);
}

TEST(CountMilp, KeepsWhenTheStallCostsMoreThanTheGain) {
  const CountSolution s = solve(one_job(15, 0));  // grow to 4: 400 - 300 = 100 < 200
  EXPECT_EQ(s.counts, std::vector<int>{2});
  EXPECT_DOUBLE_EQ(s.objective, 200);
}

TEST(CountMilp, ShrinksAJobToMakeRoomWhenWorthTheStall) {
  // Job 0 holds all 3 nodes at 10/node (v(3) = 30); job 1 waits with 50/node. D_0 = 2 => 60.
  // Giving job 1 everything: -60 + 1500 = 1440; job 1 is capped at 2 here: 100 - 60 + 1000.
  CountModel m;
  m.pool = 3;
  m.horizon_s = 10;
  m.jobs.push_back(make_job(3, 1, 3, table({1, 3}, {10, 30}), 0, 2));
  m.jobs.push_back(make_job(0, 1, 2, table({1, 3}, {50, 150})));
  const CountSolution s = solve(m);
  EXPECT_EQ(s.counts, (std::vector<int>{1, 2}));
  EXPECT_DOUBLE_EQ(s.objective, 1040);
  // A larger shrink stall (D = 40 => 1200) makes keeping all 3 (300) the best.
  m.jobs[0] = make_job(3, 1, 3, table({1, 3}, {10, 30}), 0, 40);
  const CountSolution keep = solve(m);
  EXPECT_EQ(keep.counts, (std::vector<int>{3, 0}));
  EXPECT_DOUBLE_EQ(keep.objective, 300);
}

TEST(CountMilp, NonConcaveTableEscapesTheMiddleTrap) {
  // Job 0 scales badly up to 3 nodes and then jumps (superlinear at 4); job 1 is linear at 9/node.
  // Marginal reasoning stops at X=1; the optimum gives job 0 all 4 nodes: 400 vs 360 / 370 / 300.
  CountModel m;
  m.pool = 4;
  m.horizon_s = 10;
  m.jobs.push_back(make_job(0, 1, 4, table({1, 2, 3, 4}, {10, 12, 13, 40})));
  m.jobs.push_back(make_job(0, 1, 4, table({1, 4}, {9, 36})));
  const CountSolution s = solve(m);
  EXPECT_EQ(s.counts, (std::vector<int>{4, 0}));
  EXPECT_DOUBLE_EQ(s.objective, 400);
}

TEST(CountMilp, NeverPicksACountBetweenZeroAndTheMinimum) {
  // lo = 4 and a linear table: any n in 1..3 would be worth more per node, but is not allowed.
  CountModel m;
  m.pool = 3;
  m.horizon_s = 10;
  m.jobs.push_back(make_job(0, 4, 8, table({1, 8}, {100, 800})));
  m.jobs.push_back(make_job(0, 1, 3, table({1}, {1})));
  const CountSolution s = solve(m);
  EXPECT_EQ(s.counts[0], 0);
  m.pool = 5;
  m.jobs[0].lo = 2;  // now 2..5 runs, 0 or 1 as before is 0 or forbidden
  m.jobs[1] = make_job(0, 1, 5, table({1}, {150}));  // flat: 1 node is as good as 5
  const CountSolution t = solve(m);
  EXPECT_EQ(t.counts, (std::vector<int>{4, 1}));
  EXPECT_DOUBLE_EQ(t.objective, 4000 + 1500);
}

TEST(CountMilp, MustRunFloorIsHonoured) {
  // Job 0 is nearly worthless but must run with at least 2 nodes; job 1 gets the rest.
  CountModel m;
  m.pool = 4;
  m.horizon_s = 10;
  m.jobs.push_back(make_job(0, 2, 4, table({1, 4}, {0.1, 0.4}), 0, 0, true));
  m.jobs.push_back(make_job(0, 1, 4, table({1, 4}, {100, 400})));
  const CountSolution s = solve(m);
  EXPECT_EQ(s.counts, (std::vector<int>{2, 2}));
  EXPECT_DOUBLE_EQ(s.objective, 2 + 2000);
}

TEST(CountMilp, EmptyPoolGivesNothing) {
  CountModel m;
  m.pool = 0;
  m.horizon_s = 10;
  m.jobs.push_back(make_job(0, 1, 4, table({1, 4}, {10, 40})));
  m.jobs.push_back(make_job(0, 2, 0, table({1}, {10})));
  for (bool node_level : {false, true}) {
    const CountSolution s = solve(m, node_level);
    EXPECT_EQ(s.status, SolveStatus::kOptimal);
    EXPECT_EQ(s.counts, (std::vector<int>{0, 0}));
    EXPECT_DOUBLE_EQ(s.objective, 0);
  }
}

TEST(CountMilp, NoJobs) {
  CountModel m;
  m.pool = 5;
  for (bool node_level : {false, true}) {
    const CountSolution s = solve(m, node_level);
    EXPECT_TRUE(s.counts.empty());
    EXPECT_EQ(s.objective, 0);
  }
}

TEST(CountMilp, MinimumAbovePoolKeepsTheJobOut) {
  CountModel m;
  m.pool = 2;
  m.horizon_s = 10;
  m.jobs.push_back(make_job(0, 3, 6, table({1, 6}, {1000, 6000})));
  m.jobs.push_back(make_job(0, 1, 2, table({1, 2}, {1, 2})));
  const CountSolution s = solve(m);
  EXPECT_EQ(s.counts, (std::vector<int>{0, 2}));
  EXPECT_DOUBLE_EQ(s.objective, 20);
}

TEST(CountMilp, RejectsFloorsThatCannotFit) {
  SolveOptions options;
  options.presolve = false;
  CountModel m;
  m.pool = 2;
  m.jobs.push_back(make_job(0, 3, 6, table({1}, {1}), 0, 0, true));  // must run, lo 3 > pool 2
  EXPECT_EQ(solve_milp(m, options).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(solve_node_milp(m, options).status().code(), absl::StatusCode::kInvalidArgument);
  m.pool = 5;
  m.jobs.push_back(make_job(0, 3, 6, table({1}, {1}), 0, 0, true));  // floors 3 + 3 > 5
  EXPECT_EQ(solve_milp(m, options).status().code(), absl::StatusCode::kInvalidArgument);
}

// ---- random instances ----------------------------------------------------------------------

struct RandomShape {
  int max_jobs;
  int max_pool;
  int max_points;
};

// Arbitrary (often non-concave) tables, stalls, floors and held nodes, all within the pool.
CountModel random_model(std::mt19937& rng, const RandomShape& shape) {
  auto uniform = [&](int a, int b) { return std::uniform_int_distribution<int>(a, b)(rng); };
  auto real = [&](double a, double b) { return std::uniform_real_distribution<double>(a, b)(rng); };
  CountModel m;
  m.pool = uniform(0, shape.max_pool);
  m.horizon_s = real(1, 20);
  const int jobs = uniform(1, shape.max_jobs);
  int unheld = m.pool;
  int floors = 0;
  for (int j = 0; j < jobs; ++j) {
    std::vector<int> counts;
    std::vector<double> values;
    const int points = uniform(1, shape.max_points);
    int c = 0;
    for (int k = 0; k < points; ++k) {
      c += uniform(1, 3);
      counts.push_back(c);
      values.push_back(real(0, 100));
    }
    const int current = uniform(0, 2) == 0 ? 0 : uniform(0, unheld);
    unheld -= current;
    const int lo = uniform(1, 3);
    const int hi = uniform(0, shape.max_pool + 2);
    CountJob job = make_job(current, lo, hi, table(counts, values),
                            uniform(0, 1) ? real(0, 4) : 0.0, uniform(0, 1) ? real(0, 4) : 0.0);
    if (uniform(0, 3) == 0 && lo <= std::min(hi, m.pool) && floors + lo <= m.pool) {
      job.must_run = true;
      floors += lo;
    }
    m.jobs.push_back(std::move(job));
  }
  return m;
}

TEST(CountMilp, MatchesBruteForceOnRandomInstances) {
  std::mt19937 rng(20240611);
  for (int i = 0; i < 300; ++i) {
    const CountModel m = random_model(rng, {5, 12, 5});
    const double best = brute_force(m);
    for (bool presolve : {false, true}) {
      const CountSolution s = solve(m, false, 60, presolve);
      ASSERT_EQ(s.status, SolveStatus::kOptimal) << "instance " << i;
      ASSERT_TRUE(near(s.objective, best))
          << "instance " << i << " presolve " << presolve << ": " << s.objective << " vs " << best;
    }
  }
}

TEST(CountMilp, Sos2EncodingMatchesBruteForce) {
  std::mt19937 rng(31337);
  SolveOptions options;
  options.presolve = false;
  for (int i = 0; i < 300; ++i) {
    const CountModel m = random_model(rng, {5, 12, 5});
    absl::StatusOr<CountSolution> s = solve_count_milp(m, options, CountEncoding::kSos2);
    ASSERT_TRUE(s.ok()) << s.status();
    expect_consistent(m, *s);
    ASSERT_EQ(s->status, SolveStatus::kOptimal) << "instance " << i;
    ASSERT_TRUE(near(s->objective, brute_force(m))) << "instance " << i;
  }
}

TEST(NodeMilp, MatchesCountMilpOnRandomInstances) {
  std::mt19937 rng(777);
  for (int i = 0; i < 200; ++i) {
    const CountModel m = random_model(rng, {4, 8, 4});
    const CountSolution by_count = solve(m);
    const CountSolution by_node = solve(m, true);
    ASSERT_EQ(by_node.status, SolveStatus::kOptimal) << "instance " << i;
    ASSERT_TRUE(near(by_count.objective, by_node.objective))
        << "instance " << i << ": count " << by_count.objective << " node " << by_node.objective;
    ASSERT_TRUE(near(by_node.objective, brute_force(m))) << "instance " << i;
  }
}

// ---- the time limit ------------------------------------------------------------------------

CountModel big_model(int jobs, int pool) {
  std::mt19937 rng(99);
  CountModel m;
  m.pool = pool;
  m.horizon_s = 10;
  int unheld = m.pool;
  for (int j = 0; j < jobs; ++j) {
    std::vector<int> counts;
    std::vector<double> values;
    int c = 0;
    for (int k = 0; k < 12; ++k) {
      c += std::uniform_int_distribution<int>(1, 6)(rng);
      counts.push_back(c);
      values.push_back(std::uniform_real_distribution<double>(0, 1000)(rng));
    }
    const int current = std::min(unheld, std::uniform_int_distribution<int>(0, 8)(rng));
    unheld -= current;
    m.jobs.push_back(make_job(current, std::uniform_int_distribution<int>(1, 4)(rng), 60,
                              table(counts, values), 2, 3, j % 10 == 0));
  }
  return m;
}

TEST(LpSolveBackend, StopsAtTheTimeLimit) {
  // Market split (Cornuejols-Dawande): equality knapsacks that defeat branch and bound.
  std::mt19937 rng(5);
  MilpModel m;
  for (int i = 0; i < 40; ++i) m.add_column(0, 1, true, 1);
  for (int r = 0; r < 4; ++r) {
    std::vector<std::pair<int, double>> terms;
    double sum = 0;
    for (int i = 0; i < 40; ++i) {
      const double a = std::uniform_int_distribution<int>(0, 99)(rng);
      terms.emplace_back(i, a);
      sum += a;
    }
    m.add_row(std::move(terms), MilpSense::kEqual, std::floor(sum / 2));
  }
  absl::StatusOr<MilpResult> r = solve_with_lp_solve(m, 0.05);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->status == MilpStatus::kTimeLimitWithSolution ||
              r->status == MilpStatus::kTimeLimitWithoutSolution);
  EXPECT_EQ(r->values.empty(), r->status == MilpStatus::kTimeLimitWithoutSolution);
}

TEST(CountMilp, TinyTimeLimitReturnsAFeasibleAllocation) {
  const CountModel big = big_model(120, 1000);
  const CountModel medium = big_model(30, 200);
  for (const auto& [model, node_level] :
       {std::pair{&big, false}, std::pair{&medium, true}, std::pair{&medium, false}}) {
    const CountSolution s = solve(*model, node_level, 1e-3);  // checks feasibility and objective
    EXPECT_EQ(s.status, SolveStatus::kTimeLimit) << "node_level " << node_level;
    EXPECT_GE(s.objective, fallback_allocation(*model).objective);
  }
  // An already expired limit still answers with a feasible allocation.
  const CountSolution none = solve(big, false, 0);
  EXPECT_EQ(none.status, SolveStatus::kTimeLimit);
  EXPECT_GE(none.objective, fallback_allocation(big).objective);
  // The node MILP on 20 jobs x 100 nodes does not finish in 0.2 s but finds incumbents.
  const CountSolution node = solve(big_model(20, 100), true, 0.2);
  EXPECT_EQ(node.status, SolveStatus::kTimeLimit);
}

}  // namespace
}  // namespace elastic::alloc
