#include "elastic/control/status.h"

#include <algorithm>
#include <iterator>
#include <map>

#include "elastic/control/atomic_file.h"
#include "elastic/control/json_integer.h"
#include "fmt/format.h"

namespace elastic::rt {

nlohmann::json to_json(const StatusSnapshot& s) {
  nlohmann::json nodes = nlohmann::json::array();
  for (const NodeStatus& n : s.nodes) {
    nodes.push_back({{"name", n.name}, {"slots", n.slots}, {"state", n.state}, {"job", n.job}});
  }
  nlohmann::json jobs = nlohmann::json::array();
  for (const JobStatus& j : s.jobs) {
    jobs.push_back({{"id", j.id},
                    {"state", j.state},
                    {"nodes", j.nodes},
                    {"ranks", j.ranks},
                    {"samples_per_s", j.samples_per_s},
                    {"step_s", j.step_s},
                    {"samples_done", j.samples_done},
                    {"target_samples", j.target_samples},
                    {"rescales", j.rescales},
                    {"min_nodes", j.min_nodes},
                    {"max_nodes", j.max_nodes},
                    {"command", j.command},
                    {"reason", j.reason}});
  }
  return {{"time", s.time}, {"daemon_pid", s.daemon_pid}, {"nodes", nodes}, {"jobs", jobs}};
}

absl::StatusOr<StatusSnapshot> status_from_json(const nlohmann::json& j) {
  StatusSnapshot s;
  std::string where = "status";
  try {
    s.time = j.value("time", 0.0);
    s.daemon_pid = json_integer_or(j, "daemon_pid", 0);
    for (std::size_t i = 0; i < j.value("nodes", nlohmann::json::array()).size(); ++i) {
      where = fmt::format("nodes[{}]", i);
      const nlohmann::json& n = j["nodes"][i];
      s.nodes.push_back({n.at("name").get<std::string>(), json_integer_or(n, "slots", 1),
                         n.value("state", std::string()), n.value("job", std::string())});
    }
    for (std::size_t i = 0; i < j.value("jobs", nlohmann::json::array()).size(); ++i) {
      where = fmt::format("jobs[{}]", i);
      const nlohmann::json& x = j["jobs"][i];
      JobStatus js;
      js.id = x.at("id").get<std::string>();
      js.state = x.value("state", std::string());
      js.nodes = x.value("nodes", std::vector<std::string>{});
      js.ranks = json_integer_or(x, "ranks", 0);
      js.samples_per_s = x.value("samples_per_s", 0.0);
      js.step_s = x.value("step_s", 0.0);
      js.samples_done = json_integer_or(x, "samples_done", std::int64_t{0});
      js.target_samples = json_integer_or(x, "target_samples", std::int64_t{0});
      js.rescales = json_integer_or(x, "rescales", 0);
      js.min_nodes = json_integer_or(x, "min_nodes", 0);
      js.max_nodes = json_integer_or(x, "max_nodes", 0);
      js.command = x.value("command", std::string());
      js.reason = x.value("reason", std::string());
      s.jobs.push_back(std::move(js));
    }
  } catch (const nlohmann::json::exception& e) {
    return absl::InvalidArgumentError(fmt::format("field '{}': {}", where, e.what()));
  }
  return s;
}

absl::Status write_status(const std::filesystem::path& path, const StatusSnapshot& s) {
  return write_file_atomic(path, to_json(s).dump(2) + "\n", 0600);
}

absl::StatusOr<StatusSnapshot> read_status(const std::filesystem::path& path) {
  absl::StatusOr<std::string> text = read_file(path);
  if (!text.ok()) return text.status();
  nlohmann::json j = nlohmann::json::parse(*text, nullptr, false);
  if (j.is_discarded()) {
    return absl::InvalidArgumentError(fmt::format("{}: not valid JSON", path.string()));
  }
  absl::StatusOr<StatusSnapshot> s = status_from_json(j);
  if (!s.ok()) {
    return absl::InvalidArgumentError(
        fmt::format("{}: {}", path.string(), std::string(s.status().message())));
  }
  return s;
}

namespace {

// Label values escape backslash, quote and newline (exposition format 0.0.4).
std::string label(std::string_view v) {
  std::string out;
  for (char c : v) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

}  // namespace

std::string format_metrics(const StatusSnapshot& s) {
  std::string out;
  const auto family = [&](std::string_view name, std::string_view type, std::string_view help) {
    fmt::format_to(std::back_inserter(out), "# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
  };
  std::map<std::string, int> node_states{
      {"free", 0}, {"busy", 0}, {"exiting", 0}, {"leaving", 0}, {"lost", 0}};
  for (const NodeStatus& n : s.nodes) ++node_states[n.state];
  family("elastic_nodes", "gauge", "Granted nodes by state.");
  for (const auto& [state, count] : node_states) {
    fmt::format_to(std::back_inserter(out), "elastic_nodes{{state=\"{}\"}} {}\n", label(state),
                   count);
  }
  std::map<std::string, int> job_states{{"queued", 0},   {"running", 0}, {"to_restart", 0},
                                        {"finished", 0}, {"failed", 0},  {"cancelled", 0}};
  for (const JobStatus& j : s.jobs) ++job_states[j.state];
  family("elastic_jobs", "gauge", "Jobs by state.");
  for (const auto& [state, count] : job_states) {
    fmt::format_to(std::back_inserter(out), "elastic_jobs{{state=\"{}\"}} {}\n", label(state),
                   count);
  }
  const auto per_job = [&](std::string_view name, std::string_view type, std::string_view help,
                           auto value) {
    family(name, type, help);
    for (const JobStatus& j : s.jobs) {
      fmt::format_to(std::back_inserter(out), "{}{{job=\"{}\"}} {}\n", name, label(j.id), value(j));
    }
  };
  per_job("elastic_job_nodes", "gauge", "Nodes a job holds.",
          [](const JobStatus& j) { return j.nodes.size(); });
  per_job("elastic_job_ranks", "gauge", "Ranks a job runs.",
          [](const JobStatus& j) { return j.ranks; });
  per_job("elastic_job_samples_per_second", "gauge", "Recent training throughput.",
          [](const JobStatus& j) { return fmt::format("{}", j.samples_per_s); });
  per_job("elastic_job_samples_total", "counter", "Samples processed.",
          [](const JobStatus& j) { return j.samples_done; });
  per_job("elastic_job_rescales_total", "counter", "Times the job was grown or shrunk.",
          [](const JobStatus& j) { return j.rescales; });
  family("elastic_snapshot_timestamp_seconds", "gauge", "When the daemon took this snapshot.");
  fmt::format_to(std::back_inserter(out), "elastic_snapshot_timestamp_seconds {:.3f}\n", s.time);
  return out;
}

namespace {

std::string render_table(const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> width;
  for (const auto& r : rows) {
    width.resize(std::max(width.size(), r.size()));
    for (std::size_t i = 0; i < r.size(); ++i) width[i] = std::max(width[i], r[i].size());
  }
  std::string out;
  for (const auto& r : rows) {
    std::string line;
    for (std::size_t i = 0; i < r.size(); ++i) {
      line += r[i];
      if (i + 1 < r.size()) line += std::string(width[i] - r[i].size() + 2, ' ');
    }
    out += line + "\n";
  }
  return out;
}

}  // namespace

std::string format_jobs_table(const StatusSnapshot& s) {
  std::vector<std::vector<std::string>> rows = {
      {"JOB", "STATE", "NODES", "RANKS", "SAMPLES/S", "DONE", "RESCALES"}};
  for (const JobStatus& j : s.jobs) {
    std::string done = std::to_string(j.samples_done);
    if (j.target_samples > 0) fmt::format_to(std::back_inserter(done), "/{}", j.target_samples);
    std::string state = j.state;
    if (!j.reason.empty()) fmt::format_to(std::back_inserter(state), " ({})", j.reason);
    rows.push_back({j.id, state, std::to_string(j.nodes.size()), std::to_string(j.ranks),
                    fmt::format("{:.1f}", j.samples_per_s), done, std::to_string(j.rescales)});
  }
  return render_table(rows);
}

std::string format_nodes_table(const StatusSnapshot& s) {
  std::vector<std::vector<std::string>> rows = {{"NODE", "SLOTS", "STATE", "JOB"}};
  for (const NodeStatus& n : s.nodes) {
    rows.push_back({n.name, std::to_string(n.slots), n.state, n.job.empty() ? "-" : n.job});
  }
  return render_table(rows);
}

}  // namespace elastic::rt
