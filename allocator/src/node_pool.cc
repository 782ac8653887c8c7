#include "elastic/allocator/node_pool.h"

#include <algorithm>
#include <limits>
#include <numeric>

#include "elastic/allocator/node_mapping.h"

namespace elastic::alloc {

namespace {

constexpr double kNoHint = std::numeric_limits<double>::infinity();

}  // namespace

NodePool::NodePool(std::span<const std::string> names)
    : rank_(names.size()),
      id_at_(names.size()),
      tree_(names.size() + 1, 0),
      slot_(names.size(), -1),
      held_(names.size(), 0),
      leaving_(names.size(), 0),
      expected_idle_(names.size(), kNoHint) {
  std::iota(id_at_.begin(), id_at_.end(), 0);
  std::sort(id_at_.begin(), id_at_.end(),
            [&](int a, int b) { return natural_less(names[a], names[b]); });
  for (std::size_t r = 0; r < id_at_.size(); ++r) rank_[id_at_[r]] = static_cast<int>(r);
}

void NodePool::count(int rank, int delta) {
  for (std::size_t i = static_cast<std::size_t>(rank) + 1; i < tree_.size(); i += i & (~i + 1)) {
    tree_[i] += delta;
  }
}

int NodePool::position(int rank) const {
  int n = 0;
  for (std::size_t i = static_cast<std::size_t>(rank); i > 0; i &= i - 1) n += tree_[i];
  return n;
}

void NodePool::join(int id) {
  slot_[id] = static_cast<int>(members_.size());
  members_.push_back(id);
  held_[id] = 0;
  leaving_[id] = 0;
  expected_idle_[id] = kNoHint;
  count(rank_[id], +1);
  tier(id).insert(rank_[id]);
}

void NodePool::leave(int id) {
  if (!held_[id]) tier(id).erase(rank_[id]);
  count(rank_[id], -1);
  const int last = members_.back();
  members_[static_cast<std::size_t>(slot_[id])] = last;
  slot_[last] = slot_[id];
  members_.pop_back();
  slot_[id] = -1;
  held_[id] = 0;
}

void NodePool::set_hint(int id, bool leaving_soon, double expected_idle_s) {
  if (!held_[id] && leaving_[id] != leaving_soon) {
    tier(id).erase(rank_[id]);
    leaving_[id] = leaving_soon;
    tier(id).insert(rank_[id]);
  }
  leaving_[id] = leaving_soon;
  expected_idle_[id] = expected_idle_s;
}

void NodePool::hold(int id) {
  tier(id).erase(rank_[id]);
  held_[id] = 1;
}

void NodePool::release(int id) {
  held_[id] = 0;
  tier(id).insert(rank_[id]);
}

}  // namespace elastic::alloc
