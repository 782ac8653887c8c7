#include "elastic/allocator/node_mapping.h"

#include <algorithm>
#include <queue>
#include <set>
#include <tuple>
#include <unordered_map>

#include "fmt/format.h"

namespace elastic::alloc {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

void sort_natural(const NodePool& pool, std::vector<int>& ids) {
  std::sort(ids.begin(), ids.end(), [&](int a, int b) { return pool.rank(a) < pool.rank(b); });
}

// Grows one job from the nodes it has (`taken`, ranks) by taking the free node of one tier nearest
// to any of them (distance: positions among the pool's nodes), `need` times. The nearest free node
// to a set is always the first free node left or right of some member, so a heap of those
// candidates (refreshed lazily when a candidate was taken meanwhile) finds each pick in O(log n).
// Ranks order like positions, so they break ties as positions would.
void grow_near(NodePool& pool, bool leaving_soon, std::vector<int>& taken, int& need) {
  const std::set<int>& free = pool.free_nodes(leaving_soon);
  using Candidate = std::tuple<int, int, int, int>;  // distance, rank, source, direction
  std::priority_queue<Candidate, std::vector<Candidate>, std::greater<>> heap;
  auto push_from = [&](int source, int direction) {
    if (direction > 0) {
      const auto it = free.upper_bound(source);
      if (it != free.end()) {
        heap.emplace(pool.position(*it) - pool.position(source), *it, source, direction);
      }
    } else {
      auto it = free.lower_bound(source);
      if (it != free.begin()) {
        --it;
        heap.emplace(pool.position(source) - pool.position(*it), *it, source, direction);
      }
    }
  };
  auto take = [&](int rank) {
    pool.hold(pool.id_at(rank));
    taken.push_back(rank);
    --need;
    push_from(rank, -1);
    push_from(rank, +1);
  };
  for (int r : taken) {
    push_from(r, -1);
    push_from(r, +1);
  }
  while (need > 0 && !free.empty()) {
    if (heap.empty()) {
      // Nothing held yet: start at the free run that fits best (smallest run >= need, else the
      // longest), so jobs keep to compact blocks and large runs stay whole for large jobs.
      int best_start = *free.begin(), best_len = 0;
      bool best_fits = false;
      for (auto it = free.begin(); it != free.end();) {
        const int start = *it;
        const int first = pool.position(start);
        int len = 1;
        for (++it; it != free.end() && pool.position(*it) == first + len; ++it) ++len;
        const bool fits = len >= need;
        const bool better = fits ? (!best_fits || len < best_len) : (!best_fits && len > best_len);
        if (better) {
          best_start = start;
          best_len = len;
          best_fits = fits;
        }
      }
      take(best_start);
      continue;
    }
    const auto [distance, rank, source, direction] = heap.top();
    heap.pop();
    if (!free.contains(rank)) {
      push_from(source, direction);  // taken by this job meanwhile: look further out
      continue;
    }
    take(rank);
  }
}

// Growing jobs, in order, take the free nodes expected to stay idle longest (leaving_soon last,
// ties by name).
void grow_longest_idle(NodePool& pool, std::span<std::vector<int>* const> held,
                       std::span<const int> counts) {
  bool grows = false;
  for (std::size_t j = 0; j < held.size(); ++j) {
    grows = grows || counts[j] > static_cast<int>(held[j]->size());
  }
  if (!grows) return;
  std::vector<int> free;
  for (bool tier : {false, true}) {
    for (int rank : pool.free_nodes(tier)) free.push_back(pool.id_at(rank));
  }
  std::stable_sort(free.begin(), free.end(), [&](int a, int b) {
    if (pool.leaving_soon(a) != pool.leaving_soon(b)) return pool.leaving_soon(b);
    return pool.expected_idle_s(a) > pool.expected_idle_s(b);
  });
  std::size_t next = 0;
  for (std::size_t j = 0; j < held.size(); ++j) {
    std::vector<int>& have = *held[j];
    const int need = counts[j] - static_cast<int>(have.size());
    if (need <= 0) continue;
    for (int k = 0; k < need; ++k) {
      pool.hold(free[next]);
      have.push_back(free[next++]);
    }
    sort_natural(pool, have);
  }
}

}  // namespace

bool natural_less(std::string_view a, std::string_view b) {
  std::size_t i = 0, k = 0;
  while (i < a.size() && k < b.size()) {
    if (is_digit(a[i]) && is_digit(b[k])) {
      std::size_t ie = i, ke = k;
      while (ie < a.size() && is_digit(a[ie])) ++ie;
      while (ke < b.size() && is_digit(b[ke])) ++ke;
      // Compare the numbers without converting: strip leading zeros, then length, then digits.
      std::size_t is = i, ks = k;
      while (is + 1 < ie && a[is] == '0') ++is;
      while (ks + 1 < ke && b[ks] == '0') ++ks;
      const std::string_view na = a.substr(is, ie - is), nb = b.substr(ks, ke - ks);
      if (na.size() != nb.size()) return na.size() < nb.size();
      if (na != nb) return na < nb;
      i = ie;
      k = ke;
    } else {
      if (a[i] != b[k]) return a[i] < b[k];
      ++i;
      ++k;
    }
  }
  if ((a.size() - i) != (b.size() - k)) return (a.size() - i) < (b.size() - k);
  return a < b;  // e.g. "n01" vs "n1": equal as numbers, still ordered
}

