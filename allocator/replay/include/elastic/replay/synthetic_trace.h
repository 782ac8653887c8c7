// A synthetic idle-node trace for machines larger than the logs we have (the replay's scale
// benchmark: 50,000 nodes, 30 days). Each node alternates busy and idle periods independently;
// hole lengths follow a two-piece log-normal fitted to the quantiles of the Summit holes
// (hole_lifetime.h: median 475 s, p10 91 s, p90 3,269 s), busy periods are exponential with the
// mean that gives the requested mean idle fraction, and every instant lies on a grid (Summit's
// states were sampled every ~10 s, so nodes join and leave in batches). Deterministic: the same
// options give the same trace on every platform (own generator and distributions, no <random>
// distributions, whose output the standard leaves to the library).
#pragma once

#include <cstdint>

#include "absl/status/statusor.h"
#include "elastic/traces/hole_trace.h"

namespace elastic::replay {

struct SyntheticTraceOptions {
  int nodes = 50'000;
  double days = 30.0;
  double idle_fraction = 0.036;  // mean idle pool / nodes (the Summit slice: 3.6%)
  double hole_p10_s = 91.0;
  double hole_median_s = 475.0;
  double hole_p90_s = 3269.0;
  double grid_s = 10.0;  // every join and leave instant is a multiple of this after the start
  double start_unix = 1612960744.0;  // the Summit slice's first instant
  std::uint64_t seed = 1;
};

// Node names "n00000", "n00001", ... (natural order = index order). Holes still open at the end
// are censored. InvalidArgument for sizes out of range (nodes in [1, kMaxNodes], a span of whole
// grid steps > 0, 0 < idle_fraction < 1, p10 < median < p90) or more than kMaxTraceIntervals holes.
absl::StatusOr<traces::HoleTrace> synthetic_trace(const SyntheticTraceOptions& options);

}  // namespace elastic::replay
