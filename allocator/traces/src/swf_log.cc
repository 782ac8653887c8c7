#include "elastic/traces/swf_log.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "elastic/allocator/input_limits.h"
#include "elastic/traces/read_lines.h"

namespace elastic::traces {
namespace {

constexpr std::size_t kFields = 18;
constexpr const char* kFieldNames[kFields] = {"job id",
                                              "submit time",
                                              "wait time",
                                              "run time",
                                              "allocated processors",
                                              "average cpu time",
                                              "used memory",
                                              "requested processors",
                                              "requested time",
                                              "requested memory",
                                              "status",
                                              "user id",
                                              "group id",
                                              "executable",
                                              "queue",
                                              "partition",
                                              "preceding job",
                                              "think time"};

// "; Key: 338 (batch partition)" -> 338. Returns false when the value does not start with a number.
bool header_number(absl::string_view value, double& out) {
  value = absl::StripAsciiWhitespace(value);
  std::size_t n = 0;
  while (n < value.size() && (absl::ascii_isdigit(static_cast<unsigned char>(value[n])) ||
                              value[n] == '.' || (n == 0 && value[n] == '-'))) {
    ++n;
  }
  return n > 0 && absl::SimpleAtod(value.substr(0, n), &out);
}

}  // namespace

absl::StatusOr<SwfLog> parse_swf(absl::string_view file, const std::vector<std::string>& lines,
                                 const ReadOptions& options) {
  SwfLog log;
  double max_procs = 0.0;
  bool have_jobs = false;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const absl::string_view line = absl::StripAsciiWhitespace(lines[i]);
    const std::size_t line_no = i + 1;
    if (line.empty()) continue;
    if (line.front() == ';') {
      const std::size_t colon = line.find(':');
      if (colon == absl::string_view::npos) continue;
      const absl::string_view key = absl::StripAsciiWhitespace(line.substr(1, colon - 1));
      const absl::string_view value = line.substr(colon + 1);
      double v = 0.0;
      const bool known = key == "MaxNodes" || key == "MaxProcs" || key == "UnixStartTime";
      if (known && !header_number(value, v)) {
        return absl::InvalidArgumentError(absl::StrCat(file, ":", line_no, ": header ", key,
                                                       ": not a number: '",
                                                       alloc::echo_token(value), "'"));
      }
      const bool size = key == "MaxNodes" || key == "MaxProcs";
      if (size && !(v >= 0 && v <= alloc::kMaxNodes)) {
        return absl::InvalidArgumentError(
            absl::StrFormat("%s:%d: header %s: %.0f is outside [0, %d]; pass --capacity", file,
                            line_no, key, v, alloc::kMaxNodes));
      }
      if (key == "MaxNodes") log.max_nodes = static_cast<int>(v);
      if (key == "MaxProcs") max_procs = v;
      if (key == "UnixStartTime") {
        if (have_jobs) {
          return absl::InvalidArgumentError(
              absl::StrCat(file, ":", line_no, ": UnixStartTime after the first job"));
        }
        log.unix_start = v;
      }
      continue;
    }
    have_jobs = true;
    std::vector<absl::string_view> f =
        absl::StrSplit(line, absl::ByAnyChar(" \t"), absl::SkipEmpty());
    absl::Status bad;
    double v[kFields] = {};
    if (f.size() != kFields) {
      bad = absl::InvalidArgumentError(
          absl::StrCat(file, ":", line_no, ": expected ", kFields, " fields, found ", f.size()));
    } else {
      for (std::size_t k = 0; k < kFields && bad.ok(); ++k) {
        if (!absl::SimpleAtod(f[k], &v[k]) || !std::isfinite(v[k])) {
          bad = absl::InvalidArgumentError(absl::StrCat(file, ":", line_no, ": field ", k + 1, " (",
                                                        kFieldNames[k], "): not a number: '",
                                                        alloc::echo_token(f[k]), "'"));
        }
      }
      if (bad.ok() && v[1] < 0) {
        bad = absl::InvalidArgumentError(
            absl::StrCat(file, ":", line_no, ": field 2 (submit time): unknown (-1)"));
      }
    }
    if (!bad.ok()) {
      if (!options.lenient) return bad;
      ++log.stats.skipped_lines;
      continue;
    }
    SwfJob job;
    // Casts stay in range: ids are whole numbers far below 2^63, and a job larger than any
    // machine is cut to the capacity anyway.
    job.id = static_cast<std::int64_t>(std::clamp(v[0], -1.0, 1e18));
    job.submit = log.unix_start + v[1];
    job.wait = v[2];
    job.run = v[3];
    job.nodes = static_cast<int>(
        std::clamp(v[4] > 0 ? v[4] : v[7], -1.0, static_cast<double>(alloc::kMaxNodes) + 1));
    job.requested_time = v[8];
    log.jobs.push_back(job);
  }
  if (log.max_nodes <= 0) log.max_nodes = static_cast<int>(max_procs);
  if (log.jobs.empty())
    return absl::InvalidArgumentError(absl::StrCat(file, ": empty log: no jobs"));
  return log;
}

absl::StatusOr<SwfLog> load_swf(const std::string& path, const ReadOptions& options) {
  absl::StatusOr<std::vector<std::string>> lines = read_lines(path);
  if (!lines.ok()) return lines.status();
  return parse_swf(path, *lines, options);
}

}  // namespace elastic::traces
