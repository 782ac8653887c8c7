// Every exact count solver against the brute-force oracle on random small models, the Lagrangian
// presolve's bounds and candidate sets, edge cases, and the equal-share baseline's feasibility.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "brute_force.h"
#include "elastic/allocator/count_model.h"
#include "elastic/allocator/solver_table.h"
#include "lagrangian_presolve.h"

namespace elastic::alloc {
namespace {

using testing::brute_force;
using testing::near;

constexpr double kTolerance = 1e-9;
constexpr int kSeedsPerSize = 50;  // x 20 sizes = 1,000 instances per solver

PiecewiseLinear table(std::vector<int> counts, std::vector<double> values) {
  auto t = PiecewiseLinear::create(counts, values);
  EXPECT_TRUE(t.ok()) << t.status();
  return *t;
}

// A random model: tables concave, convex or jagged (some with integer values, so ties are
// common), bounds that can exceed the pool or be empty, costs by the DESIGN.md conventions, and
// must-run floors only where the pool can honour all of them.
CountModel random_model(std::mt19937_64& rng, int num_jobs, int pool) {
  auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  auto real = [&](double lo, double hi) {
    return std::uniform_real_distribution<double>(lo, hi)(rng);
  };
  CountModel model;
  model.pool = pool;
  model.horizon_s = std::vector<double>{10.0, 1.0, 30.0}[static_cast<std::size_t>(uniform(0, 2))];
  int held = 0;
  int floors = 0;
  for (int j = 0; j < num_jobs; ++j) {
    CountJob job;
    const int points = uniform(1, 5);
    std::vector<int> counts;
    int c = 0;
    for (int p = 0; p < points; ++p) counts.push_back(c += uniform(1, 3));
    std::vector<double> values;
    const int shape = uniform(0, 2);
    double v = 0.0;
    for (int p = 0; p < points; ++p) {
      if (shape == 0)
        v += real(0.0, 10.0) / (p + 1);  // concave-ish
      else if (shape == 1)
        v = real(0.0, 20.0);  // jagged, non-monotone
      else
        v += static_cast<double>(uniform(0, 4));  // integer steps: ties
      values.push_back(v);
    }
    job.value = table(counts, values);
    job.lo = uniform(0, 3) == 0 ? uniform(1, pool + 2) : uniform(1, 3);
    job.hi = uniform(0, 5) == 0 ? job.lo - 1 : uniform(job.lo, pool + 3);
    job.current = uniform(0, std::max(0, std::min(pool - held, job.hi + 1)));
    held += job.current;
    const bool counts_as_running = job.current >= job.lo;
    job.grow_cost = counts_as_running ? real(0.0, 20.0) * job.value.at(job.current) : 0.0;
    job.shrink_cost = counts_as_running ? real(0.0, 20.0) * job.value.at(job.current) : 0.0;
    if (uniform(0, 4) == 0 && job.lo <= std::min(job.hi, pool) && floors + job.lo <= pool) {
      job.must_run = true;
      floors += job.lo;
    }
    model.jobs.push_back(std::move(job));
  }
  return model;
}

bool feasible(const CountModel& model, const std::vector<int>& counts) {
  if (counts.size() != model.jobs.size()) return false;
  long long total = 0;
  for (std::size_t j = 0; j < counts.size(); ++j) {
    if (!model.allowed(j, counts[j])) return false;
    total += counts[j];
  }
  return total <= model.pool;
}

double objective_of(const CountModel& model, const std::vector<int>& counts) {
  double sum = 0.0;
  for (std::size_t j = 0; j < counts.size(); ++j) sum += model.gain(j, counts[j]);
  return sum;
}

struct SolverCase {
  std::string name;
  std::function<absl::StatusOr<CountSolution>(const CountModel&, const SolveOptions&)> solve;
  bool presolve = true;
  // jobs x pool above which the solver is skipped: the node MILP needs up to 60 s at 7 x 13.
  int max_binaries = 1 << 30;
};

std::string test_name(std::string_view solver) {
  std::string name(solver);
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

// Every exact solver of the table, with and without the Lagrangian presolve; the node MILP (the
// reference, one binary per job and node, no presolve) only on small instances.
std::vector<SolverCase> exact_solvers() {
  std::vector<SolverCase> cases;
  for (const Solver& s : solver_table()) {
    if (!s.exact) continue;
    if (s.kind == SolverKind::kNodeMilp) {
      cases.push_back({test_name(s.name), s.solve, false, 60});
      continue;
    }
    cases.push_back({test_name(s.name) + "_presolve", s.solve, true});
    cases.push_back({test_name(s.name) + "_plain", s.solve, false});
  }
  return cases;
}

struct Size {
  int jobs;
  int pool;
};

std::string size_name(const ::testing::TestParamInfo<std::tuple<int, Size>>& info) {
  const Size s = std::get<1>(info.param);
  return exact_solvers()[static_cast<std::size_t>(std::get<0>(info.param))].name + "_" +
         std::to_string(s.jobs) + "jobs_" + std::to_string(s.pool) + "nodes";
}

class ExactSolverTest : public ::testing::TestWithParam<std::tuple<int, Size>> {};

TEST_P(ExactSolverTest, MatchesBruteForce) {
  const SolverCase solver = exact_solvers()[static_cast<std::size_t>(std::get<0>(GetParam()))];
  const Size size = std::get<1>(GetParam());
  if (size.jobs * size.pool > solver.max_binaries) {
    GTEST_SKIP() << solver.name << " is too slow for " << size.jobs << "x" << size.pool;
  }
  SolveOptions options;
  options.presolve = solver.presolve;
  options.time_limit_s = 60.0;
  for (int seed = 0; seed < kSeedsPerSize; ++seed) {
    std::mt19937_64 rng(static_cast<std::uint64_t>(seed * 7919 + size.jobs * 101 + size.pool));
    const CountModel model = random_model(rng, size.jobs, size.pool);
    const auto oracle = brute_force(model);
    const auto got = solver.solve(model, options);
    SCOPED_TRACE("seed " + std::to_string(seed));
    ASSERT_TRUE(oracle.feasible);  // the generator only sets floors the pool can honour
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_EQ(got->status, SolveStatus::kOptimal);
    ASSERT_TRUE(feasible(model, got->counts));
    EXPECT_TRUE(near(got->objective, objective_of(model, got->counts), kTolerance));
    EXPECT_TRUE(near(got->objective, oracle.best, kTolerance))
        << solver.name << " " << got->objective << " vs brute force " << oracle.best;
  }
}

INSTANTIATE_TEST_SUITE_P(
    RandomSmall, ExactSolverTest,
    ::testing::Combine(::testing::Range(0, static_cast<int>(exact_solvers().size())),
                       ::testing::Values(Size{0, 0}, Size{0, 5}, Size{1, 0}, Size{1, 1}, Size{1, 7},
                                         Size{2, 2}, Size{2, 5}, Size{2, 13}, Size{3, 3},
                                         Size{3, 7}, Size{3, 11}, Size{5, 2}, Size{5, 5},
                                         Size{5, 11}, Size{7, 3}, Size{7, 7}, Size{7, 13},
                                         Size{11, 5}, Size{13, 2}, Size{4, 17})),
    size_name);

// The presolve against the oracle: UB >= optimum >= LB (incumbent feasible), and every optimal
// vector lies inside the candidate ranges.
class PresolveTest : public ::testing::TestWithParam<Size> {};

TEST_P(PresolveTest, BoundsAndCandidatesHoldEveryOptimum) {
  const Size size = GetParam();
  for (int seed = 0; seed < 4 * kSeedsPerSize; ++seed) {
    std::mt19937_64 rng(static_cast<std::uint64_t>(seed * 104729 + size.jobs * 31 + size.pool));
    const CountModel model = random_model(rng, size.jobs, size.pool);
    const auto oracle = brute_force(model);
    const auto pre = lagrangian_presolve(model);
    SCOPED_TRACE("seed " + std::to_string(seed));
    ASSERT_TRUE(pre.ok()) << pre.status();
    const double slack = kTolerance * std::max(1.0, std::abs(oracle.best));
    EXPECT_GE(pre->upper_bound, oracle.best - slack);
    ASSERT_TRUE(feasible(model, pre->incumbent.counts));
    EXPECT_LE(pre->incumbent.objective, oracle.best + slack);
    EXPECT_TRUE(
        near(pre->incumbent.objective, objective_of(model, pre->incumbent.counts), kTolerance));
    EXPECT_GE(pre->lambda, 0.0);
    ASSERT_EQ(pre->candidates.size(), model.jobs.size());
    for (std::size_t j = 0; j < model.jobs.size(); ++j) {
      const auto& ranges = pre->candidates[j];
      ASSERT_FALSE(ranges.empty());
      for (std::size_t r = 0; r < ranges.size(); ++r) {
        EXPECT_LE(ranges[r].lo, ranges[r].hi);
        if (r > 0) {
          EXPECT_GT(ranges[r].lo, ranges[r - 1].hi);
        }
        for (int n = ranges[r].lo; n <= ranges[r].hi; ++n) {
          EXPECT_TRUE(model.allowed(j, n)) << "job " << j << " count " << n;
          // The range's line reproduces gain (the DP relies on it).
          EXPECT_TRUE(near(ranges[r].gain_lo + ranges[r].slope * (n - ranges[r].lo),
                           model.gain(j, n), 1e-12));
        }
      }
    }
    for (const std::vector<int>& optimum : oracle.optima) {
      for (std::size_t j = 0; j < optimum.size(); ++j) {
        const auto& ranges = pre->candidates[j];
        const bool inside = std::any_of(ranges.begin(), ranges.end(), [&](const CandidateRange& r) {
          return optimum[j] >= r.lo && optimum[j] <= r.hi;
        });
        EXPECT_TRUE(inside) << "job " << j << " optimal count " << optimum[j] << " was fixed away";
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(RandomSmall, PresolveTest,
                         ::testing::Values(Size{0, 3}, Size{1, 1}, Size{1, 11}, Size{2, 7},
                                           Size{3, 13}, Size{5, 7}, Size{7, 11}, Size{4, 17}),
                         [](const ::testing::TestParamInfo<Size>& param_info) {
                           return std::to_string(param_info.param.jobs) + "jobs_" +
                                  std::to_string(param_info.param.pool) + "nodes";
                         });

TEST(LinearPieces, CoverExactlyTheAllowedCounts) {
  for (int seed = 0; seed < 200; ++seed) {
    std::mt19937_64 rng(static_cast<std::uint64_t>(seed));
    const CountModel model = random_model(rng, 3, 9);
    for (std::size_t j = 0; j < model.jobs.size(); ++j) {
      std::vector<int> covered;
      for (const CandidateRange& r : linear_pieces(model, j)) {
        for (int n = r.lo; n <= r.hi; ++n) {
          covered.push_back(n);
          EXPECT_TRUE(near(r.gain_lo + r.slope * (n - r.lo), model.gain(j, n), 1e-12))
              << "seed " << seed << " job " << j << " count " << n << " is off its piece's line";
        }
      }
      std::vector<int> allowed;
      for (int n = 0; n <= model.pool; ++n) {
        if (model.allowed(j, n)) allowed.push_back(n);
      }
      EXPECT_EQ(covered, allowed) << "seed " << seed << " job " << j;
    }
  }
}

// Two concave jobs whose hull edges fill the pool exactly: the bound is tight (UB == LB), the
// job without an edge at the price lambda* is fixed to one count, and the other keeps only its
// edge at that price (flat reduced cost), which the DP then resolves.
TEST(Presolve, ConcaveInstanceIsTightAndFixes) {
  CountModel model;
  model.pool = 8;
  CountJob a;
  a.lo = 1;
  a.hi = 10;
  a.value = table({1, 2, 4, 8}, {10, 18, 30, 40});  // slopes 10, 8, 6, 2.5
  CountJob b = a;
  b.value = table({1, 2, 4, 8}, {12, 20, 28, 30});  // slopes 12, 8, 4, 0.5
  model.jobs = {a, b};
  const auto pre = lagrangian_presolve(model);
  ASSERT_TRUE(pre.ok());
  const auto oracle = brute_force(model);
  EXPECT_TRUE(near(pre->lambda, 25.0, 1e-12));  // a's 4 -> 8 edge, times T = 10
  EXPECT_TRUE(near(pre->upper_bound, oracle.best, 1e-12));
  EXPECT_TRUE(near(pre->incumbent.objective, oracle.best, 1e-12));
  EXPECT_EQ(pre->fixed_jobs, 1u);
  ASSERT_EQ(pre->candidates[1].size(), 1u);
  EXPECT_EQ(pre->candidates[1][0].lo, 4);
  EXPECT_EQ(pre->candidates[1][0].hi, 4);
  EXPECT_EQ(pre->candidates[0].front().lo, 4);
  EXPECT_EQ(pre->candidates[0].back().hi, 8);
}

std::vector<SolverCase> all_solvers() {
  auto solvers = exact_solvers();
  for (const Solver& s : solver_table()) {
    if (!s.exact) solvers.push_back({test_name(s.name), s.solve, false});
  }
  return solvers;
}

TEST(EdgeCases, NoNodes) {
  CountModel model;
  model.pool = 0;
  CountJob job;
  job.lo = 1;
  job.hi = 4;
  job.value = table({1, 4}, {5, 9});
  model.jobs = {job, job};
  for (const SolverCase& s : all_solvers()) {
    const auto got = s.solve(model, SolveOptions{.time_limit_s = 10.0, .presolve = s.presolve});
    ASSERT_TRUE(got.ok()) << s.name << ": " << got.status();
    EXPECT_EQ(got->counts, (std::vector<int>{0, 0})) << s.name;
    EXPECT_EQ(got->objective, 0.0) << s.name;
  }
}

TEST(EdgeCases, NoJobs) {
  CountModel model;
  model.pool = 6;
  for (const SolverCase& s : all_solvers()) {
    const auto got = s.solve(model, SolveOptions{.time_limit_s = 10.0, .presolve = s.presolve});
    ASSERT_TRUE(got.ok()) << s.name << ": " << got.status();
    EXPECT_TRUE(got->counts.empty()) << s.name;
  }
}

TEST(EdgeCases, MoreJobsThanNodes) {
  CountModel model;
  model.pool = 3;
  for (int j = 0; j < 8; ++j) {
    CountJob job;
    job.lo = 1;
    job.hi = 3;
    job.value = table({1, 2, 3}, {1.0 + j, 1.5 + j, 1.8 + j});
    model.jobs.push_back(job);
  }
  const auto oracle = brute_force(model);
  for (const SolverCase& s : exact_solvers()) {
    const auto got = s.solve(model, SolveOptions{.time_limit_s = 10.0, .presolve = s.presolve});
    ASSERT_TRUE(got.ok()) << s.name << ": " << got.status();
    ASSERT_TRUE(feasible(model, got->counts)) << s.name;
    EXPECT_TRUE(near(got->objective, oracle.best, kTolerance)) << s.name;
    // The three most valuable jobs (the last three) run on one node each.
    EXPECT_EQ(got->counts, (std::vector<int>{0, 0, 0, 0, 0, 1, 1, 1})) << s.name;
  }
}

TEST(EdgeCases, MinimumAboveThePoolMeansZero) {
  CountModel model;
  model.pool = 4;
  CountJob big;
  big.lo = 5;
  big.hi = 8;
  big.value = table({5, 8}, {100, 160});
  CountJob small;
  small.lo = 1;
  small.hi = 8;
  small.value = table({1, 8}, {1, 2});
  model.jobs = {big, small};
  for (const SolverCase& s : all_solvers()) {
    const auto got = s.solve(model, SolveOptions{.time_limit_s = 10.0, .presolve = s.presolve});
    ASSERT_TRUE(got.ok()) << s.name << ": " << got.status();
    EXPECT_EQ(got->counts, (std::vector<int>{0, 4})) << s.name;
  }
}

TEST(EdgeCases, InfeasibleFloorsAreAnError) {
  CountModel model;
  model.pool = 4;
  CountJob job;
  job.lo = 3;
  job.hi = 4;
  job.must_run = true;
  job.value = table({3, 4}, {3, 4});
  model.jobs = {job, job};
  for (const SolverCase& s : all_solvers()) {
    const auto got = s.solve(model, SolveOptions{.time_limit_s = 10.0, .presolve = s.presolve});
    EXPECT_EQ(got.status().code(), absl::StatusCode::kInvalidArgument) << s.name;
  }
  EXPECT_EQ(lagrangian_presolve(model).status().code(), absl::StatusCode::kInvalidArgument);
}

// A must-run floor is honoured even when running the job is worth less than giving its nodes to
// another job.
TEST(EdgeCases, MustRunFloorsHold) {
  CountModel model;
  model.pool = 6;
  CountJob poor;
  poor.lo = 2;
  poor.hi = 6;
  poor.must_run = true;
  poor.value = table({1, 6}, {1, 2});
  CountJob rich;
  rich.lo = 1;
  rich.hi = 6;
  rich.value = table({1, 6}, {100, 600});
  model.jobs = {poor, rich};
  for (const SolverCase& s : all_solvers()) {
    const auto got = s.solve(model, SolveOptions{.time_limit_s = 10.0, .presolve = s.presolve});
    ASSERT_TRUE(got.ok()) << s.name << ": " << got.status();
    EXPECT_GE(got->counts[0], 2) << s.name;
    ASSERT_TRUE(feasible(model, got->counts)) << s.name;
  }
  const auto dp = solve_dp(model, SolveOptions{});
  ASSERT_TRUE(dp.ok());
  EXPECT_EQ(dp->counts, (std::vector<int>{2, 4}));
}

// A non-concave table: the best single-job answer sits at the kink, not at either end.
TEST(EdgeCases, NonConcaveTable) {
  CountModel model;
  model.pool = 9;
  CountJob job;
  job.lo = 1;
  job.hi = 9;
  job.value = table({1, 3, 4, 9}, {1, 2, 20, 21});
  CountJob other = job;
  other.value = table({1, 9}, {4, 36});
  model.jobs = {job, other};
  const auto oracle = brute_force(model);
  for (const SolverCase& s : exact_solvers()) {
    const auto got = s.solve(model, SolveOptions{.time_limit_s = 10.0, .presolve = s.presolve});
    ASSERT_TRUE(got.ok()) << s.name << ": " << got.status();
    EXPECT_TRUE(near(got->objective, oracle.best, kTolerance)) << s.name;
    EXPECT_EQ(got->counts, (std::vector<int>{4, 5})) << s.name;
  }
}

// Identical jobs tie everywhere; the DP's answer must not depend on anything but the input.
TEST(EdgeCases, IdenticalJobsAreDeterministic) {
  CountModel model;
  model.pool = 10;
  CountJob job;
  job.lo = 1;
  job.hi = 10;
  job.value = table({1, 2, 3}, {3, 6, 9});  // linear: every split is optimal
  model.jobs = {job, job, job, job};
  for (bool presolve : {true, false}) {
    const auto first = solve_dp(model, SolveOptions{.time_limit_s = 10.0, .presolve = presolve});
    const auto second = solve_dp(model, SolveOptions{.time_limit_s = 10.0, .presolve = presolve});
    ASSERT_TRUE(first.ok() && second.ok());
    EXPECT_EQ(first->counts, second->counts);
    EXPECT_EQ(std::accumulate(first->counts.begin(), first->counts.end(), 0), 10);
    EXPECT_TRUE(near(first->objective, brute_force(model).best, kTolerance));
  }
}

// With ties, a job keeps its current count (the DP's documented tie rule).
TEST(EdgeCases, DpTiesKeepCurrentCounts) {
  CountModel model;
  model.pool = 8;
  CountJob job;
  job.lo = 1;
  job.hi = 8;
  job.value = table({1, 8}, {2, 16});  // 2 per node, no stall costs: all full splits tie
  job.current = 3;
  CountJob other = job;
  other.current = 5;
  model.jobs = {job, other};
  for (bool presolve : {true, false}) {
    const auto got = solve_dp(model, SolveOptions{.time_limit_s = 10.0, .presolve = presolve});
    ASSERT_TRUE(got.ok());
    EXPECT_EQ(got->counts, (std::vector<int>{3, 5})) << "presolve " << presolve;
  }
}

// A zero time limit still answers with a feasible allocation.
TEST(EdgeCases, DpTimeLimitReturnsFeasibleIncumbent) {
  std::mt19937_64 rng(7);
  const CountModel model = random_model(rng, 6, 40);
  for (bool presolve : {true, false}) {
    const auto got = solve_dp(model, SolveOptions{.time_limit_s = 0.0, .presolve = presolve});
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_TRUE(feasible(model, got->counts));
    EXPECT_TRUE(near(got->objective, objective_of(model, got->counts), kTolerance));
  }
}

// A limit past the steady clock's range (about 9.2e9 s) is no limit: the deadline used to
// overflow into the past, and dp and milp returned their first incumbent as "time_limit".
TEST(EdgeCases, ALimitBeyondTheClockIsNoLimit) {
  std::mt19937_64 rng(7);
  const CountModel model = random_model(rng, 6, 40);
  for (const Solver& s : solver_table()) {
    if (!s.exact) continue;
    const auto want = s.solve(model, SolveOptions{.time_limit_s = 60.0});
    ASSERT_TRUE(want.ok()) << s.name << ": " << want.status();
    ASSERT_EQ(want->status, SolveStatus::kOptimal) << s.name;
    for (const double limit : {1e10, 1e300, std::numeric_limits<double>::infinity()}) {
      const auto got = s.solve(model, SolveOptions{.time_limit_s = limit});
      ASSERT_TRUE(got.ok()) << s.name << ": " << got.status();
      EXPECT_EQ(got->status, SolveStatus::kOptimal) << s.name << " at " << limit << " s";
      EXPECT_TRUE(near(got->objective, want->objective, kTolerance)) << s.name << " at " << limit;
    }
  }
}

// Larger instances than brute force can reach: DP with and without presolve agree.
TEST(DpCrossCheck, PresolveDoesNotChangeTheOptimum) {
  for (int seed = 0; seed < 60; ++seed) {
    std::mt19937_64 rng(static_cast<std::uint64_t>(1000 + seed));
    const int jobs = 1 + seed % 37;
    const int pool = 3 * seed + 1;
    const CountModel model = random_model(rng, jobs, pool);
    const auto fast = solve_dp(model, SolveOptions{.time_limit_s = 60.0, .presolve = true});
    const auto plain = solve_dp(model, SolveOptions{.time_limit_s = 60.0, .presolve = false});
    ASSERT_TRUE(fast.ok() && plain.ok());
    EXPECT_TRUE(feasible(model, fast->counts));
    EXPECT_TRUE(near(fast->objective, plain->objective, kTolerance)) << "seed " << seed;
  }
}

TEST(EqualShare, StaysWithinThePoolAndTheBounds) {
  for (int seed = 0; seed < 500; ++seed) {
    std::mt19937_64 rng(static_cast<std::uint64_t>(seed));
    const int jobs = seed % 9;
    const int pool = (seed * 7) % 23;
    const CountModel model = random_model(rng, jobs, pool);
    const auto got = solve_equal_share(model, SolveOptions{});
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_EQ(got->status, SolveStatus::kHeuristic);
    ASSERT_TRUE(feasible(model, got->counts)) << "seed " << seed;
    for (std::size_t j = 0; j < model.jobs.size(); ++j) {
      EXPECT_LE(got->counts[j], model.jobs[j].hi);
      if (model.jobs[j].must_run) {
        EXPECT_GE(got->counts[j], model.jobs[j].lo);
      }
    }
    EXPECT_TRUE(near(got->objective, objective_of(model, got->counts), kTolerance));
    EXPECT_LE(got->objective,
              brute_force(model).best + 1e-9 * std::max(1.0, std::abs(got->objective)));
  }
}

TEST(EqualShare, SplitsEvenlyThenFirstComeFirstServed) {
  CountModel model;
  model.pool = 10;
  CountJob a;
  a.lo = 1;
  a.hi = 2;
  a.value = table({1}, {1});
  CountJob b = a;
  b.hi = 10;
  CountJob c = a;
  c.lo = 4;  // the share of 3 is below its minimum: it gets nothing from the split
  c.hi = 10;
  model.jobs = {a, b, c};
  const auto got = solve_equal_share(model, SolveOptions{});
  ASSERT_TRUE(got.ok());
  // Shares 3,3,3 -> 2,3,0; leftover 5 goes to the first job with room: b up to 8.
  EXPECT_EQ(got->counts, (std::vector<int>{2, 8, 0}));
}

}  // namespace
}  // namespace elastic::alloc
