// The idle pool kept from one allocator call to the next, for a caller that sees the pool change a
// few nodes at a time (the trace replay). Nodes are integer ids, ranked once by natural name order
// (node_mapping.h); membership lives in a Fenwick tree, so a node's position among the pool's nodes
// costs O(log N), and the free nodes (in the pool, held by no job) in two ordered tiers (flagged
// leaving_soon or not). A join, a leave, a hint and each node the mapping moves cost O(log N):
// per-event work follows what changed, not the size of the pool. LOCAL, not thread-safe.
#pragma once

#include <set>
#include <span>
#include <string>
#include <vector>

namespace elastic::alloc {

class NodePool {
 public:
  // The machine's nodes: ids are indices into `names`; none is in the pool yet.
  explicit NodePool(std::span<const std::string> names);

  int capacity() const { return static_cast<int>(rank_.size()); }
  int size() const { return static_cast<int>(members_.size()); }
  bool contains(int id) const { return slot_[id] >= 0; }
  bool is_free(int id) const { return contains(id) && !held_[id]; }
  // The pool's nodes, in no particular order.
  std::span<const int> members() const { return members_; }

  // A node joins free, without hints. Precondition: not in the pool.
  void join(int id);
  // A node leaves, free or held (the caller forgets its holder). Precondition: in the pool.
  void leave(int id);
  // Hole-lifetime hints (Node::leaving_soon, Node::expected_idle_s) of a pool node.
  void set_hint(int id, bool leaving_soon, double expected_idle_s);
  bool leaving_soon(int id) const { return leaving_[id]; }
  double expected_idle_s(int id) const { return expected_idle_[id]; }
  // A free node becomes held, and back.
  void hold(int id);
  void release(int id);

  // Natural-order rank among all the machine's nodes, and the node of a rank.
  int rank(int id) const { return rank_[id]; }
  int id_at(int rank) const { return id_at_[rank]; }
  // Pool nodes of rank < `rank`: a node's position among the pool's nodes in natural order.
  int position(int rank) const;
  // The free nodes' ranks in one tier.
  const std::set<int>& free_nodes(bool leaving_soon) const { return free_[leaving_soon ? 1 : 0]; }

 private:
  void count(int rank, int delta);
  std::set<int>& tier(int id) { return free_[leaving_[id] ? 1 : 0]; }

  std::vector<int> rank_;   // by id
  std::vector<int> id_at_;  // by rank
  std::vector<int> tree_;   // Fenwick tree over ranks: pool membership
  std::vector<int> members_;
  std::vector<int> slot_;  // by id: index in members_, -1 = not in the pool
  std::vector<char> held_;
  std::vector<char> leaving_;
  std::vector<double> expected_idle_;
  std::set<int> free_[2];  // ranks of free nodes: [0] not leaving soon, [1] leaving soon
};

}  // namespace elastic::alloc
