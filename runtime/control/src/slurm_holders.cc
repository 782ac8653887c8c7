#include "elastic/control/slurm_holders.h"

#include <algorithm>
#include <set>

#include "fmt/format.h"
#include "text.h"

namespace elastic::rt {

absl::StatusOr<std::vector<HolderJob>> holders_from_squeue(std::string_view text,
                                                           std::string_view source) {
  std::vector<HolderJob> out;
  int line_no = 0;
  for (std::string_view line : split(text, "\n")) {
    ++line_no;
    const std::vector<std::string_view> f = split(line, " \t\r", true);
    if (f.empty()) continue;
    if (f.size() != 4) {
      return line_error(source, line_no,
                        fmt::format("expected '{}' (4 fields), got", kHolderSqueueFormat), line);
    }
    const std::optional<int> cpus = positive_int(f[3]);
    if (!cpus) return line_error(source, line_no, "CPU count must be a positive integer:", f[3]);
    if (!f[1].starts_with(kHolderJobPrefix) || f[1].size() == kHolderJobPrefix.size()) continue;
    out.push_back(HolderJob{std::string(f[0]), std::string(f[1].substr(kHolderJobPrefix.size())),
                            std::string(f[2]), *cpus});
  }
  return out;
}

HolderPlan plan_holders(const HolderInput& in) {
  HolderPlan plan;
  std::set<std::string> has_holder;
  for (const HolderJob& h : in.holders) {
    if (h.state != "PENDING" && h.state != "RUNNING" && h.state != "COMPLETING" &&
        h.state != "CONFIGURING") {
      continue;
    }
    has_holder.insert(h.node);
    const auto leaving = in.leaving.find(h.node);
    if (h.state == "RUNNING" && (leaving == in.leaving.end() || leaving->second != h.job_id)) {
      plan.granted.push_back(HostEntry{h.node, in.slots > 0 ? in.slots : h.cpus, std::nullopt});
    }
  }
  std::sort(plan.granted.begin(), plan.granted.end(),
            [](const HostEntry& a, const HostEntry& b) { return a.name < b.name; });
  int room = in.submit_budget;
  if (in.max_holders > 0)
    room = std::min(room, in.max_holders - static_cast<int>(has_holder.size()));
  std::vector<std::string> idle = in.idle;
  std::sort(idle.begin(), idle.end());
  for (const std::string& node : idle) {
    if (static_cast<int>(plan.submit.size()) >= room) break;
    if (!has_holder.contains(node)) plan.submit.push_back(node);
  }
  return plan;
}

}  // namespace elastic::rt
