#include "elastic/control/job_spec.h"

#include <sys/stat.h>
#include <toml++/toml.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <limits>
#include <random>
#include <set>
#include <sstream>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "elastic/allocator/input_limits.h"
#include "elastic/control/atomic_file.h"
#include "fmt/format.h"
#include "text.h"

namespace elastic::rt {
namespace {

// Builds "<source>:<line>:<col>: field '<field>': <what>" from a toml++ node's position.
class ErrorSite {
 public:
  explicit ErrorSite(std::string_view source) : source_(source) {}
  absl::Status at(const toml::source_region& where, std::string_view field,
                  std::string_view what) const {
    if (where.begin.line == 0) return nowhere(field, what);
    return absl::InvalidArgumentError(fmt::format(
        "{}:{}:{}: field '{}': {}", source_, where.begin.line, where.begin.column, field, what));
  }
  absl::Status nowhere(std::string_view field, std::string_view what) const {
    return absl::InvalidArgumentError(fmt::format("{}: field '{}': {}", source_, field, what));
  }

 private:
  std::string source_;
};

absl::StatusOr<std::string> get_string(const toml::node& n, std::string_view field,
                                       const ErrorSite& err) {
  const auto* s = n.as_string();
  if (s == nullptr) return err.at(n.source(), field, "must be a string");
  // A program, its arguments and environment are C strings: a NUL would cut the string short
  // where it is spawned, so "x\u0000y" would run x.
  if (s->get().find('\0') != std::string::npos) {
    return err.at(n.source(), field, "must not contain a NUL character (\\u0000)");
  }
  return std::string(s->get());
}

absl::StatusOr<std::int64_t> get_int(const toml::node& n, std::string_view field,
                                     const ErrorSite& err, std::int64_t min) {
  const auto* i = n.as_integer();
  if (i == nullptr) return err.at(n.source(), field, "must be an integer");
  if (i->get() < min) {
    return err.at(n.source(), field, fmt::format("must be >= {}, got {}", min, i->get()));
  }
  if (i->get() > std::numeric_limits<int>::max() && field != "target_samples") {
    return err.at(n.source(), field, "is too large");
  }
  return i->get();
}

absl::StatusOr<double> get_number(const toml::node& n, std::string_view field,
                                  const ErrorSite& err) {
  double v = 0;
  if (const auto* f = n.as_floating_point()) {
    v = f->get();
  } else if (const auto* i = n.as_integer()) {
    v = static_cast<double>(i->get());
  } else {
    return err.at(n.source(), field, "must be a number");
  }
  if (!std::isfinite(v) || v < 0) {
    return err.at(n.source(), field, fmt::format("must be a finite number >= 0, got {}", v));
  }
  return v;
}

template <typename T, typename Get>
absl::StatusOr<std::vector<T>> get_array(const toml::node& n, std::string_view field,
                                         const ErrorSite& err, Get get) {
  const auto* arr = n.as_array();
  if (arr == nullptr) return err.at(n.source(), field, "must be an array");
  std::vector<T> out;
  for (std::size_t i = 0; i < arr->size(); ++i) {
    const std::string item = fmt::format("{}[{}]", field, i);
    absl::StatusOr<T> v = get((*arr)[i], item, err);
    if (!v.ok()) return v.status();
    out.push_back(*v);
  }
  return out;
}

absl::StatusOr<ScalingSpec> parse_scaling(const toml::node& n, const ErrorSite& err) {
  const auto* t = n.as_table();
  if (t == nullptr) return err.at(n.source(), "scaling", "must be a table");
  ScalingSpec s;
  bool have_nodes = false, have_rates = false;
  for (auto&& [key, value] : *t) {
    const std::string field = fmt::format("scaling.{}", key.str());
    if (key.str() == "nodes") {
      auto v = get_array<int>(
          value, field, err,
          [](const toml::node& x, std::string_view f, const ErrorSite& e) -> absl::StatusOr<int> {
            absl::StatusOr<std::int64_t> i = get_int(x, f, e, 1);
            if (!i.ok()) return i.status();
            return static_cast<int>(*i);
          });
      if (!v.ok()) return v.status();
      for (std::size_t i = 1; i < v->size(); ++i) {
        if ((*v)[i] <= (*v)[i - 1]) {
          return err.at(value.source(), field, "node counts must be strictly increasing");
        }
      }
      s.nodes = *std::move(v);
      have_nodes = true;
    } else if (key.str() == "samples_per_s" || key.str() == "value") {
      auto v = get_array<double>(value, field, err, get_number);
      if (!v.ok()) return v.status();
      (key.str() == "value" ? s.value : s.samples_per_s) = *std::move(v);
      have_rates = have_rates || key.str() == "samples_per_s";
    } else if (key.str() == "grow_stall_s" || key.str() == "shrink_stall_s") {
      absl::StatusOr<double> v = get_number(value, field, err);
      if (!v.ok()) return v.status();
      (key.str() == "grow_stall_s" ? s.grow_stall_s : s.shrink_stall_s) = *v;
    } else {
      return err.at(key.source(), field,
                    "unknown key (expected nodes, samples_per_s, value, grow_stall_s, "
                    "shrink_stall_s)");
    }
  }
  if (have_nodes != have_rates) {
    return err.at(n.source(), have_nodes ? "scaling.samples_per_s" : "scaling.nodes",
                  "is required when the other half of the table is given");
  }
  if (s.nodes.size() != s.samples_per_s.size()) {
    return err.at(n.source(), "scaling.samples_per_s",
                  fmt::format("has {} entries but scaling.nodes has {}", s.samples_per_s.size(),
                              s.nodes.size()));
  }
  if (!s.value.empty() && s.value.size() != s.nodes.size()) {
    return err.at(
        n.source(), "scaling.value",
        fmt::format("has {} entries but scaling.nodes has {}", s.value.size(), s.nodes.size()));
  }
  return s;
}

absl::Status assign_int(const toml::node& value, std::string_view field, const ErrorSite& err,
                        std::int64_t min, int& out) {
  absl::StatusOr<std::int64_t> v = get_int(value, field, err, min);
  if (!v.ok()) return v.status();
  out = static_cast<int>(*v);
  return absl::OkStatus();
}

}  // namespace

absl::Status validate_job_id(std::string_view id) {
  if (id.empty() || id.size() > 64) {
    return absl::InvalidArgumentError(
        fmt::format("job id '{}' must be 1 to 64 characters", elastic::alloc::echo_token(id)));
  }
  if (id.front() == '.' || id.front() == '-') {
    return absl::InvalidArgumentError(
        fmt::format("job id '{}' must not start with '.' or '-'", id));
  }
  for (char c : id) {
    if (!absl::ascii_isalnum(c) && c != '.' && c != '_' && c != '-') {
      return absl::InvalidArgumentError(
          fmt::format("job id '{}' may only contain letters, digits, '.', '_' and '-'", id));
    }
  }
  return absl::OkStatus();
}

std::string generate_job_id() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  ::localtime_r(&now, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
  std::random_device rd;
  char tail[8];
  std::snprintf(tail, sizeof(tail), "%04x", rd() & 0xffffU);
  return fmt::format("job-{}-{}", stamp, tail);
}

namespace {

// The spec a document holds: what parse_job_spec reads from TOML and job_spec_from_json from JSON.
absl::StatusOr<JobSpec> spec_from_table(const toml::table& doc, const ErrorSite& err) {
  JobSpec spec;
  bool have_command = false, have_min = false, have_max = false;
  toml::source_region min_at, max_at;
  for (auto&& [key, value] : doc) {
    const std::string field(key.str());
    absl::Status st;
    if (field == "id") {
      absl::StatusOr<std::string> v = get_string(value, field, err);
      if (!v.ok()) return v.status();
      if (absl::Status ok = validate_job_id(*v); !ok.ok()) {
        return err.at(value.source(), field, std::string(ok.message()));
      }
      spec.id = *v;
    } else if (field == "command") {
      absl::StatusOr<std::string> v = get_string(value, field, err);
      if (!v.ok()) return v.status();
      if (v->empty()) return err.at(value.source(), field, "must not be empty");
      spec.command = *v;
      have_command = true;
    } else if (field == "args") {
      auto v = get_array<std::string>(value, field, err, get_string);
      if (!v.ok()) return v.status();
      spec.args = *std::move(v);
    } else if (field == "workdir" || field == "checkpoint") {
      absl::StatusOr<std::string> v = get_string(value, field, err);
      if (!v.ok()) return v.status();
      (field == "workdir" ? spec.workdir : spec.checkpoint) = *v;
    } else if (field == "env") {
      const auto* t = value.as_table();
      if (t == nullptr) return err.at(value.source(), field, "must be a table of strings");
      for (auto&& [k, v] : *t) {
        const std::string f =
            fmt::format("env.{}", absl::CEscape(absl::string_view(k.str().data(), k.str().size())));
        // The portable names (POSIX): a shell can set them, and the queue's TOML writes them as
        // they are (toml++ wrote the key "A'B" as a literal string that no parser reads back:
        // found by fuzz.job_spec).
        const std::string_view name = k.str();
        if (name.empty() || absl::ascii_isdigit(static_cast<unsigned char>(name[0])) ||
            !std::all_of(name.begin(), name.end(), [](char c) {
              return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_';
            })) {
          return err.at(k.source(), f,
                        "is not a valid environment variable name (letters, digits and _, not "
                        "starting with a digit)");
        }
        absl::StatusOr<std::string> s = get_string(v, f, err);
        if (!s.ok()) return s.status();
        spec.env[std::string(k.str())] = *s;
      }
    } else if (field == "min_nodes") {
      st = assign_int(value, field, err, 1, spec.min_nodes);
      have_min = true;
      min_at = value.source();
    } else if (field == "max_nodes") {
      st = assign_int(value, field, err, 1, spec.max_nodes);
      have_max = true;
      max_at = value.source();
    } else if (field == "ranks_per_node") {
      st = assign_int(value, field, err, 0, spec.ranks_per_node);
    } else if (field == "priority") {
      st = assign_int(value, field, err, std::numeric_limits<int>::min(), spec.priority);
    } else if (field == "target_samples") {
      absl::StatusOr<std::int64_t> v = get_int(value, field, err, 1);
      if (!v.ok()) return v.status();
      spec.target_samples = *v;
    } else if (field == "scaling") {
      absl::StatusOr<ScalingSpec> s = parse_scaling(value, err);
      if (!s.ok()) return s.status();
      spec.scaling = *std::move(s);
    } else {
      return err.at(key.source(), field,
                    "unknown key (expected id, command, args, env, workdir, min_nodes, max_nodes, "
                    "ranks_per_node, priority, target_samples, checkpoint, scaling)");
    }
    if (!st.ok()) return st;
  }
  if (!have_command) return err.nowhere("command", "is required (the program to run)");
  // One bound given: the other follows it, so `max_nodes = 4` alone means 1..4.
  if (have_min && !have_max) spec.max_nodes = std::max(spec.max_nodes, spec.min_nodes);
  if (spec.min_nodes > spec.max_nodes) {
    return err.at(have_max ? max_at : min_at, have_max ? "max_nodes" : "min_nodes",
                  fmt::format("min_nodes ({}) is greater than max_nodes ({})", spec.min_nodes,
                              spec.max_nodes));
  }
  return spec;
}

toml::table table_from_json(const nlohmann::json& j, const std::string& field);
toml::array array_from_json(const nlohmann::json& j, const std::string& field);

// Hands `put` the TOML value a JSON value stands for; `field` names it in errors. TOML has no null
// and no integer beyond int64.
template <typename Put>
void put_json(const nlohmann::json& j, const std::string& field, Put put) {
  switch (j.type()) {
    case nlohmann::json::value_t::object:
      return put(table_from_json(j, field));
    case nlohmann::json::value_t::array:
      return put(array_from_json(j, field));
    case nlohmann::json::value_t::string:
      return put(j.get<std::string>());
    case nlohmann::json::value_t::boolean:
      return put(j.get<bool>());
    case nlohmann::json::value_t::number_float:
      return put(j.get<double>());
    case nlohmann::json::value_t::number_integer:
      return put(j.get<std::int64_t>());
    case nlohmann::json::value_t::number_unsigned:
      if (std::in_range<std::int64_t>(j.get<std::uint64_t>())) return put(j.get<std::int64_t>());
      break;
    default:
      break;
  }
  throw nlohmann::json::type_error::create(
      302, fmt::format("field '{}': {} is not a job spec value", field, j.dump()), &j);
}

toml::table table_from_json(const nlohmann::json& j, const std::string& field) {
  if (!j.is_object()) {
    throw nlohmann::json::type_error::create(
        302, fmt::format("field '{}': must be an object, got {}", field, j.dump()), &j);
  }
  toml::table table;
  for (const auto& item : j.items()) {
    const std::string& key = item.key();
    put_json(item.value(), field.empty() ? key : field + "." + key,
             [&](auto&& v) { table.insert(key, std::forward<decltype(v)>(v)); });
  }
  return table;
}

toml::array array_from_json(const nlohmann::json& j, const std::string& field) {
  toml::array array;
  for (std::size_t i = 0; i < j.size(); ++i) {
    put_json(j[i], fmt::format("{}[{}]", field, i),
             [&](auto&& v) { array.push_back(std::forward<decltype(v)>(v)); });
  }
  return array;
}

}  // namespace

absl::StatusOr<JobSpec> parse_job_spec(std::string_view text, std::string_view source) {
  toml::table doc;
  try {
    doc = toml::parse(text, source);
  } catch (const toml::parse_error& e) {
    const auto& where = e.source().begin;
    return absl::InvalidArgumentError(fmt::format("{}:{}:{}: TOML syntax error: {}", source,
                                                  where.line, where.column, e.description()));
  }
  return spec_from_table(doc, ErrorSite(source));
}

absl::StatusOr<JobSpec> read_job_spec(const std::filesystem::path& path) {
  absl::StatusOr<std::string> text = read_file(path);
  if (!text.ok()) return text.status();
  return parse_job_spec(*text, path.string());
}

absl::StatusOr<std::filesystem::path> resolve_command(std::string_view command,
                                                      std::string_view path_env) {
  const auto runnable = [](const std::filesystem::path& p) {
    struct stat st {};
    return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(p.c_str(), X_OK) == 0;
  };
  if (command.find('/') != std::string_view::npos) {
    if (runnable(std::filesystem::path(command))) return std::filesystem::path(command);
    return absl::NotFoundError(fmt::format("command '{}' is not an executable file", command));
  }
  for (std::string_view dir : split(path_env, ":")) {
    const std::filesystem::path candidate =
        std::filesystem::path(dir.empty() ? "." : std::string(dir)) / std::string(command);
    if (runnable(candidate)) return candidate;
  }
  return absl::NotFoundError(fmt::format("command '{}' was not found on PATH", command));
}

std::string job_spec_to_toml(const JobSpec& spec) {
  toml::table t;
  if (!spec.id.empty()) t.insert("id", spec.id);
  t.insert("command", spec.command);
  toml::array args;
  for (const std::string& a : spec.args) args.push_back(a);
  t.insert("args", std::move(args));
  if (!spec.workdir.empty()) t.insert("workdir", spec.workdir);
  t.insert("min_nodes", spec.min_nodes);
  t.insert("max_nodes", spec.max_nodes);
  t.insert("ranks_per_node", spec.ranks_per_node);
  t.insert("priority", spec.priority);
  if (spec.target_samples) t.insert("target_samples", *spec.target_samples);
  if (!spec.checkpoint.empty()) t.insert("checkpoint", spec.checkpoint);
  toml::table env;
  for (const auto& [k, v] : spec.env) env.insert(k, v);
  t.insert("env", std::move(env));
  if (spec.scaling) {
    toml::table s;
    toml::array nodes, rates, value;
    for (int n : spec.scaling->nodes) nodes.push_back(n);
    for (double r : spec.scaling->samples_per_s) rates.push_back(r);
    for (double v : spec.scaling->value) value.push_back(v);
    s.insert("nodes", std::move(nodes));
    s.insert("samples_per_s", std::move(rates));
    if (!spec.scaling->value.empty()) s.insert("value", std::move(value));
    if (spec.scaling->grow_stall_s) s.insert("grow_stall_s", *spec.scaling->grow_stall_s);
    if (spec.scaling->shrink_stall_s) s.insert("shrink_stall_s", *spec.scaling->shrink_stall_s);
    t.insert("scaling", std::move(s));
  }
  std::ostringstream out;
  // Basic strings only ("...", escaped): toml++ 3.3 writes "\nx" as a multi-line string whose
  // first newline TOML trims, and without those as a literal string that holds a raw newline,
  // which TOML forbids (both found by fuzz.job_spec).
  constexpr auto kFlags =
      toml::toml_formatter::default_flags &
      ~(toml::format_flags::allow_multi_line_strings | toml::format_flags::allow_literal_strings);
  out << toml::toml_formatter(t, kFlags) << '\n';
  return out.str();
}

nlohmann::json job_spec_to_json(const JobSpec& spec) {
  nlohmann::json j = {{"command", spec.command},
                      {"args", spec.args},
                      {"env", spec.env},
                      {"workdir", spec.workdir},
                      {"min_nodes", spec.min_nodes},
                      {"max_nodes", spec.max_nodes},
                      {"ranks_per_node", spec.ranks_per_node},
                      {"priority", spec.priority},
                      {"checkpoint", spec.checkpoint}};
  if (!spec.id.empty()) j["id"] = spec.id;
  if (spec.target_samples) j["target_samples"] = *spec.target_samples;
  if (spec.scaling) {
    nlohmann::json s = {{"nodes", spec.scaling->nodes},
                        {"samples_per_s", spec.scaling->samples_per_s},
                        {"value", spec.scaling->value}};
    if (spec.scaling->grow_stall_s) s["grow_stall_s"] = *spec.scaling->grow_stall_s;
    if (spec.scaling->shrink_stall_s) s["shrink_stall_s"] = *spec.scaling->shrink_stall_s;
    j["scaling"] = std::move(s);
  }
  return j;
}

absl::StatusOr<JobSpec> job_spec_from_json(const nlohmann::json& j) {
  // A spec read back (the journal's) obeys the rules of a submitted one: the same reader checks.
  try {
    return spec_from_table(table_from_json(j, ""), ErrorSite("job spec"));
  } catch (const nlohmann::json::exception& e) {
    return absl::InvalidArgumentError(fmt::format("job spec JSON: {}", e.what()));
  }
}

}  // namespace elastic::rt
