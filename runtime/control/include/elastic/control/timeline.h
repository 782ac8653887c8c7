// What the runtime did, read back from its decision log (events.jsonl and the files rotation moved
// it to, event_log.h): the nodes each job held over time and the nodes the scheduler granted.
// `elastic timeline` writes it as timeline.csv and draws timeline.png (stacked nodes per job, the
// granted pool, nodes lost).
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace elastic::rt {

// The allocation from `time` on, after an event that changed it.
struct TimelineStep {
  double time = 0.0;                        // Unix seconds
  int granted = 0;                          // nodes in the pool (the hostfile's last update)
  std::vector<std::pair<int, int>> counts;  // (job index, nodes), jobs holding nodes
};

struct Timeline {
  double start = 0.0;  // the first event (Unix seconds)
  double end = 0.0;    // the last
  std::size_t events = 0;
  std::vector<std::string> jobs;  // job index -> id, in the order the log first names them
  std::vector<TimelineStep> steps;
  std::vector<std::pair<double, std::string>> nodes_lost;  // (time, node): failures, not notices
};

// Reads the log at `events_path` (STATE_DIR/events.jsonl), its oldest rotated file first. Nodes
// held change with job_started, job_grown, job_shrunk and job_recovered (their "nodes"), drop to 0
// when a job is requeued or ends, and for every job when the daemon starts or stops; the pool
// is the hostfile's when the daemon starts and after each update ("pool"), none while it is down. A line that is not such a record is an error naming
// the file and line; a file's last line without its newline is being written and is skipped.
absl::StatusOr<Timeline> read_timeline(const std::filesystem::path& events_path);

// time_unix,time_s,granted_nodes,allocated_nodes,<one column per job id: its nodes>
std::string timeline_csv(const Timeline& timeline);

// Writes timeline.csv and the plot data into `dir` (created) and draws timeline.png with gnuplot.
// Returns a warning text ("" when the plot was drawn); the data is written either way.
absl::StatusOr<std::string> write_timeline(const Timeline& timeline,
                                           const std::filesystem::path& dir);

}  // namespace elastic::rt
