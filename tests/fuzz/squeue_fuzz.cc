// Fuzz target: squeue's listings the Slurm feed reads (holders_from_squeue: its holder jobs;
// pending_from_squeue: the main queue's pending jobs). The nodes the running holders grant make a
// hostfile that parses (elasticd refuses the whole file otherwise); pending jobs ask for nodes.
#include "elastic/control/slurm_holders.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace elastic;
  const std::string_view text = fuzz::as_text(data, size);
  if (absl::StatusOr<std::vector<rt::HolderJob>> holders = rt::holders_from_squeue(text);
      holders.ok()) {
    rt::HolderInput in;
    in.holders = *std::move(holders);
    const rt::HolderPlan plan = rt::plan_holders(in);
    const absl::StatusOr<std::vector<rt::HostEntry>> again =
        rt::parse_hostfile(rt::format_hostfile(plan.granted), "formatted");
    FUZZ_CHECK(again.ok());
    FUZZ_CHECK(*again == plan.granted);
  }
  if (absl::StatusOr<std::vector<rt::PendingJob>> pending = rt::pending_from_squeue(text);
      pending.ok()) {
    for (const rt::PendingJob& job : *pending) {
      FUZZ_CHECK(!job.job_id.empty());
      FUZZ_CHECK(job.nodes >= 1);
    }
  }
  return 0;
}
