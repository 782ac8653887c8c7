#include "elastic/allocator/pool_holes.h"

#include <algorithm>

#include "elastic/allocator/hole_survival.h"

namespace elastic::alloc {

void PoolHoles::join(const std::string& node, double t) { joined_.try_emplace(node, t); }

void PoolHoles::leave(const std::string& node, double t) {
  const auto it = joined_.find(node);
  if (it == joined_.end()) return;
  ended_.observe(t - it->second);
  joined_.erase(it);
}

std::vector<double> PoolHoles::expected_idle_s(std::span<const std::string> nodes, double now,
                                               double cap_s) const {
  std::vector<double> open_ages;
  open_ages.reserve(joined_.size());
  for (const auto& [node, since] : joined_) open_ages.push_back(std::max(0.0, now - since));
  const HoleSurvival survival(ended_, open_ages);
  std::vector<double> out;
  out.reserve(nodes.size());
  for (const std::string& node : nodes) {
    const auto it = joined_.find(node);
    out.push_back(it == joined_.end()
                      ? 0.0
                      : survival.expected_residual(std::max(0.0, now - it->second), cap_s));
  }
  return out;
}

}  // namespace elastic::alloc
