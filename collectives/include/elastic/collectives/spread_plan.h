// Who sends to whom in Communicator::spread (communicator.h), and in a grow's warm-up of the same
// connections (elastic::rt::proto::warm_up), the same on every rank and for every backend: rounds
// of disjoint transfers. In each round the holders, in rank order, serve the ranks that still lack
// the data, in rank order, one each; the ranks served hold it from the next round on. Pure, no MPI.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "absl/status/statusor.h"

namespace elastic::coll {

struct Transfer {
  int from = 0;
  int to = 0;
};

// InvalidArgument when `holds` does not have `size` entries or none is non-zero. No rounds when
// every rank holds the data.
absl::StatusOr<std::vector<std::vector<Transfer>>> spread_plan(std::span<const std::uint8_t> holds,
                                                               int size);

// The transfer of `round` that `rank` sends or receives, if any (at most one: they are disjoint).
std::optional<Transfer> transfer_of(std::span<const Transfer> round, int rank);

}  // namespace elastic::coll
