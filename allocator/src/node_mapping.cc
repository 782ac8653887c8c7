#include "elastic/allocator/node_mapping.h"

#include <algorithm>
#include <cstdlib>
#include <numeric>
#include <queue>
#include <set>
#include <tuple>
#include <unordered_map>

#include "fmt/format.h"

namespace elastic::alloc {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Grows one job from the nodes it has (`taken`, positions in natural order) by taking the free
// node nearest to any of them, `need` times, from `free` (one tier). The nearest free node to a set
// is always the first free node left or right of some member, so a heap of those candidates
// (refreshed lazily when a candidate was taken meanwhile) finds each pick in O(log n).
void grow_near(std::set<int>& free, std::vector<int>& taken, int& need) {
  using Candidate = std::tuple<int, int, int, int>;  // distance, position, source, direction
  std::priority_queue<Candidate, std::vector<Candidate>, std::greater<>> heap;
  auto push_from = [&](int source, int direction) {
    if (direction > 0) {
      const auto it = free.upper_bound(source);
      if (it != free.end()) heap.emplace(*it - source, *it, source, direction);
    } else {
      auto it = free.lower_bound(source);
      if (it != free.begin()) {
        --it;
        heap.emplace(source - *it, *it, source, direction);
      }
    }
  };
  for (int p : taken) {
    push_from(p, -1);
    push_from(p, +1);
  }
  while (need > 0 && !free.empty()) {
    if (heap.empty()) {
      // Nothing held yet: start at the free run that fits best (smallest run >= need, else the
      // longest), so jobs keep to compact blocks and large runs stay whole for large jobs.
      int best_start = *free.begin(), best_len = 0;
      bool best_fits = false;
      for (auto it = free.begin(); it != free.end();) {
        const int start = *it;
        int len = 1;
        for (++it; it != free.end() && *it == start + len; ++it) ++len;
        const bool fits = len >= need;
        const bool better = fits ? (!best_fits || len < best_len) : (!best_fits && len > best_len);
        if (better) {
          best_start = start;
          best_len = len;
          best_fits = fits;
        }
      }
      free.erase(best_start);
      taken.push_back(best_start);
      --need;
      push_from(best_start, -1);
      push_from(best_start, +1);
      continue;
    }
    const auto [distance, position, source, direction] = heap.top();
    heap.pop();
    if (!free.contains(position)) {
      push_from(source, direction);  // taken by this job meanwhile: look further out
      continue;
    }
    free.erase(position);
    taken.push_back(position);
    --need;
    push_from(position, -1);
    push_from(position, +1);
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

absl::StatusOr<std::vector<NodeAssignment>> map_nodes(
    std::span<const Node> pool, std::span<const std::vector<std::string>> held,
    std::span<const int> counts) {
  if (held.size() != counts.size()) {
    return absl::InvalidArgumentError(
        fmt::format("map_nodes: {} held lists but {} counts", held.size(), counts.size()));
  }
  // Positions in natural name order: "close together" means close in this order.
  std::vector<int> order(pool.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(),
            [&](int x, int y) { return natural_less(pool[x].name, pool[y].name); });
  std::vector<int> position_of(pool.size());
  for (std::size_t p = 0; p < order.size(); ++p) position_of[order[p]] = static_cast<int>(p);
  std::unordered_map<std::string_view, int> position;  // name -> position
  for (std::size_t i = 0; i < pool.size(); ++i) {
    position.emplace(pool[i].name, position_of[i]);
  }
  const auto node_at = [&](int p) -> const Node& { return pool[order[p]]; };

  long total = 0;
  std::vector<bool> used(pool.size(), false);
  std::vector<std::vector<int>> have(held.size());
  for (std::size_t j = 0; j < held.size(); ++j) {
    if (counts[j] < 0) {
      return absl::InvalidArgumentError(fmt::format("map_nodes: negative count for job {}", j));
    }
    total += counts[j];
    for (const std::string& name : held[j]) {
      const auto it = position.find(name);
      if (it == position.end()) {
        return absl::InvalidArgumentError(
            fmt::format("map_nodes: job {} holds '{}', not in the pool", j, name));
      }
      if (used[it->second]) {
        return absl::InvalidArgumentError(fmt::format("map_nodes: node '{}' is held twice", name));
      }
      used[it->second] = true;
      have[j].push_back(it->second);
    }
  }
  if (total > static_cast<long>(pool.size())) {
    return absl::InvalidArgumentError(
        fmt::format("map_nodes: counts sum to {} but the pool has {}", total, pool.size()));
  }

  std::vector<NodeAssignment> out(held.size());
  // Shrinking jobs release first, so growing jobs can take what they free.
  for (std::size_t j = 0; j < held.size(); ++j) {
    const int release = static_cast<int>(have[j].size()) - counts[j];
    if (release <= 0) continue;
    // Release order: flagged by the scheduler, then soonest reclaimed, then last by name.
    std::sort(have[j].begin(), have[j].end(), [&](int x, int y) {
      const Node& a = node_at(x);
      const Node& b = node_at(y);
      if (a.leaving_soon != b.leaving_soon) return a.leaving_soon;
      if (a.expected_idle_s != b.expected_idle_s) return a.expected_idle_s < b.expected_idle_s;
      return x > y;
    });
    for (int r = 0; r < release; ++r) used[have[j][r]] = false;
    have[j].erase(have[j].begin(), have[j].begin() + release);
  }
  // Free nodes in two tiers: a growing job takes a leaving_soon node only when nothing else is
  // free.
  std::set<int> free_stable, free_leaving;
  for (int p = 0; p < static_cast<int>(pool.size()); ++p) {
    if (!used[p]) (node_at(p).leaving_soon ? free_leaving : free_stable).insert(p);
  }
  for (std::size_t j = 0; j < held.size(); ++j) {
    int need = counts[j] - static_cast<int>(have[j].size());
    if (need <= 0) continue;
    grow_near(free_stable, have[j], need);
    grow_near(free_leaving, have[j], need);
  }

  for (std::size_t j = 0; j < held.size(); ++j) {
    std::sort(have[j].begin(), have[j].end());
    for (int p : have[j]) out[j].nodes.push_back(node_at(p).name);
    const int before = static_cast<int>(held[j].size());
    out[j].change = counts[j] > before   ? Change::kGrow
                    : counts[j] < before ? Change::kShrink
                                         : Change::kKeep;
  }
  return out;
}

}  // namespace elastic::alloc
