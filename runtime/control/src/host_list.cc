#include "elastic/control/host_list.h"

#include <algorithm>
#include <charconv>
#include <cstdint>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "elastic/allocator/input_limits.h"
#include "fmt/format.h"
#include "text.h"

namespace elastic::rt {
namespace {

using alloc::kMaxNodes;

absl::Status bad(std::string_view source, std::string_view what, std::string_view token) {
  return absl::InvalidArgumentError(
      fmt::format("{}: {} '{}'", source, what, alloc::echo_token(token)));
}

// The expanded names, in first-appearance order, each once, at most kMaxNodes of them (a hash
// set: a list at that limit expands in about a second even under the fuzzer's sanitizers).
class Names {
 public:
  explicit Names(std::string_view source) : source_(source) {}
  absl::Status add(std::string name) {
    if (name.find_first_of(" \t\r\n\v\f") != std::string::npos) {
      return bad(source_, "white space in host name", name);
    }
    if (seen_.contains(name)) return absl::OkStatus();
    if (out_.size() >= static_cast<std::size_t>(kMaxNodes)) {
      return bad(source_, fmt::format("more than {} hosts at", kMaxNodes), name);
    }
    seen_.insert(name);
    out_.push_back(std::move(name));
    return absl::OkStatus();
  }
  std::vector<std::string> take() { return std::move(out_); }

 private:
  std::string_view source_;
  absl::flat_hash_set<std::string> seen_;
  std::vector<std::string> out_;
};

// `text` split at `sep` where it is outside `open`...`close`; InvalidArgument when those do not
// pair up (nested pairs included: no scheduler nests them).
absl::StatusOr<std::vector<std::string_view>> split_outside(std::string_view text, char sep,
                                                            char open, char close,
                                                            std::string_view source) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  bool inside = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == open || c == close) {
      if (inside == (c == open)) {
        return bad(source, fmt::format("unbalanced '{}' in", c), text);
      }
      inside = c == open;
    } else if (c == sep && !inside) {
      out.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  if (inside) return bad(source, fmt::format("unclosed '{}' in", open), text);
  out.push_back(text.substr(start));
  return out;
}

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), absl::ascii_isdigit);
}

// One bracket group of a Slurm name: "1-4,7" -> 1 2 3 4 7, "01-10" -> 01 ... 10.
absl::StatusOr<std::vector<std::string>> expand_group(std::string_view group,
                                                      std::string_view source) {
  std::vector<std::string> out;
  for (std::string_view part : split(group, ",")) {
    const std::size_t dash = part.find('-');
    const std::string_view lo_text = part.substr(0, dash);
    const std::string_view hi_text =
        dash == std::string_view::npos ? lo_text : part.substr(dash + 1);
    std::uint64_t lo = 0;
    std::uint64_t hi = 0;
    if (!all_digits(lo_text) || !all_digits(hi_text) || lo_text.size() > 18 ||
        hi_text.size() > 18) {
      return bad(source, "a range must be N or N-M (digits) in", fmt::format("[{}]", group));
    }
    std::from_chars(lo_text.data(), lo_text.data() + lo_text.size(), lo);
    std::from_chars(hi_text.data(), hi_text.data() + hi_text.size(), hi);
    if (hi < lo) return bad(source, "a range must not run backwards:", part);
    if (hi - lo >= static_cast<std::uint64_t>(kMaxNodes) ||
        out.size() + (hi - lo) >= static_cast<std::size_t>(kMaxNodes)) {
      return bad(source, fmt::format("more than {} hosts in", kMaxNodes), part);
    }
    for (std::uint64_t v = lo; v <= hi; ++v) {
      out.push_back(fmt::format("{:0{}}", v, lo_text.size()));
    }
  }
  return out;
}

