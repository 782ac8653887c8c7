#include "elastic/traces/interval_csv.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "elastic/allocator/input_limits.h"
#include "elastic/traces/read_lines.h"

namespace elastic::traces {
namespace {

constexpr int kMissing = -1;

struct Columns {
  int node = kMissing, start = kMissing, end = kMissing, duration = kMissing, censored = kMissing;
  std::size_t count = 0;
};

absl::StatusOr<Columns> parse_header(absl::string_view file, absl::string_view line) {
  Columns c;
  std::vector<absl::string_view> names = absl::StrSplit(line, ',');
  c.count = names.size();
  for (std::size_t i = 0; i < names.size(); ++i) {
    const absl::string_view name = absl::StripAsciiWhitespace(names[i]);
    int* slot = name == "node"              ? &c.node
                : name == "idle_start_unix" ? &c.start
                : name == "idle_end_unix"   ? &c.end
                : name == "duration_s"      ? &c.duration
                : name == "censored"        ? &c.censored
                                            : nullptr;
    if (slot == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat(file, ":1: unknown column '", alloc::echo_token(name),
                       "' (expected node,idle_start_unix,idle_end_unix[,duration_s][,censored])"));
    }
    if (*slot != kMissing) {
      return absl::InvalidArgumentError(
          absl::StrCat(file, ":1: column '", alloc::echo_token(name), "' appears twice"));
    }
    *slot = static_cast<int>(i);
  }
  for (auto [col, name] : {std::pair{c.node, "node"}, std::pair{c.start, "idle_start_unix"},
                           std::pair{c.end, "idle_end_unix"}}) {
    if (col == kMissing) {
      return absl::InvalidArgumentError(
          absl::StrCat(file, ":1: missing column '", name, "' in the header"));
    }
  }
  return c;
}

}  // namespace

absl::StatusOr<HoleTrace> parse_interval_csv(absl::string_view file,
                                             const std::vector<std::string>& lines,
                                             const ReadOptions& options) {
  if (lines.empty()) return absl::InvalidArgumentError(absl::StrCat(file, ": empty file"));
  absl::StatusOr<Columns> cols = parse_header(file, absl::StripAsciiWhitespace(lines[0]));
  if (!cols.ok()) return cols.status();

  HoleTrace trace;
  std::unordered_map<std::string, int> node_index;
  std::vector<double> last_end;  // per node, to catch times going backwards where they appear
  trace.start = std::numeric_limits<double>::infinity();
  trace.end = -std::numeric_limits<double>::infinity();

  for (std::size_t i = 1; i < lines.size(); ++i) {
    const absl::string_view line = absl::StripAsciiWhitespace(lines[i]);
    if (line.empty()) continue;
    const std::size_t line_no = i + 1;
    auto fail = [&](absl::string_view column, absl::string_view what) {
      return absl::InvalidArgumentError(
          absl::StrCat(file, ":", line_no, ": column ", column, ": ", what));
    };
    absl::Status bad;
    IdleInterval iv;
    std::string node;
    std::vector<absl::string_view> f = absl::StrSplit(line, ',');
    auto number = [&](int col, absl::string_view name, double& out) {
      if (!bad.ok() || col == kMissing) return;
      if (!absl::SimpleAtod(absl::StripAsciiWhitespace(f[col]), &out) || !std::isfinite(out)) {
        bad = fail(name, absl::StrCat("not a number: '", alloc::echo_token(f[col]), "'"));
      }
    };
    if (f.size() != cols->count) {
      bad = absl::InvalidArgumentError(absl::StrCat(file, ":", line_no, ": expected ", cols->count,
                                                    " fields, found ", f.size()));
    } else {
      node = std::string(absl::StripAsciiWhitespace(f[cols->node]));
      if (node.empty()) bad = fail("node", "empty node name");
      number(cols->start, "idle_start_unix", iv.start);
      number(cols->end, "idle_end_unix", iv.end);
      double duration = iv.end - iv.start, censored = 0.0;
      number(cols->duration, "duration_s", duration);
      number(cols->censored, "censored", censored);
      if (bad.ok() && iv.end < iv.start) {
        bad = fail("idle_end_unix", absl::StrCat("time goes backwards: ends at ", iv.end,
                                                 " before it starts at ", iv.start));
      } else if (bad.ok() && std::abs(duration - (iv.end - iv.start)) > 1.0) {
        bad = fail("duration_s", absl::StrCat(duration, " is not idle_end_unix - idle_start_unix (",
                                              iv.end - iv.start, ")"));
      } else if (bad.ok() && censored != 0.0 && censored != 1.0) {
        bad = fail("censored", "must be 0 or 1");
      }
      iv.censored = censored == 1.0;
    }
    if (bad.ok()) {
      auto [it, inserted] = node_index.try_emplace(node, static_cast<int>(trace.node_names.size()));
      if (inserted && trace.node_names.size() == static_cast<std::size_t>(alloc::kMaxNodes)) {
        return fail("node", absl::StrCat("more than ", alloc::kMaxNodes, " nodes"));
      }
      if (inserted) {
        trace.node_names.push_back(node);
        last_end.push_back(-std::numeric_limits<double>::infinity());
      }
      iv.node = it->second;
      if (iv.start < last_end[iv.node]) {
        bad = fail("idle_start_unix",
                   absl::StrCat("time goes backwards: node ", alloc::echo_token(node),
                                " is already idle until ", last_end[iv.node]));
      }
    }
    if (!bad.ok()) {
      if (!options.lenient) return bad;
      ++trace.stats.skipped_lines;
      continue;
    }
    last_end[iv.node] = iv.end;
    if (iv.end == iv.start) continue;  // an empty hole is no hole
    trace.start = std::min(trace.start, iv.start);
    trace.end = std::max(trace.end, iv.end);
    trace.intervals.push_back(iv);
  }
  if (trace.intervals.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(file, ": empty trace: no idle intervals"));
  }
  if (absl::Status s = normalise(trace); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(file, ": ", s.message()));
  }
  return trace;
}

absl::StatusOr<HoleTrace> load_interval_csv(const std::string& path, const ReadOptions& options) {
  absl::StatusOr<std::vector<std::string>> lines = read_lines(path);
  if (!lines.ok()) return lines.status();
  return parse_interval_csv(path, *lines, options);
}

}  // namespace elastic::traces
