// allocate() end to end: validation, held nodes that left, node kinds, the objectives (fair raises
// the worst job, min_share floors), and every solver dispatch checked against brute force.
#include "elastic/allocator/allocator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <string>

#include "brute_force.h"
#include "elastic/allocator/build_count_model.h"
#include "elastic/allocator/solver_table.h"

namespace elastic::alloc {
namespace {

PiecewiseLinear table(std::vector<int> counts, std::vector<double> values) {
  return *PiecewiseLinear::create(counts, values);
}

// Linear scaling: `rate` samples/s per node up to 64 nodes.
PiecewiseLinear linear(double rate) { return table({0, 64}, {0, 64 * rate}); }

Node node(std::string name, std::string kind = "") {
  Node n;
  n.name = std::move(name);
  n.kind = std::move(kind);
  return n;
}

Problem pool_problem(int nodes, const std::string& prefix = "n") {
  Problem problem;
  for (int i = 1; i <= nodes; ++i) problem.nodes.push_back(node(prefix + std::to_string(i)));
  return problem;
}

Job job(std::string id, int lo, int hi, PiecewiseLinear scaling) {
  Job j;
  j.id = std::move(id);
  j.min_nodes = lo;
  j.max_nodes = hi;
  j.scaling = std::move(scaling);
  return j;
}

int total(const Allocation& a) {
  int sum = 0;
  for (const JobAllocation& j : a.jobs) sum += j.count;
  return sum;
}

TEST(Allocate, ValidationNamesTheField) {
  Problem problem = pool_problem(4);
  problem.jobs = {job("a", 1, 4, linear(1)), job("b", 5, 3, linear(1))};
  auto result = allocate(problem);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(result.status().message(), "jobs[1].max_nodes: min_nodes 5 > max_nodes 3");

  problem.jobs[1] = job("a", 1, 3, linear(1));
  EXPECT_EQ(allocate(problem).status().message().substr(0, 10), "jobs[1].id");
  problem.jobs[1] = job("b", 0, 3, linear(1));
  EXPECT_EQ(allocate(problem).status().message().substr(0, 17), "jobs[1].min_nodes");
  problem.jobs[1] = job("b", 1, 3, PiecewiseLinear());
  EXPECT_EQ(allocate(problem).status().message().substr(0, 15), "jobs[1].scaling");
  problem.jobs[1] = job("b", 1, 3, linear(1));
  problem.jobs[1].shrink_stall_s = -2;
  EXPECT_EQ(allocate(problem).status().message().substr(0, 22), "jobs[1].shrink_stall_s");
  problem.jobs[1].shrink_stall_s = 0;
  problem.jobs[0].nodes = {"n1"};
  problem.jobs[1].nodes = {"n2", "n1"};
  EXPECT_EQ(allocate(problem).status().message().substr(0, 16), "jobs[1].nodes[1]");
  problem.jobs[1].nodes.clear();
  problem.nodes.push_back(node("n2"));
  EXPECT_EQ(allocate(problem).status().message().substr(0, 8), "nodes[4]");
  problem.nodes.pop_back();
  problem.horizon_s = 0;
  EXPECT_EQ(allocate(problem).status().message().substr(0, 9), "horizon_s");
  problem.horizon_s = 10;
  problem.solver = static_cast<SolverKind>(solver_table().size());  // past the last row
  EXPECT_EQ(allocate(problem).status().message().substr(0, 27), "solver: unknown solver kind");
}

TEST(Allocate, HeldNodesThatLeftAreDroppedBeforeCounting) {
  Problem problem = pool_problem(4);
  problem.jobs = {job("a", 1, 8, linear(10))};
  problem.jobs[0].nodes = {"n1", "gone1", "n2", "gone2"};
  problem.jobs[0].shrink_stall_s = 1000;  // would dominate if C counted the departed nodes
  auto models = build_count_models(problem);
  ASSERT_TRUE(models.ok()) << models.status();
  ASSERT_EQ(models->size(), 1u);
  EXPECT_EQ((*models)[0].model.jobs[0].current, 2);

  auto result = allocate(problem);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->dropped, (std::vector<std::string>{"gone1", "gone2"}));
  EXPECT_EQ(result->jobs[0].count, 4);
  EXPECT_EQ(result->jobs[0].change, Change::kGrow);
  const std::set<std::string> nodes(result->jobs[0].nodes.begin(), result->jobs[0].nodes.end());
  EXPECT_TRUE(nodes.contains("n1") && nodes.contains("n2"));
}

TEST(Allocate, BelowMinimumTheCurrentValueCountsAsZero) {
  Problem problem = pool_problem(8);
  problem.jobs = {job("a", 4, 8, linear(10))};
  problem.jobs[0].nodes = {"n1", "gone"};  // 1 node left: below min_nodes
  problem.jobs[0].grow_stall_s = 50;
  auto models = build_count_models(problem);
  ASSERT_TRUE(models.ok());
  EXPECT_EQ((*models)[0].model.jobs[0].current, 1);
  EXPECT_EQ((*models)[0].model.jobs[0].grow_cost, 0.0);
  EXPECT_EQ((*models)[0].model.jobs[0].shrink_cost, 0.0);
  problem.jobs[0].nodes = {"n1", "n2", "n3", "n4"};
  models = build_count_models(problem);
  ASSERT_TRUE(models.ok());
  EXPECT_DOUBLE_EQ((*models)[0].model.jobs[0].grow_cost, 50 * 40.0);
}

TEST(Allocate, EachKindIsSolvedOnItsOwnNodes) {
  Problem problem;
  for (int i = 1; i <= 3; ++i) {
    problem.nodes.push_back(node("g" + std::to_string(i), "gpu"));
    problem.nodes.push_back(node("c" + std::to_string(i)));
  }
  problem.jobs = {job("cpu-job", 1, 8, linear(1)), job("gpu-job", 1, 8, linear(100)),
                  job("tpu-job", 1, 8, linear(1000))};
  problem.jobs[1].node_kind = "gpu";
  problem.jobs[2].node_kind = "tpu";  // no such nodes in the pool
  auto result = allocate(problem);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->jobs[0].nodes, (std::vector<std::string>{"c1", "c2", "c3"}));
  EXPECT_EQ(result->jobs[1].nodes, (std::vector<std::string>{"g1", "g2", "g3"}));
  EXPECT_EQ(result->jobs[2].count, 0);
  EXPECT_DOUBLE_EQ(result->objective, 10 * (3 * 1.0 + 3 * 100.0));
}

