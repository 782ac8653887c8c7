// Fuzz target: compressed host lists (expand_slurm_hosts, expand_pbs_hosts): the same text through
// both. Names that come back are not empty and appear once.
#include <set>

#include "elastic/control/host_list.h"
#include "fuzz_input.h"

namespace {

void check_names(const absl::StatusOr<std::vector<std::string>>& names) {
  if (!names.ok()) return;
  const std::set<std::string> unique(names->begin(), names->end());
  FUZZ_CHECK(unique.size() == names->size());
  FUZZ_CHECK(!unique.contains(""));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = elastic::fuzz::as_text(data, size);
  check_names(elastic::rt::expand_slurm_hosts(text, "fuzz"));
  check_names(elastic::rt::expand_pbs_hosts(text, "fuzz"));
  return 0;
}
