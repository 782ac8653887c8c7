#include "elastic/replay/report.h"

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "elastic/cli/plot.h"
#include "fmt/format.h"

namespace elastic::replay {
namespace {

namespace fs = std::filesystem;

absl::Status write_file(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  out.close();
  if (!out) return absl::UnavailableError(absl::StrCat("cannot write ", path.string()));
  return absl::OkStatus();
}

std::string timeline_csv(const std::vector<traces::WorkloadJob>& workload,
                         const ReplayResult& result, double start) {
  std::string out =
      "time_unix,time_s,idle_nodes,allocated_nodes,running_jobs,queued_jobs,job_counts\n";
  for (const TimelineRow& row : result.timeline) {
    fmt::format_to(std::back_inserter(out), "{:.0f},{:.0f},{},{},{},{},", row.time,
                   row.time - start, row.idle, row.allocated, row.running, row.queued);
    for (std::size_t i = 0; i < row.counts.size(); ++i) {
      fmt::format_to(std::back_inserter(out), "{}{}:{}", i == 0 ? "" : ";",
                     workload[row.counts[i].first].id, row.counts[i].second);
    }
    out += '\n';
  }
  return out;
}

std::string hours_csv(const ReplayResult& result) {
  std::string out =
      "hour,idle_node_h,allocated_node_h,utilization,ideal_samples,samples,elastic_efficiency,"
      "lost_start,lost_grow,lost_shrink,lost_preemption,node_grants\n";
  const auto ratio = [](double a, double b) { return b > 0 ? fmt::format("{:.6f}", a / b) : ""; };
  for (std::size_t k = 0; k < result.hours.size(); ++k) {
    const HourTotals& h = result.hours[k];
    double lost = 0.0;
    for (double x : h.lost_samples) lost += x;
    const double samples = h.ideal_samples - lost;
    fmt::format_to(std::back_inserter(out), "{},{:.3f},{:.3f},{},{:.9g},{:.9g},{},", k,
                   h.hole_node_s / 3600, h.allocated_node_s / 3600,
                   ratio(h.allocated_node_s, h.hole_node_s), h.ideal_samples, samples,
                   ratio(samples, h.ideal_samples));
    for (double x : h.lost_samples) fmt::format_to(std::back_inserter(out), "{:.9g},", x);
    fmt::format_to(std::back_inserter(out), "{}\n", h.node_grants);
  }
  return out;
}

std::string hole_cdf(const traces::HoleTrace& trace) {
  std::vector<double> lengths;
  lengths.reserve(trace.intervals.size());
  for (const traces::IdleInterval& iv : trace.intervals) lengths.push_back(iv.end - iv.start);
  std::sort(lengths.begin(), lengths.end());
  std::string out = "# hole_length_s fraction_of_holes_not_longer\n";
  const std::size_t n = lengths.size();
  const std::size_t step = std::max<std::size_t>(1, n / 5000);  // enough points for a smooth curve
  for (std::size_t i = 0; i < n; i += step) {
    fmt::format_to(std::back_inserter(out), "{} {:.6f}\n", lengths[i],
                   static_cast<double>(i + 1) / static_cast<double>(n));
  }
  if (n > 0) fmt::format_to(std::back_inserter(out), "{} 1\n", lengths.back());
  return out;
}

}  // namespace

absl::Status write_outputs(const std::string& dir, const traces::HoleTrace& trace,
                           const std::vector<traces::WorkloadJob>& workload,
                           const ReplayResult& result) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return absl::UnavailableError(absl::StrCat("cannot create ", dir, ": ", ec.message()));
  const fs::path d(dir);
  if (auto s = write_file(d / "metrics.json", to_json(result.metrics).dump(2) + "\n"); !s.ok())
    return s;
  if (auto s = write_file(d / "timeline.csv", timeline_csv(workload, result, trace.start)); !s.ok())
    return s;
  if (auto s = write_file(d / "hours.csv", hours_csv(result)); !s.ok()) return s;
  if (auto s = write_file(d / "allocation_rects.dat",
                          cli::stacked_rects(result.timeline, trace.start, trace.end, 3600));
      !s.ok())
    return s;
  return write_file(d / "hole_cdf.dat", hole_cdf(trace));
}

