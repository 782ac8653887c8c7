// The holes of a pool of named nodes as a scheduler's grants show them (elasticd: each hostfile
// update): when each node joined, the lengths of the holes that ended (HoleLifetime), and each
// node's expected remaining idle time from its hole's age, by Kaplan-Meier over the ended holes
// with the open ones censored at their age (HoleSurvival). What it answers at time t depends only
// on the joins and leaves up to t. elastic-replay keeps the same two estimators over its trace's
// node indices (allocator/replay/src/simulator.cc).
#pragma once

#include <map>
#include <span>
#include <string>
#include <vector>

#include "elastic/allocator/hole_lifetime.h"

namespace elastic::alloc {

class PoolHoles {
 public:
  // `node` joined the pool at `t` (its hole starts); ignored when it is in the pool already.
  void join(const std::string& node, double t);
  // `node` left the pool at `t`: its hole ended after t - (when it joined). Ignored when it is not
  // in the pool.
  void leave(const std::string& node, double t);
  // For each of `nodes`, its expected remaining idle seconds at `now`, counted up to `cap_s`; 0
  // for a node not in the pool. A node whose hole is older than any that ended gets `cap_s`.
  std::vector<double> expected_idle_s(std::span<const std::string> nodes, double now,
                                      double cap_s) const;
  const HoleLifetime& ended() const { return ended_; }

 private:
  std::map<std::string, double, std::less<>> joined_;  // pool node -> when its hole started
  HoleLifetime ended_;
};

}  // namespace elastic::alloc
