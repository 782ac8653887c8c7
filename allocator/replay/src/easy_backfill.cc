#include "elastic/replay/easy_backfill.h"

#include <algorithm>
#include <deque>
#include <functional>
#include <limits>
#include <numeric>
#include <queue>

namespace elastic::replay {
namespace {

struct Running {
  double estimated_end;
  int nodes;
};

}  // namespace

std::vector<double> easy_backfill(std::span<const BatchJob> jobs, int capacity) {
  const std::size_t n = jobs.size();
  std::vector<double> start(n, -1.0);
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return jobs[a].submit < jobs[b].submit; });

  using Completion = std::pair<double, std::size_t>;  // (actual end, job)
  std::priority_queue<Completion, std::vector<Completion>, std::greater<>> completions;
  std::vector<Running> running_of(n);
  std::vector<std::size_t> running;  // jobs now running
  std::deque<std::size_t> queue;
  int free = capacity;
  std::size_t next_arrival = 0;

  auto estimate = [&](std::size_t j) { return std::max(jobs[j].estimate, jobs[j].run); };
  auto launch = [&](std::size_t j, double t) {
    start[j] = t;
    free -= jobs[j].nodes;
    running_of[j] = {t + estimate(j), jobs[j].nodes};
    running.push_back(j);
    completions.push({t + jobs[j].run, j});
  };

  while (next_arrival < n || !completions.empty()) {
    const double t_arrival = next_arrival < n ? jobs[order[next_arrival]].submit
                                              : std::numeric_limits<double>::infinity();
    const double t_done =
        completions.empty() ? std::numeric_limits<double>::infinity() : completions.top().first;
    const double t = std::min(t_arrival, t_done);
    while (!completions.empty() && completions.top().first <= t) {
      const std::size_t j = completions.top().second;
      completions.pop();
      free += jobs[j].nodes;
      running.erase(std::find(running.begin(), running.end(), j));
    }
    while (next_arrival < n && jobs[order[next_arrival]].submit <= t) {
      queue.push_back(order[next_arrival++]);
    }
    // FCFS: start the head while it fits.
    while (!queue.empty() && jobs[queue.front()].nodes <= free) {
      launch(queue.front(), t);
      queue.pop_front();
    }
    if (queue.empty()) continue;
    // The head waits: reserve the earliest instant enough nodes are estimated to be free.
    const int need = jobs[queue.front()].nodes;
    std::vector<Running> by_end;
    by_end.reserve(running.size());
    for (std::size_t j : running) by_end.push_back(running_of[j]);
    std::sort(by_end.begin(), by_end.end(),
              [](const Running& a, const Running& b) { return a.estimated_end < b.estimated_end; });
    int avail = free;
    double shadow = t;
    for (const Running& r : by_end) {
      avail += r.nodes;
      shadow = std::max(t, r.estimated_end);  // an overrunning job may end any moment
      if (avail >= need) break;
    }
    int extra = avail - need;  // nodes the head will not need at the shadow time
    // Backfill: later jobs that fit now and do not delay the reservation.
    for (auto it = std::next(queue.begin()); it != queue.end() && free > 0;) {
      const std::size_t j = *it;
      const bool fits = jobs[j].nodes <= free;
      const bool ends_in_time = t + estimate(j) <= shadow;
      if (fits && (ends_in_time || jobs[j].nodes <= extra)) {
        if (!ends_in_time) extra -= jobs[j].nodes;
        launch(j, t);
        it = queue.erase(it);
      } else {
        ++it;
      }
    }
  }
  return start;
}

}  // namespace elastic::replay
