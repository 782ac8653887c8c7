// First-come-first-served scheduling with EASY backfilling (Lifka 1995), used to rebuild a
// schedule from a log that has no wait times. Decisions use the requested (estimated) run times;
// jobs actually end after their real run time.
#pragma once

#include <span>
#include <vector>

namespace elastic::replay {

struct BatchJob {
  double submit = 0.0;
  double run = 0.0;       // actual run time
  double estimate = 0.0;  // requested time (>= run is typical; a smaller one is treated as run)
  int nodes = 1;          // 1 .. capacity
};

// Start time of each job (same order). Jobs are queued in submit order (ties: input order); the
// queue head starts as soon as it fits; when it does not, it gets a reservation at the earliest
// time enough nodes are estimated to be free, and later jobs may start now if they fit and do not
// delay that reservation (they end by it, or use only nodes the head will not need).
std::vector<double> easy_backfill(std::span<const BatchJob> jobs, int capacity);

}  // namespace elastic::replay
