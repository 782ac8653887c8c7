#include "elastic/traces/workload_csv.h"

#include <array>
#include <charconv>
#include <cmath>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "absl/time/time.h"
#include "elastic/allocator/input_limits.h"
#include "elastic/traces/gz_line_reader.h"
#include "fmt/format.h"

namespace elastic::traces {
namespace {

constexpr std::array<std::string_view, 10> kColumns = {"job",  "Tcup", "Tcdw", "Jmin", "Jmax",
                                                       "Pmax", "Tsub", "Ns",   "Ps",   "Os"};

struct Field {
  std::string text;
  std::size_t column = 1;  // 1-based character column where the field starts
};

// Where a message points: "file:line:column: name: ".
struct Where {
  const std::string& path;
  std::size_t line;
  std::size_t column;
  std::string_view name;
};

absl::Status error_at(const Where& where, std::string_view message) {
  return absl::InvalidArgumentError(
      fmt::format("{}:{}:{}: {}: {}", where.path, where.line, where.column, where.name, message));
}

// RFC 4180 style: commas separate fields, a field may be quoted, "" inside quotes is a quote.
// Split here rather than with libcsv (Debian's CSV library): every error points at the character
// column of its field, which libcsv's field callbacks do not report.
absl::StatusOr<std::vector<Field>> split_csv(std::string_view line, const std::string& path,
                                             std::size_t line_number) {
  std::vector<Field> fields;
  std::size_t i = 0;
  while (true) {
    Field field;
    field.column = i + 1;
    if (i < line.size() && line[i] == '"') {
      ++i;
      bool closed = false;
      while (i < line.size()) {
        if (line[i] == '"') {
          if (i + 1 < line.size() && line[i + 1] == '"') {
            field.text.push_back('"');
            i += 2;
            continue;
          }
          closed = true;
          ++i;
          break;
        }
        field.text.push_back(line[i++]);
      }
      if (!closed) {
        return absl::InvalidArgumentError(
            fmt::format("{}:{}:{}: unterminated quote", path, line_number, field.column));
      }
      if (i < line.size() && line[i] != ',') {
        return absl::InvalidArgumentError(
            fmt::format("{}:{}:{}: expected ',' after a quoted field", path, line_number, i + 1));
      }
    } else {
      while (i < line.size() && line[i] != ',') field.text.push_back(line[i++]);
    }
    fields.push_back(std::move(field));
    if (i >= line.size()) break;
    ++i;  // the comma
  }
  return fields;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

absl::StatusOr<double> parse_number(std::string_view text, const Where& where) {
  const std::string_view t = trim(text);
  double value = 0.0;
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), value);
  if (t.empty() || ec != std::errc() || end != t.data() + t.size()) {
    return error_at(where, fmt::format("not a number: '{}'", alloc::echo_token(t)));
  }
  if (!std::isfinite(value))
    return error_at(where, fmt::format("not finite: '{}'", alloc::echo_token(t)));
  return value;
}

absl::StatusOr<double> parse_non_negative(std::string_view text, const Where& where) {
  absl::StatusOr<double> value = parse_number(text, where);
  if (!value.ok()) return value.status();
  if (*value < 0) return error_at(where, fmt::format("must be >= 0, got {}", *value));
  return value;
}

// A stall: bounded as the allocator's seconds are (input_limits.h), so the job is refused here, not
// when the replay first plans with it.
absl::StatusOr<double> parse_seconds(std::string_view text, const Where& where) {
  absl::StatusOr<double> value = parse_non_negative(text, where);
  if (!value.ok()) return value.status();
  if (*value > alloc::kMaxSeconds) {
    return error_at(where, fmt::format("must be <= {:g} s, got {:g}", alloc::kMaxSeconds, *value));
  }
  return value;
}

absl::StatusOr<int> parse_count(std::string_view text, const Where& where) {
  absl::StatusOr<double> value = parse_number(text, where);
  if (!value.ok()) return value.status();
  if (*value < 0 || *value != std::floor(*value) || *value > alloc::kMaxNodes) {
    return error_at(where, fmt::format("must be a whole number of nodes in [0, {}], got {}",
                                       alloc::kMaxNodes, *value));
  }
  return static_cast<int>(*value);
}

// "[0.0, 1.0, 2.0]" -> numbers; a bad element is reported at its own column.
absl::StatusOr<std::vector<double>> parse_list(const Field& field, const Where& where) {
  // The field text starts one column after the opening quote of the CSV field.
  const std::size_t base = where.column + 1;
  std::string_view t = field.text;
  const std::size_t open = t.find_first_not_of(" \t");
  const std::size_t close = t.find_last_not_of(" \t");
  if (open == std::string_view::npos || t[open] != '[' || t[close] != ']') {
    return error_at(where, "expected a list like \"[0.0, 1.0, ...]\"");
  }
  std::vector<double> values;
  std::size_t start = open + 1;
  if (trim(t.substr(start, close - start)).empty()) return values;
  for (std::size_t index = 0;; ++index) {
    std::size_t comma = t.find(',', start);
    if (comma == std::string_view::npos || comma > close) comma = close;
    const std::string name = fmt::format("{}[{}]", where.name, index);
    std::size_t first = start;  // the element's own column, past any spaces
    while (first < comma && (t[first] == ' ' || t[first] == '\t')) ++first;
    const Where at{where.path, where.line, base + first, name};
    absl::StatusOr<double> value = parse_number(t.substr(start, comma - start), at);
    if (!value.ok()) return value.status();
    if (values.size() == alloc::kMaxTableRows) {
      return error_at(where, fmt::format("more than {} values", alloc::kMaxTableRows));
    }
    values.push_back(*value);
    if (comma == close) break;
    start = comma + 1;
  }
  return values;
}

// "YYYY-MM-DD HH:MM:SS" (or with 'T'), UTC -> unix seconds. absl::ParseTime refuses a date that
// does not exist (2021-02-30) rather than rolling it into the next month.
absl::StatusOr<double> parse_utc(std::string_view text, const Where& where) {
  const std::string_view t = trim(text);
  const bool shape_ok = t.size() == 19 && (t[10] == ' ' || t[10] == 'T');
  absl::Time time;
  std::string why;
  if (!shape_ok) {
    return error_at(where, fmt::format("expected a UTC time 'YYYY-MM-DD HH:MM:SS', got '{}'",
                                       alloc::echo_token(t)));
  }
  const char* format = t[10] == 'T' ? "%Y-%m-%dT%H:%M:%S" : "%Y-%m-%d %H:%M:%S";
  if (!absl::ParseTime(format, absl::string_view(t.data(), t.size()), absl::UTCTimeZone(), &time,
                       &why)) {
    return error_at(where, fmt::format("not a valid date-time: '{}' ({})", t, why));
  }
  return static_cast<double>(absl::ToUnixSeconds(time));
}

// One table column (Ps or Os) against the node counts Ns.
absl::StatusOr<alloc::PiecewiseLinear> parse_table(const std::vector<int>& counts,
                                                   const Field& field, const Where& where) {
  absl::StatusOr<std::vector<double>> values = parse_list(field, where);
  if (!values.ok()) return values.status();
  if (values->size() != counts.size()) {
    return error_at(where, fmt::format("{} values but Ns has {}", values->size(), counts.size()));
  }
  for (std::size_t i = 0; i < values->size(); ++i) {
    if ((*values)[i] < 0 || (*values)[i] > alloc::kMaxTableValue) {
      return error_at(where, fmt::format("[{}] must be in [0, {:g}], got {}", i,
                                         alloc::kMaxTableValue, (*values)[i]));
    }
  }
  absl::StatusOr<alloc::PiecewiseLinear> table =
      alloc::PiecewiseLinear::create(counts, *values, where.name);
  if (!table.ok()) return error_at(where, std::string(table.status().message()));
  return table;
}

}  // namespace

