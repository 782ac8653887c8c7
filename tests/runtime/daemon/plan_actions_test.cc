// The plan as actions, without MPI: plan_job/plan_problem state the daemon's problem from its
// options, plan_actions diffs held nodes against an allocation (a table of hand-made cases), and
// whole plans go through the real allocator (problem -> allocate -> actions) for each exact solver.
#include "elastic/daemon/plan_actions.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <map>
#include <ostream>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "elastic/allocator/allocator.h"
#include "elastic/allocator/problem_json.h"
#include "elastic/allocator/scaling_model.h"

namespace elastic::alloc {
void PrintTo(SolverKind kind, std::ostream* os) { *os << to_string(kind); }
}  // namespace elastic::alloc

namespace elastic::rt {

using Kind = PlanAction::Kind;
using Nodes = std::vector<std::string>;

// gtest prints actions in failure messages with this.
void PrintTo(const PlanAction& a, std::ostream* os) {
  static constexpr const char* kNames[] = {"stop", "shrink", "start", "grow"};
  *os << kNames[static_cast<int>(a.kind)] << "(job " << a.job << ": ";
  for (const std::string& n : a.nodes) *os << n << " ";
  *os << a.reason << ")";
}

namespace {

constexpr const char* kNoNodes = "the plan gave it no nodes";
constexpr const char* kTakenBack = "all of its nodes were taken back";

// A job whose [scaling] table is the given samples/s at 1..n nodes.
JobSpec spec_of(const std::string& id, int min_nodes, int max_nodes,
                const std::vector<double>& samples_per_s) {
  JobSpec s;
  s.id = id;
  s.command = "/bin/true";
  s.min_nodes = min_nodes;
  s.max_nodes = max_nodes;
  ScalingSpec table;
  for (std::size_t i = 0; i < samples_per_s.size(); ++i)
    table.nodes.push_back(static_cast<int>(i) + 1);
  table.samples_per_s = samples_per_s;
  s.scaling = table;
  return s;
}

std::vector<HostEntry> hosts(const Nodes& names) {
  std::vector<HostEntry> out;
  for (const std::string& n : names) out.push_back(HostEntry{n, 1, std::nullopt});
  return out;
}

// An allocation giving job j the nodes `nodes[j]` (as alloc::allocate reports them).
alloc::Allocation allocation_of(const std::vector<Nodes>& nodes) {
  alloc::Allocation a;
  for (std::size_t j = 0; j < nodes.size(); ++j) {
    a.jobs.push_back({"j" + std::to_string(j), static_cast<int>(nodes[j].size()), nodes[j],
                      alloc::Change::kKeep});
  }
  return a;
}

// --- plan_job / plan_problem: the problem comes from the options ------------------------------

TEST(PlanJob, StallsComeFromTheOptionsUnlessTheSpecGivesThem) {
  PlanOptions o;
  o.grow_stall_s = 2.5;
  o.shrink_stall_s = 0.75;
  JobSpec s = spec_of("a", 1, 4, {100, 180});
  absl::StatusOr<alloc::Job> j = plan_job(s, {"n1"}, {}, o);
  ASSERT_TRUE(j.ok()) << j.status();
  EXPECT_EQ(j->grow_stall_s, 2.5);
  EXPECT_EQ(j->shrink_stall_s, 0.75);
  EXPECT_EQ(j->nodes, Nodes{"n1"});
  EXPECT_EQ(j->min_nodes, 1);
  EXPECT_EQ(j->max_nodes, 4);
  EXPECT_EQ(j->scaling.at(2), 180);

  s.scaling->grow_stall_s = 0.0;
  s.scaling->shrink_stall_s = 4.0;
  s.priority = 2;
  j = plan_job(s, {}, {}, o);
  ASSERT_TRUE(j.ok()) << j.status();
  EXPECT_EQ(j->grow_stall_s, 0.0);
  EXPECT_EQ(j->shrink_stall_s, 4.0);
  EXPECT_EQ(j->weight, 3.0);
}

TEST(PlanJob, AJobWithoutATableIsPlannedWithTheLearnedOne) {
  JobSpec s = spec_of("a", 1, 4, {});
  s.scaling.reset();
  const std::vector<int> counts = {1, 2};
  const std::vector<double> values = {50, 90};
  absl::StatusOr<alloc::PiecewiseLinear> learned = alloc::PiecewiseLinear::create(counts, values);
  ASSERT_TRUE(learned.ok());
  absl::StatusOr<alloc::Job> j = plan_job(s, {}, *learned, PlanOptions{});
  ASSERT_TRUE(j.ok()) << j.status();
  EXPECT_EQ(j->scaling.at(2), 90);
  EXPECT_FALSE(j->value.has_value());
}

TEST(PlanJob, SamplesLeftComeFromTheTargetLessThoseDone) {
  JobSpec s = spec_of("a", 1, 4, {100, 180});
  absl::StatusOr<alloc::Job> j = plan_job(s, {}, {}, PlanOptions{}, 400);
  ASSERT_TRUE(j.ok()) << j.status();
  EXPECT_EQ(j->remaining_samples, std::numeric_limits<double>::infinity());  // no target
  s.target_samples = 1000;
  j = plan_job(s, {}, {}, PlanOptions{}, 400);
  ASSERT_TRUE(j.ok()) << j.status();
  EXPECT_EQ(j->remaining_samples, 600);
}

TEST(PlanJob, AMalformedTableIsRefusedNamingTheField) {
  JobSpec s = spec_of("a", 1, 4, {100, 180});
  s.scaling->value = {1.0};  // not as long as nodes
  absl::StatusOr<alloc::Job> j = plan_job(s, {}, {}, PlanOptions{});
  ASSERT_FALSE(j.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(j.status()));
  EXPECT_NE(j.status().message().find("scaling.value"), std::string::npos) << j.status();
}

TEST(PlanProblem, PoolLessLostNodesWithTheOptionsSolverLimitAndHorizon) {
  PlanOptions o;
  o.solver = alloc::SolverKind::kMilp;
  o.time_limit_s = 0.5;
  o.horizon_s = 30;
  const std::vector<HostEntry> pool = hosts({"n3", "n1", "n2"});
  const alloc::Problem p = plan_problem(pool, {"n1", "gone"}, {}, o);
  Nodes names;
  for (const alloc::Node& n : p.nodes) names.push_back(n.name);
  EXPECT_EQ(names, (Nodes{"n3", "n2"}));  // hostfile order
  EXPECT_EQ(p.solver, alloc::SolverKind::kMilp);
  EXPECT_EQ(p.time_limit_s, 0.5);
  EXPECT_EQ(p.horizon_s, 30);
  EXPECT_TRUE(p.jobs.empty());
}

// --hole-loss: each pool node's expected idle time, and a 1-node job starts on the node expected
// to stay longest, whichever place it has in the hostfile.
TEST(PlanProblem, HoleLossGivesTheNodesExpectedIdleTimes) {
  PlanOptions o;
  const std::vector<HostEntry> pool = hosts({"n1", "lost", "n3"});
  const std::vector<double> idle = {2.0, 50.0, 600.0};
  absl::StatusOr<alloc::Job> job = plan_job(spec_of("a", 1, 1, {100}), {}, {}, o);
  ASSERT_TRUE(job.ok()) << job.status();
  const alloc::Problem plain = plan_problem(pool, {"lost"}, {*job}, o, idle);
  EXPECT_FALSE(plain.expect_departures);  // not asked for: nodes are taken to stay
  EXPECT_GT(plain.nodes[0].expected_idle_s, 1e100);

  o.hole_loss = true;
  o.horizon_s = 60;
  const alloc::Problem p = plan_problem(pool, {"lost"}, {*job}, o, idle);
  EXPECT_TRUE(p.expect_departures);
  ASSERT_EQ(p.nodes.size(), 2u);
  EXPECT_EQ(p.nodes[0].expected_idle_s, 2.0);
  EXPECT_EQ(p.nodes[1].expected_idle_s, 600.0);
  absl::StatusOr<alloc::Allocation> a = alloc::allocate(p);
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->jobs[0].nodes, Nodes{"n3"});
  const std::vector<double> reversed = {600.0, 50.0, 2.0};
  a = alloc::allocate(plan_problem(pool, {"lost"}, {*job}, o, reversed));
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->jobs[0].nodes, Nodes{"n1"});
  // Sizes that do not match the pool: planned as without it.
  EXPECT_FALSE(plan_problem(pool, {}, {*job}, o, std::span(idle).first(2)).expect_departures);
  // --value-to-finish goes with --hole-loss, and only where the plan has the idle times.
  EXPECT_EQ(p.finish_window_scale, 0.0);
  o.finish_window_scale = 2.0;
  EXPECT_EQ(plan_problem(pool, {"lost"}, {*job}, o, idle).finish_window_scale, 2.0);
  EXPECT_EQ(plan_problem(pool, {}, {*job}, o, std::span(idle).first(2)).finish_window_scale, 0.0);
}