std::string write_plots(const std::string& dir) {
  return cli::run_gnuplot(dir, R"(set datafile separator ','
set grid
set xlabel 'hours since trace start'
do for [t in 'pngcairo svg'] {
  ext = (t eq 'svg') ? 'svg' : 'png'
  if (t eq 'svg') { set terminal svg size 1000,500 } else { set terminal pngcairo size 1000,500 }
  set output 'idle_vs_allocated.'.ext
  set title 'Idle nodes and nodes allocated to training jobs'
  set ylabel 'nodes'
  set datafile separator ','
  set logscale x; unset logscale x
  set xlabel 'hours since trace start'
  plot 'timeline.csv' skip 1 using ($2/3600):3 with steps lw 1 title 'idle', \
       '' skip 1 using ($2/3600):4 with steps lw 1 title 'allocated'
  set output 'efficiency_by_hour.'.ext
  set title 'Per hour of the trace: elastic efficiency, utilisation, and node grants (each pays a grow stall)'
  set ylabel 'fraction'
  set y2label 'node grants in the hour'
  set ytics nomirror
  set y2tics
  set key below horizontal
  set bmargin 5
  plot 'hours.csv' skip 1 using ($1+0.5):12 axes x1y2 with impulses lw 4 lc rgb '#bbbbbb' title 'node grants', \
       '' skip 1 using ($1+0.5):4 with linespoints lw 1 pt 7 ps 0.5 lc rgb '#009e73' title 'utilisation', \
       '' skip 1 using ($1+0.5):7 with linespoints lw 2 pt 7 ps 0.6 lc rgb '#9400d3' title 'elastic efficiency'
  set key default
  unset bmargin
  unset y2tics
  unset y2label
  set ytics mirror
  set output 'allocation_stacked.'.ext
  set title 'Nodes per job (stacked; colour = job id mod 64)'
  set datafile separator whitespace
  set palette model HSV defined (0 0 0.7 0.9, 1 1 0.7 0.9)
  unset colorbox
  set cbrange [0:63]
  plot 'allocation_rects.dat' using (($1+$2)/2):(($3+$4)/2):1:2:3:4:(int($5) % 64) \
       with boxxyerror fs solid 1.0 noborder lc palette notitle
  set output 'hole_cdf.'.ext
  set title 'CDF of hole (idle interval) lengths'
  set xlabel 'hole length (s)'
  set ylabel 'fraction of holes'
  set logscale x
  plot 'hole_cdf.dat' using 1:2 with lines lw 2 notitle
  unset logscale x
  set xlabel 'hours since trace start'
  set datafile separator ','
  set output
}
)");
}

std::string summary_table(const std::vector<const Metrics*>& results) {
  struct Row {
    const char* name;
    std::string (*get)(const Metrics&);
  };
  static const Row kRows[] = {
      {"hole node-hours",
       [](const Metrics& m) { return fmt::format("{:.0f}", m.hole_node_s / 3600); }},
      {"allocated node-hours",
       [](const Metrics& m) { return fmt::format("{:.0f}", m.allocated_node_s / 3600); }},
      {"utilization", [](const Metrics& m) { return fmt::format("{:.4f}", m.utilization); }},
      {"ideal samples", [](const Metrics& m) { return fmt::format("{:.4g}", m.ideal_samples); }},
      {"samples", [](const Metrics& m) { return fmt::format("{:.4g}", m.samples); }},
      {"learned reports (replans)",
       [](const Metrics& m) { return fmt::format("{} ({})", m.reports, m.learned_replans); }},
      {"elastic efficiency",
       [](const Metrics& m) { return fmt::format("{:.4f}", m.elastic_efficiency); }},
      {"lost %: start/grow/shr/pre",
       [](const Metrics& m) {
         const double ideal = m.ideal_samples > 0 ? m.ideal_samples : 1.0;
         const auto& lost = m.lost_samples;
         return fmt::format("{:.2f}/{:.2f}/{:.2f}/{:.2f}", 100 * lost[0] / ideal,
                            100 * lost[1] / ideal, 100 * lost[2] / ideal, 100 * lost[3] / ideal);
       }},
      {"scaling efficiency",
       [](const Metrics& m) { return fmt::format("{:.4f}", m.scaling_efficiency); }},
      {"jobs submitted", [](const Metrics& m) { return fmt::format("{}", m.jobs_submitted); }},
      {"jobs finished", [](const Metrics& m) { return fmt::format("{}", m.jobs_finished); }},
      {"rescales", [](const Metrics& m) { return fmt::format("{}", m.rescales); }},
      {"preemptions", [](const Metrics& m) { return fmt::format("{}", m.preemptions); }},
      {"node grants (finishes)",
       [](const Metrics& m) {
         return fmt::format("{} ({})", m.node_grants, m.nodes_freed_by_finishes);
       }},
      {"solves (skipped)",
       [](const Metrics& m) { return fmt::format("{} ({})", m.solves, m.solves_skipped); }},
      {"solve ms p50/p99/max",
       [](const Metrics& m) {
         return fmt::format("{:.2f}/{:.2f}/{:.1f}", m.solve_ms_p50, m.solve_ms_p99, m.solve_ms_max);
       }},
      {"JCT h p50/p99",
       [](const Metrics& m) {
         return fmt::format("{:.2f}/{:.2f}", m.jct_s_p50 / 3600, m.jct_s_p99 / 3600);
       }},
      {"replay wall s", [](const Metrics& m) { return fmt::format("{:.2f}", m.wall_s); }},
  };
  std::string out = fmt::format("{:<26}", "metric");
  for (const Metrics* m : results) out += fmt::format(" {:>20}", m->policy);
  out += '\n';
  for (const Row& row : kRows) {
    out += fmt::format("{:<26}", row.name);
    for (const Metrics* m : results) out += fmt::format(" {:>20}", row.get(*m));
    out += '\n';
  }
  if (results.size() > 1 && results.front()->samples > 0) {
    out += fmt::format("{:<26}", "samples / first");
    for (const Metrics* m : results) {
      out += fmt::format(" {:>20}", fmt::format("{:.4f}", m->samples / results.front()->samples));
    }
    out += '\n';
  }
  return out;
}

}  // namespace elastic::replay
