// NodePool (the pool kept between allocator calls) and map_counts on it: positions and free tiers
// follow joins, leaves, hints, holds and releases; and a long random run of events gives, step by
// step, the same nodes as map_nodes over a pool built afresh from names (the oracle).
#include "elastic/allocator/node_pool.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "elastic/allocator/node_mapping.h"

namespace elastic::alloc {
namespace {

// Names whose natural order differs from their index order: "n10" < "n9" as strings.
std::vector<std::string> names_of(int n) {
  std::vector<std::string> names;
  for (int i = n; i >= 1; --i) names.push_back("n" + std::to_string(i));
  return names;
}

std::vector<int> ranks(const std::set<int>& free) { return {free.begin(), free.end()}; }

TEST(NodePool, RanksByNaturalName) {
  const std::vector<std::string> names = {"n10", "n9", "a2"};
  NodePool pool(names);
  EXPECT_EQ(pool.capacity(), 3);
  EXPECT_EQ(pool.rank(2), 0);  // a2
  EXPECT_EQ(pool.rank(1), 1);  // n9
  EXPECT_EQ(pool.rank(0), 2);  // n10
  EXPECT_EQ(pool.id_at(1), 1);
}

TEST(NodePool, PositionsCountPoolNodesBefore) {
  const std::vector<std::string> names = names_of(10);  // id i is "n(10-i)", rank 9-i
  NodePool pool(names);
  EXPECT_EQ(pool.size(), 0);
  for (int id : {9, 5, 0}) pool.join(id);  // ranks 0, 4, 9
  EXPECT_EQ(pool.size(), 3);
  EXPECT_TRUE(pool.contains(5));
  EXPECT_FALSE(pool.contains(4));
  EXPECT_EQ(pool.position(0), 0);
  EXPECT_EQ(pool.position(4), 1);
  EXPECT_EQ(pool.position(9), 2);
  EXPECT_EQ(pool.position(10), 3);
  pool.leave(5);
  EXPECT_FALSE(pool.contains(5));
  EXPECT_EQ(pool.position(9), 1);
  std::vector<int> members(pool.members().begin(), pool.members().end());
  std::sort(members.begin(), members.end());
  EXPECT_EQ(members, (std::vector<int>{0, 9}));
}

TEST(NodePool, FreeTiersFollowHoldsHintsAndLeaves) {
  const std::vector<std::string> names = names_of(5);
  NodePool pool(names);
  for (int id = 0; id < 5; ++id) pool.join(id);
  EXPECT_EQ(ranks(pool.free_nodes(false)), (std::vector<int>{0, 1, 2, 3, 4}));
  pool.hold(4);  // rank 0
  EXPECT_FALSE(pool.is_free(4));
  pool.set_hint(3, true, 5.0);  // rank 1: free, moves to the leaving tier
  pool.set_hint(4, true, 7.0);  // held: no tier until released
  EXPECT_EQ(ranks(pool.free_nodes(false)), (std::vector<int>{2, 3, 4}));
  EXPECT_EQ(ranks(pool.free_nodes(true)), (std::vector<int>{1}));
  EXPECT_TRUE(pool.leaving_soon(4));
  EXPECT_EQ(pool.expected_idle_s(4), 7.0);
  pool.release(4);
  EXPECT_EQ(ranks(pool.free_nodes(true)), (std::vector<int>{0, 1}));
  pool.leave(3);
  pool.hold(2);   // rank 2
  pool.leave(2);  // a held node leaves
  EXPECT_EQ(ranks(pool.free_nodes(true)), (std::vector<int>{0}));
  EXPECT_EQ(ranks(pool.free_nodes(false)), (std::vector<int>{3, 4}));
  // A rejoining node comes back free and without hints.
  pool.join(3);
  EXPECT_FALSE(pool.leaving_soon(3));
  EXPECT_EQ(ranks(pool.free_nodes(false)), (std::vector<int>{1, 3, 4}));
}

TEST(MapCounts, TouchesOnlyJobsWhoseCountChanges) {
  const std::vector<std::string> names = names_of(8);
  NodePool pool(names);
  for (int id = 0; id < 8; ++id) pool.join(id);
  std::vector<int> a = {7, 6}, b = {2};  // ranks 0, 1 and 5
  for (int id : {7, 6, 2}) pool.hold(id);
  std::vector<int> b_before = b;
  std::vector<std::vector<int>*> held = {&a, &b};
  ASSERT_TRUE(map_counts(pool, held, std::vector<int>{4, 1}).ok());
  EXPECT_EQ(b, b_before);
  EXPECT_EQ(a, (std::vector<int>{7, 6, 5, 4}));  // grown next to its block, in natural order
  EXPECT_EQ(ranks(pool.free_nodes(false)), (std::vector<int>{4, 6, 7}));
  ASSERT_TRUE(map_counts(pool, held, std::vector<int>{1, 1}).ok());
  EXPECT_EQ(a, (std::vector<int>{7}));  // the last by name go first
  EXPECT_EQ(map_counts(pool, held, std::vector<int>{8, 1}).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(map_counts(pool, held, std::vector<int>{-1, 1}).code(),
            absl::StatusCode::kInvalidArgument);
}

// The replay's use: nodes join and leave, held ones are lost, hints change, counts change; after
// each step the kept pool's answer equals map_nodes over the pool rebuilt from names.
TEST(MapCounts, KeptPoolMatchesAFreshMapping) {
  for (const int n : {1, 2, 13, 60}) {
    const std::vector<std::string> names = names_of(n);
    NodePool pool(names);
    std::vector<std::vector<int>> jobs(3);
    std::mt19937 random(static_cast<unsigned>(n));
    for (int step = 0; step < 400; ++step) {
      // A few joins and leaves.
      for (int k = 0; k < 3; ++k) {
        const int id = static_cast<int>(random() % static_cast<unsigned>(n));
        if (!pool.contains(id)) {
          pool.join(id);
          continue;
        }
        pool.leave(id);
        for (std::vector<int>& job : jobs) std::erase(job, id);
      }
      std::vector<Node> fresh;
      for (int id = 0; id < n; ++id) {
        if (!pool.contains(id)) continue;
        const bool leaving = random() % 4 == 0;
        const double idle = static_cast<double>(random() % 3);
        pool.set_hint(id, leaving, idle);
        fresh.push_back({names[id], "", leaving, idle});
      }
      std::vector<std::vector<std::string>> held_names;
      for (const std::vector<int>& job : jobs) {
        std::vector<std::string>& h = held_names.emplace_back();
        for (int id : job) h.push_back(names[id]);
      }
      std::vector<int> counts;
      int left = pool.size();
      for (std::size_t j = 0; j < jobs.size(); ++j) {
        const int c = left > 0 ? static_cast<int>(random() % static_cast<unsigned>(left + 1)) : 0;
        counts.push_back(c);
        left -= c;
      }
      auto expected = map_nodes(fresh, held_names, counts);
      ASSERT_TRUE(expected.ok()) << expected.status();
      std::vector<std::vector<int>*> held;
      for (std::vector<int>& job : jobs) held.push_back(&job);
      ASSERT_TRUE(map_counts(pool, held, counts).ok());
      int free = 0;
      for (bool tier : {false, true}) free += static_cast<int>(pool.free_nodes(tier).size());
      int taken = 0;
      for (std::size_t j = 0; j < jobs.size(); ++j) {
        std::vector<std::string> got;
        for (int id : jobs[j]) got.push_back(names[id]);
        std::sort(got.begin(), got.end(), natural_less);
        ASSERT_EQ(got, (*expected)[j].nodes) << "n=" << n << " step " << step << " job " << j;
        taken += static_cast<int>(jobs[j].size());
      }
      ASSERT_EQ(free + taken, pool.size());
    }
  }
}

}  // namespace
}  // namespace elastic::alloc