// One name of a Slurm list: literal text and bracket groups, multiplied out left to right.
absl::Status expand_slurm_name(std::string_view name, std::string_view source, Names& names) {
  if (name.empty()) return bad(source, "empty host name in", name);
  std::vector<std::string> prefixes{""};
  std::size_t pos = 0;
  while (pos < name.size()) {
    const std::size_t open = name.find('[', pos);
    const std::string_view literal = name.substr(pos, open - pos);
    for (std::string& p : prefixes) p += literal;
    if (open == std::string_view::npos) break;
    const std::size_t close = name.find(']', open);  // balanced: split_outside checked
    absl::StatusOr<std::vector<std::string>> values =
        expand_group(name.substr(open + 1, close - open - 1), source);
    if (!values.ok()) return values.status();
    if (prefixes.size() * values->size() > static_cast<std::size_t>(kMaxNodes)) {
      return bad(source, fmt::format("more than {} hosts in", kMaxNodes), name);
    }
    std::vector<std::string> next;
    next.reserve(prefixes.size() * values->size());
    for (const std::string& p : prefixes) {
      for (const std::string& v : *values) next.push_back(p + v);
    }
    prefixes = std::move(next);
    pos = close + 1;
  }
  for (std::string& p : prefixes) {
    if (absl::Status s = names.add(std::move(p)); !s.ok()) return s;
  }
  return absl::OkStatus();
}

// PBS slots after "host/": 0, 0*16, 0-15 or 0,2,5.
bool pbs_slots(std::string_view s) {
  return !s.empty() && absl::ascii_isdigit(s.front()) && absl::ascii_isdigit(s.back()) &&
         s.find_first_not_of("0123456789*-,") == std::string_view::npos;
}

// "vnode:res=value:..." inside the parentheses of an exec_vnode chunk.
absl::Status add_vnode(std::string_view piece, std::string_view source, Names& names) {
  const std::vector<std::string_view> fields = split(piece, ":");
  if (fields[0].empty()) return bad(source, "empty vnode name in", piece);
  for (std::size_t i = 1; i < fields.size(); ++i) {
    const std::size_t eq = fields[i].find('=');
    if (eq == 0 || eq == std::string_view::npos) {
      return bad(source, "expected 'resource=value' after the vnode in", piece);
    }
  }
  return names.add(std::string(fields[0]));
}

// "host", or "host/slots" of exec_host.
absl::Status add_host(std::string_view piece, std::string_view source, Names& names) {
  const std::size_t slash = piece.find('/');
  const std::string_view host = piece.substr(0, slash);
  if (host.empty() || host.find_first_of(":=()") != std::string_view::npos) {
    return bad(source, "expected 'host' or 'host/slots', got", piece);
  }
  if (slash != std::string_view::npos && !pbs_slots(piece.substr(slash + 1))) {
    return bad(source, "slots after '/' must be N, N*COUNT, N-M or N,M in", piece);
  }
  return names.add(std::string(host));
}

}  // namespace

absl::StatusOr<std::vector<std::string>> expand_slurm_hosts(std::string_view text,
                                                            std::string_view source) {
  Names names(source);
  text = trim(text);
  if (text.empty()) return names.take();
  absl::StatusOr<std::vector<std::string_view>> items = split_outside(text, ',', '[', ']', source);
  if (!items.ok()) return items.status();
  for (std::string_view item : *items) {
    if (absl::Status s = expand_slurm_name(item, source, names); !s.ok()) return s;
  }
  return names.take();
}

absl::StatusOr<std::vector<std::string>> expand_pbs_hosts(std::string_view text,
                                                          std::string_view source) {
  Names names(source);
  text = trim(text);
  if (text.empty()) return names.take();
  absl::StatusOr<std::vector<std::string_view>> chunks = split_outside(text, '+', '(', ')', source);
  if (!chunks.ok()) return chunks.status();
  for (std::string_view chunk : *chunks) {
    if (chunk.empty()) return bad(source, "empty chunk between '+' in", text);
    if (chunk.front() != '(') {
      if (absl::Status s = add_host(chunk, source, names); !s.ok()) return s;
      continue;
    }
    if (chunk.back() != ')') return bad(source, "text after ')' in", chunk);
    for (std::string_view piece : split(chunk.substr(1, chunk.size() - 2), "+")) {
      if (absl::Status s = add_vnode(piece, source, names); !s.ok()) return s;
    }
  }
  return names.take();
}

}  // namespace elastic::rt
