#include "elastic/control/feed_trace.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <numeric>
#include <thread>

#include "elastic/control/hostfile.h"
#include "elastic/control/up_command.h"
#include "fmt/format.h"

namespace elastic::rt {
namespace {

struct Change {
  std::vector<int> joins;  // ranks of the chosen nodes (0 = node01)
  std::vector<int> leaves;
};

}  // namespace

absl::StatusOr<TraceFeedPlan> plan_trace_feed(const traces::HoleTrace& trace,
                                              const TraceFeedOptions& options) {
  const int nodes = options.hosts.empty() ? options.nodes : static_cast<int>(options.hosts.size());
  if (nodes < 1) {
    return absl::InvalidArgumentError(fmt::format("--nodes: must be at least 1, not {}", nodes));
  }
  if (!options.hosts.empty()) {  // names as a hostfile takes them (one per line, no duplicates)
    std::string lines;
    for (const std::string& h : options.hosts) lines += h + "\n";
    if (absl::Status st = parse_hostfile(lines, "--hosts").status(); !st.ok()) return st;
  }
  if (options.slots < 1) {
    return absl::InvalidArgumentError(
        fmt::format("--slots: must be at least 1, not {}", options.slots));
  }
  if (static_cast<std::size_t>(nodes) > trace.node_names.size()) {
    return absl::InvalidArgumentError(fmt::format("--nodes: the trace has only {} node(s), not {}",
                                                  trace.node_names.size(), nodes));
  }
  double lo = trace.start;
  if (options.start) {
    const double s = *options.start;
    if (!std::isfinite(s) || s < 0) {
      return absl::InvalidArgumentError(
          fmt::format("--start: must be a non-negative number, not {}", s));
    }
    lo = s >= kUnixTimeThreshold ? s : trace.start + s;
  }
  if (lo < trace.start || lo >= trace.end) {
    // Printed as doubles: --start 1e300 is no long long (the cast was undefined and printed
    // -9223372036854775808).
    return absl::InvalidArgumentError(fmt::format(
        "--start: {:.15g} is outside the trace [{:.15g}, {:.15g}) (offsets count from the trace's "
        "start; it is {:.15g} s long)",
        lo, trace.start, trace.end, trace.end - trace.start));
  }
  double hi = trace.end;
  if (options.duration) {
    if (!std::isfinite(*options.duration) || *options.duration <= 0) {
      return absl::InvalidArgumentError(fmt::format(
          "--duration: must be a positive number of trace seconds, not {}", *options.duration));
    }
    hi = std::min(trace.end, lo + *options.duration);
  }
  traces::HoleTrace window = trace;
  if (absl::Status s = traces::clip_to_window(window, lo, hi); !s.ok()) return s;

  // Changes inside the window: a hole opening after its start, or closing before its end (a
  // censored hole never closes). The pool at the window's start is the initial state, not a
  // change.
  const std::size_t n = trace.node_names.size();
  std::vector<int> changes(n, 0);
  std::vector<double> idle_s(n, 0.0);
  for (const traces::IdleInterval& iv : window.intervals) {
    const auto i = static_cast<std::size_t>(iv.node);
    changes[i] += (iv.start > lo ? 1 : 0) + (!iv.censored && iv.end < hi ? 1 : 0);
    idle_s[i] += iv.end - iv.start;
  }
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (changes[a] != changes[b]) return changes[a] > changes[b];
    if (idle_s[a] != idle_s[b]) return idle_s[a] > idle_s[b];
    return trace.node_names[a] < trace.node_names[b];
  });
  const auto k = static_cast<std::size_t>(nodes);
  std::vector<int> rank_of(n, -1);
  TraceFeedPlan plan;
  plan.window_start = lo;
  plan.window_end = hi;
  if (options.hosts.empty()) {
    for (const HostEntry& h : fake_nodes(nodes, options.slots)) plan.names.push_back(h.name);
  } else {
    plan.names = options.hosts;
  }
  for (std::size_t r = 0; r < k; ++r) {
    rank_of[order[r]] = static_cast<int>(r);
    plan.trace_names.push_back(trace.node_names[order[r]]);
    plan.changes.push_back(changes[order[r]]);
  }

  std::vector<bool> idle(k, false);
  std::map<double, Change> timeline;
  for (const traces::IdleInterval& iv : window.intervals) {
    const int r = rank_of[static_cast<std::size_t>(iv.node)];
    if (r < 0) continue;
    if (iv.start > lo) {
      timeline[iv.start].joins.push_back(r);
    } else {
      idle[static_cast<std::size_t>(r)] = true;
    }
    if (!iv.censored && iv.end < hi) timeline[iv.end].leaves.push_back(r);
  }
  auto pool = [&] {
    std::vector<HostEntry> hosts;
    for (std::size_t r = 0; r < k; ++r) {
      if (idle[r]) hosts.push_back({plan.names[r], options.slots, std::nullopt});
    }
    return hosts;
  };
  TraceStep first;
  first.hosts = pool();
  for (const HostEntry& h : first.hosts) first.joined.push_back(h.name);
  plan.steps.push_back(std::move(first));
  for (auto& [time, change] : timeline) {
    TraceStep step;
    step.offset_s = time - lo;
    std::sort(change.leaves.begin(), change.leaves.end());
    std::sort(change.joins.begin(), change.joins.end());
    for (int r : change.leaves) {
      idle[static_cast<std::size_t>(r)] = false;
      step.left.push_back(plan.names[static_cast<std::size_t>(r)]);
    }
    for (int r : change.joins) {
      idle[static_cast<std::size_t>(r)] = true;
      step.joined.push_back(plan.names[static_cast<std::size_t>(r)]);
    }
    step.hosts = pool();
    plan.steps.push_back(std::move(step));
  }
  return plan;
}

absl::Status run_trace_feed(const TraceFeedPlan& plan, const std::filesystem::path& hostfile,
                            double speed,
                            const std::function<void(const TraceStep&, double wall_s)>& on_step) {
  if (!std::isfinite(speed) || speed <= 0) {
    return absl::InvalidArgumentError(
        fmt::format("--speed: must be a positive number, not {}", speed));
  }
  // Each step's wall time must fit Clock::duration (int64 ns); 1e7 s is elastic::cli::kMaxSeconds,
  // the bound `elastic feed trace` gives the message for.
  if (!((plan.window_end - plan.window_start) / speed <= 1e7)) {
    return absl::InvalidArgumentError(
        fmt::format("--speed: {} makes the window last more than 1e7 wall s", speed));
  }
  using Clock = std::chrono::steady_clock;
  const Clock::time_point t0 = Clock::now();
  auto at = [&](double trace_offset_s) {
    return t0 + std::chrono::duration_cast<Clock::duration>(
                    std::chrono::duration<double>(trace_offset_s / speed));
  };
  for (const TraceStep& step : plan.steps) {
    std::this_thread::sleep_until(at(step.offset_s));
    if (absl::Status s = write_hostfile(hostfile, step.hosts); !s.ok()) return s;
    if (on_step) on_step(step, std::chrono::duration<double>(Clock::now() - t0).count());
  }
  std::this_thread::sleep_until(at(plan.window_end - plan.window_start));
  return absl::OkStatus();
}

}  // namespace elastic::rt