// The demo's plan at 4.5 s (scripts/demo.sh, 2026-11-29): two running jobs measured at one count
// each, a third never run, and no job measured at two counts yet. The new job's prior (the best
// r(1) + 10%) was linear, so it looked worth 32,400 samples/s on all 5 hosts against the running
// jobs' 18,100, and the plan stopped both to start it. Now the prior buys a first node only.
TEST(PlanActions, AJobNeverRunDoesNotStopTheRunningOnes) {
  alloc::ScalingModel small(4), base(4);
  small.observe(4, 12222.0);  // fmnist-small on h1..h4
  base.observe(1, 5891.0);    // fmnist-base on h6
  const alloc::ScalingModel wide(6);
  const std::vector<const alloc::ScalingModel*> models = {&small, &base};
  const double prior = alloc::unmeasured_prior(std::max(small.r1(), base.r1()));
  const double serial = alloc::typical_serial_fraction(models);
  ASSERT_EQ(serial, 0.0);  // no curve known

  const auto job = [](const std::string& id, int min, int max, Nodes held,
                      const alloc::PiecewiseLinear& table) {
    JobSpec s;
    s.id = id;
    s.command = "/bin/true";
    s.min_nodes = min;
    s.max_nodes = max;
    absl::StatusOr<alloc::Job> j = plan_job(s, std::move(held), table, PlanOptions{});
    EXPECT_TRUE(j.ok()) << j.status();
    return *j;
  };
  const std::vector<Nodes> held = {{"h1", "h2", "h3", "h4"}, {"h6"}, {}};
  std::vector<alloc::Job> jobs = {job("small", 1, 4, held[0], small.table(prior, serial)),
                                  job("base", 1, 4, held[1], base.table(prior, serial)),
                                  job("wide", 2, 6, held[2], wide.table(prior, serial))};
  const alloc::Problem p =
      plan_problem(hosts({"h1", "h2", "h3", "h4", "h6"}), {}, std::move(jobs), PlanOptions{});
  absl::StatusOr<alloc::Allocation> a = alloc::allocate(p);
  ASSERT_TRUE(a.ok()) << a.status();
  for (const PlanAction& action : plan_actions(held, *a)) {
    EXPECT_NE(action.kind, Kind::kStop) << ::testing::PrintToString(action);
  }
  EXPECT_FALSE(a->jobs[0].nodes.empty());
  EXPECT_FALSE(a->jobs[1].nodes.empty());
}

