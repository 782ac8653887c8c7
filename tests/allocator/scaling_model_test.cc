// ScalingModel: the Amdahl fit from exact and noisy reports, one count (linear or the typical
// serial fraction of the other jobs), no data (linear or the typical curve), bad input, the table
// reproducing measurements, the re-plan trigger, and learning inside the allocation loop: the
// learned table drives allocate() to the allocation the true curve would give.
#include "elastic/allocator/scaling_model.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "elastic/allocator/allocator.h"

namespace elastic::alloc {
namespace {

double amdahl(double r1, double s, int n) { return r1 * n / (1 + s * (n - 1)); }

struct Curve {
  double serial;
  std::vector<int> counts;
};

void PrintTo(const Curve& c, std::ostream* out) {
  *out << "s=" << c.serial << " at";
  for (int n : c.counts) *out << " " << n;
}

class ExactAmdahl : public ::testing::TestWithParam<Curve> {};

TEST_P(ExactAmdahl, RecoversR1AndSerialFraction) {
  const Curve& c = GetParam();
  ScalingModel model(64);
  for (int n : c.counts) model.observe(n, amdahl(250.0, c.serial, n));
  EXPECT_EQ(model.distinct_counts(), static_cast<int>(c.counts.size()));
  EXPECT_NEAR(model.r1(), 250.0, 1e-9 * 250.0);
  EXPECT_NEAR(model.serial_fraction(), c.serial, 1e-9);
  const PiecewiseLinear table = model.table(1.0);
  for (int n = 1; n <= 64; ++n) {
    EXPECT_NEAR(table.at(n), amdahl(250.0, c.serial, n), 5e-4 * amdahl(250.0, c.serial, n))
        << "n=" << n;
  }
}

INSTANTIATE_TEST_SUITE_P(Fits, ExactAmdahl,
                         ::testing::Values(Curve{0.0, {2, 4}}, Curve{0.05, {1, 3}},
                                           Curve{0.05, {2, 4, 8}}, Curve{0.3, {1, 2, 4}},
                                           Curve{0.3, {5, 7}}, Curve{1.0, {1, 2, 8}}));

class NoisyAmdahl : public ::testing::TestWithParam<double> {};

// 3% multiplicative noise, 20 reports at each of 1, 2, 4, 8 nodes.
TEST_P(NoisyAmdahl, RecoversWithinTolerance) {
  const double s = GetParam();
  std::mt19937 rng(12345);
  std::normal_distribution<double> noise(0.0, 0.03);
  ScalingModel model(32);
  for (int round = 0; round < 20; ++round) {
    for (int n : {1, 2, 4, 8}) model.observe(n, amdahl(80.0, s, n) * std::exp(noise(rng)));
  }
  EXPECT_NEAR(model.r1(), 80.0, 0.03 * 80.0);
  EXPECT_NEAR(model.serial_fraction(), s, 0.02);
  const PiecewiseLinear table = model.table(1.0);
  for (int n = 1; n <= 32; ++n) {
    EXPECT_NEAR(table.at(n), amdahl(80.0, s, n), 0.06 * amdahl(80.0, s, n)) << "n=" << n;
  }
}

INSTANTIATE_TEST_SUITE_P(Fits, NoisyAmdahl, ::testing::Values(0.0, 0.05, 0.3, 1.0));

TEST(ScalingModel, OneCountIsLinearThroughIt) {
  ScalingModel model(16);
  model.observe(4, 400.0);
  model.observe(4, 440.0);
  model.observe(4, 420.0);
  EXPECT_EQ(model.distinct_counts(), 1);
  EXPECT_DOUBLE_EQ(model.measured(4), 420.0);
  EXPECT_DOUBLE_EQ(model.r1(), 105.0);
  EXPECT_EQ(model.serial_fraction(), 0.0);
  const PiecewiseLinear table = model.table(7.0);
  for (int n = 1; n <= 16; ++n) EXPECT_NEAR(table.at(n), 105.0 * n, 1e-9) << "n=" << n;
}

// Measured at one count, the table takes the serial fraction it is given through the measurement;
// a value outside (0, 1] leaves it linear. The fit itself stays linear (it has no second count).
TEST(ScalingModel, OneCountTakesTheTypicalSerialFraction) {
  ScalingModel model(16);
  model.observe(4, 420.0);
  const PiecewiseLinear table = model.table(7.0, 0.2);
  for (int n = 1; n <= 16; ++n) {
    EXPECT_NEAR(table.at(n), 420.0 * amdahl(1.0, 0.2, n) / amdahl(1.0, 0.2, 4), 1e-9) << "n=" << n;
  }
  EXPECT_EQ(model.serial_fraction(), 0.0);
  for (double s : {0.0, -0.5, 1.5, std::numeric_limits<double>::quiet_NaN()}) {
    EXPECT_NEAR(model.table(7.0, s).at(8), 105.0 * 8, 1e-9) << "s=" << s;
  }
  // From a second count on, the job's own fit decides.
  model.observe(8, amdahl(105.0, 0.0, 8));
  EXPECT_NEAR(model.table(7.0, 0.2).at(16), 105.0 * 16, 1e-6);
}

// The median serial fraction over the models fitted at two or more counts; models measured at one
// count or not at all, and null entries, do not count.
TEST(TypicalSerialFraction, MedianOfTheModelsMeasuredAtTwoCounts) {
  const auto fitted = [](double s) {
    ScalingModel m(8);
    m.observe(1, amdahl(50.0, s, 1));
    m.observe(4, amdahl(50.0, s, 4));
    return m;
  };
  const ScalingModel a = fitted(0.5), b = fitted(0.1), c = fitted(0.2), d = fitted(0.4);
  ScalingModel one_count(8);
  one_count.observe(2, 10.0);
  const ScalingModel empty(8);
  std::vector<const ScalingModel*> models = {&a, &one_count, nullptr, &b, &empty};
  static_assert(kTypicalMinFits == 3);
  EXPECT_EQ(typical_serial_fraction(models), 0.0);  // two fits are not yet what jobs are like
  models.push_back(&c);
  EXPECT_NEAR(typical_serial_fraction(models), 0.2, 1e-9);
  models.push_back(&d);
  EXPECT_NEAR(typical_serial_fraction(models), 0.3, 1e-9);  // (0.2 + 0.4) / 2
  EXPECT_EQ(typical_serial_fraction(std::vector<const ScalingModel*>{&one_count, &empty}), 0.0);
  EXPECT_EQ(typical_serial_fraction({}), 0.0);
}

// The lower quartile of the same fits: the serial fraction of the better quarter of the jobs.
TEST(ProbeSerialFraction, LowerQuartileOfTheModelsMeasuredAtTwoCounts) {
  const auto fitted = [](double s) {
    ScalingModel m(8);
    m.observe(1, amdahl(50.0, s, 1));
    m.observe(4, amdahl(50.0, s, 4));
    return m;
  };
  const ScalingModel a = fitted(0.5), b = fitted(0.1), c = fitted(0.2), d = fitted(0.3),
                     e = fitted(0.6);
  ScalingModel one_count(8);
  one_count.observe(2, 10.0);
  std::vector<const ScalingModel*> models = {&a, &one_count, nullptr, &b, &c, &d};
  EXPECT_NEAR(probe_serial_fraction(models), 0.1, 1e-9);  // 0.1 0.2 0.3 0.5: the first
  models.push_back(&e);
  EXPECT_NEAR(probe_serial_fraction(models), 0.2, 1e-9);  // 0.1 0.2 0.3 0.5 0.6: the second
  EXPECT_EQ(probe_serial_fraction(std::vector<const ScalingModel*>{&one_count}), 0.0);
  EXPECT_EQ(probe_serial_fraction({}), 0.0);
}

// Probing changes the table only above the largest measured count: up to twice it along the
// optimistic serial fraction, then along the job's own curve; a probe fraction that is not more
// optimistic than the job's own, or out of [0, 1], changes nothing.
TEST(ScalingModel, ProbingIsOneStepBeyondTheLargestMeasuredCount) {
  ScalingModel model(16);
  for (int n : {2, 4}) model.observe(n, amdahl(100.0, 0.5, n));
  ASSERT_NEAR(model.serial_fraction(), 0.5, 1e-9);
  const PiecewiseLinear passive = model.table(1.0);
  const PiecewiseLinear probing = model.table(1.0, 0.0, 0.1);
  for (int n = 1; n <= 4; ++n) EXPECT_NEAR(probing.at(n), passive.at(n), 1e-9) << "n=" << n;
  const double at4 = amdahl(100.0, 0.5, 4);
  for (int n = 5; n <= 8; ++n) {
    EXPECT_NEAR(probing.at(n), at4 * amdahl(1.0, 0.1, n) / amdahl(1.0, 0.1, 4), 1e-9) << "n=" << n;
    EXPECT_GT(probing.at(n), passive.at(n)) << "n=" << n;
  }
  for (int n = 9; n <= 16; ++n) {
    EXPECT_NEAR(probing.at(n), probing.at(8) * amdahl(1.0, 0.5, n) / amdahl(1.0, 0.5, 8), 1e-9)
        << "n=" << n;
  }
  for (double probe : {0.5, 0.7, -1.0, 1.5, std::numeric_limits<double>::quiet_NaN()}) {
    const PiecewiseLinear same = model.table(1.0, 0.0, probe);
    for (int n = 1; n <= 16; ++n) {
      EXPECT_NEAR(same.at(n), passive.at(n), 1e-9) << "probe=" << probe << " n=" << n;
    }
  }
  // Measured at one count, the optimism is against the typical serial fraction.
  ScalingModel one(16);
  one.observe(3, 300.0);
  const PiecewiseLinear typical = one.table(1.0, 0.6, 0.2);
  EXPECT_NEAR(typical.at(6), 300.0 * amdahl(1.0, 0.2, 6) / amdahl(1.0, 0.2, 3), 1e-9);
  EXPECT_NEAR(typical.at(12), typical.at(6) * amdahl(1.0, 0.6, 12) / amdahl(1.0, 0.6, 6), 1e-9);
}

TEST(ScalingModel, NoDataUsesThePrior) {
  ScalingModel model(12);
  EXPECT_FALSE(model.has_data());
  EXPECT_EQ(model.distinct_counts(), 0);
  EXPECT_EQ(model.r1(), 0.0);
  // With no curve known from other jobs either, the prior buys the first node only: flat, so a job
  // never run is measured on one node instead of taking every node from jobs already running.
  const PiecewiseLinear table = model.table(30.0);
  for (int n = 1; n <= 12; ++n) EXPECT_DOUBLE_EQ(table.at(n), 30.0) << "n=" << n;
  // Without a usable prior a job still gets a unit rate, so it can be scheduled.
  for (double prior : {0.0, -3.0, std::numeric_limits<double>::quiet_NaN()}) {
    EXPECT_DOUBLE_EQ(model.table(prior).at(5), 1.0) << "prior=" << prior;
  }
  EXPECT_DOUBLE_EQ(ScalingModel(1).table(30.0).at(3), 30.0);  // flat beyond max_nodes
}

// With no data and a typical serial fraction, the prior per node is the table's r(1) and the rest
// follows the typical curve: a new job competes for its first node on the prior, not for many.
TEST(ScalingModel, NoDataFollowsTheTypicalSerialFraction) {
  ScalingModel model(40);
  const PiecewiseLinear table = model.table(30.0, 0.2);
  for (int n = 1; n <= 40; ++n) {
    EXPECT_NEAR(table.at(n), amdahl(30.0, 0.2, n), 5e-4 * amdahl(30.0, 0.2, n)) << "n=" << n;
  }
  for (double s : {0.0, -0.5, 1.5, std::numeric_limits<double>::quiet_NaN()}) {
    EXPECT_DOUBLE_EQ(model.table(30.0, s).at(8), 30.0) << "s=" << s;  // no curve known: flat
  }
  EXPECT_DOUBLE_EQ(model.table(std::numeric_limits<double>::quiet_NaN(), 1.0).at(5), 1.0);
  EXPECT_DOUBLE_EQ(ScalingModel(1).table(30.0, 0.2).at(3), 30.0);  // one node, flat beyond
}

TEST(ScalingModel, IgnoresBadInput) {
  ScalingModel model(8);
  const double inf = std::numeric_limits<double>::infinity();
  model.observe(0, 100.0);
  model.observe(-2, 100.0);
  model.observe(9, 100.0);
  model.observe(2, std::numeric_limits<double>::quiet_NaN());
  model.observe(2, inf);
  model.observe(2, -inf);
  model.observe(2, 0.0);
  model.observe(2, -50.0);
  model.observe(2, std::numeric_limits<double>::max());  // times 8 nodes overflows
  EXPECT_FALSE(model.has_data());
  model.observe(2, 100.0);
  model.observe(2, std::numeric_limits<double>::quiet_NaN());
  EXPECT_EQ(model.distinct_counts(), 1);
  EXPECT_DOUBLE_EQ(model.measured(2), 100.0);
  EXPECT_EQ(model.measured(3), 0.0);
}

TEST(ScalingModel, RatesManyOrdersApartStillGiveAValidTable) {
  ScalingModel model(8);
  model.observe(1, 1e-300);
  model.observe(2, 1e300);
  const PiecewiseLinear table = model.table(1.0);
  for (int n = 1; n <= 8; ++n) EXPECT_TRUE(std::isfinite(table.at(n))) << "n=" << n;
  EXPECT_DOUBLE_EQ(table.at(1), 1e-300);
  EXPECT_DOUBLE_EQ(table.at(2), 1e300);
}

// A curve Amdahl does not describe (superlinear to 2, a drop at 8): the table still has the
// measured medians at the measured counts, and stays between them elsewhere.
TEST(ScalingModel, TableReproducesMeasuredMedians) {
  const std::vector<int> counts = {1, 2, 4, 8};
  const std::vector<double> truth = {100.0, 230.0, 380.0, 300.0};
  std::mt19937 rng(7);
  std::normal_distribution<double> noise(0.0, 0.05);
  ScalingModel model(16);
  for (int round = 0; round < 9; ++round) {
    for (std::size_t i = 0; i < counts.size(); ++i) {
      model.observe(counts[i], truth[i] * std::exp(noise(rng)));
    }
  }
  const PiecewiseLinear table = model.table(1.0);
  for (std::size_t i = 0; i < counts.size(); ++i) {
    EXPECT_NEAR(table.at(counts[i]), model.measured(counts[i]), 1e-9 * truth[i]);
    EXPECT_NEAR(model.measured(counts[i]), truth[i], 0.05 * truth[i]);
  }
  EXPECT_LT(table.at(8), table.at(4));  // adding nodes hurts there, and the table says so
  EXPECT_GT(table.at(6), table.at(8));
  EXPECT_LT(table.at(6), table.at(4) * 1.05);
}

TEST(ScalingModel, MedianIgnoresAStallAndForgetsOldReports) {
  ScalingModel model(4);
  for (int i = 0; i < 10; ++i) model.observe(4, 400.0);
  model.observe(4, 3.0);  // a report that straddled a checkpoint
  EXPECT_DOUBLE_EQ(model.measured(4), 400.0);
  for (std::size_t i = 0; i < ScalingModel::kWindow; ++i) model.observe(4, 300.0);
  EXPECT_DOUBLE_EQ(model.measured(4), 300.0);
  model.observe(4, 500.0);
  model.observe(4, 500.0);
  EXPECT_DOUBLE_EQ(model.measured(4), 300.0);
}

// Summit-sized max_nodes: a compact table, still the Amdahl curve at every integer count.
TEST(ScalingModel, LargeTablesAreCompact) {
  ScalingModel model(4608);
  model.observe(16, amdahl(50.0, 0.002, 16));
  model.observe(100, amdahl(50.0, 0.002, 100));
  const PiecewiseLinear table = model.table(1.0);
  EXPECT_LT(table.counts().size(), 150u);
  EXPECT_EQ(table.counts().back(), 4608);
  for (int n = 1; n <= 4608; ++n) {
    ASSERT_NEAR(table.at(n), amdahl(50.0, 0.002, n), 5e-4 * amdahl(50.0, 0.002, n)) << "n=" << n;
  }
}

TEST(ChangedSignificantly, ComparesEveryCount) {
  const auto make = [](std::vector<int> c, std::vector<double> v) {
    return *PiecewiseLinear::create(c, v);
  };
  const PiecewiseLinear base = make({1, 2, 4}, {100, 190, 350});
  EXPECT_FALSE(changed_significantly(base, base, 0.0));
  EXPECT_FALSE(changed_significantly(base, make({1, 2, 4}, {100, 192, 350}), 0.05));
  EXPECT_TRUE(changed_significantly(base, make({1, 2, 4}, {100, 230, 350}), 0.05));
  // Only an interpolated count differs: 3 goes from 270 to 300.
  EXPECT_TRUE(changed_significantly(base, make({1, 2, 3, 4}, {100, 190, 300, 350}), 0.05));
  // A longer table that is flat beyond 4 equals the short one; rising beyond it does not.
  EXPECT_FALSE(changed_significantly(base, make({1, 2, 4, 8}, {100, 190, 350, 350}), 0.01));
  EXPECT_TRUE(changed_significantly(base, make({1, 2, 4, 8}, {100, 190, 350, 600}), 0.05));
  EXPECT_TRUE(changed_significantly(PiecewiseLinear(), base, 0.05));
  EXPECT_FALSE(changed_significantly(PiecewiseLinear(), PiecewiseLinear(), 0.05));
}

TEST(ChangedSignificantly, QuietWhileReportsRepeatThemselves) {
  ScalingModel model(8);
  model.observe(2, 200.0);
  model.observe(4, 350.0);
  PiecewiseLinear planned = model.table(1.0);
  for (int i = 0; i < 20; ++i) {
    model.observe(4, i % 2 == 0 ? 352.0 : 348.0);
    EXPECT_FALSE(changed_significantly(planned, model.table(1.0), 0.05)) << "report " << i;
  }
  for (int i = 0; i < 3; ++i) model.observe(8, 420.0);  // the first data at 8 nodes
  EXPECT_TRUE(changed_significantly(planned, model.table(1.0), 0.05));
}

Problem pool(int nodes) {
  Problem problem;
  for (int i = 1; i <= nodes; ++i) {
    Node node;
    node.name = "n" + std::to_string(i);
    problem.nodes.push_back(std::move(node));
  }
  problem.solver = SolverKind::kDp;
  return problem;
}

Job job(std::string id, int max_nodes, PiecewiseLinear scaling) {
  Job j;
  j.id = std::move(id);
  j.max_nodes = max_nodes;
  j.scaling = std::move(scaling);
  return j;
}

// The prior for an unmeasured job beats the best measured r(1) by the exploration bonus; with
// nothing known (none, 0, NaN, infinity) it is 1 per node.
TEST(UnmeasuredPrior, BestR1PlusBonusElseOne) {
  EXPECT_DOUBLE_EQ(unmeasured_prior(200.0), 200.0 * (1 + kExplorationBonus));
  EXPECT_DOUBLE_EQ(unmeasured_prior(0.0), 1.0);
  EXPECT_DOUBLE_EQ(unmeasured_prior(-3.0), 1.0);
  EXPECT_DOUBLE_EQ(unmeasured_prior(std::numeric_limits<double>::quiet_NaN()), 1.0);
  EXPECT_DOUBLE_EQ(unmeasured_prior(std::numeric_limits<double>::infinity()), 1.0);
}

TEST(ScalingModelAllocation, TheJobThatScalesWellGetsMoreNodes) {
  ScalingModel good(16);
  ScalingModel bad(16);
  for (int n : {1, 2}) {
    good.observe(n, amdahl(100.0, 0.02, n));
    bad.observe(n, amdahl(100.0, 0.6, n));
  }
  Problem problem = pool(16);
  problem.jobs = {job("bad", 16, bad.table(1.0)), job("good", 16, good.table(1.0))};
  const absl::StatusOr<Allocation> a = allocate(problem);
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->jobs[0].count + a->jobs[1].count, 16);
  EXPECT_GT(a->jobs[1].count, a->jobs[0].count);
  EXPECT_GE(a->jobs[0].count, 1);  // its first node still beats good's 16th
}

// The runtime's loop: plan with the learned table, run at the planned count, learn from the
// reports there. A job with a true Amdahl curve (r1 = 100, s = 0.1) competes with a linear job
// of 50 samples/s per node for 12 nodes; under the true curve it should get 4 nodes (its 5th node
// adds 49.6 < 50). Starting from one report at 1 node, the optimistic linear guess takes all 12
// nodes, the reports at 12 reveal the curve, and the plan settles at the true optimum.
TEST(ScalingModelAllocation, LearningConvergesToTheTrueAllocation) {
  constexpr int kPool = 12;
  constexpr double kR1 = 100.0;
  constexpr double kSerial = 0.1;
  std::vector<int> true_counts;
  std::vector<double> true_rates;
  for (int n = 1; n <= kPool; ++n) {
    true_counts.push_back(n);
    true_rates.push_back(amdahl(kR1, kSerial, n));
  }
  const PiecewiseLinear truth = *PiecewiseLinear::create(true_counts, true_rates);
  const PiecewiseLinear linear =
      *PiecewiseLinear::create(std::vector<int>{1, kPool}, std::vector<double>{50.0, 50.0 * kPool});
  const auto plan = [&](const PiecewiseLinear& learner) {
    Problem problem = pool(kPool);
    problem.jobs = {job("learner", kPool, learner), job("linear", kPool, linear)};
    const absl::StatusOr<Allocation> a = allocate(problem);
    EXPECT_TRUE(a.ok()) << a.status();
    return a.ok() ? a->jobs[0].count : -1;
  };
  const int optimum = plan(truth);
  ASSERT_EQ(optimum, 4);

  std::mt19937 rng(2024);
  std::normal_distribution<double> noise(0.0, 0.03);
  ScalingModel model(kPool);
  model.observe(1, kR1 * std::exp(noise(rng)));
  std::vector<int> counts;
  for (int round = 0; round < 10; ++round) {
    const int n = plan(model.table(1.0));
    ASSERT_GE(n, 1);
    counts.push_back(n);
    for (int report = 0; report < 5; ++report) {
      model.observe(n, amdahl(kR1, kSerial, n) * std::exp(noise(rng)));
    }
  }
  double worst = 0;
  const PiecewiseLinear learned = model.table(1.0);
  for (int n = 1; n <= kPool; ++n) {
    worst = std::max(worst, std::abs(learned.at(n) / truth.at(n) - 1));
  }
  std::string history;
  for (int n : counts) history += std::to_string(n) + " ";
  RecordProperty("planned_counts", history);
  RecordProperty("worst_table_error", std::to_string(worst));
  std::printf("planned counts by round: %s| fitted r1 %.2f s %.4f | worst table error %.3f\n",
              history.c_str(), model.r1(), model.serial_fraction(), worst);
  EXPECT_EQ(counts.front(), kPool);  // the optimistic first guess explores
  EXPECT_EQ(counts.back(), optimum);
  EXPECT_EQ(counts[counts.size() - 2], optimum);
  EXPECT_NEAR(model.serial_fraction(), kSerial, 0.03);
  EXPECT_LT(worst, 0.06);
}

// What probing is for. A job that truly scales linearly (60 samples/s per node) is measured at one
// node only, and the other jobs' typical serial fraction (0.6) says its second node adds 15, less
// than the 40 per node a competing linear job makes: the passive plan keeps it at one node for
// ever, and its table never learns otherwise. With probing (the better quarter of the jobs scales
// with s = 0, say) its second node looks worth 60, it gets it, the reports there fit its own
// (linear) curve, and the plan reaches the true optimum: every node to it.
TEST(ScalingModelAllocation, ProbingFindsWhatAPessimisticCurveHides) {
  constexpr int kPool = 8;
  constexpr double kTypical = 0.6;
  constexpr double kProbe = 0.0;
  const PiecewiseLinear other =
      *PiecewiseLinear::create(std::vector<int>{1, kPool}, std::vector<double>{40.0, 40.0 * kPool});
  const auto plan = [&](const PiecewiseLinear& learner) {
    Problem problem = pool(kPool);
    problem.jobs = {job("learner", kPool, learner), job("other", kPool, other)};
    const absl::StatusOr<Allocation> a = allocate(problem);
    EXPECT_TRUE(a.ok()) << a.status();
    return a.ok() ? a->jobs[0].count : -1;
  };
  const auto learn = [&](double probe) {
    ScalingModel model(kPool);
    model.observe(1, 60.0);
    std::vector<int> counts;
    for (int round = 0; round < 6; ++round) {
      const int n = plan(model.table(1.0, kTypical, probe));
      if (n < 1) break;
      counts.push_back(n);
      for (int report = 0; report < 3; ++report) model.observe(n, 60.0 * n);
    }
    return counts;
  };
  EXPECT_EQ(learn(-1.0), std::vector<int>(6, 1));  // passive: stuck at one node
  const std::vector<int> active = learn(kProbe);
  ASSERT_EQ(active.size(), 6U);
  EXPECT_EQ(active.front(), 2);  // one step beyond what was measured
  EXPECT_EQ(active.back(), kPool);
}

}  // namespace
}  // namespace elastic::alloc
