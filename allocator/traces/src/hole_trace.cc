#include "elastic/traces/hole_trace.h"

#include <algorithm>
#include <map>

#include "absl/strings/str_cat.h"

namespace elastic::traces {

std::vector<NodeBatch> node_batches(const HoleTrace& trace) {
  // An ordered map keeps batches sorted without a separate sort of ~10^5 events.
  std::map<double, NodeBatch> by_time;
  for (const IdleInterval& iv : trace.intervals) {
    NodeBatch& join = by_time[iv.start];
    join.time = iv.start;
    join.joins.push_back(iv.node);
    // A hole that ends before the trace does leaves then, censored or not: past its end the
    // node was not seen idle (censored says only that the hole's length is a lower bound).
    if (iv.end < trace.end) {
      NodeBatch& leave = by_time[iv.end];
      leave.time = iv.end;
      leave.leaves.push_back(iv.node);
    }
  }
  std::vector<NodeBatch> out;
  out.reserve(by_time.size());
  for (auto& [time, batch] : by_time) {
    std::sort(batch.joins.begin(), batch.joins.end());
    std::sort(batch.leaves.begin(), batch.leaves.end());
    out.push_back(std::move(batch));
  }
  return out;
}

absl::Status clip_to_window(HoleTrace& trace, std::optional<double> start,
                            std::optional<double> end) {
  const double lo = start.value_or(trace.start);
  const double hi = end.value_or(trace.end);
  if (!(lo < hi)) {
    return absl::InvalidArgumentError(
        absl::StrCat("window: --start (", lo, ") must be before --end (", hi, ")"));
  }
  if (hi <= trace.start || lo >= trace.end) {
    return absl::InvalidArgumentError(absl::StrCat("window [", lo, ", ", hi,
                                                   ") does not overlap the trace [", trace.start,
                                                   ", ", trace.end, ")"));
  }
  // The data says nothing outside [trace.start, trace.end): a window reaching past it is cut to it
  // (holes stretched to a later --end used to count node-seconds no one saw idle).
  const double from = std::max(lo, trace.start);
  const double to = std::min(hi, trace.end);
  std::vector<IdleInterval> kept;
  kept.reserve(trace.intervals.size());
  for (IdleInterval iv : trace.intervals) {
    if (iv.end <= from || iv.start >= to) continue;
    iv.start = std::max(iv.start, from);
    if (iv.end >= to) {
      // Still idle at the window's end: the hole is open there.
      iv.censored = iv.censored || iv.end > to;
      iv.end = to;
    }
    kept.push_back(iv);
  }
  trace.intervals = std::move(kept);
  trace.start = from;
  trace.end = to;
  return absl::OkStatus();
}

absl::Status normalise(HoleTrace& trace) {
  auto& ivs = trace.intervals;
  std::stable_sort(ivs.begin(), ivs.end(), [](const IdleInterval& a, const IdleInterval& b) {
    return a.node != b.node ? a.node < b.node : a.start < b.start;
  });
  std::vector<IdleInterval> merged;
  merged.reserve(ivs.size());
  for (const IdleInterval& iv : ivs) {
    if (!(iv.end > iv.start)) {
      return absl::InvalidArgumentError(absl::StrCat("node ", trace.node_names[iv.node],
                                                     ": interval ends (", iv.end,
                                                     ") before it starts (", iv.start, ")"));
    }
    if (!merged.empty() && merged.back().node == iv.node && iv.start <= merged.back().end) {
      if (iv.start < merged.back().end) {
        return absl::InvalidArgumentError(absl::StrCat(
            "node ", trace.node_names[iv.node], ": times go backwards: interval [", iv.start, ", ",
            iv.end, ") overlaps [", merged.back().start, ", ", merged.back().end, ")"));
      }
      merged.back().end = iv.end;  // touching: one hole
      merged.back().censored = iv.censored;
      continue;
    }
    merged.push_back(iv);
  }
  ivs = std::move(merged);
  return absl::OkStatus();
}

double hole_node_seconds(const HoleTrace& trace) {
  double sum = 0.0;
  for (const IdleInterval& iv : trace.intervals) sum += iv.end - iv.start;
  return sum;
}

}  // namespace elastic::traces
