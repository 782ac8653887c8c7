// Sampler: exactly-once over simulated membership sequences (grow, shrink, failure with rollback
// to the last commit), counting sample ids against a brute-force oracle.
#include "elastic/worker/sampler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>

namespace elastic::rt {
namespace {

TEST(Sampler, PermutationIsSeededAndComplete) {
  auto a = Sampler::permutation(1000, 7, 0);
  auto b = Sampler::permutation(1000, 7, 0);
  auto c = Sampler::permutation(1000, 7, 1);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  std::sort(c.begin(), c.end());
  for (std::uint64_t i = 0; i < 1000; ++i) ASSERT_EQ(c[i], i);
}

// A simulated job: one Sampler per rank, lockstep steps, commit after every `commit_every` steps.
// `counts` holds, per epoch, how often each sample was processed in the COMMITTED state.
struct Sim {
  std::uint64_t n, batch, seed;
  std::vector<Sampler> ranks;
  std::vector<std::byte> committed;  // sampler state at the last commit (identical on all ranks)
  std::map<std::uint64_t, std::vector<int>> counts, committed_counts;

  Sim(std::uint64_t n_, std::uint64_t b, int w) : n(n_), batch(b), seed(42) {
    for (int r = 0; r < w; ++r) ranks.emplace_back(n, batch, seed, r, w);
    commit();
  }
  // EXPECT, not ASSERT: a failure must not skip the advance, or the callers' loops on the epoch
  // never end (a failure would show as a ctest timeout).
  void step() {
    const std::uint64_t epoch = ranks[0].epoch();
    auto& c = counts[epoch];
    c.resize(n);
    std::uint64_t total = 0;
    for (const Sampler& s : ranks) {
      EXPECT_EQ(s.epoch(), epoch);
      for (std::uint64_t id : s.batch()) {
        ++c[id];
        ++total;
      }
    }
    EXPECT_EQ(total, ranks[0].global_batch_size());
    for (Sampler& s : ranks) s.advance();
  }
  void commit() {
    committed = ranks[0].save();
    for (const Sampler& s : ranks)
      ASSERT_EQ(s.save(), committed);  // all ranks agree without talking
    committed_counts = counts;
  }
  // Membership change to `w` ranks. With rollback (failure): the work since the last commit is lost.
  void rescale(int w, bool rollback) {
    if (rollback) counts = committed_counts;
    std::vector<Sampler> next;
    for (int r = 0; r < w; ++r) {
      Sampler s(n, batch, seed, 0, 1);  // a fresh (joining) rank, then State::sync's broadcast
      EXPECT_TRUE(s.load(rollback ? committed : ranks[0].save()).ok());
      s.repartition(r, w);
      next.push_back(std::move(s));
    }
    ranks = std::move(next);
  }
};

void expect_exactly_once(const Sim& sim, std::uint64_t epoch) {
  const auto it = sim.counts.find(epoch);
  ASSERT_NE(it, sim.counts.end());
  for (std::uint64_t i = 0; i < sim.n; ++i)
    ASSERT_EQ(it->second[i], 1) << "epoch " << epoch << " sample " << i;
}

TEST(Sampler, StaticMembershipEachSampleOncePerEpoch) {
  for (int w : {1, 2, 3, 7}) {
    Sim sim(1009, 16, w);
    while (sim.ranks[0].epoch() < 2) sim.step();
    expect_exactly_once(sim, 0);
    expect_exactly_once(sim, 1);
  }
}

TEST(Sampler, GrowShrinkFailureSequenceExactlyOnce) {
  Sim sim(997, 8, 2);
  for (int i = 0; i < 10; ++i) sim.step();
  sim.commit();
  sim.rescale(5, false);  // grow at a commit point
  for (int i = 0; i < 7; ++i) sim.step();
  sim.commit();
  for (int i = 0; i < 3; ++i) sim.step();  // uncommitted work, lost in the failure below
  sim.rescale(4, true);                    // a rank died: roll back, re-cut over the survivors
  for (int i = 0; i < 5; ++i) sim.step();
  sim.commit();
  sim.rescale(2, false);  // shrink on notice
  while (sim.ranks[0].epoch() == 0) {
    sim.step();
    sim.commit();
  }
  expect_exactly_once(sim, 0);
  EXPECT_EQ(sim.ranks[0].processed_in_epoch(), 0u);
}

TEST(Sampler, RandomisedMembershipChangesExactlyOnce) {
  std::mt19937 rng(5);
  for (int trial = 0; trial < 40; ++trial) {
    const std::uint64_t n = 50 + rng() % 400;
    Sim sim(n, 1 + rng() % 9, 1 + static_cast<int>(rng() % 6));
    while (sim.ranks[0].epoch() < 3) {
      const auto ev = rng() % 10;
      if (ev < 6) {
        sim.step();
        if (rng() % 2 == 0) sim.commit();
      } else if (ev < 8) {
        sim.commit();
        sim.rescale(1 + static_cast<int>(rng() % 8), false);
      } else {
        sim.rescale(1 + static_cast<int>(rng() % 8), true);
      }
      // Epoch rollover makes the old epoch final only once it is committed.
    }
    sim.commit();
    expect_exactly_once(sim, 0);
    expect_exactly_once(sim, 1);
  }
}

TEST(Sampler, ProcessedCountAndShortBatches) {
  Sampler s0(10, 4, 1, 0, 3);
  // 10 samples over 3 ranks: shards 4,3,3 -> one step covers all.
  EXPECT_EQ(s0.global_batch_size(), 10u);
  EXPECT_EQ(s0.batch().size(), 4u);
  s0.advance();
  EXPECT_EQ(s0.epoch(), 1u);
}

TEST(Sampler, LoadRejectsForeignOrDamagedState) {
  Sampler a(100, 4, 1, 0, 2), b(101, 4, 1, 0, 2);
  EXPECT_TRUE(absl::IsInvalidArgument(b.load(a.save())));
  auto bytes = a.save();
  bytes.resize(bytes.size() - 3);
  EXPECT_TRUE(absl::IsDataLoss(a.load(bytes)));
}

}  // namespace
}  // namespace elastic::rt
