#include "elastic/allocator/problem_json.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <initializer_list>
#include <limits>
#include <string>
#include <unordered_set>

#include "elastic/allocator/input_limits.h"
#include "elastic/allocator/validate_problem.h"
#include "fmt/format.h"
#include "fmt/ranges.h"

namespace elastic::alloc {
namespace {

using nlohmann::json;

absl::Status field_error(std::string_view field, std::string_view message) {
  return absl::InvalidArgumentError(fmt::format("{}: {}", field, message));
}

std::string_view type_name(const json& value) {
  switch (value.type()) {
    case json::value_t::null:
      return "null";
    case json::value_t::object:
      return "an object";
    case json::value_t::array:
      return "an array";
    case json::value_t::string:
      return "a string";
    case json::value_t::boolean:
      return "a boolean";
    case json::value_t::binary:
      return "binary";
    case json::value_t::discarded:
      return "nothing";
    default:
      return "a number";
  }
}

absl::Status wrong_type(const json& value, std::string_view field, std::string_view expected) {
  return field_error(field, fmt::format("expected {}, got {}", expected, type_name(value)));
}

absl::Status check_keys(const json& object, std::string_view field,
                        std::initializer_list<std::string_view> allowed) {
  for (const auto& [key, value] : object.items()) {
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
      const std::string where = field.empty() ? key : fmt::format("{}.{}", field, key);
      return field_error(echo_token(where),
                         fmt::format("unknown field (accepted: {})", fmt::join(allowed, ", ")));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<double> get_number(const json& value, std::string_view field) {
  if (!value.is_number()) return wrong_type(value, field, "a number");
  const double d = value.get<double>();
  if (!std::isfinite(d)) return field_error(field, "must be finite");
  return d;
}

absl::StatusOr<double> get_non_negative(const json& value, std::string_view field) {
  absl::StatusOr<double> d = get_number(value, field);
  if (d.ok() && *d < 0) return field_error(field, fmt::format("must be >= 0, got {}", *d));
  return d;
}

absl::StatusOr<int> get_int(const json& value, std::string_view field) {
  if (!value.is_number()) return wrong_type(value, field, "an integer");
  const double d = value.get<double>();
  if (d != std::floor(d) || std::fabs(d) > std::numeric_limits<int>::max()) {
    return field_error(field, fmt::format("expected an integer, got {}", value.dump()));
  }
  return static_cast<int>(d);
}

absl::StatusOr<std::string> get_string(const json& value, std::string_view field) {
  if (!value.is_string()) return wrong_type(value, field, "a string");
  return value.get<std::string>();
}

absl::StatusOr<PiecewiseLinear> get_table(const json& value, const std::string& field,
                                          std::string_view values_key) {
  if (!value.is_object()) return wrong_type(value, field, "an object");
  if (absl::Status s = check_keys(value, field, {"nodes", values_key}); !s.ok()) return s;
  for (std::string_view key : {std::string_view("nodes"), values_key}) {
    if (!value.contains(key)) return field_error(fmt::format("{}.{}", field, key), "missing");
    if (!value.at(key).is_array()) {
      return wrong_type(value.at(key), fmt::format("{}.{}", field, key), "an array");
    }
  }
  const json& nodes = value.at("nodes");
  const json& values = value.at(values_key);
  if (nodes.size() > kMaxTableRows || values.size() > kMaxTableRows) {
    return field_error(field, fmt::format("more than {} rows", kMaxTableRows));
  }
  std::vector<int> counts;
  std::vector<double> numbers;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const std::string at = fmt::format("{}.nodes[{}]", field, i);
    absl::StatusOr<int> n = get_int(nodes[i], at);
    if (!n.ok()) return n.status();
    if (*n < 0 || *n > kMaxNodes) {
      return field_error(at, fmt::format("node count must be in [0, {}], got {}", kMaxNodes, *n));
    }
    if (i > 0 && *n <= counts.back()) {
      return field_error(at,
                         fmt::format("node counts must increase ({} then {})", counts.back(), *n));
    }
    counts.push_back(*n);
  }
  for (std::size_t i = 0; i < values.size(); ++i) {
    const std::string at = fmt::format("{}.{}[{}]", field, values_key, i);
    absl::StatusOr<double> v = get_non_negative(values[i], at);
    if (!v.ok()) return v.status();
    if (*v > kMaxTableValue) {
      return field_error(at, fmt::format("must be <= {:g}, got {:g}", kMaxTableValue, *v));
    }
    numbers.push_back(*v);
  }
  if (counts.empty()) return field_error(fmt::format("{}.nodes", field), "empty table");
  if (counts.size() != numbers.size()) {
    return field_error(fmt::format("{}.{}", field, values_key),
                       fmt::format("{} values but nodes has {}", numbers.size(), counts.size()));
  }
  return PiecewiseLinear::create(counts, numbers, field);
}

absl::StatusOr<Node> get_node(const json& value, const std::string& field) {
  Node node;
  if (value.is_string()) {
    node.name = value.get<std::string>();
    return node;
  }
  if (!value.is_object()) return wrong_type(value, field, "a node name or object");
  if (absl::Status s =
          check_keys(value, field, {"name", "kind", "leaving_soon", "expected_idle_s"});
      !s.ok()) {
    return s;
  }
  if (!value.contains("name")) return field_error(field + ".name", "missing");
  absl::StatusOr<std::string> name = get_string(value.at("name"), field + ".name");
  if (!name.ok()) return name.status();
  node.name = *name;
  if (value.contains("kind")) {
    absl::StatusOr<std::string> kind = get_string(value.at("kind"), field + ".kind");
    if (!kind.ok()) return kind.status();
    node.kind = *kind;
  }
  if (value.contains("leaving_soon")) {
    const json& flag = value.at("leaving_soon");
    if (!flag.is_boolean()) return wrong_type(flag, field + ".leaving_soon", "true or false");
    node.leaving_soon = flag.get<bool>();
  }
  if (value.contains("expected_idle_s") && !value.at("expected_idle_s").is_null()) {
    absl::StatusOr<double> idle =
        get_non_negative(value.at("expected_idle_s"), field + ".expected_idle_s");
    if (!idle.ok()) return idle.status();
    node.expected_idle_s = *idle;
  }
  return node;
}

absl::StatusOr<std::vector<std::string>> get_names(const json& value, const std::string& field) {
  if (!value.is_array()) return wrong_type(value, field, "an array of node names");
  std::vector<std::string> names;
  for (std::size_t i = 0; i < value.size(); ++i) {
    absl::StatusOr<std::string> name = get_string(value[i], fmt::format("{}[{}]", field, i));
    if (!name.ok()) return name.status();
    names.push_back(*std::move(name));
  }
  return names;
}

absl::StatusOr<Job> get_job(const json& value, const std::string& field) {
  if (!value.is_object()) return wrong_type(value, field, "an object");
  if (absl::Status s =
          check_keys(value, field,
                     {"id", "min_nodes", "max_nodes", "nodes", "scaling", "value", "grow_stall_s",
                      "shrink_stall_s", "weight", "min_share", "node_kind"});
      !s.ok()) {
    return s;
  }
  for (const char* key : {"id", "max_nodes", "scaling"}) {
    if (!value.contains(key)) return field_error(fmt::format("{}.{}", field, key), "missing");
  }
  Job job;
  absl::StatusOr<std::string> id = get_string(value.at("id"), field + ".id");
  if (!id.ok()) return id.status();
  job.id = *id;
  auto read_int = [&](const char* key, int& out) -> absl::Status {
    if (!value.contains(key)) return absl::OkStatus();
    absl::StatusOr<int> n = get_int(value.at(key), fmt::format("{}.{}", field, key));
    if (!n.ok()) return n.status();
    out = *n;
    return absl::OkStatus();
  };
  auto read_non_negative = [&](const char* key, double& out) -> absl::Status {
    if (!value.contains(key)) return absl::OkStatus();
    absl::StatusOr<double> d = get_non_negative(value.at(key), fmt::format("{}.{}", field, key));
    if (!d.ok()) return d.status();
    out = *d;
    return absl::OkStatus();
  };
  for (absl::Status s :
       {read_int("min_nodes", job.min_nodes), read_int("max_nodes", job.max_nodes),
        read_int("min_share", job.min_share), read_non_negative("grow_stall_s", job.grow_stall_s),
        read_non_negative("shrink_stall_s", job.shrink_stall_s),
        read_non_negative("weight", job.weight)}) {
    if (!s.ok()) return s;
  }
  if (value.contains("nodes")) {
    absl::StatusOr<std::vector<std::string>> nodes = get_names(value.at("nodes"), field + ".nodes");
    if (!nodes.ok()) return nodes.status();
    job.nodes = *std::move(nodes);
  }
  absl::StatusOr<PiecewiseLinear> scaling =
      get_table(value.at("scaling"), field + ".scaling", "samples_per_s");
  if (!scaling.ok()) return scaling.status();
  job.scaling = *std::move(scaling);
  if (value.contains("value")) {
    absl::StatusOr<PiecewiseLinear> table =
        get_table(value.at("value"), field + ".value", "values");
    if (!table.ok()) return table.status();
    job.value = *std::move(table);
  }
  if (value.contains("node_kind")) {
    absl::StatusOr<std::string> kind = get_string(value.at("node_kind"), field + ".node_kind");
    if (!kind.ok()) return kind.status();
    job.node_kind = *kind;
  }
  return job;
}

// Follows the parse through nlohmann's callback so that an error the parser raises without a
// position (number overflow) can name the field it was reading: "jobs[0].grow_stall_s".
class JsonPath {
 public:
  bool operator()(int /*depth*/, json::parse_event_t event, json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start:
        frames_.push_back({false, "", 0});
        break;
      case json::parse_event_t::array_start:
        frames_.push_back({true, "", 0});
        break;
      case json::parse_event_t::key:
        frames_.back().key = parsed.get<std::string>();
        break;
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end:
        frames_.pop_back();
        element_done();
        break;
      case json::parse_event_t::value:
        element_done();
        break;
    }
    return true;
  }

  std::string str() const {
    std::string out;
    for (const Frame& f : frames_) {
      if (f.array) {
        out += fmt::format("[{}]", f.index);
      } else {
        out += fmt::format("{}{}", out.empty() ? "" : ".", echo_token(f.key));
      }
    }
    return out.empty() ? "(top level)" : out;
  }

 private:
  struct Frame {
    bool array;
    std::string key;    // objects: the key being read
    std::size_t index;  // arrays: the element being read
  };
  void element_done() {
    if (!frames_.empty() && frames_.back().array) ++frames_.back().index;
  }
  std::vector<Frame> frames_;
};

// nlohmann ends a parse error with "last read: '<token>'", the whole token: cap it.
std::string capped_parse_error(std::string_view message) {
  constexpr std::string_view kLastRead = "last read: '";
  const std::size_t at = message.find(kLastRead);
  if (at == std::string_view::npos) return std::string(message);
  std::string_view token = message.substr(at + kLastRead.size());
  if (!token.empty() && token.back() == '\'') token.remove_suffix(1);
  return fmt::format("{}{}'", message.substr(0, at + kLastRead.size()), echo_token(token));
}

}  // namespace

std::string_view to_string(Objective objective) {
  switch (objective) {
    case Objective::kThroughput:
      return "throughput";
    case Objective::kSpeedup:
      return "speedup";
    case Objective::kWeighted:
      return "weighted";
    case Objective::kFair:
      return "fair";
  }
  return "?";
}

std::string_view to_string(SolveStatus status) {
  switch (status) {
    case SolveStatus::kOptimal:
      return "optimal";
    case SolveStatus::kTimeLimit:
      return "time_limit";
    case SolveStatus::kHeuristic:
      return "heuristic";
  }
  return "?";
}

std::string_view to_string(Change change) {
  switch (change) {
    case Change::kGrow:
      return "grow";
    case Change::kShrink:
      return "shrink";
    case Change::kKeep:
      return "keep";
  }
  return "?";
}

absl::StatusOr<Objective> parse_objective(std::string_view name) {
  for (Objective o :
       {Objective::kThroughput, Objective::kSpeedup, Objective::kWeighted, Objective::kFair}) {
    if (name == to_string(o)) return o;
  }
  return absl::InvalidArgumentError(fmt::format(
      "objective: unknown objective '{}' (accepted: throughput, speedup, weighted, fair)",
      echo_token(name)));
}

absl::StatusOr<Problem> problem_from_json(const json& value) {
  if (!value.is_object()) return wrong_type(value, "(top level)", "an object");
  if (absl::Status s = check_keys(
          value, "", {"nodes", "horizon_s", "objective", "solver", "time_limit_s", "jobs"});
      !s.ok()) {
    return s;
  }
  for (const char* key : {"nodes", "jobs"}) {
    if (!value.contains(key)) return field_error(key, "missing");
    if (!value.at(key).is_array()) return wrong_type(value.at(key), key, "an array");
  }
  Problem problem;
  const json& nodes = value.at("nodes");
  if (nodes.size() > static_cast<std::size_t>(kMaxNodes)) {
    return field_error("nodes",
                       fmt::format("{} nodes, more than the limit of {}", nodes.size(), kMaxNodes));
  }
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    absl::StatusOr<Node> node = get_node(nodes[i], fmt::format("nodes[{}]", i));
    if (!node.ok()) return node.status();
    problem.nodes.push_back(*std::move(node));
  }
  const json& jobs = value.at("jobs");
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    absl::StatusOr<Job> job = get_job(jobs[j], fmt::format("jobs[{}]", j));
    if (!job.ok()) return job.status();
    problem.jobs.push_back(*std::move(job));
  }
  if (value.contains("horizon_s")) {
    absl::StatusOr<double> t = get_number(value.at("horizon_s"), "horizon_s");
    if (!t.ok()) return t.status();
    problem.horizon_s = *t;
  }
  if (value.contains("time_limit_s")) {
    absl::StatusOr<double> t = get_number(value.at("time_limit_s"), "time_limit_s");
    if (!t.ok()) return t.status();
    problem.time_limit_s = *t;
  }
  if (value.contains("objective")) {
    absl::StatusOr<std::string> name = get_string(value.at("objective"), "objective");
    if (!name.ok()) return name.status();
    absl::StatusOr<Objective> objective = parse_objective(*name);
    if (!objective.ok()) return objective.status();
    problem.objective = *objective;
  }
  if (value.contains("solver")) {
    absl::StatusOr<std::string> name = get_string(value.at("solver"), "solver");
    if (!name.ok()) return name.status();
    absl::StatusOr<SolverKind> solver = parse_solver(*name);
    if (!solver.ok()) return solver.status();
    problem.solver = *solver;
  }
  if (absl::Status s = validate_problem(problem); !s.ok()) return s;
  return problem;
}

