// The allocator's JSON interface: the issue's example parses, every kind of bad input is an error
// naming its field, and Problem/Allocation JSON round-trips.
#include "elastic/allocator/problem_json.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>

namespace elastic::alloc {
namespace {

using nlohmann::json;

const char* kExample = R"({"nodes": ["n1", "n2", "n3"], "horizon_s": 10, "objective": "throughput",
  "solver": "milp", "time_limit_s": 10,
  "jobs": [{"id": "J1", "min_nodes": 1, "max_nodes": 64, "nodes": ["n1"],
            "scaling": {"nodes": [0, 1, 2, 4], "samples_per_s": [0, 2831, 5259, 9988]},
            "grow_stall_s": 18, "shrink_stall_s": 12, "weight": 1.0}]})";

TEST(ProblemJson, ParsesTheIssueExample) {
  auto problem = parse_problem_json(kExample);
  ASSERT_TRUE(problem.ok()) << problem.status();
  ASSERT_EQ(problem->nodes.size(), 3u);
  EXPECT_EQ(problem->nodes[2].name, "n3");
  EXPECT_TRUE(std::isinf(problem->nodes[2].expected_idle_s));
  EXPECT_EQ(problem->horizon_s, 10);
  EXPECT_EQ(problem->objective, Objective::kThroughput);
  EXPECT_EQ(problem->solver, SolverKind::kMilp);
  ASSERT_EQ(problem->jobs.size(), 1u);
  const Job& job = problem->jobs[0];
  EXPECT_EQ(job.id, "J1");
  EXPECT_EQ(job.max_nodes, 64);
  EXPECT_EQ(job.nodes, std::vector<std::string>{"n1"});
  EXPECT_DOUBLE_EQ(job.scaling.at(3), (5259.0 + 9988.0) / 2);
  EXPECT_EQ(job.grow_stall_s, 18);
  EXPECT_EQ(job.shrink_stall_s, 12);
  EXPECT_FALSE(job.value.has_value());
}

TEST(ProblemJson, ParsesNodeObjectsValueTablesAndOptions) {
  auto problem = parse_problem_json(R"({
    "nodes": ["a1", {"name": "g1", "kind": "gpu", "leaving_soon": true, "expected_idle_s": 42.5}],
    "objective": "weighted", "solver": "node-milp",
    "jobs": [{"id": "x", "max_nodes": 2, "node_kind": "gpu", "min_share": 1, "weight": 3,
              "scaling": {"nodes": [1, 2], "samples_per_s": [10, 15]},
              "value": {"nodes": [1, 2], "values": [1, 1.5]}}]})");
  ASSERT_TRUE(problem.ok()) << problem.status();
  EXPECT_EQ(problem->nodes[1].kind, "gpu");
  EXPECT_TRUE(problem->nodes[1].leaving_soon);
  EXPECT_EQ(problem->nodes[1].expected_idle_s, 42.5);
  EXPECT_EQ(problem->objective, Objective::kWeighted);
  EXPECT_EQ(problem->solver, SolverKind::kNodeMilp);
  const Job& job = problem->jobs[0];
  EXPECT_EQ(job.node_kind, "gpu");
  EXPECT_EQ(job.min_share, 1);
  EXPECT_EQ(job.weight, 3);
  ASSERT_TRUE(job.value.has_value());
  EXPECT_DOUBLE_EQ(job.value->at(2), 1.5);
  EXPECT_DOUBLE_EQ(job.scaling.at(0.5), 5.0);  // (0, 0) is implied below the first count
}

// A mutation of the example and the field its error must name.
struct BadInput {
  std::string name;
  std::function<void(json&)> mutate;
  std::string field;
};

class ProblemJsonErrors : public ::testing::TestWithParam<BadInput> {};

TEST_P(ProblemJsonErrors, NameTheField) {
  json input = json::parse(kExample);
  GetParam().mutate(input);
  auto problem = parse_problem_json(input.dump());
  ASSERT_FALSE(problem.ok()) << GetParam().name;
  EXPECT_EQ(problem.status().code(), absl::StatusCode::kInvalidArgument);
  const std::string message(problem.status().message());
  EXPECT_EQ(message.rfind(GetParam().field + ":", 0), 0u) << message;
}

json& job0(json& j) { return j["jobs"][0]; }

