// A training job as a user submits it (`elastic submit JOB.toml`): what to run, how many nodes it
// may use, and what the allocator should know about its scaling. Parsed with toml++ so that every
// error names file, line and field. The same struct travels in the journal as JSON, so a job
// survives daemon restarts without its original file.
//
//   id = "mnist-a"                 # optional; generated when absent ([A-Za-z0-9._-], <= 64)
//   command = "/usr/bin/train"     # required; resolved on PATH when it has no '/'
//   args = ["--epochs", "3"]
//   workdir = "/scratch/me"        # default: the directory `elastic submit` ran in
//   min_nodes = 1                  # >= 1
//   max_nodes = 8                  # >= min_nodes
//   ranks_per_node = 0             # 0 = from hwloc on the node (GPUs, else sockets)
//   priority = 0                   # higher first when nodes are short (allocator weight)
//   target_samples = 600000        # optional; the job is done when it has processed this many
//   checkpoint = "/scratch/ckpt"   # optional; durable checkpoint to restart from
//   [env]
//   OMP_NUM_THREADS = "2"
//   [scaling]                      # optional; learnt online when absent
//   nodes = [1, 2, 4]
//   samples_per_s = [900.0, 1700.0, 3100.0]
//   value = [1.0, 1.9, 3.4]        # optional; what to maximise instead of samples/s
//   grow_stall_s = 1.0             # optional stall estimates (seconds)
//   shrink_stall_s = 0.3
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"

namespace elastic::rt {

struct ScalingSpec {
  std::vector<int> nodes;              // strictly increasing, >= 1
  std::vector<double> samples_per_s;   // same length, >= 0
  std::vector<double> value;           // empty or same length, >= 0
  std::optional<double> grow_stall_s;  // >= 0
  std::optional<double> shrink_stall_s;
  friend bool operator==(const ScalingSpec&, const ScalingSpec&) = default;
};

struct JobSpec {
  std::string id;
  std::string command;
  std::vector<std::string> args;
  std::map<std::string, std::string> env;
  std::string workdir;
  int min_nodes = 1;
  int max_nodes = 1;
  int ranks_per_node = 0;  // 0 = auto (topology.h)
  int priority = 0;
  std::optional<std::int64_t> target_samples;
  std::string checkpoint;  // "" = none
  std::optional<ScalingSpec> scaling;
  friend bool operator==(const JobSpec&, const JobSpec&) = default;
};

// Parses and validates a job spec. Errors are InvalidArgument and read
// "<source>:<line>:<col>: field '<name>': <what>" (line/col omitted when toml++ has none, e.g. a
// missing field). Unknown keys, wrong types, negative values, min_nodes > max_nodes, a missing
// command, a NUL character in a string and malformed tables are all errors. The command is NOT looked up here.
absl::StatusOr<JobSpec> parse_job_spec(std::string_view text, std::string_view source = "<job>");
absl::StatusOr<JobSpec> read_job_spec(const std::filesystem::path& path);

// Checks an id: 1..64 chars of [A-Za-z0-9._-], not starting with '.' (it names a directory).
absl::Status validate_job_id(std::string_view id);
// A fresh id: "job-<yyyymmdd-hhmmss>-<4 hex>", unique enough for one user's state dir.
std::string generate_job_id();

// Where `command` would run from: itself if it contains '/', else the first executable match on
// `path_env` (colon-separated, like $PATH). NotFound names the command.
absl::StatusOr<std::filesystem::path> resolve_command(std::string_view command,
                                                      std::string_view path_env);

// Serialisations used by the queue (TOML, round-trips through parse_job_spec) and the journal.
std::string job_spec_to_toml(const JobSpec& spec);
nlohmann::json job_spec_to_json(const JobSpec& spec);
// The JSON is read by the same rules as a TOML spec: InvalidArgument "job spec: field '<name>':
// <what>" for whatever parse_job_spec would refuse, and for a value TOML cannot hold (null).
absl::StatusOr<JobSpec> job_spec_from_json(const nlohmann::json& j);

}  // namespace elastic::rt