absl::Status map_counts(NodePool& pool, std::span<std::vector<int>* const> held,
                        std::span<const int> counts, bool longest_idle_first) {
  if (held.size() != counts.size()) {
    return absl::InvalidArgumentError(
        fmt::format("map_nodes: {} held lists but {} counts", held.size(), counts.size()));
  }
  long total = 0;
  for (std::size_t j = 0; j < counts.size(); ++j) {
    if (counts[j] < 0) {
      return absl::InvalidArgumentError(fmt::format("map_nodes: negative count for job {}", j));
    }
    total += counts[j];
  }
  if (total > pool.size()) {
    return absl::InvalidArgumentError(
        fmt::format("map_nodes: counts sum to {} but the pool has {}", total, pool.size()));
  }
  // Shrinking jobs release first, so growing jobs can take what they free.
  for (std::size_t j = 0; j < held.size(); ++j) {
    std::vector<int>& have = *held[j];
    const int release = static_cast<int>(have.size()) - counts[j];
    if (release <= 0) continue;
    // Release order: flagged by the scheduler, then soonest reclaimed, then last by name.
    std::sort(have.begin(), have.end(), [&](int a, int b) {
      if (pool.leaving_soon(a) != pool.leaving_soon(b)) return pool.leaving_soon(a);
      if (pool.expected_idle_s(a) != pool.expected_idle_s(b)) {
        return pool.expected_idle_s(a) < pool.expected_idle_s(b);
      }
      return pool.rank(a) > pool.rank(b);
    });
    for (int r = 0; r < release; ++r) pool.release(have[r]);
    have.erase(have.begin(), have.begin() + release);
    sort_natural(pool, have);
  }
  if (longest_idle_first) {
    grow_longest_idle(pool, held, counts);
    return absl::OkStatus();
  }
  // A growing job takes a leaving_soon node only when nothing else is free.
  for (std::size_t j = 0; j < held.size(); ++j) {
    std::vector<int>& have = *held[j];
    int need = counts[j] - static_cast<int>(have.size());
    if (need <= 0) continue;
    std::vector<int> ranks(have.size());
    for (std::size_t i = 0; i < have.size(); ++i) ranks[i] = pool.rank(have[i]);
    grow_near(pool, false, ranks, need);
    grow_near(pool, true, ranks, need);
    std::sort(ranks.begin(), ranks.end());
    have.resize(ranks.size());
    for (std::size_t i = 0; i < ranks.size(); ++i) have[i] = pool.id_at(ranks[i]);
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<NodeAssignment>> map_nodes(
    std::span<const Node> pool, std::span<const std::vector<std::string>> held,
    std::span<const int> counts, bool longest_idle_first) {
  std::vector<std::string> names;
  names.reserve(pool.size());
  for (const Node& node : pool) names.push_back(node.name);
  NodePool state(names);
  std::unordered_map<std::string_view, int> id;  // name -> index in `pool`
  for (std::size_t i = 0; i < pool.size(); ++i) {
    const int n = static_cast<int>(i);
    id.emplace(pool[i].name, n);
    state.join(n);
    state.set_hint(n, pool[i].leaving_soon, pool[i].expected_idle_s);
  }
  std::vector<std::vector<int>> have(held.size());
  std::vector<std::vector<int>*> lists;
  for (std::size_t j = 0; j < held.size(); ++j) {
    for (const std::string& name : held[j]) {
      const auto it = id.find(name);
      if (it == id.end()) {
        return absl::InvalidArgumentError(
            fmt::format("map_nodes: job {} holds '{}', not in the pool", j, name));
      }
      if (!state.is_free(it->second)) {
        return absl::InvalidArgumentError(fmt::format("map_nodes: node '{}' is held twice", name));
      }
      state.hold(it->second);
      have[j].push_back(it->second);
    }
    sort_natural(state, have[j]);
    lists.push_back(&have[j]);
  }
  if (absl::Status s = map_counts(state, lists, counts, longest_idle_first); !s.ok()) return s;

  std::vector<NodeAssignment> out(held.size());
  for (std::size_t j = 0; j < held.size(); ++j) {
    for (int n : have[j]) out[j].nodes.push_back(pool[static_cast<std::size_t>(n)].name);
    const int before = static_cast<int>(held[j].size());
    out[j].change = counts[j] > before   ? Change::kGrow
                    : counts[j] < before ? Change::kShrink
                                         : Change::kKeep;
  }
  return out;
}

}  // namespace elastic::alloc