// --- plan_actions: held nodes vs a hand-made allocation ---------------------------------------

struct DiffCase {
  std::string name;
  std::vector<Nodes> held;
  std::vector<Nodes> allocated;
  std::vector<PlanAction> expected;
};

void PrintTo(const DiffCase& c, std::ostream* os) { *os << c.name; }

class PlanActionsDiff : public testing::TestWithParam<DiffCase> {};

TEST_P(PlanActionsDiff, GivesTheActionsInOrder) {
  const DiffCase& c = GetParam();
  EXPECT_EQ(plan_actions(c.held, allocation_of(c.allocated)), c.expected);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, PlanActionsDiff,
    testing::Values(
        DiffCase{"NoJobs", {}, {}, {}}, DiffCase{"IdleJobGetsNothing", {{}}, {{}}, {}},
        DiffCase{"Keep", {{"n1", "n2"}}, {{"n1", "n2"}}, {}},
        DiffCase{"Start", {{}}, {{"n1", "n2"}}, {{Kind::kStart, 0, {"n1", "n2"}, ""}}},
        DiffCase{"Grow", {{"n1"}}, {{"n1", "n2", "n3"}}, {{Kind::kGrow, 0, {"n2", "n3"}, ""}}},
        DiffCase{"Shrink", {{"n1", "n2", "n3"}}, {{"n1"}}, {{Kind::kShrink, 0, {"n2", "n3"}, ""}}},
        DiffCase{"StopWhenGivenNoNodes",
                 {{"n2", "n1"}},
                 {{}},
                 {{Kind::kStop, 0, {"n2", "n1"}, kNoNodes}}},
        // Every node it held is taken back: it stops, then starts again on its new nodes.
        DiffCase{"StopThenStartWhenAllNodesAreTaken",
                 {{"n1"}},
                 {{"n2", "n3"}},
                 {{Kind::kStop, 0, {"n1"}, kTakenBack}, {Kind::kStart, 0, {"n2", "n3"}, ""}}},
        // n2 left the pool while held: released, and the job keeps its size on n4.
        DiffCase{"NodeLeftThePoolWhileHeld",
                 {{"n1", "n2", "n3"}},
                 {{"n1", "n3", "n4"}},
                 {{Kind::kShrink, 0, {"n2"}, ""}, {Kind::kGrow, 0, {"n4"}, ""}}},
        // Job 1's shrink frees the nodes job 0 grows onto: it comes first though job 0 is first.
        DiffCase{"TwoJobsTradeNodesShrinkFirst",
                 {{"n4"}, {"n1", "n2", "n3"}},
                 {{"n2", "n3", "n4"}, {"n1"}},
                 {{Kind::kShrink, 1, {"n2", "n3"}, ""}, {Kind::kGrow, 0, {"n2", "n3"}, ""}}},
        // Each phase in job order: stops and shrinks of jobs 0..3, then starts and grows.
        DiffCase{"EveryKindInOnePlan",
                 {{"n1", "n2"}, {"n3", "n4"}, {}, {"n5"}, {"n6"}},
                 {{"n1"}, {}, {"n3", "n4"}, {"n5", "n2"}, {"n6"}},
                 {{Kind::kShrink, 0, {"n2"}, ""},
                  {Kind::kStop, 1, {"n3", "n4"}, kNoNodes},
                  {Kind::kStart, 2, {"n3", "n4"}, ""},
                  {Kind::kGrow, 3, {"n2"}, ""}}}),
    [](const testing::TestParamInfo<DiffCase>& c) { return c.param.name; });