TEST(Allocate, FairRaisesTheWorstJob) {
  Problem problem = pool_problem(8);
  problem.jobs = {job("big", 1, 8, linear(1000)), job("small", 1, 8, linear(10))};
  auto throughput = allocate(problem);
  ASSERT_TRUE(throughput.ok()) << throughput.status();
  EXPECT_EQ(throughput->jobs[0].count, 8);
  EXPECT_EQ(throughput->jobs[1].count, 0);

  problem.objective = Objective::kFair;
  auto fair = allocate(problem);
  ASSERT_TRUE(fair.ok()) << fair.status();
  // Both scale linearly to 8 nodes: the best worst progress is 4/8 each.
  EXPECT_EQ(fair->jobs[0].count, 4);
  EXPECT_EQ(fair->jobs[1].count, 4);
}

TEST(Allocate, FairFloorsAreTheSmallestCountsReachingTheLevel) {
  Problem problem = pool_problem(10);
  // "flat" saturates at 2 nodes, so 2 nodes already give it full progress.
  problem.jobs = {job("flat", 1, 10, table({0, 2, 10}, {0, 100, 100})),
                  job("lin", 1, 10, linear(1)), job("lin2", 1, 10, linear(1))};
  problem.objective = Objective::kFair;
  auto models = build_count_models(problem);
  ASSERT_TRUE(models.ok());
  const CountModel& model = (*models)[0].model;
  EXPECT_TRUE(model.jobs[0].must_run && model.jobs[1].must_run && model.jobs[2].must_run);
  // Best level 0.4 (0.5 would need 1 + 5 + 5 > 10 nodes): flat reaches it with 1 node (50/100).
  EXPECT_EQ(model.jobs[0].lo, 1);
  EXPECT_EQ(model.jobs[1].lo, 4);
  EXPECT_EQ(model.jobs[2].lo, 4);

  // The same first stage called directly on the throughput model reports the level it reached.
  problem.objective = Objective::kThroughput;
  auto plain = build_count_models(problem);
  ASSERT_TRUE(plain.ok());
  CountModel staged = (*plain)[0].model;
  EXPECT_FALSE(staged.jobs[0].must_run);
  const std::vector<const PiecewiseLinear*> scaling = {
      &problem.jobs[0].scaling, &problem.jobs[1].scaling, &problem.jobs[2].scaling};
  EXPECT_DOUBLE_EQ(apply_fair_floors(staged, scaling), 0.4);
  EXPECT_EQ(staged.jobs[1].lo, 4);
}

