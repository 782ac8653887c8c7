#include "elastic/allocator/expected_loss.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

namespace elastic::alloc {

NodeOutlook node_outlook(double expected_idle_s, double horizon_s) {
  if (!(horizon_s > 0)) return {};
  if (!(expected_idle_s < std::numeric_limits<double>::infinity())) return {horizon_s, 0.0};
  if (!(expected_idle_s > 0)) return {0.0, 1.0};
  // -expm1(-x) = 1 - e^{-x}, exact also for long expected idle times (x small).
  const double leave = -std::expm1(-horizon_s / expected_idle_s);
  return {expected_idle_s * leave, leave};
}

namespace {

constexpr double kKeptProfit = 1e-6;

// When the job, grown to n nodes, reaches its target: U_j + R_j / r_j(n) from now; infinite when
// it has no target or makes nothing at n (expected_loss.h).
double finish_s(const LossJob& job, int n) {
  const double rate = job.rate != nullptr && n >= job.min_nodes && n > 0 ? job.rate->at(n) : 0.0;
  if (!(rate > 0)) return std::numeric_limits<double>::infinity();
  return job.grow_stall_s + std::max(job.remaining_samples, 0.0) / rate;
}

// P(a node with this expected idle time is still idle after t s): e^{-t/mu}, as node_outlook.
double still_idle_p(double expected_idle_s, double t) {
  if (!(t < std::numeric_limits<double>::infinity()) || !(expected_idle_s > 0)) return 0.0;
  return std::exp(-t / expected_idle_s);
}

// w(k): the job's value per second at k nodes, to its finish within the window (expected_loss.h).
double count_value(const LossJob& job, int k) {
  const double v = k >= job.min_nodes && k > 0 ? job.value->at(k) : 0.0;
  if (!(job.window_s > 0) || !(v > 0) || job.rate == nullptr) return v;
  const double rate = job.rate->at(k);
  if (!(rate > 0)) return v;
  const double left = std::max(job.remaining_samples, 0.0);
  const double finish = left / rate;
  if (!(finish < job.window_s)) return v;
  return left / job.window_s * (v / rate) + job.successor_value * k * (1.0 - finish / job.window_s);
}

// The finish charge of a grow from `kept` to n nodes that adds the nodes `added` (expected_loss.h).
double finish_charge(const LossJob& job, int n, int kept, std::span<const double> added,
                     double horizon_s) {
  const double finish = finish_s(job, n);
  double regranted = 0.0;  // the added nodes expected to be idle still when the job ends
  for (const double idle_s : added) regranted += still_idle_p(idle_s, finish);
  const double amortised = std::min(1.0, horizon_s / finish);
  return job.grow_stall_s * job.successor_value * (n - kept) * regranted /
         static_cast<double>(added.size()) * amortised;
}

}  // namespace

std::vector<double> expected_gains(const LossJob& job, int hi, double horizon_s,
                                   std::span<const double> held_s, std::span<const double> free_s,
                                   std::span<const double> others_s) {
  const int current = static_cast<int>(held_s.size());
  auto w = [&](int k) { return count_value(job, k); };
  std::vector<double> held(held_s.begin(), held_s.end());
  std::vector<double> pool(free_s.begin(), free_s.end());
  std::sort(held.begin(), held.end(), std::greater<>());
  std::sort(pool.begin(), pool.end(), std::greater<>());
  // Once the free nodes run out, a grow takes what shrinking jobs release: their shortest first.
  std::vector<double> released(others_s.begin(), others_s.end());
  std::sort(released.begin(), released.end());
  pool.insert(pool.end(), released.begin(), released.end());

  std::vector<double> gains(static_cast<std::size_t>(std::max(hi, 0)) + 1, 0.0);
  std::vector<double> nodes;  // the n nodes, longest expected idle first
  nodes.reserve(gains.size());
  double all_new_stay = 1.0;        // P(none of the new nodes leaves within the horizon)
  double previous_uncharged = 0.0;  // gain(n - 1) without the finish charge
  for (int n = 0; n <= hi; ++n) {
    nodes.clear();
    std::size_t extra = 0;  // the free (or released) nodes a grow to n adds
    if (n <= current) {
      nodes.assign(held.begin(), held.begin() + n);
    } else {
      extra = std::min<std::size_t>(static_cast<std::size_t>(n - current), pool.size());
      if (static_cast<int>(extra) == n - current) {
        all_new_stay *= 1.0 - node_outlook(pool[extra - 1], horizon_s).leave_p;
      }
      nodes.assign(held.begin(), held.end());
      nodes.insert(nodes.end(), pool.begin(), pool.begin() + static_cast<std::ptrdiff_t>(extra));
      std::sort(nodes.begin(), nodes.end(), std::greater<>());
    }
    double g = 0.0;
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      const int k = static_cast<int>(i) + 1;
      g += (w(k) - w(k - 1)) * node_outlook(nodes[i], horizon_s).stay_s;
    }
    if (n > current) {
      g -= job.grow_stall_s * w(n) + job.shrink_stall_s * w(current) * (1.0 - all_new_stay);
    }
    if (n < current) g -= job.shrink_stall_s * w(n);
    const double uncharged = g;
    const int kept = std::max(current, job.min_nodes);  // every job ends on at least its minimum
    if (n > kept && extra > 0) {
      g -= finish_charge(job, n, kept, std::span(pool).first(extra), horizon_s);
      // The charge may give a node to another job, never leave it idle: a node that adds to the
      // gain keeps a sliver of what it adds.
      const double adds = uncharged - previous_uncharged;
      if (adds > 0) g = std::max(g, gains[static_cast<std::size_t>(n - 1)] + kKeptProfit * adds);
    }
    previous_uncharged = uncharged;
    gains[static_cast<std::size_t>(n)] = g;
  }
  return gains;
}

}  // namespace elastic::alloc