// Carries `actions` out on `held` as the daemon's verbs would, failing the test when one is not
// possible (stopping or shrinking what the job does not hold, starting a job that holds nodes,
// growing one that holds none, taking a node another job still holds) or comes out of order;
// returns what each job holds then.
std::vector<std::set<std::string>> carry_out(const std::vector<Nodes>& held,
                                             const std::vector<PlanAction>& actions) {
  std::vector<std::set<std::string>> now;
  for (const Nodes& h : held) now.emplace_back(h.begin(), h.end());
  std::map<std::string, std::size_t> owner;
  for (std::size_t j = 0; j < held.size(); ++j) {
    for (const std::string& n : held[j]) owner[n] = j;
  }
  bool taking = false;
  std::set<std::pair<std::size_t, bool>> acted;  // (job, taking): one action per job and phase
  for (const PlanAction& a : actions) {
    const bool takes = a.kind == Kind::kStart || a.kind == Kind::kGrow;
    EXPECT_TRUE(takes || !taking) << "a stop or shrink after a start or grow";
    taking = takes;
    EXPECT_TRUE(acted.insert({a.job, takes}).second) << "two actions of job " << a.job;
    std::set<std::string>& mine = now.at(a.job);
    if (a.kind == Kind::kStop) {
      EXPECT_EQ(std::set<std::string>(a.nodes.begin(), a.nodes.end()), mine);
    } else if (a.kind == Kind::kStart) {
      EXPECT_TRUE(mine.empty());
    } else {
      EXPECT_FALSE(mine.empty()) << "a shrink or grow of a job that holds nothing";
    }
    EXPECT_FALSE(a.nodes.empty());
    for (const std::string& n : a.nodes) {
      if (takes) {
        EXPECT_FALSE(owner.contains(n)) << n << " is still held by job " << owner[n];
        owner[n] = a.job;
        mine.insert(n);
      } else {
        EXPECT_EQ(mine.erase(n), 1u) << "job " << a.job << " does not hold " << n;
        owner.erase(n);
      }
    }
  }
  return now;
}

