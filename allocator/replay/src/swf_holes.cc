#include "elastic/replay/swf_holes.h"

#include <algorithm>
#include <limits>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "elastic/allocator/input_limits.h"
#include "elastic/replay/easy_backfill.h"

namespace elastic::replay {

traces::HoleTrace holes_from_busy(std::span<const BusyPeriod> busy, int capacity, double start,
                                  double end) {
  traces::HoleTrace trace;
  const int width = std::max<int>(4, static_cast<int>(absl::StrCat(capacity - 1).size()));
  trace.node_names.reserve(capacity);
  for (int i = 0; i < capacity; ++i)
    trace.node_names.push_back(absl::StrFormat("node%0*d", width, i));
  trace.start = start;
  trace.end = end;

  // (time, 0 = end / 1 = start, job): at one instant jobs end before others start, so a node
  // handed straight from one job to the next has no hole.
  struct Event {
    double time;
    int is_start;
    std::size_t job;
  };
  std::vector<Event> events;
  events.reserve(2 * busy.size());
  for (std::size_t j = 0; j < busy.size(); ++j) {
    if (!(busy[j].end > busy[j].start) || busy[j].nodes <= 0) continue;
    events.push_back({busy[j].start, 1, j});
    events.push_back({busy[j].end, 0, j});
  }
  std::sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
    if (a.time != b.time) return a.time < b.time;
    if (a.is_start != b.is_start) return a.is_start < b.is_start;
    return a.job < b.job;
  });

  std::set<int> free;
  for (int i = 0; i < capacity; ++i) free.insert(free.end(), i);
  std::vector<double> idle_since(capacity, start);
  std::vector<std::vector<int>> held(busy.size());
  auto emit = [&](int node, double until, bool censored) {
    const double from = std::max(idle_since[node], start);
    const double to = std::min(until, end);
    if (to > from) trace.intervals.push_back({node, from, to, censored});
  };
  for (const Event& e : events) {
    if (e.time >= end) break;
    if (e.is_start == 0) {
      for (int node : held[e.job]) {
        free.insert(node);
        idle_since[node] = e.time;
      }
      held[e.job].clear();
      held[e.job].shrink_to_fit();
      continue;
    }
    int need = busy[e.job].nodes;
    if (need > capacity) {
      need = capacity;
      ++trace.stats.clipped_jobs;
    }
    if (need > static_cast<int>(free.size())) {
      need = static_cast<int>(free.size());
      ++trace.stats.oversubscribed_jobs;
    }
    held[e.job].reserve(need);
    for (int k = 0; k < need; ++k) {
      const int node = *free.begin();
      free.erase(free.begin());
      emit(node, e.time, false);
      held[e.job].push_back(node);
    }
  }
  for (int node : free) emit(node, end, true);
  std::sort(trace.intervals.begin(), trace.intervals.end(),
            [](const traces::IdleInterval& a, const traces::IdleInterval& b) {
              return a.node != b.node ? a.node < b.node : a.start < b.start;
            });
  return trace;
}

absl::StatusOr<traces::HoleTrace> holes_from_swf(const traces::SwfLog& log,
                                                 const SwfHoleOptions& options) {
  const int capacity = options.capacity > 0 ? options.capacity : log.max_nodes;
  if (capacity <= 0) {
    return absl::InvalidArgumentError(
        "SWF log: no capacity (no MaxNodes/MaxProcs header); pass --capacity");
  }
  // One name and one idle interval per node are allocated below.
  if (capacity > alloc::kMaxNodes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--capacity: ", capacity, " nodes, more than the limit of ", alloc::kMaxNodes));
  }
  traces::InputStats stats = log.stats;
  std::vector<const traces::SwfJob*> usable;
  bool all_waits = true;
  for (const traces::SwfJob& job : log.jobs) {
    if (job.nodes <= 0 || job.run <= 0) {
      ++stats.ignored_jobs;
      continue;
    }
    usable.push_back(&job);
    all_waits = all_waits && job.wait >= 0;
  }
  if (usable.empty()) {
    return absl::InvalidArgumentError(
        "SWF log: empty trace: no job has both a size and a run time");
  }
  SwfSchedule schedule = options.schedule;
  if (schedule == SwfSchedule::kAuto)
    schedule = all_waits ? SwfSchedule::kRecorded : SwfSchedule::kEasy;

  std::vector<BusyPeriod> busy;
  busy.reserve(usable.size());
  std::int64_t clipped = 0;
  if (schedule == SwfSchedule::kRecorded) {
    for (const traces::SwfJob* job : usable) {
      if (job->wait < 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            "SWF log: job ", job->id, " has no wait time; use the EASY re-simulation"));
      }
      busy.push_back({job->submit + job->wait, job->submit + job->wait + job->run, job->nodes});
    }
  } else {
    std::vector<BatchJob> batch;
    batch.reserve(usable.size());
    for (const traces::SwfJob* job : usable) {
      int nodes = job->nodes;
      if (nodes > capacity) {
        nodes = capacity;  // would never start otherwise
        ++clipped;
      }
      batch.push_back(
          {job->submit, job->run, job->requested_time > 0 ? job->requested_time : job->run, nodes});
    }
    const std::vector<double> starts = easy_backfill(batch, capacity);
    for (std::size_t j = 0; j < batch.size(); ++j) {
      busy.push_back({starts[j], starts[j] + batch[j].run, batch[j].nodes});
    }
  }
  double start = std::numeric_limits<double>::infinity(), end = -start;
  for (const traces::SwfJob* job : usable) start = std::min(start, job->submit);
  for (const BusyPeriod& b : busy) end = std::max(end, b.end);
  traces::HoleTrace trace = holes_from_busy(busy, capacity, start, end);
  trace.stats.skipped_lines = stats.skipped_lines;
  trace.stats.ignored_jobs = stats.ignored_jobs;
  trace.stats.clipped_jobs += clipped;
  return trace;
}

}  // namespace elastic::replay
