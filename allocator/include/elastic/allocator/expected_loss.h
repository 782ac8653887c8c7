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
// A job that finishes gives its nodes back then, and each one still idle is granted to another
// job, which stalls U there. For the nodes a job holds that happens whatever the plan; for the
// nodes a grow adds, it is a second grant that giving them to a job that keeps them avoids. So a
// grow to n > K_j = max(C_j, m_j) also pays
//
//   U_j * s * (n - K_j) * mean_new e^{-t_n / mu_i} * min(1, T / t_n)
//
// where t_n = U_j + R_j / r_j(n) is when the job reaches its target (R_j the samples left, r_j its
// samples/s), e^{-t_n / mu_i} the chance that added node i is still idle then (the exponential
// residual above), and s the value per node of the job a freed node goes to next (the median over
// the jobs that can grow of what their next node adds: LossJob::successor_value). A finish past
// the horizon is charged too, spread over the time the job holds the nodes (T / t_n of it), as the
// gains count only the horizon's share of what the nodes make until then. The first m_j nodes
// (the job's minimum) are spared: every job ends on at least them, and charging a start only held
// back the jobs nearest their end. The charge may hand a node to another job but never leaves it
// idle: a count that adds to the gain without it keeps a sliver (1e-6) of what it adds.
//
// Measured variants (Summit slice, docs/replay.md, "A job that is about to finish"): charging only
// a finish within the horizon, at probability 1 and the job's own value per node, freed 12,641
// nodes by finishes on imgps at 1000 admitted; charging past the horizon unspread lost 1.6% of
// imgps's samples at 100 running; charging starts too finished 12 of 1000 hps jobs (against 203).
// Valuing the count only until the finish (T_n = min(T, t_n)) counts the freed nodes as worth
// nothing, so jobs near their end were shrunk away and never finished (hps, 1000 admitted: 15 of
// 1000 finished against 250).
//
// Value to the finish (Problem::finish_window_scale > 0, LossJob::window_s = W > 0): w(n) above is
// the job's value per second only while it runs on. A job that reaches its target t_n =
// R_j / r_j(n) from now, before W (the pool's mean expected idle time, about when its nodes would
// leave anyway, times finish_window_scale), makes its R_j samples whatever n is, and then gives
// its n nodes to the next job, where each makes s until W. Over W that is worth, per second,
//
//   w(n) = R_j / W * v_j(n) / r_j(n) + s * n * (1 - t_n / W)      (t_n < W; else v_j(n))
//
// (v/r converts samples to the objective's value). So the nodes a fast job would use to finish
// sooner count at what they make for the job after it, and a job near its end is not grown for
// a finish that frees its nodes again; at t_n = W the two agree. Measured on the Summit slice
// (docs/replay.md, "Value to the finish"): imgps, whose fast models finish in minutes at many
// nodes, gains samples and efficiency at 10 and 1000 admitted; hps loses a little. A longer
// window values more jobs to their finish and, as W grows, every node at s: it trades samples
// for elastic efficiency (imgps, 1000 admitted: 0.9690 at scale 1, 0.9701 at 2).
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
  double successor_value = 0.0;  // s: what a node it gives back makes for its next job (per s)
  double window_s = 0.0;         // W: value counts to the finish within it (0: off)
};

// gain_j(n) above for n = 0..hi. `held_s`: its held nodes (current count = held_s.size());
// `free_s`: the free nodes; `others_s`: the nodes the other jobs hold; all in any order. Counts
// beyond every node listed are worth nothing more. O(hi^2 + nodes log nodes).
std::vector<double> expected_gains(const LossJob& job, int hi, double horizon_s,
                                   std::span<const double> held_s, std::span<const double> free_s,
                                   std::span<const double> others_s);

}  // namespace elastic::alloc
