// Idle-node "holes": when each node of a machine was idle (free for libelastic to use). Built from
// a per-node interval CSV (interval_csv.h) or an SWF job log (swf_holes.h) and consumed by the
// replay as time-ordered batches of nodes joining and leaving the idle pool.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace elastic::traces {

struct IdleInterval {
  int node = 0;           // index into HoleTrace::node_names
  double start = 0.0;     // Unix seconds
  double end = 0.0;       // Unix seconds, > start
  bool censored = false;  // open: the node was still idle when the trace ended
};

// What the readers dropped or changed; reported in metrics.json so that nothing is silent.
struct InputStats {
  std::int64_t skipped_lines = 0;        // malformed lines skipped under --lenient
  std::int64_t clipped_jobs = 0;         // SWF jobs larger than the capacity, cut to it
  std::int64_t oversubscribed_jobs = 0;  // SWF jobs that found fewer free nodes than they used
  std::int64_t ignored_jobs = 0;         // SWF jobs without a size or a run time
};

struct HoleTrace {
  std::vector<std::string> node_names;
  std::vector<IdleInterval> intervals;  // sorted by (node, start), per node disjoint, not touching
  double start = 0.0;                   // the span the trace covers, Unix seconds
  double end = 0.0;
  InputStats stats;
};

// Nodes entering (joins) and leaving (leaves) the idle pool at one instant.
struct NodeBatch {
  double time = 0.0;
  std::vector<int> joins;
  std::vector<int> leaves;
};

// The batches in time order. An interval leaves at its end unless that is trace.end (still idle
// when the trace ends); intervals are assumed clipped to [trace.start, trace.end].
std::vector<NodeBatch> node_batches(const HoleTrace& trace);

// Keeps [start, end) of the trace, cut to the trace's own [start, end): intervals are cut to the
// window and those still open at its end become censored. InvalidArgument when the window is empty
// or outside the trace.
absl::Status clip_to_window(HoleTrace& trace, std::optional<double> start,
                            std::optional<double> end);

// Sorts intervals by (node, start) and merges touching ones. InvalidArgument naming the node when
// two intervals of one node overlap (times going backwards) or an interval ends before it starts.
absl::Status normalise(HoleTrace& trace);

// The node-seconds of idle time, and the lengths of all holes (for the CDF plot).
double hole_node_seconds(const HoleTrace& trace);

}  // namespace elastic::traces