INSTANTIATE_TEST_SUITE_P(
    Fields, ProblemJsonErrors,
    ::testing::Values(
        BadInput{"unknown_top", [](json& j) { j["horizon"] = 5; }, "horizon"},
        BadInput{"unknown_job_field", [](json& j) { job0(j)["maxnodes"] = 5; }, "jobs[0].maxnodes"},
        BadInput{"unknown_table_field",
                 [](json& j) { job0(j)["scaling"]["rates"] = json::array(); },
                 "jobs[0].scaling.rates"},
        BadInput{"non_increasing_counts",
                 [](json& j) {
                   job0(j)["scaling"]["nodes"] = {0, 1, 1, 4};
                 },
                 "jobs[0].scaling.nodes[2]"},
        BadInput{"fractional_count", [](json& j) { job0(j)["scaling"]["nodes"][1] = 1.5; },
                 "jobs[0].scaling.nodes[1]"},
        BadInput{"negative_rate", [](json& j) { job0(j)["scaling"]["samples_per_s"][3] = -1; },
                 "jobs[0].scaling.samples_per_s[3]"},
        BadInput{"length_mismatch",
                 [](json& j) {
                   job0(j)["scaling"]["samples_per_s"] = {0, 1};
                 },
                 "jobs[0].scaling.samples_per_s"},
        BadInput{
            "empty_table",
            [](json& j) {
              job0(j)["scaling"] = {{"nodes", json::array()}, {"samples_per_s", json::array()}};
            },
            "jobs[0].scaling.nodes"},
        BadInput{"missing_scaling", [](json& j) { job0(j).erase("scaling"); }, "jobs[0].scaling"},
        BadInput{"wrong_type", [](json& j) { job0(j)["min_nodes"] = "1"; }, "jobs[0].min_nodes"},
        BadInput{"min_above_max", [](json& j) { job0(j)["min_nodes"] = 65; }, "jobs[0].max_nodes"},
        BadInput{"min_below_one", [](json& j) { job0(j)["min_nodes"] = 0; }, "jobs[0].min_nodes"},
        BadInput{"negative_stall", [](json& j) { job0(j)["grow_stall_s"] = -1; },
                 "jobs[0].grow_stall_s"},
        BadInput{"negative_weight", [](json& j) { job0(j)["weight"] = -0.5; }, "jobs[0].weight"},
        BadInput{"duplicate_id",
                 [](json& j) {
                   j["jobs"].push_back(job0(j));
                   j["jobs"][1]["nodes"] = json::array();
                 },
                 "jobs[1].id"},
        BadInput{"duplicate_pool_node", [](json& j) { j["nodes"].push_back("n2"); }, "nodes[3]"},
        BadInput{"node_held_twice",
                 [](json& j) {
                   json other = job0(j);
                   other["id"] = "J2";
                   j["jobs"].push_back(other);
                 },
                 "jobs[1].nodes[0]"},
        BadInput{"node_name_not_string", [](json& j) { j["nodes"][1] = 7; }, "nodes[1]"},
        BadInput{"leaving_soon_not_bool",
                 [](json& j) {
                   j["nodes"][0] = {{"name", "n1"}, {"leaving_soon", "yes"}};
                 },
                 "nodes[0].leaving_soon"},
        BadInput{"unknown_node_field",
                 [](json& j) {
                   j["nodes"][0] = {{"name", "n1"}, {"idle", 3}};
                 },
                 "nodes[0].idle"},
        BadInput{"bad_objective", [](json& j) { j["objective"] = "fastest"; }, "objective"},
        BadInput{"bad_solver", [](json& j) { j["solver"] = "cplex"; }, "solver"},
        BadInput{"zero_horizon", [](json& j) { j["horizon_s"] = 0; }, "horizon_s"},
        BadInput{"jobs_not_array", [](json& j) { j["jobs"] = 3; }, "jobs"},
        BadInput{"held_kind_mismatch", [](json& j) { job0(j)["node_kind"] = "gpu"; },
                 "jobs[0].nodes[0]"}),
    [](const ::testing::TestParamInfo<BadInput>& p) { return p.param.name; });

TEST(ProblemJson, SyntaxErrorNamesLineAndColumn) {
  auto problem = parse_problem_json("{\n  \"nodes\": [\"n1\",]\n}");
  ASSERT_FALSE(problem.ok());
  EXPECT_NE(problem.status().message().find("line 2"), std::string::npos)
      << problem.status().message();
}

TEST(ProblemJson, ProblemRoundTrips) {
  auto problem = parse_problem_json(R"({
    "nodes": ["a1", {"name": "g1", "kind": "gpu", "leaving_soon": true, "expected_idle_s": 42.5}],
    "objective": "fair", "solver": "dp", "horizon_s": 7, "time_limit_s": 3,
    "jobs": [{"id": "x", "max_nodes": 2, "node_kind": "gpu", "min_share": 1, "nodes": ["g1"],
              "scaling": {"nodes": [1, 2], "samples_per_s": [10, 15]},
              "value": {"nodes": [1, 2], "values": [1, 1.5]}}]})");
  ASSERT_TRUE(problem.ok()) << problem.status();
  const json once = problem_to_json(*problem);
  auto again = problem_from_json(once);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(problem_to_json(*again), once);
  EXPECT_EQ(once["objective"], "fair");
  EXPECT_EQ(once["nodes"][1]["kind"], "gpu");
}

TEST(ProblemJson, AllocationJsonHasTheIssueShape) {
  auto problem = parse_problem_json(kExample);
  ASSERT_TRUE(problem.ok());
  Allocation allocation;
  allocation.status = SolveStatus::kTimeLimit;
  allocation.objective = 12.5;
  allocation.solve_ms = 0.25;
  allocation.jobs = {{.id = "J1", .count = 2, .nodes = {"n1", "n2"}, .change = Change::kGrow}};
  allocation.dropped = {"n9"};
  const json out = allocation_to_json(allocation, &*problem);
  EXPECT_EQ(out["status"], "time_limit");
  EXPECT_EQ(out["objective"], 12.5);
  EXPECT_EQ(out["solve_ms"], 0.25);
  EXPECT_EQ(out["dropped"], json({"n9"}));
  ASSERT_EQ(out["jobs"].size(), 1u);
  EXPECT_EQ(out["jobs"][0]["id"], "J1");
  EXPECT_EQ(out["jobs"][0]["count"], 2);
  EXPECT_EQ(out["jobs"][0]["nodes"], json({"n1", "n2"}));
  EXPECT_EQ(out["jobs"][0]["change"], "grow");
  EXPECT_EQ(out["jobs"][0]["previous"], 1);
  EXPECT_EQ(out["jobs"][0]["samples_per_s"], 5259.0);
}

TEST(ProblemJson, NamesRoundTrip) {
  for (auto o :
       {Objective::kThroughput, Objective::kSpeedup, Objective::kWeighted, Objective::kFair}) {
    EXPECT_EQ(*parse_objective(to_string(o)), o);
  }
  for (const Solver& s : solver_table()) EXPECT_EQ(*parse_solver(to_string(s.kind)), s.kind);
  EXPECT_FALSE(parse_solver("gurobi").ok());
}

}  // namespace
}  // namespace elastic::alloc
