#include "elastic/control/timeline.h"

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <map>
#include <string_view>
#include <utility>

#include "elastic/cli/plot.h"
#include "elastic/control/atomic_file.h"
#include "elastic/control/event_log.h"
#include "elastic/control/job_spec.h"
#include "fmt/format.h"
#include "nlohmann/json.hpp"

namespace elastic::rt {
namespace {

namespace fs = std::filesystem;

// The log's files, oldest first: events.N.jsonl .. events.1.jsonl, events.jsonl.
std::vector<fs::path> log_files(const fs::path& path) {
  std::vector<fs::path> files;
  for (std::size_t n = 1; fs::exists(EventLog::rotated_path(path, n)); ++n) {
    files.push_back(EventLog::rotated_path(path, n));
  }
  std::reverse(files.begin(), files.end());
  files.push_back(path);
  return files;
}

class Reader {
 public:
  explicit Reader(Timeline& out) : out_(out) {}

  absl::Status file(const fs::path& path) {
    absl::StatusOr<std::string> text = read_file(path);
    if (!text.ok()) return text.status();
    std::string_view rest = *text;
    for (std::size_t line_no = 1; !rest.empty(); ++line_no) {
      const std::size_t nl = rest.find('\n');
      if (nl == std::string_view::npos) break;  // being written
      const std::string_view line = rest.substr(0, nl);
      rest.remove_prefix(nl + 1);
      if (std::string error = record(line); !error.empty()) {
        return absl::InvalidArgumentError(fmt::format("{}:{}: {}", path.string(), line_no, error));
      }
    }
    return absl::OkStatus();
  }

 private:
  // Applies one line; returns what is wrong with it ("" when nothing).
  std::string record(std::string_view line) {
    const nlohmann::json r = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!r.is_object()) return "not a JSON object";
    if (!r.contains("t") || !r["t"].is_number()) return "no number \"t\" (the event's time)";
    if (!r.contains("event") || !r["event"].is_string()) return "no string \"event\"";
    const double t = r["t"].get<double>();
    const std::string event = r["event"].get<std::string>();
    if (out_.events++ == 0) out_.start = t;
    out_.end = std::max(out_.end, t);
    if (event == "hostfile") {
      if (!r.contains("pool")) return "hostfile: no count \"pool\"";
      if (std::string error = set_pool(r, event); !error.empty()) return error;
    } else if (event == "daemon_started" || event == "daemon_stopped") {
      held_.clear();
      // A stopped runtime uses no node; a starting one the hostfile's (logs before 2026-12-07
      // do not say how many: 0 until the next update).
      granted_ = 0;
      if (event == "daemon_started" && r.contains("pool")) {
        if (std::string error = set_pool(r, event); !error.empty()) return error;
      }
    } else {
      if (event == "node_lost") {
        if (!r.contains("node") || !r["node"].is_string()) return "node_lost: no string \"node\"";
        out_.nodes_lost.emplace_back(t, r["node"].get<std::string>());
      }
      const bool sets_nodes = event == "job_started" || event == "job_grown" ||
                              event == "job_shrunk" || event == "job_recovered";
      const bool clears = event == "job_requeued" || event == "job_finished" ||
                          event == "job_failed" || event == "job_cancelled";
      if (!sets_nodes && !clears) return "";
      if (!r.contains("job") || !r["job"].is_string()) return event + ": no string \"job\"";
      const std::string id = r["job"].get<std::string>();
      if (absl::Status valid = validate_job_id(id); !valid.ok()) {
        return fmt::format("{}: \"job\": {}", event, std::string(valid.message()));
      }
      const int job = index(id);
      if (clears) {
        held_.erase(job);
      } else {
        if (!r.contains("nodes") || !r["nodes"].is_array()) return event + ": no list \"nodes\"";
        held_[job] = static_cast<int>(r["nodes"].size());
      }
    }
    step(t);
    return "";
  }

  // The pool the record names; returns what is wrong with it ("" when nothing).
  std::string set_pool(const nlohmann::json& r, const std::string& event) {
    const nlohmann::json& pool = r["pool"];
    if (!pool.is_number_unsigned() || !std::in_range<int>(pool.get<std::uint64_t>())) {
      return event + ": \"pool\" is not a count of nodes";
    }
    granted_ = pool.get<int>();
    return "";
  }

  int index(const std::string& id) {
    auto [it, added] = ids_.emplace(id, static_cast<int>(out_.jobs.size()));
    if (added) out_.jobs.push_back(id);
    return it->second;
  }

  void step(double t) {
    TimelineStep s{t, granted_, {}};
    for (auto [job, n] : held_) {
      if (n > 0) s.counts.emplace_back(job, n);
    }
    out_.steps.push_back(std::move(s));
  }

