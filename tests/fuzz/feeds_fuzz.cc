// Fuzz target: the scheduler listings every feed of feeds.def reads (sinfo, pbsnodes -a), the same
// text through each row's parser. Idle nodes that come back make a hostfile that parses.
#include "elastic/control/feed.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace elastic;
  const std::string_view text = fuzz::as_text(data, size);
  const int slots = size > 0 ? data[0] % 3 : 0;  // 0: the listing's CPU counts
  for (const rt::Feed& feed : rt::feed_table()) {
    const absl::StatusOr<std::vector<rt::HostEntry>> hosts = feed.parse(text, slots, feed.name);
    if (!hosts.ok()) continue;
    const absl::StatusOr<std::vector<rt::HostEntry>> again =
        rt::parse_hostfile(rt::format_hostfile(*hosts), "formatted");
    FUZZ_CHECK(again.ok());
    FUZZ_CHECK(*again == *hosts);
  }
  return 0;
}
