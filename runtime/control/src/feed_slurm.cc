// The Slurm feed's parser (feeds.def): the idle nodes of `sinfo -h -N -o "%N %T %c"`.
#include <set>

#include "elastic/control/feed.h"
#include "elastic/control/host_list.h"
#include "fmt/format.h"
#include "text.h"

namespace elastic::rt {

absl::StatusOr<std::vector<HostEntry>> idle_nodes_from_sinfo(std::string_view text, int slots,
                                                             std::string_view source) {
  std::vector<HostEntry> out;
  std::set<std::string, std::less<>> seen;
  int line_no = 0;
  for (std::string_view line : split(text, "\n")) {
    ++line_no;
    std::vector<std::string_view> f = split(line, " \t\r", true);
    if (f.empty()) continue;
    if (f.size() != 3) {
      return line_error(source, line_no, "expected '%N %T %c' (3 fields), got", line);
    }
    const std::optional<int> cpus = positive_int(f[2]);
    if (!cpus) return line_error(source, line_no, "CPU count must be a positive integer:", f[2]);
    // Without -N, sinfo prints a line per state and partition with the nodes compressed.
    absl::StatusOr<std::vector<std::string>> nodes =
        expand_slurm_hosts(f[0], fmt::format("{}:{}", source, line_no));
    if (!nodes.ok()) return nodes.status();
    // One line per (node, partition): a node idle in one partition is idle in all of them.
    if (f[1] != "idle") continue;
    for (std::string& node : *nodes) {
      if (!valid_host_name(node)) return line_error(source, line_no, "invalid host name", node);
      if (!seen.insert(node).second) continue;
      out.push_back(HostEntry{std::move(node), slots > 0 ? slots : *cpus, std::nullopt});
    }
  }
  return out;
}

}  // namespace elastic::rt