absl::StatusOr<Problem> parse_problem_json(std::string_view text) {
  json value;
  JsonPath path;
  try {
    value = json::parse(text, std::ref(path));
  } catch (const json::parse_error& e) {
    // nlohmann's message already says "at line L, column C"; the token it quotes may be huge.
    return absl::InvalidArgumentError(capped_parse_error(e.what()));
  } catch (const json::out_of_range& e) {
    // A number too large for a double (1e999, id 406): nlohmann says what, not where.
    return field_error(path.str(), e.id == 406 ? "number too large for a double" : e.what());
  }
  return problem_from_json(value);
}

json problem_to_json(const Problem& problem) {
  json out = json::object();
  json nodes = json::array();
  for (const Node& node : problem.nodes) {
    const bool plain = node.kind.empty() && !node.leaving_soon && std::isinf(node.expected_idle_s);
    if (plain) {
      nodes.push_back(node.name);
      continue;
    }
    json n = {{"name", node.name}};
    if (!node.kind.empty()) n["kind"] = node.kind;
    if (node.leaving_soon) n["leaving_soon"] = true;
    if (std::isfinite(node.expected_idle_s)) n["expected_idle_s"] = node.expected_idle_s;
    nodes.push_back(std::move(n));
  }
  out["nodes"] = std::move(nodes);
  out["horizon_s"] = problem.horizon_s;
  out["objective"] = to_string(problem.objective);
  out["solver"] = to_string(problem.solver);
  out["time_limit_s"] = problem.time_limit_s;
  json jobs = json::array();
  for (const Job& job : problem.jobs) {
    json j = {
        {"id", job.id},
        {"min_nodes", job.min_nodes},
        {"max_nodes", job.max_nodes},
        {"nodes", job.nodes},
        {"scaling", {{"nodes", job.scaling.counts()}, {"samples_per_s", job.scaling.values()}}},
        {"grow_stall_s", job.grow_stall_s},
        {"shrink_stall_s", job.shrink_stall_s},
        {"weight", job.weight}};
    if (job.value) j["value"] = {{"nodes", job.value->counts()}, {"values", job.value->values()}};
    if (job.min_share != 0) j["min_share"] = job.min_share;
    if (!job.node_kind.empty()) j["node_kind"] = job.node_kind;
    jobs.push_back(std::move(j));
  }
  out["jobs"] = std::move(jobs);
  return out;
}

json allocation_to_json(const Allocation& allocation, const Problem* problem) {
  std::unordered_set<std::string_view> pool;
  if (problem != nullptr) {
    for (const Node& node : problem->nodes) pool.insert(node.name);
  }
  json jobs = json::array();
  for (std::size_t j = 0; j < allocation.jobs.size(); ++j) {
    const JobAllocation& job = allocation.jobs[j];
    json out = {{"id", job.id},
                {"count", job.count},
                {"nodes", job.nodes},
                {"change", to_string(job.change)}};
    if (problem != nullptr && j < problem->jobs.size()) {
      const Job& in = problem->jobs[j];
      out["previous"] = std::count_if(in.nodes.begin(), in.nodes.end(),
                                      [&](const std::string& n) { return pool.contains(n); });
      out["samples_per_s"] = in.scaling.at(job.count);
    }
    jobs.push_back(std::move(out));
  }
  return {{"status", to_string(allocation.status)},
          {"objective", allocation.objective},
          {"solve_ms", allocation.solve_ms},
          {"jobs", std::move(jobs)},
          {"dropped", allocation.dropped}};
}

}  // namespace elastic::alloc
