// What a node count is worth to a job when the nodes may leave (hole-lifetime-aware planning,
// docs/replay.md). With Problem::expect_departures each job's gain over the horizon T becomes
//
//   gain_j(n) = sum_{k=1..n} (w(k) - w(k-1)) * a_(k)          what the n nodes make while they stay
//             - [n > C_j] * (U_j * w(n)                        the grow stall now, at the new size,
//                            + D_j * w(C_j) * (1 - prod_new (1 - p_i)))  and a shrink stall when
//                                                              any of the new nodes leaves
//             - [n < C_j] * D_j * w(n)                         the shrink stall now
//
// where w = v_j (0 below the job's minimum) and the n nodes are those the node mapping gives it
// (n <= C_j: the held ones expected to stay longest; n > C_j: all held ones plus the n - C_j free
// ones expected to stay longest, as map_counts with longest_idle_first takes them, and once the
// free ones run out the ones other jobs release, shortest expected idle first), ranked by
// expected idle time. Node i stays a_i = E[min(R_i, T)] of the horizon and leaves within it with
// probability p_i = P(R_i < T); its residual R_i is taken as exponential with mean
// Node::expected_idle_s (the one distribution fixed by a mean alone): a_i = mu_i (1 - e^{-T/mu_i}),
// p_i = 1 - e^{-T/mu_i}. The first term is the integral of w over the horizon when the nodes leave
// in that order. So a grow onto nodes expected to leave soon is worth their short stay less the
// grow stall and the shrink stall their leaving causes; the break-even lifetime grows with the
// job's size. With every mu_i infinite the gain is T*w(n) minus the rescale stall at the new size.
//
// The leaving of the new nodes is charged once, not once per node: on Summit nodes join and leave
// in batches (a large job ends, the next one starts), and a job that loses several nodes at one
// instant stalls once. Charging each node's leaving separately (sum_k p_(k) D_j w(k-1)) was tried
// and made jobs shrink ahead of batch leaves and grow too little (docs/replay.md).
//
// A job that finishes within the horizon gives its nodes back then, and each is granted to another
// job, which stalls U there. For the nodes a job holds that happens whatever the plan; for the
// nodes a grow adds, it is a second grant that giving them to a job that keeps them avoids. So a
// grow to n that reaches the job's target within the horizon (U_j + R_j / r_j(n) < T, R_j the
// samples left, r_j its samples/s) also pays U_j * (w(n) - w(C_j)): the successor's stall on the
// added nodes, at the rate they add. Valuing the count only until the finish instead (T_n =
// min(T, U_j + R_j / r_j(n))) was tried and dropped: it counts the freed nodes as worth nothing,
// so jobs near their end were shrunk away and never finished (hps, 1000 admitted: 15 of 1000 jobs
// finished against 250; docs/replay.md).
//
// The table is one value per count, so the exact solvers stay exact on it (CountModel::gain, with
// a breakpoint wherever the slope changes). Each job's n-th node is the pool's n-th best free one:
// jobs growing at once are each credited the best free nodes (optimistic when several grow).
#pragma once

#include <limits>
#include <span>
#include <vector>

#include "elastic/allocator/piecewise_linear.h"

namespace elastic::alloc {

// How long a node stays within the horizon, and whether it leaves within it.
struct NodeOutlook {
  double stay_s = 0.0;   // a = E[min(R, T)]
  double leave_p = 0.0;  // p = P(R < T)
};
NodeOutlook node_outlook(double expected_idle_s, double horizon_s);

// The expected remaining idle times (s) of the nodes a kind's jobs plan with.
struct IdleOutlook {
  std::vector<double> free_s;               // the pool's free nodes
  std::vector<std::vector<double>> held_s;  // per job (the model's order): the nodes it holds
};

struct LossJob {
  const PiecewiseLinear* value = nullptr;  // v_j
  int min_nodes = 1;                       // w(n) = 0 below it
  double grow_stall_s = 0.0;               // U_j
  double shrink_stall_s = 0.0;             // D_j
  const PiecewiseLinear* rate = nullptr;   // r_j (samples/s), for when the job finishes
  double remaining_samples = std::numeric_limits<double>::infinity();  // R_j
};

// gain_j(n) above for n = 0..hi. `held_s`: its held nodes (current count = held_s.size());
// `free_s`: the free nodes; `others_s`: the nodes the other jobs hold; all in any order. Counts
// beyond every node listed are worth nothing more. O(hi^2 + nodes log nodes).
std::vector<double> expected_gains(const LossJob& job, int hi, double horizon_s,
                                   std::span<const double> held_s, std::span<const double> free_s,
                                   std::span<const double> others_s);

}  // namespace elastic::alloc