// Random plans through the allocator (pools of 0..8 nodes, some lost, some held nodes gone from
// the pool, 1..4 jobs): carried out in order, the actions are each possible and leave every job
// holding exactly its allocation.
TEST(PlanActions, CarriedOutTheyReachTheAllocation) {
  std::mt19937 rng(20261123);
  auto pick = [&rng](int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng); };
  for (int round = 0; round < 300; ++round) {
    std::vector<HostEntry> pool;
    std::set<std::string> lost;
    std::vector<std::string> names;
    for (int i = 1, universe = pick(10); i <= universe; ++i) {
      names.push_back("n" + std::to_string(i));
      const int where = pick(6);  // 4 in 6 in the pool, 1 lost, 1 gone from the hostfile
      if (where < 5) pool.push_back(HostEntry{names.back(), 1, std::nullopt});
      if (where == 4) lost.insert(names.back());
    }
    const int jobs = 1 + pick(4);
    std::vector<Nodes> held(static_cast<std::size_t>(jobs));
    for (const std::string& n : names) {
      if (const int j = pick(jobs + 1); j < jobs) held[j].push_back(n);  // jobs: held by nobody
    }
    std::vector<alloc::Job> problem_jobs;
    for (int j = 0; j < jobs; ++j) {
      const int max_nodes = 1 + pick(5);
      const int min_nodes = 1 + pick(max_nodes);
      std::vector<double> table;
      for (int n = 1; n <= max_nodes; ++n) table.push_back(pick(1000));
      absl::StatusOr<alloc::Job> aj =
          plan_job(spec_of("j" + std::to_string(j), min_nodes, max_nodes, table), held[j], {},
                   PlanOptions{});
      ASSERT_TRUE(aj.ok()) << aj.status();
      problem_jobs.push_back(*std::move(aj));
    }
    absl::StatusOr<alloc::Allocation> a =
        alloc::allocate(plan_problem(pool, lost, std::move(problem_jobs), PlanOptions{}));
    ASSERT_TRUE(a.ok()) << a.status();
    SCOPED_TRACE("round " + std::to_string(round));
    const std::vector<std::set<std::string>> after = carry_out(held, plan_actions(held, *a));
    for (std::size_t j = 0; j < held.size(); ++j) {
      const Nodes& want = a->jobs[j].nodes;
      EXPECT_EQ(after[j], std::set<std::string>(want.begin(), want.end())) << "job " << j;
    }
  }
}

// --- whole plans through the allocator, for each exact solver ---------------------------------

struct Scenario {
  std::vector<HostEntry> pool;
  std::set<std::string> lost;
  std::vector<JobSpec> specs;
  std::vector<Nodes> held;
};

class PlanThroughAllocator : public testing::TestWithParam<alloc::SolverKind> {
 protected:
  // problem -> allocate -> actions, as Daemon::plan does it.
  std::vector<PlanAction> actions(const Scenario& s) {
    PlanOptions o;
    o.solver = GetParam();
    std::vector<alloc::Job> jobs;
    for (std::size_t j = 0; j < s.specs.size(); ++j) {
      absl::StatusOr<alloc::Job> aj = plan_job(s.specs[j], s.held[j], {}, o);
      EXPECT_TRUE(aj.ok()) << aj.status();
      jobs.push_back(*aj);
    }
    absl::StatusOr<alloc::Allocation> a =
        alloc::allocate(plan_problem(s.pool, s.lost, std::move(jobs), o));
    EXPECT_TRUE(a.ok()) << a.status();
    return a.ok() ? plan_actions(s.held, *a) : std::vector<PlanAction>{};
  }
};

TEST_P(PlanThroughAllocator, EmptyPool) {
  Scenario s{{}, {}, {spec_of("a", 1, 2, {100, 200})}, {{}}};
  EXPECT_EQ(actions(s), std::vector<PlanAction>{});
  s.held = {{"n1", "n2"}};  // both left the hostfile while held
  EXPECT_EQ(actions(s), (std::vector<PlanAction>{{Kind::kStop, 0, {"n1", "n2"}, kNoNodes}}));
}

TEST_P(PlanThroughAllocator, OneJobGrowsOntoNewNodesButNotLostOnes) {
  const Scenario s{hosts({"n1", "n2", "n3", "n4"}),
                   {"n3"},
                   {spec_of("a", 1, 4, {100, 200, 300, 400})},
                   {{"n1"}}};
  EXPECT_EQ(actions(s), (std::vector<PlanAction>{{Kind::kGrow, 0, {"n2", "n4"}, ""}}));
}

