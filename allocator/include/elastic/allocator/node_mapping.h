// From node counts to node names without migration: a job that keeps or grows keeps every node
// it holds; a shrinking job releases the nodes most likely to be reclaimed soon (leaving_soon,
// then shortest expected idle time, then the last by name); a growing job takes free nodes,
// avoiding leaving_soon ones, as close as possible (in natural name order) to what it holds, or
// with `longest_idle_first` the free nodes expected to stay idle longest (then by name), as the
// expected-loss gains assume (expected_loss.h). Deterministic: the same input gives the same
// names.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "elastic/allocator/allocation.h"
#include "elastic/allocator/node_pool.h"
#include "elastic/allocator/problem.h"

namespace elastic::alloc {

struct NodeAssignment {
  std::vector<std::string> nodes;  // in natural name order
  Change change = Change::kKeep;   // against the number of held nodes
};

// `pool`: the nodes of one kind; `held[j]`: nodes job j holds (all in `pool`, disjoint);
// `counts[j]`: its new count. InvalidArgument when the preconditions or sum(counts) <= |pool| fail.
absl::StatusOr<std::vector<NodeAssignment>> map_nodes(
    std::span<const Node> pool, std::span<const std::vector<std::string>> held,
    std::span<const int> counts, bool longest_idle_first = false);

// The same mapping on a pool kept between calls: job j's nodes `*held[j]` (ids, held in `pool`)
// become counts[j] nodes; released nodes turn free in `pool`, taken ones held. Only jobs whose
// count changes are touched, and their lists end in natural order: O(moved nodes x log N), plus
// one pass over the free nodes for each job that grows from none (its best-fitting free run), or
// with `longest_idle_first` one sort of the free nodes when any job grows.
// InvalidArgument for a negative count or sum(counts) > pool.size().
absl::Status map_counts(NodePool& pool, std::span<std::vector<int>* const> held,
                        std::span<const int> counts, bool longest_idle_first = false);

// "node2" < "node10": digit runs compare as numbers; ties fall back to plain string order.
bool natural_less(std::string_view a, std::string_view b);

}  // namespace elastic::alloc