  Timeline& out_;
  std::map<std::string, int> ids_;
  std::map<int, int> held_;  // job index -> nodes
  int granted_ = 0;
};

int granted_at(const Timeline& t, double time) {
  int granted = 0;
  for (const TimelineStep& s : t.steps) {
    if (s.time > time) break;
    granted = s.granted;
  }
  return granted;
}

constexpr std::size_t kNamedJobs = 16;  // legend entries; more jobs share the 8 colours unnamed

std::string plot_script(const Timeline& t, const char* unit) {
  std::string s = fmt::format(R"(set terminal pngcairo size 1100,550
set output 'timeline.png'
set title 'What the runtime did: nodes per job (stacked), nodes granted, nodes lost'
set xlabel '{} since the first event'
set ylabel 'nodes'
set grid
set key outside right top
set xrange [0:*]
set yrange [0:*]
plot 'timeline_rects.dat' using (($1+$2)/2):(($3+$4)/2):1:2:3:4:(int($5) % 8 + 1) \
       with boxxyerror fs solid 0.85 noborder lc variable notitle, \
     'timeline_granted.dat' using 1:2 with steps lw 2 lc rgb 'black' title 'nodes granted', \
     'timeline_lost.dat' using 1:2 with points pt 7 ps 1.2 lc rgb 'red' title 'node lost')",
                              unit);
  for (std::size_t k = 0; k < t.jobs.size() && k < kNamedJobs; ++k) {
    fmt::format_to(std::back_inserter(s), ", \\\n     NaN with boxes fs solid 0.85 lc {} title {}",
                   k % 8 + 1, cli::gnuplot_quoted(t.jobs[k]));
  }
  if (t.jobs.size() > kNamedJobs) {
    fmt::format_to(
        std::back_inserter(s), ", \\\n     NaN with boxes lc rgb 'white' title {}",
        cli::gnuplot_quoted(fmt::format("(and {} more jobs)", t.jobs.size() - kNamedJobs)));
  }
  return s + "\nset output\n";
}

}  // namespace

absl::StatusOr<Timeline> read_timeline(const fs::path& events_path) {
  if (!fs::exists(events_path)) {
    return absl::NotFoundError(
        fmt::format("{} not found: no runtime has logged to this state dir (elastic --state-dir)",
                    events_path.string()));
  }
  Timeline out;
  Reader reader(out);
  for (const fs::path& f : log_files(events_path)) {
    if (absl::Status s = reader.file(f); !s.ok()) return s;
  }
  return out;
}

std::string timeline_csv(const Timeline& t) {
  std::string out = "time_unix,time_s,granted_nodes,allocated_nodes";
  for (const std::string& id : t.jobs) out += "," + id;
  out += '\n';
  std::vector<int> nodes(t.jobs.size());
  for (const TimelineStep& s : t.steps) {
    std::fill(nodes.begin(), nodes.end(), 0);
    int allocated = 0;
    for (auto [job, n] : s.counts) {
      nodes[job] = n;
      allocated += n;
    }
    fmt::format_to(std::back_inserter(out), "{:.3f},{:.3f},{},{}", s.time, s.time - t.start,
                   s.granted, allocated);
    for (int n : nodes) fmt::format_to(std::back_inserter(out), ",{}", n);
    out += '\n';
  }
  return out;
}

absl::StatusOr<std::string> write_timeline(const Timeline& t, const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    return absl::UnavailableError(fmt::format("cannot create {}: {}", dir.string(), ec.message()));
  }
  const double span = t.end - t.start;
  const double unit_s = span <= 900 ? 1 : span <= 2 * 86400 ? 60 : 3600;
  const char* unit = unit_s == 1 ? "seconds" : unit_s == 60 ? "minutes" : "hours";
  std::string granted = "# time nodes_granted\n";
  for (const TimelineStep& s : t.steps) {
    fmt::format_to(std::back_inserter(granted), "{:.5f} {}\n", (s.time - t.start) / unit_s,
                   s.granted);
  }
  if (!t.steps.empty()) {
    fmt::format_to(std::back_inserter(granted), "{:.5f} {}\n", span / unit_s,
                   t.steps.back().granted);
  }
  std::string lost = "# time nodes_granted node\n";
  for (const auto& [time, node] : t.nodes_lost) {
    fmt::format_to(std::back_inserter(lost), "{:.5f} {} {}\n", (time - t.start) / unit_s,
                   granted_at(t, time), node);
  }
  for (const auto& [name, text] :
       {std::pair<const char*, std::string>{"timeline.csv", timeline_csv(t)},
        {"timeline_rects.dat", cli::stacked_rects(t.steps, t.start, t.end, unit_s)},
        {"timeline_granted.dat", granted},
        {"timeline_lost.dat", lost}}) {
    if (absl::Status s = write_file_atomic(dir / name, text); !s.ok()) return s;
  }
  if (t.steps.empty())
    return std::string("the log records no nodes granted or held: nothing to plot");
  return cli::run_gnuplot(dir, plot_script(t, unit));
}

}  // namespace elastic::rt
