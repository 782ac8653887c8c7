// The PBS feed's parser (feeds.def): the idle nodes of `pbsnodes -a` (PBS Pro, OpenPBS, Torque).
#include <map>
#include <set>

#include "absl/strings/ascii.h"
#include "elastic/control/feed.h"
#include "fmt/format.h"
#include "text.h"

namespace elastic::rt {

absl::StatusOr<std::vector<HostEntry>> idle_nodes_from_pbsnodes(std::string_view text, int slots,
                                                                std::string_view source) {
  std::vector<HostEntry> out;
  std::string node;
  int node_line = 0;
  std::map<std::string, std::string, std::less<>> attrs;
  std::set<std::string, std::less<>> seen;
  const auto flush = [&]() -> absl::Status {
    if (node.empty()) return absl::OkStatus();
    const auto get = [&](std::string_view k) -> std::string_view {
      auto it = attrs.find(k);
      return it == attrs.end() ? std::string_view() : std::string_view(it->second);
    };
    bool idle = get("state") == "free" && get("jobs").empty();
    if (std::string_view assigned = get("resources_assigned.ncpus"); !assigned.empty()) {
      idle = idle && assigned == "0";
    }
    int cpus = 0;
    for (std::string_view key : {"resources_available.ncpus", "pcpus", "np"}) {
      std::string_view v = get(key);
      if (v.empty()) continue;
      std::optional<int> n = positive_int(v);
      if (!n) {
        return line_error(source, node_line,
                          fmt::format("{} must be a positive integer for node", key), node);
      }
      cpus = *n;
      break;
    }
    if (idle && !seen.contains(node)) {
      if (!valid_host_name(node)) return line_error(source, node_line, "invalid host name", node);
      if (slots <= 0 && cpus == 0) {
        return line_error(source, node_line,
                          "no CPU count (resources_available.ncpus, pcpus or np) for node", node);
      }
      seen.insert(node);
      out.push_back({node, slots > 0 ? slots : cpus, std::nullopt});
    }
    node.clear();
    attrs.clear();
    return absl::OkStatus();
  };
  int line_no = 0;
  for (std::string_view raw : split(text, "\n")) {
    ++line_no;
    const std::string_view line = trim_right(raw);
    if (line.empty()) {
      if (absl::Status s = flush(); !s.ok()) return s;
      continue;
    }
    if (!absl::ascii_isspace(line.front())) {
      // A new node block (blocks are normally separated by blank lines; be lenient).
      if (absl::Status s = flush(); !s.ok()) return s;
      node = std::string(line);
      node_line = line_no;
      if (node.find_first_of(" \t=") != std::string::npos) {
        return line_error(source, line_no, "expected a node name, got", line);
      }
      continue;
    }
    if (node.empty()) return line_error(source, line_no, "attribute outside a node block:", line);
    const std::string_view kv = trim_left(line);
    const auto eq = kv.find('=');
    if (eq == std::string_view::npos) {
      return line_error(source, line_no, "expected 'key = value', got", kv);
    }
    attrs[std::string(trim(kv.substr(0, eq)))] = std::string(trim(kv.substr(eq + 1)));
  }
  if (absl::Status s = flush(); !s.ok()) return s;
  return out;
}

}  // namespace elastic::rt
