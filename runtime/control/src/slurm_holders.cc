#include "elastic/control/slurm_holders.h"

#include <algorithm>
#include <iterator>
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
    // The node goes into the hostfile, which elasticd refuses whole for one bad name.
    const std::string_view node = f[1].substr(kHolderJobPrefix.size());
    if (!valid_host_name(node)) {
      return line_error(source, line_no, "holder job for an invalid host name:", node);
    }
    out.push_back(HolderJob{std::string(f[0]), std::string(node), std::string(f[2]), *cpus});
  }
  return out;
}

HolderPlan plan_holders(const HolderInput& in) {
  HolderPlan plan;
  std::set<std::string> has_holder;
  std::set<std::string> granted;  // a node held twice (two running holders) is granted once
  for (const HolderJob& h : in.holders) {
    if (h.state != "PENDING" && h.state != "RUNNING" && h.state != "COMPLETING" &&
        h.state != "CONFIGURING") {
      continue;
    }
    has_holder.insert(h.node);
    const auto leaving = in.leaving.find(h.node);
    if (h.state == "RUNNING" && (leaving == in.leaving.end() || leaving->second != h.job_id) &&
        granted.insert(h.node).second) {
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

absl::StatusOr<std::vector<PendingJob>> pending_from_squeue(std::string_view text,
                                                            std::string_view source) {
  std::vector<PendingJob> out;
  int line_no = 0;
  for (std::string_view line : split(text, "\n")) {
    ++line_no;
    const std::vector<std::string_view> f = split(line, " \t\r", true);
    if (f.empty()) continue;
    if (f.size() < 3) {
      return line_error(source, line_no,
                        fmt::format("expected '{}' (3 fields), got", kPendingSqueueFormat), line);
    }
    const std::optional<int> nodes = positive_int(f[1]);
    if (!nodes) return line_error(source, line_no, "node count must be a positive integer:", f[1]);
    const std::size_t at = static_cast<std::size_t>(f[2].data() - line.data());
    out.push_back(PendingJob{std::string(f[0]), *nodes, std::string(trim(line.substr(at)))});
  }
  return out;
}

bool in_use(const NodeStatus& n) {
  return n.state == "busy" || n.state == "exiting" || n.state == "leaving";
}

void classify_busy(const StatusSnapshot& s, double now, double max_step_s, VacateInput& in) {
  const bool stale = now - s.time > kStaleStatusS;
  std::map<std::string, double> step_s;
  for (const JobStatus& j : s.jobs) step_s[j.id] = j.step_s;
  for (const NodeStatus& n : s.nodes) {
    if (!in_use(n)) continue;
    in.busy.push_back(n.name);
    const auto j = step_s.find(n.job);
    if (stale || j == step_s.end() || !(j->second > 0) || j->second > max_step_s) {
      in.slow.push_back(n.name);
    }
  }
}

VacatePlan plan_vacate(const VacateInput& in) {
  VacatePlan plan;
  const int have = in.free + in.on_the_way + static_cast<int>(in.held.size());
  for (const PendingJob& j : in.pending) {
    if (j.reason != "None" || j.nodes > have) continue;
    if (plan.demand + j.nodes > have) break;
    plan.demand += j.nodes;
  }
  const std::set<std::string> busy(in.busy.begin(), in.busy.end());
  const std::set<std::string> slow(in.slow.begin(), in.slow.end());
  std::vector<std::string> order;
  std::copy_if(in.held.begin(), in.held.end(), std::back_inserter(order),
               [&](const std::string& node) { return !slow.contains(node); });
  const int need = std::min(plan.demand - in.free - in.on_the_way, static_cast<int>(order.size()));
  if (need <= 0) return plan;
  std::sort(order.begin(), order.end(), [&](const std::string& a, const std::string& b) {
    return std::pair(busy.contains(a), a) < std::pair(busy.contains(b), b);
  });
  plan.vacate.assign(order.begin(), order.begin() + need);
  return plan;
}

}  // namespace elastic::rt
