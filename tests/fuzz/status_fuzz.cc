// Fuzz target: status.json (read_status, what `elastic status` and monitoring read). A snapshot
// that reads comes back unchanged through the daemon's writer (to_json), and the tables and the
// Prometheus text can be made from it.
#include "elastic/control/status.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace elastic;
  const fuzz::MemFile file(fuzz::as_text(data, size));
  const absl::StatusOr<rt::StatusSnapshot> snapshot = rt::read_status(file.path());
  if (!snapshot.ok()) return 0;
  const absl::StatusOr<rt::StatusSnapshot> again =
      rt::status_from_json(nlohmann::json::parse(rt::to_json(*snapshot).dump()));
  FUZZ_CHECK(again.ok());
  FUZZ_CHECK(*again == *snapshot);
  (void)rt::format_metrics(*snapshot);
  (void)rt::format_jobs_table(*snapshot);
  (void)rt::format_nodes_table(*snapshot);
  return 0;
}
