// Node mapping: counts -> node names without migration. A property test on random instances checks
// the no-migration rule and exact counts; small cases check the release and take preferences.
#include "elastic/allocator/node_mapping.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace elastic::alloc {
namespace {

std::vector<Node> pool_of(int n) {
  std::vector<Node> pool;
  for (int i = 1; i <= n; ++i) {
    Node node;
    node.name = "n" + std::to_string(i);
    pool.push_back(node);
  }
  return pool;
}

std::set<std::string> as_set(const std::vector<std::string>& v) { return {v.begin(), v.end()}; }

TEST(NaturalLess, DigitRunsCompareAsNumbers) {
  EXPECT_TRUE(natural_less("n2", "n10"));
  EXPECT_FALSE(natural_less("n10", "n2"));
  EXPECT_TRUE(natural_less("a9b", "a10a"));
  EXPECT_TRUE(natural_less("n1", "n1a"));
  EXPECT_FALSE(natural_less("n7", "n7"));
  // Equal as numbers but different strings: still a strict order, one way only.
  EXPECT_NE(natural_less("n01", "n1"), natural_less("n1", "n01"));
}

TEST(NodeMapping, ShrinkReleasesLeavingSoonFirst) {
  std::vector<Node> pool = pool_of(4);
  pool[2].leaving_soon = true;  // n3
  const std::vector<std::vector<std::string>> held = {{"n1", "n2", "n3", "n4"}};
  const std::vector<int> counts = {3};
  auto mapped = map_nodes(pool, held, counts);
  ASSERT_TRUE(mapped.ok()) << mapped.status();
  EXPECT_EQ((*mapped)[0].nodes, (std::vector<std::string>{"n1", "n2", "n4"}));
  EXPECT_EQ((*mapped)[0].change, Change::kShrink);
}

TEST(NodeMapping, ShrinkThenReleasesShortestExpectedIdle) {
  std::vector<Node> pool = pool_of(4);
  pool[1].expected_idle_s = 30;   // n2
  pool[3].expected_idle_s = 600;  // n4
  const std::vector<std::vector<std::string>> held = {{"n1", "n2", "n3", "n4"}};
  const std::vector<int> counts = {2};
  auto mapped = map_nodes(pool, held, counts);
  ASSERT_TRUE(mapped.ok()) << mapped.status();
  EXPECT_EQ((*mapped)[0].nodes, (std::vector<std::string>{"n1", "n3"}));
}

TEST(NodeMapping, ShrinkThenReleasesLastByNaturalName) {
  const std::vector<Node> pool = pool_of(12);
  const std::vector<std::vector<std::string>> held = {{"n2", "n10", "n9"}};
  const std::vector<int> counts = {2};
  auto mapped = map_nodes(pool, held, counts);
  ASSERT_TRUE(mapped.ok()) << mapped.status();
  EXPECT_EQ((*mapped)[0].nodes, (std::vector<std::string>{"n2", "n9"}));
}

TEST(NodeMapping, GrowTakesNeighboursAndAvoidsLeavingSoon) {
  std::vector<Node> pool = pool_of(20);
  const std::vector<std::vector<std::string>> held = {{"n10"}};
  auto mapped = map_nodes(pool, held, std::vector<int>{3});
  ASSERT_TRUE(mapped.ok()) << mapped.status();
  // Each pick is the free node nearest to what the job has (ties: the earlier name).
  EXPECT_EQ((*mapped)[0].nodes, (std::vector<std::string>{"n8", "n9", "n10"}));
  EXPECT_EQ((*mapped)[0].change, Change::kGrow);

  pool[8].leaving_soon = true;   // n9
  pool[10].leaving_soon = true;  // n11
  mapped = map_nodes(pool, held, std::vector<int>{3});
  ASSERT_TRUE(mapped.ok()) << mapped.status();
  EXPECT_EQ((*mapped)[0].nodes, (std::vector<std::string>{"n7", "n8", "n10"}));
}

TEST(NodeMapping, LeavingSoonNodesTakenOnlyWhenNothingElseIsFree) {
  std::vector<Node> pool = pool_of(4);
  pool[0].leaving_soon = true;
  pool[1].leaving_soon = true;
  auto mapped = map_nodes(pool, std::vector<std::vector<std::string>>{{}}, std::vector<int>{3});
  ASSERT_TRUE(mapped.ok()) << mapped.status();
  EXPECT_EQ((*mapped)[0].nodes, (std::vector<std::string>{"n2", "n3", "n4"}));
}

TEST(NodeMapping, NewJobTakesTheBestFittingFreeBlock) {
  const std::vector<Node> pool = pool_of(10);
  const std::vector<std::vector<std::string>> held = {{"n1", "n2", "n5"}, {}};
  auto mapped = map_nodes(pool, held, std::vector<int>{3, 3});
  ASSERT_TRUE(mapped.ok()) << mapped.status();
  EXPECT_EQ((*mapped)[0].nodes, (std::vector<std::string>{"n1", "n2", "n5"}));
  EXPECT_EQ((*mapped)[0].change, Change::kKeep);
  // Free runs: n3-n4 (2 nodes) and n6-n10 (5): the smallest run that fits 3 is n6-n10.
  EXPECT_EQ((*mapped)[1].nodes, (std::vector<std::string>{"n6", "n7", "n8"}));
}

TEST(NodeMapping, GrowingJobTakesNodesAShrinkingJobReleased) {
  const std::vector<Node> pool = pool_of(4);
  const std::vector<std::vector<std::string>> held = {{"n1", "n2"}, {"n3", "n4"}};
  auto mapped = map_nodes(pool, held, std::vector<int>{3, 1});
  ASSERT_TRUE(mapped.ok()) << mapped.status();
  // The shrinking job releases its last node by name (n4), which the growing job then takes.
  EXPECT_EQ((*mapped)[0].nodes, (std::vector<std::string>{"n1", "n2", "n4"}));
  EXPECT_EQ((*mapped)[1].nodes, (std::vector<std::string>{"n3"}));
  EXPECT_EQ((*mapped)[1].change, Change::kShrink);
}

TEST(NodeMapping, RejectsBadInput) {
  const std::vector<Node> pool = pool_of(3);
  EXPECT_EQ(map_nodes(pool, std::vector<std::vector<std::string>>{{}, {}}, std::vector<int>{2, 2})
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_FALSE(
      map_nodes(pool, std::vector<std::vector<std::string>>{{"x9"}}, std::vector<int>{1}).ok());
  EXPECT_FALSE(
      map_nodes(pool, std::vector<std::vector<std::string>>{{"n1"}, {"n1"}}, std::vector<int>{1, 1})
          .ok());
  EXPECT_FALSE(
      map_nodes(pool, std::vector<std::vector<std::string>>{{}}, std::vector<int>{-1}).ok());
}

// Random pools (sizes 0, 1, primes and more), random holdings, flags and counts.
TEST(NodeMapping, NeverMovesNodesAwayFromKeepingOrGrowingJobs) {
  std::mt19937 rng(20240611);
  for (int iteration = 0; iteration < 2000; ++iteration) {
    const int size = static_cast<int>(rng() % 41);
    std::vector<Node> pool;
    for (int i = 0; i < size; ++i) {
      Node node;
      node.name = "x" + std::to_string(rng() % 1000) + "-" + std::to_string(i);
      node.leaving_soon = rng() % 5 == 0;
      if (rng() % 3 == 0) node.expected_idle_s = static_cast<double>(rng() % 100);
      pool.push_back(node);
    }
    const int jobs = 1 + static_cast<int>(rng() % 6);
    std::vector<std::vector<std::string>> held(static_cast<std::size_t>(jobs));
    for (const Node& node : pool) {
      const int owner = static_cast<int>(rng() % static_cast<unsigned>(jobs + 2));
      if (owner < jobs) held[static_cast<std::size_t>(owner)].push_back(node.name);
    }
    std::vector<int> counts(held.size());
    int left = size;
    for (std::size_t j = 0; j < held.size(); ++j) {
      counts[j] = static_cast<int>(rng() % static_cast<unsigned>(left + 1));
      left -= counts[j];
    }
    std::shuffle(counts.begin(), counts.end(), rng);

    auto mapped = map_nodes(pool, held, counts);
    ASSERT_TRUE(mapped.ok()) << mapped.status();
    std::set<std::string> seen;
    std::set<std::string> names;
    for (const Node& node : pool) names.insert(node.name);
    for (std::size_t j = 0; j < held.size(); ++j) {
      const NodeAssignment& out = (*mapped)[j];
      ASSERT_EQ(static_cast<int>(out.nodes.size()), counts[j]);
      for (const std::string& name : out.nodes) {
        EXPECT_TRUE(names.contains(name));
        EXPECT_TRUE(seen.insert(name).second) << name << " given twice";
      }
      const std::set<std::string> before = as_set(held[j]);
      const std::set<std::string> after = as_set(out.nodes);
      if (counts[j] >= static_cast<int>(held[j].size())) {
        EXPECT_TRUE(std::includes(after.begin(), after.end(), before.begin(), before.end()));
      } else {
        EXPECT_TRUE(std::includes(before.begin(), before.end(), after.begin(), after.end()));
        // Whatever was released is at least as "leaving" as whatever was kept.
        for (const Node& released : pool) {
          if (!before.contains(released.name) || after.contains(released.name)) continue;
          for (const Node& kept : pool) {
            if (after.contains(kept.name)) {
              EXPECT_TRUE(released.leaving_soon || !kept.leaving_soon);
            }
          }
        }
      }
      const Change expected = counts[j] > static_cast<int>(held[j].size())   ? Change::kGrow
                              : counts[j] < static_cast<int>(held[j].size()) ? Change::kShrink
                                                                             : Change::kKeep;
      EXPECT_EQ(out.change, expected);
    }
    // Deterministic: the same input gives the same names.
    auto again = map_nodes(pool, held, counts);
    ASSERT_TRUE(again.ok());
    for (std::size_t j = 0; j < held.size(); ++j) EXPECT_EQ((*again)[j].nodes, (*mapped)[j].nodes);
    if (HasFailure()) FAIL() << "iteration " << iteration;
  }
}

}  // namespace
}  // namespace elastic::alloc
