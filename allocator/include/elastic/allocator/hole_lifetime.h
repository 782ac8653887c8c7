// How much longer an idle node will stay idle, given how long it has been idle (the hole's age):
// E[L - a | L > a] over the lengths L of the holes that have ended so far. A node idle for 5 s is
// far more likely to be reclaimed within a minute than one idle for an hour (Summit: median hole
// 475 s, p10 91 s, p90 3,269 s), so the planner can prefer growing onto old holes, release young
// ones first and look ahead as far as the pool is likely to last. Learned online from what was
// seen, never from the future: elasticd feeds it from hostfile updates, elastic-replay from the
// trace's leave events up to the current instant.
//
// Hole lengths are kept in log-spaced bins (kBinsPerDecade per decade, 1 s to 1e8 s: about 12%
// wide) with their count and sum, so a query costs O(1) after an update of O(bins).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace elastic::alloc {

class HoleLifetime {
 public:
  static constexpr int kBinsPerDecade = 20;
  static constexpr int kBins = 8 * kBinsPerDecade;  // 1 s .. 1e8 s; shorter and longer ones clamp

  // A hole that ended after `length_s` seconds (its node left the pool). Non-finite or negative
  // lengths are ignored.
  void observe(double length_s);

  // Expected remaining idle seconds of a hole idle for `age_s` so far, over the holes that lasted
  // longer (those in the age's own bin count when their mean is longer). With no such hole:
  // `age_s` itself (a hole is as likely to last as long again), at least 1 s.
  double expected_residual(double age_s) const;

  std::int64_t holes() const { return holes_; }

  // The bins, for estimators that add holes still open (hole_survival.h): bin(length) is the bin
  // of a length, [bin_start(b), bin_start(b + 1)) its range (bin 0 starts at 0), ended(b) the
  // holes that ended with a length in bin b.
  static int bin(double length_s);
  static double bin_start(int b);
  double ended(int b) const { return count_[static_cast<std::size_t>(b)]; }

 private:
  std::array<double, kBins> count_{};
  std::array<double, kBins> sum_{};
  // Over bins b..kBins-1: holes and their total length (recomputed by observe).
  std::array<double, kBins + 1> count_above_{};
  std::array<double, kBins + 1> sum_above_{};
  std::int64_t holes_ = 0;
};

}  // namespace elastic::alloc
