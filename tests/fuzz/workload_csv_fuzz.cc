// Fuzz target: BFTrainer workload CSVs through the file reader (load_workload_csv: plain or gzip,
// the input is a file in memory). A job that loads has 1 <= Jmin <= Jmax.
#include "elastic/traces/workload_csv.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const elastic::fuzz::MemFile file(elastic::fuzz::as_text(data, size));
  const absl::StatusOr<std::vector<elastic::traces::WorkloadJob>> jobs =
      elastic::traces::load_workload_csv(file.path());
  if (!jobs.ok()) return 0;
  for (const elastic::traces::WorkloadJob& job : *jobs) {
    FUZZ_CHECK(1 <= job.min_nodes && job.min_nodes <= job.max_nodes);
  }
  return 0;
}
