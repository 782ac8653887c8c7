#include "elastic/control/hostfile.h"

#include <iterator>
#include <set>

#include "absl/strings/ascii.h"
#include "elastic/control/atomic_file.h"
#include "fmt/format.h"
#include "text.h"

namespace elastic::rt {

bool valid_host_name(std::string_view name) {
  if (name.empty() || name.size() > 255 || name.front() == '-') return false;
  for (char c : name) {
    if (!absl::ascii_isalnum(c) && c != '-' && c != '.' && c != '_') {
      return false;
    }
  }
  return true;
}

absl::StatusOr<std::vector<HostEntry>> parse_hostfile(std::string_view text,
                                                      std::string_view source) {
  std::vector<HostEntry> hosts;
  std::set<std::string, std::less<>> seen;
  int line_no = 0;
  for (std::string_view line : split(text, "\n")) {
    ++line_no;
    if (const auto hash = line.find('#'); hash != std::string_view::npos) {
      line = line.substr(0, hash);
    }
    std::vector<std::string_view> tokens = split(line, " \t\r\v\f", true);
    if (tokens.empty()) continue;
    const auto error = [&](std::string_view what, std::string_view token) {
      return line_error(source, line_no, what, token);
    };
    HostEntry entry;
    entry.name = std::string(tokens[0]);
    if (!valid_host_name(entry.name)) return error("invalid host name", tokens[0]);
    bool have_slots = false;
    for (std::size_t i = 1; i < tokens.size(); ++i) {
      const std::string_view token = tokens[i];
      const auto eq = token.find('=');
      if (eq == std::string_view::npos) return error("expected key=value, got", token);
      const std::string_view key = token.substr(0, eq);
      const std::optional<int> value = positive_int(token.substr(eq + 1));
      if (key == "slots") {
        if (!value) return error("slots must be a positive integer:", token);
        if (have_slots) return error("slots given twice:", token);
        entry.slots = *value;
        have_slots = true;
      } else if (key == "max_slots" || key == "max-slots") {
        if (!value) return error("max_slots must be a positive integer:", token);
        if (entry.max_slots) return error("max_slots given twice:", token);
        entry.max_slots = *value;
      } else {
        return error("unknown key (expected slots or max_slots) in", token);
      }
    }
    if (entry.max_slots && *entry.max_slots < entry.slots) {
      return error("max_slots is below slots for host", entry.name);
    }
    if (!seen.insert(entry.name).second) return error("duplicate host", entry.name);
    hosts.push_back(std::move(entry));
  }
  return hosts;
}

absl::StatusOr<std::vector<HostEntry>> read_hostfile(const std::filesystem::path& path) {
  absl::StatusOr<std::string> text = read_file(path);
  if (!text.ok()) return text.status();
  return parse_hostfile(*text, path.string());
}

std::string format_hostfile(const std::vector<HostEntry>& hosts) {
  std::string out;
  for (const HostEntry& h : hosts) {
    fmt::format_to(std::back_inserter(out), "{} slots={}", h.name, h.slots);
    if (h.max_slots) fmt::format_to(std::back_inserter(out), " max_slots={}", *h.max_slots);
    out += '\n';
  }
  return out;
}

absl::Status write_hostfile(const std::filesystem::path& path, const std::vector<HostEntry>& hosts,
                            unsigned mode) {
  return write_file_atomic(path, format_hostfile(hosts), mode);
}

HostfileUpdate diff_hosts(const std::vector<HostEntry>& before,
                          const std::vector<HostEntry>& after) {
  HostfileUpdate u;
  u.hosts = after;
  for (const HostEntry& a : after) {
    auto it = std::find_if(before.begin(), before.end(),
                           [&](const HostEntry& b) { return b.name == a.name; });
    if (it == before.end()) {
      u.added.push_back(a);
    } else if (!(*it == a)) {
      u.resized.push_back(a);
    }
  }
  for (const HostEntry& b : before) {
    if (std::none_of(after.begin(), after.end(),
                     [&](const HostEntry& a) { return a.name == b.name; })) {
      u.removed.push_back(b.name);
    }
  }
  return u;
}

}  // namespace elastic::rt
