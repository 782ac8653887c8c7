// `elastic feed trace`: a scheduler adapter that replays a recorded node-state trace (the per-node
// idle intervals of replay/interval_csv.h) into the hostfile, time-compressed, so the runtime can
// be shown and tested against a real machine's idle-node churn on one computer. It picks the K
// nodes of the trace that change state most often inside the chosen window and renames them
// node01..nodeK, the names `elastic up --fake-nodes K` uses.
//
// plan_trace_feed() is pure (trace in, sequence of hostfiles out) so the exact sequence can be
// tested; run_trace_feed() writes that sequence to a file on a wall clock.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "elastic/control/hostfile.h"
#include "elastic/traces/hole_trace.h"

namespace elastic::rt {

struct TraceFeedOptions {
  int nodes = 8;  // K, >= 1
  // The hosts the K chosen trace nodes become (e.g. a cluster in a box's h1..hK); when given, K is
  // their number. Empty: node01..nodeK, the labels of `elastic up --fake-nodes K`.
  std::vector<std::string> hosts;
  // Window start: an offset in seconds from the trace's start, or, when >= kUnixTimeThreshold, a
  // Unix time. nullopt = the trace's start.
  std::optional<double> start;
  // Window length in trace seconds; nullopt = to the end of the trace.
  std::optional<double> duration;
  int slots = 1;  // slots per node in the hostfile (a node-state trace has no CPU counts)
};

// --start values at or above this are Unix times (2001-09-09), smaller ones offsets.
inline constexpr double kUnixTimeThreshold = 1e9;

// One version of the hostfile: the idle nodes from `offset_s` (trace seconds after the window's
// start) until the next step. Step 0 (offset 0) is the pool at the window's start.
struct TraceStep {
  double offset_s = 0;
  std::vector<HostEntry> hosts;     // sorted by name
  std::vector<std::string> joined;  // became idle at this instant (renamed)
  std::vector<std::string> left;    // were reclaimed by the scheduler at this instant (renamed)
};

struct TraceFeedPlan {
  double window_start = 0;  // Unix seconds
  double window_end = 0;
  // The chosen trace nodes: names[i] is the trace's name of node(i+1), changes[i] its number of
  // idle/busy changes inside the window. Ordered by changes (most first), then by idle seconds
  // in the window (most first), then by trace name: deterministic for a given trace and window.
  std::vector<std::string> trace_names;
  std::vector<std::string> names;  // node01..nodeK (zero-padded like fake_nodes())
  std::vector<int> changes;
  std::vector<TraceStep> steps;  // steps[0] is the initial pool; then one per change instant
};

// InvalidArgument for K < 1, slots < 1, a trace with fewer than K nodes, or a window outside
// the trace (message names the option). `trace` is copied and clipped, not changed.
absl::StatusOr<TraceFeedPlan> plan_trace_feed(const traces::HoleTrace& trace,
                                              const TraceFeedOptions& options);

// Writes plan.steps to `hostfile` (atomically), step i at wall time t0 + offset_s / speed, then
// waits until the window's end (scaled) and returns. `on_step` runs right after each write (for
// printing; tests read the file there). `speed` = trace seconds per wall second, > 0.
absl::Status run_trace_feed(const TraceFeedPlan& plan, const std::filesystem::path& hostfile,
                            double speed,
                            const std::function<void(const TraceStep&, double wall_s)>& on_step);

}  // namespace elastic::rt
