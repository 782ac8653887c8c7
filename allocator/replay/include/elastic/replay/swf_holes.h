// Idle-node holes from an SWF log: the busy nodes over time come from the recorded schedule
// (start = submit + wait) or, for logs without wait times, from an FCFS + EASY re-simulation; the
// idle nodes are capacity minus busy. SWF has no node names, so nodes are named node0000.. and a
// starting job takes the lowest-numbered free nodes (deterministic).
#pragma once

#include <span>

#include "absl/status/statusor.h"
#include "elastic/traces/hole_trace.h"
#include "elastic/traces/swf_log.h"

namespace elastic::replay {

enum class SwfSchedule {
  kAuto,      // recorded when every job has a wait time, else EASY
  kRecorded,  // start = submit + wait
  kEasy,      // FCFS + EASY backfill on requested times
};

struct SwfHoleOptions {
  int capacity = 0;  // 0: the header's MaxNodes
  SwfSchedule schedule = SwfSchedule::kAuto;
};

// One job's occupation of the machine.
struct BusyPeriod {
  double start = 0.0;
  double end = 0.0;
  int nodes = 0;
};

// Idle intervals of `capacity` synthesised nodes over [start, end] given the busy periods. Jobs
// larger than the capacity are cut to it (stats.clipped_jobs); a job that finds fewer free nodes
// than it needs takes what is free (stats.oversubscribed_jobs).
traces::HoleTrace holes_from_busy(std::span<const BusyPeriod> busy, int capacity, double start,
                                  double end);

// InvalidArgument when there is no capacity or no usable job.
absl::StatusOr<traces::HoleTrace> holes_from_swf(const traces::SwfLog& log,
                                                 const SwfHoleOptions& options);

}  // namespace elastic::replay