TEST(Allocate, MinShareFloorsHonouredInJobOrderWhileTheyFit) {
  Problem problem = pool_problem(7);
  problem.jobs = {job("big", 1, 7, linear(1000)), job("a", 1, 7, linear(1)),
                  job("b", 1, 7, linear(1)), job("c", 1, 7, linear(1))};
  for (std::size_t j = 1; j < 4; ++j) problem.jobs[j].min_share = 3;
  auto result = allocate(problem);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->jobs[1].count, 3);
  EXPECT_EQ(result->jobs[2].count, 3);
  EXPECT_EQ(result->jobs[3].count, 0);  // 3+3+3 > 7: the third floor does not fit
  EXPECT_EQ(result->jobs[0].count, 1);
}

// Every solver on random small problems: the exact ones reach the brute-force optimum of the
// model allocate() builds; equal-share says it is a heuristic and stays feasible.
TEST(Allocate, EverySolverDispatchMatchesTheModel) {
  std::mt19937 rng(7);
  for (int iteration = 0; iteration < 20; ++iteration) {
    Problem problem = pool_problem(1 + static_cast<int>(rng() % 7));
    const int jobs = 1 + static_cast<int>(rng() % 3);
    int next_node = 0;
    for (int j = 0; j < jobs; ++j) {
      Job one = job("j" + std::to_string(j), 1 + static_cast<int>(rng() % 2),
                    2 + static_cast<int>(rng() % 5),
                    table({1, 2, 4}, {1.0 + static_cast<double>(rng() % 10),
                                      2.0 + static_cast<double>(rng() % 15),
                                      3.0 + static_cast<double>(rng() % 30)}));
      one.grow_stall_s = static_cast<double>(rng() % 5);
      one.shrink_stall_s = static_cast<double>(rng() % 5);
      const int held = static_cast<int>(rng() % 3);
      for (int k = 0; k < held && next_node < static_cast<int>(problem.nodes.size()); ++k) {
        one.nodes.push_back(problem.nodes[static_cast<std::size_t>(next_node++)].name);
      }
      problem.jobs.push_back(one);
    }
    auto models = build_count_models(problem);
    ASSERT_TRUE(models.ok());
    const auto oracle = testing::brute_force((*models)[0].model);
    for (const Solver& solver : solver_table()) {
      problem.solver = solver.kind;
      auto result = allocate(problem);
      ASSERT_TRUE(result.ok()) << result.status();
      EXPECT_LE(total(*result), static_cast<int>(problem.nodes.size()));
      if (!solver.exact) {
        EXPECT_EQ(result->status, SolveStatus::kHeuristic);
        EXPECT_LE(result->objective, oracle.best + 1e-6);
      } else {
        EXPECT_EQ(result->status, SolveStatus::kOptimal);
        EXPECT_NEAR(result->objective, oracle.best, 1e-6 * std::max(1.0, std::abs(oracle.best)))
            << "solver " << solver.name << " iteration " << iteration;
      }
    }
  }
}

TEST(Allocate, SpeedupAndWeightedValues) {
  Problem problem = pool_problem(4);
  problem.jobs = {job("a", 1, 4, table({1, 2, 4}, {100, 180, 300}))};
  problem.jobs[0].weight = 2.5;
  problem.objective = Objective::kSpeedup;
  auto models = build_count_models(problem);
  ASSERT_TRUE(models.ok());
  EXPECT_DOUBLE_EQ((*models)[0].model.jobs[0].value.at(4), 3.0);
  problem.objective = Objective::kWeighted;
  models = build_count_models(problem);
  ASSERT_TRUE(models.ok());
  EXPECT_DOUBLE_EQ((*models)[0].model.jobs[0].value.at(2), 450.0);
  problem.jobs[0].value = table({1, 4}, {1, 2});
  models = build_count_models(problem);
  ASSERT_TRUE(models.ok());
  EXPECT_DOUBLE_EQ((*models)[0].model.jobs[0].value.at(4), 5.0);

  problem.objective = Objective::kSpeedup;
  problem.jobs[0].scaling = table({2, 4}, {0, 10});  // nothing at one node: no speedup baseline
  EXPECT_EQ(allocate(problem).status().message().substr(0, 15), "jobs[0].scaling");
}

TEST(Allocate, IsDeterministic) {
  Problem problem = pool_problem(16);
  for (int j = 0; j < 5; ++j) problem.jobs.push_back(job("j" + std::to_string(j), 1, 6, linear(5)));
  problem.jobs[2].nodes = {"n3", "n4"};
  auto a = allocate(problem);
  auto b = allocate(problem);
  ASSERT_TRUE(a.ok() && b.ok());
  for (std::size_t j = 0; j < a->jobs.size(); ++j) EXPECT_EQ(a->jobs[j].nodes, b->jobs[j].nodes);
  EXPECT_EQ(a->objective, b->objective);
}

}  // namespace
}  // namespace elastic::alloc
