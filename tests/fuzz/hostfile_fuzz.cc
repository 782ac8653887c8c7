// Fuzz target: Open MPI hostfiles (parse_hostfile, what elasticd watches). A host list that
// parses must come back unchanged from its canonical text (format_hostfile).
#include "elastic/control/hostfile.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace elastic;
  const absl::StatusOr<std::vector<rt::HostEntry>> hosts =
      rt::parse_hostfile(fuzz::as_text(data, size), "fuzz");
  if (!hosts.ok()) return 0;
  const absl::StatusOr<std::vector<rt::HostEntry>> again =
      rt::parse_hostfile(rt::format_hostfile(*hosts), "formatted");
  FUZZ_CHECK(again.ok());
  FUZZ_CHECK(*again == *hosts);
  return 0;
}
