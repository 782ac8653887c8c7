// The daemon's view of the world as the CLI and monitoring read it: status.json (a snapshot of
// nodes and jobs, replaced atomically by the daemon), metrics.prom (the same snapshot in
// Prometheus text format) and the table `elastic status` prints.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"

namespace elastic::rt {

struct NodeStatus {
  std::string name;
  int slots = 1;
  // "free", "busy", "exiting" (processes of a job that left it still ending), "leaving"
  // (removed, grace running), "lost"
  std::string state;
  std::string job;  // job holding it ("" = none)
  friend bool operator==(const NodeStatus&, const NodeStatus&) = default;
};

struct JobStatus {
  std::string id;
  std::string state;  // journal.h to_string(JobState), or "pending" (queued file not yet taken)
  std::vector<std::string> nodes;
  int ranks = 0;
  double samples_per_s = 0;
  double step_s = 0;  // mean seconds per training step lately (0: not known yet)
  std::int64_t samples_done = 0;
  std::int64_t target_samples = 0;  // 0 = none
  int rescales = 0;
  int min_nodes = 0;
  int max_nodes = 0;
  std::string command;
  std::string reason;  // why it failed / was cancelled / waits to restart
  friend bool operator==(const JobStatus&, const JobStatus&) = default;
};

struct StatusSnapshot {
  double time = 0;     // unix seconds when taken
  int daemon_pid = 0;  // 0 = no daemon (a snapshot the CLI assembled itself)
  std::vector<NodeStatus> nodes;
  std::vector<JobStatus> jobs;
  friend bool operator==(const StatusSnapshot&, const StatusSnapshot&) = default;
};

nlohmann::json to_json(const StatusSnapshot& s);
// InvalidArgument naming the field for a malformed document.
absl::StatusOr<StatusSnapshot> status_from_json(const nlohmann::json& j);
// Atomic write / read of status.json (read: NotFound when absent).
absl::Status write_status(const std::filesystem::path& path, const StatusSnapshot& s);
absl::StatusOr<StatusSnapshot> read_status(const std::filesystem::path& path);

// Prometheus text exposition format (version 0.0.4): elastic_nodes{state=...},
// elastic_jobs{state=...}, per-job elastic_job_{nodes,ranks,samples_per_second,samples_total,
// rescales_total}{job="id"}, elastic_snapshot_timestamp_seconds.
std::string format_metrics(const StatusSnapshot& s);
// The human table: JOB STATE NODES RANKS SAMPLES/S DONE RESCALES.
std::string format_jobs_table(const StatusSnapshot& s);
// NODE SLOTS STATE JOB.
std::string format_nodes_table(const StatusSnapshot& s);

}  // namespace elastic::rt
