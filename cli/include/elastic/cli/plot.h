// What the commands' plots share (elastic-replay's, `elastic timeline`'s): gnuplot run as a
// subprocess on a generated script, and the rectangles of a stacked nodes-per-job chart.
#pragma once

#include <algorithm>
#include <filesystem>
#include <iterator>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fmt/format.h"

namespace elastic::cli {

// A gnuplot string literal: single quotes, a quote doubled.
std::string gnuplot_quoted(std::string_view s);

// Writes `script` to dir/plots.gp and runs gnuplot on it, its output into dir/gnuplot.log.
// Returns a warning text, "" when the plots were drawn (the script is kept beside its data).
std::string run_gnuplot(const std::filesystem::path& dir, const std::string& script);

// One line per (job, span over which the job's place in the stack stays the same):
// "from to nodes_low nodes_high job", times in units of `unit_s` since `start`; jobs are stacked
// in the order of their index. `rows` are the steps of the allocation, in time order, each with
// `.time` and `.counts` (pairs of job index and nodes, from that time on); the last span ends at
// `end`. Plotted with gnuplot's boxxyerror.
template <class Row>
std::string stacked_rects(const std::vector<Row>& rows, double start, double end, double unit_s) {
  struct Open {
    double from;
    int lo, hi;
  };
  std::map<int, Open> open;  // job -> its rectangle still growing to the right
  std::string out = "# from to nodes_low nodes_high job\n";
  auto close = [&](int job, const Open& r, double to) {
    if (to > r.from) {
      fmt::format_to(std::back_inserter(out), "{:.5f} {:.5f} {} {} {}\n", (r.from - start) / unit_s,
                     (to - start) / unit_s, r.lo, r.hi, job);
    }
  };
  for (const Row& row : rows) {
    std::vector<std::pair<int, int>> counts(row.counts.begin(), row.counts.end());
    std::sort(counts.begin(), counts.end());
    std::map<int, Open> now;
    int cum = 0;
    for (auto [job, n] : counts) {
      if (n <= 0) continue;
      now[job] = {row.time, cum, cum + n};
      cum += n;
    }
    for (auto it = open.begin(); it != open.end();) {
      auto next = now.find(it->first);
      if (next != now.end() && next->second.lo == it->second.lo &&
          next->second.hi == it->second.hi) {
        now.erase(next);  // unchanged: keep growing
        ++it;
        continue;
      }
      close(it->first, it->second, row.time);
      it = open.erase(it);
    }
    for (auto& [job, r] : now) open[job] = r;
  }
  for (auto& [job, r] : open) close(job, r, end);
  return out;
}

}  // namespace elastic::cli
