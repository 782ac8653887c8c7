// Writes a replay's results: metrics.json, timeline.csv, plot data and plots (gnuplot, run as a
// subprocess on a generated script; without gnuplot the data is still written and a warning is
// returned), and the summary tables printed on stdout.
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "elastic/replay/simulator.h"
#include "elastic/traces/hole_trace.h"
#include "elastic/traces/workload_csv.h"

namespace elastic::replay {

// timeline.csv: time_unix,time_s,idle_nodes,allocated_nodes,running_jobs,queued_jobs,job_counts
// where job_counts is "id:nodes" pairs separated by ';' (jobs holding nodes).
absl::Status write_outputs(const std::string& dir, const traces::HoleTrace& trace,
                           const std::vector<traces::WorkloadJob>& workload,
                           const ReplayResult& result);

// Runs gnuplot on the data write_outputs wrote. Returns a warning text ("" when all went well).
std::string write_plots(const std::string& dir);

// A table with one column per result.
std::string summary_table(const std::vector<const Metrics*>& results);

}  // namespace elastic::replay