TEST_P(PlanThroughAllocator, AJobWhoseThroughputFallsBeyondTwoNodesShrinks) {
  const Scenario s{
      hosts({"n1", "n2", "n3"}), {}, {spec_of("a", 1, 3, {100, 200, 150})}, {{"n1", "n2", "n3"}}};
  EXPECT_EQ(actions(s), (std::vector<PlanAction>{{Kind::kShrink, 0, {"n3"}, ""}}));
}

TEST_P(PlanThroughAllocator, QueuedJobStarts) {
  const Scenario s{hosts({"n1", "n2"}), {}, {spec_of("a", 1, 2, {100, 200})}, {{}}};
  EXPECT_EQ(actions(s), (std::vector<PlanAction>{{Kind::kStart, 0, {"n1", "n2"}, ""}}));
}

TEST_P(PlanThroughAllocator, NodeLeavingThePoolWhileHeldIsReleasedAndReplaced) {
  const Scenario s{hosts({"n1", "n3", "n4"}),  // n2 was removed from the hostfile
                   {},
                   {spec_of("a", 1, 3, {100, 200, 300})},
                   {{"n1", "n2", "n3"}}};
  EXPECT_EQ(actions(s), (std::vector<PlanAction>{{Kind::kShrink, 0, {"n2"}, ""},
                                                 {Kind::kGrow, 0, {"n4"}, ""}}));
}

TEST_P(PlanThroughAllocator, TwoJobsTradeNodesAndTheShrinkComesFirst) {
  // a scales poorly (100, 110, 120), b well (90 per node): the unique optimum moves two of a's
  // nodes to b. b comes first in job order; its grow still waits for a's shrink.
  const Scenario s{hosts({"n1", "n2", "n3", "n4"}),
                   {},
                   {spec_of("b", 1, 4, {90, 180, 270, 360}), spec_of("a", 1, 4, {100, 110, 120})},
                   {{"n4"}, {"n1", "n2", "n3"}}};
  EXPECT_EQ(actions(s), (std::vector<PlanAction>{{Kind::kShrink, 1, {"n2", "n3"}, ""},
                                                 {Kind::kGrow, 0, {"n2", "n3"}, ""}}));
}

TEST_P(PlanThroughAllocator, JobBelowItsMinimumGrowsBackOrStops) {
  // A rank on n2 died: the job holds one node, below its minimum of 2.
  Scenario s{hosts({"n1", "n2", "n3"}), {"n2"}, {spec_of("a", 2, 2, {100, 200})}, {{"n1"}}};
  EXPECT_EQ(actions(s), (std::vector<PlanAction>{{Kind::kGrow, 0, {"n3"}, ""}}));
  s.pool = hosts({"n1", "n2"});  // no node to replace it: the job cannot run
  EXPECT_EQ(actions(s), (std::vector<PlanAction>{{Kind::kStop, 0, {"n1"}, kNoNodes}}));
}

TEST_P(PlanThroughAllocator, Deterministic) {
  const Scenario s{hosts({"n1", "n2", "n3", "n4", "n5", "n6", "n7"}),
                   {"n5"},
                   {spec_of("a", 1, 3, {100, 200, 300}), spec_of("b", 2, 4, {100, 200, 300, 400}),
                    spec_of("c", 1, 2, {100, 200})},
                   {{"n1", "n2"}, {"n3", "n5"}, {}}};
  const std::vector<PlanAction> first = actions(s);
  EXPECT_FALSE(first.empty());
  for (int i = 0; i < 3; ++i) EXPECT_EQ(actions(s), first);
}

std::vector<alloc::SolverKind> exact_solvers() {
  std::vector<alloc::SolverKind> kinds;
  for (const alloc::Solver& s : alloc::solver_table()) {
    if (s.exact) kinds.push_back(s.kind);
  }
  return kinds;
}

INSTANTIATE_TEST_SUITE_P(ExactSolvers, PlanThroughAllocator, testing::ValuesIn(exact_solvers()),
                         [](const testing::TestParamInfo<alloc::SolverKind>& s) {
                           std::string name(alloc::to_string(s.param));
                           std::erase(name, '-');
                           return name;
                         });

}  // namespace
}  // namespace elastic::rt