absl::StatusOr<std::vector<WorkloadJob>> load_workload_csv(const std::string& path) {
  absl::StatusOr<GzLineReader> reader = GzLineReader::open(path);
  if (!reader.ok()) return reader.status();
  std::string line;
  absl::StatusOr<bool> more = reader->next(line);
  if (!more.ok()) return more.status();
  if (!*more) return absl::InvalidArgumentError(fmt::format("{}:1: empty file, no header", path));

  // Columns are found by name so reordered or extra columns still load.
  absl::StatusOr<std::vector<Field>> header = split_csv(line, path, 1);
  if (!header.ok()) return header.status();
  std::array<std::size_t, kColumns.size()> index{};
  for (std::size_t c = 0; c < kColumns.size(); ++c) {
    std::size_t found = header->size();
    for (std::size_t h = 0; h < header->size(); ++h) {
      if (trim((*header)[h].text) == kColumns[c]) found = h;
    }
    if (found == header->size()) {
      return absl::InvalidArgumentError(
          fmt::format("{}:1: header has no column '{}'", path, kColumns[c]));
    }
    index[c] = found;
  }

  std::vector<WorkloadJob> jobs;
  std::unordered_map<std::string, std::size_t> id_line;  // job id -> the line that defines it
  while (true) {
    more = reader->next(line);
    if (!more.ok()) return more.status();
    if (!*more) break;
    const std::size_t ln = reader->line_number();
    if (trim(line).empty()) continue;
    absl::StatusOr<std::vector<Field>> fields = split_csv(line, path, ln);
    if (!fields.ok()) return fields.status();
    if (fields->size() != header->size()) {
      return absl::InvalidArgumentError(fmt::format("{}:{}:{}: {} fields, the header has {}", path,
                                                    ln, line.size() + 1, fields->size(),
                                                    header->size()));
    }
    auto at = [&](std::size_t c) -> const Field& { return (*fields)[index[c]]; };
    auto where = [&](std::size_t c) { return Where{path, ln, at(c).column, kColumns[c]}; };

    WorkloadJob job;
    job.id = std::string(trim(at(0).text));
    if (job.id.empty()) return error_at(where(0), "empty job id");
    if (const auto [it, inserted] = id_line.try_emplace(job.id, ln); !inserted) {
      return error_at(where(0), fmt::format("duplicate job id '{}' (also on line {})",
                                            alloc::echo_token(job.id), it->second));
    }
    absl::StatusOr<double> tcup = parse_seconds(at(1).text, where(1));
    if (!tcup.ok()) return tcup.status();
    absl::StatusOr<double> tcdw = parse_seconds(at(2).text, where(2));
    if (!tcdw.ok()) return tcdw.status();
    absl::StatusOr<int> jmin = parse_count(at(3).text, where(3));
    if (!jmin.ok()) return jmin.status();
    absl::StatusOr<int> jmax = parse_count(at(4).text, where(4));
    if (!jmax.ok()) return jmax.status();
    if (*jmin < 1) return error_at(where(3), fmt::format("must be >= 1, got {}", *jmin));
    if (*jmin > *jmax) {
      return error_at(where(4), fmt::format("Jmin {} > Jmax {}", *jmin, *jmax));
    }
    absl::StatusOr<double> pmax = parse_non_negative(at(5).text, where(5));
    if (!pmax.ok()) return pmax.status();
    absl::StatusOr<double> tsub = parse_utc(at(6).text, where(6));
    if (!tsub.ok()) return tsub.status();

    absl::StatusOr<std::vector<double>> ns = parse_list(at(7), where(7));
    if (!ns.ok()) return ns.status();
    if (ns->empty()) return error_at(where(7), "empty list");
    std::vector<int> counts;
    for (std::size_t i = 0; i < ns->size(); ++i) {
      const std::string name = fmt::format("Ns[{}]", i);
      const double n = (*ns)[i];
      if (n < 0 || n != std::floor(n) || n > alloc::kMaxNodes) {
        return error_at(
            Where{path, ln, at(7).column, name},
            fmt::format("must be a whole number of nodes in [0, {}], got {}", alloc::kMaxNodes, n));
      }
      counts.push_back(static_cast<int>(n));
      if (i > 0 && counts[i] <= counts[i - 1]) {
        return error_at(
            Where{path, ln, at(7).column, name},
            fmt::format("node counts must increase ({} then {})", counts[i - 1], counts[i]));
      }
    }
    absl::StatusOr<alloc::PiecewiseLinear> ps = parse_table(counts, at(8), where(8));
    if (!ps.ok()) return ps.status();
    absl::StatusOr<alloc::PiecewiseLinear> os = parse_table(counts, at(9), where(9));
    if (!os.ok()) return os.status();

    job.grow_stall_s = *tcup;
    job.shrink_stall_s = *tcdw;
    job.min_nodes = *jmin;
    job.max_nodes = *jmax;
    job.target_samples = *pmax;
    job.submit_unix = *tsub;
    job.scaling = *std::move(ps);
    job.value = *std::move(os);
    jobs.push_back(std::move(job));
  }
  return jobs;
}

}  // namespace elastic::traces
