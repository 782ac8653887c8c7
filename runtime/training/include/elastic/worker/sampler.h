// Exactly-once data sharding for elastic data parallelism.
//
// Each epoch visits a seeded permutation of [0, dataset_size) (same on every rank). The positions
// of the permutation not yet processed when the current membership started are kept as a short
// list of ranges (`remaining`); they are cut into `world_size` contiguous, near-equal shards, and
// rank r takes its shard `batch_size` samples per step, in lockstep with the other ranks. Because
// every rank advances one step per global step, the set processed so far is a pure function of
// (remaining, world_size, steps) — every rank knows it without communication, and the whole state
// is a few dozen bytes that State commits and broadcasts.
//
// On a membership change call `repartition(rank, size)` on EVERY rank, after State::sync() (so all
// ranks start from the same committed sampler state): the unprocessed remainder (per that committed
// state) becomes the new `remaining` and is re-cut over the new ranks. Work done after the last
// commit is thrown away with the model's rollback, so in the committed state every sample of an
// epoch is processed exactly once across grows, shrinks and failures.
//
// All methods are LOCAL and cheap. The epoch ends when every shard is exhausted (same step on
// every rank); `advance()` then moves to the next epoch's permutation. In the last steps of an
// epoch some ranks may get short or empty batches: they must still take part in the allreduce
// (e.g. with zero gradients), and global_batch_size() tells the true sample count of the step.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "elastic/worker/checkpointable.h"

namespace elastic::rt {

struct Range {
  std::uint64_t begin = 0;  // permutation positions [begin, end)
  std::uint64_t end = 0;
  friend bool operator==(const Range&, const Range&) = default;
};

class Sampler final : public Checkpointable {
 public:
  // `rank`/`world_size` are the initial membership. dataset_size > 0, batch_size > 0.
  Sampler(std::uint64_t dataset_size, std::uint64_t batch_size, std::uint64_t seed, int rank,
          int world_size);

  // Sample ids (indices into the dataset) of this rank's batch at the current step; may be empty.
  std::vector<std::uint64_t> batch() const;
  // Number of samples all ranks together process at the current step.
  std::uint64_t global_batch_size() const;
  // Marks the current step done on every rank; rolls into the next epoch after the last step.
  void advance();
  // Re-cuts the unprocessed part of the epoch over a new membership (see the header comment).
  void repartition(int rank, int world_size);

  std::uint64_t epoch() const { return epoch_; }
  std::uint64_t step_in_membership() const { return steps_; }
  // Samples of the current epoch already processed (by all ranks, per this state).
  std::uint64_t processed_in_epoch() const;
  std::uint64_t dataset_size() const { return dataset_size_; }
  const std::vector<Range>& remaining() const { return remaining_; }
  int rank() const { return rank_; }
  int world_size() const { return world_size_; }

  // The permutation of an epoch (same on every rank and platform: SplitMix64 + Fisher-Yates).
  static std::vector<std::uint64_t> permutation(std::uint64_t n, std::uint64_t seed,
                                                std::uint64_t epoch);

  // Checkpointable: epoch, remaining ranges, world size, steps (the rank is NOT saved: it is local).
  std::vector<std::byte> save() const override;
  absl::Status load(std::span<const std::byte> bytes) override;
  absl::Status check(std::span<const std::byte> bytes) const override;

 private:
  struct Saved {
    std::uint64_t epoch;
    int world_size;
    std::uint64_t steps;
    std::vector<Range> remaining;
  };
  // The state in `bytes`, if it is one of this sampler's (same dataset, batch size and seed).
  absl::StatusOr<Saved> parse(std::span<const std::byte> bytes) const;
  // Shard of `r` as [first, last) offsets into the concatenation of remaining_.
  std::pair<std::uint64_t, std::uint64_t> shard(int r) const;
  std::uint64_t remaining_total() const;
  std::uint64_t max_shard() const;
  void ensure_permutation() const;

  std::uint64_t dataset_size_;
  std::uint64_t batch_size_;
  std::uint64_t seed_;
  int rank_;
  int world_size_;
  std::uint64_t epoch_ = 0;
  std::vector<Range> remaining_;
  std::uint64_t steps_ = 0;  // steps taken in the current membership
  mutable std::vector<std::uint64_t> perm_;
  mutable std::uint64_t perm_epoch_ = ~std::uint64_t{0};
};

}  // namespace elastic::rt
