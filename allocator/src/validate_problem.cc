#include "elastic/allocator/validate_problem.h"

#include <cmath>
#include <string>
#include <string_view>
#include <unordered_map>

#include "elastic/allocator/input_limits.h"
#include "elastic/allocator/solver_table.h"
#include "fmt/format.h"

namespace elastic::alloc {
namespace {

absl::Status field_error(std::string_view field, std::string_view message) {
  return absl::InvalidArgumentError(fmt::format("{}: {}", field, message));
}

absl::Status check_non_negative(double value, std::string_view field) {
  if (!std::isfinite(value) || value < 0) {
    return field_error(field, fmt::format("must be finite and >= 0, got {}", value));
  }
  return absl::OkStatus();
}

// Seconds multiply table values in the objective: bounded so that the product stays finite.
absl::Status check_seconds(double value, std::string_view field) {
  if (absl::Status s = check_non_negative(value, field); !s.ok()) return s;
  if (value > kMaxSeconds) {
    return field_error(field, fmt::format("must be <= {:g}, got {:g}", kMaxSeconds, value));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status validate_problem(const Problem& problem) {
  if (!std::isfinite(problem.horizon_s) || problem.horizon_s <= 0 ||
      problem.horizon_s > kMaxSeconds) {
    return field_error(
        "horizon_s", fmt::format("must be in (0, {:g}], got {:g}", kMaxSeconds, problem.horizon_s));
  }
  if (!std::isfinite(problem.finish_window_scale) || problem.finish_window_scale < 0) {
    return field_error("finish_window_scale", fmt::format("must be finite and >= 0, got {:g}",
                                                          problem.finish_window_scale));
  }
  if (find_solver(problem.solver) == nullptr) {
    return field_error("solver",
                       fmt::format("unknown solver kind {}", static_cast<int>(problem.solver)));
  }
  if (!(problem.time_limit_s > 0)) {
    return field_error("time_limit_s", fmt::format("must be > 0, got {}", problem.time_limit_s));
  }
  std::unordered_map<std::string_view, std::size_t> pool;  // name -> index in problem.nodes
  for (std::size_t i = 0; i < problem.nodes.size(); ++i) {
    const Node& node = problem.nodes[i];
    const std::string field = fmt::format("nodes[{}]", i);
    if (node.name.empty()) return field_error(field, "empty node name");
    const auto [it, inserted] = pool.emplace(node.name, i);
    if (!inserted) {
      return field_error(field, fmt::format("duplicate node '{}' (also nodes[{}])",
                                            echo_token(node.name), it->second));
    }
    if (std::isnan(node.expected_idle_s) || node.expected_idle_s < 0) {
      return field_error(fmt::format("{}.expected_idle_s", field),
                         fmt::format("must be >= 0, got {}", node.expected_idle_s));
    }
  }
  std::unordered_map<std::string_view, std::size_t> ids;
  std::unordered_map<std::string_view, std::size_t> holder;  // node name -> job index
  for (std::size_t j = 0; j < problem.jobs.size(); ++j) {
    const Job& job = problem.jobs[j];
    const std::string prefix = fmt::format("jobs[{}]", j);
    if (job.id.empty()) return field_error(prefix + ".id", "empty job id");
    const auto [id_it, id_new] = ids.emplace(job.id, j);
    if (!id_new) {
      return field_error(prefix + ".id", fmt::format("duplicate job id '{}' (also jobs[{}])",
                                                     echo_token(job.id), id_it->second));
    }
    if (job.min_nodes < 1) {
      return field_error(prefix + ".min_nodes", fmt::format("must be >= 1, got {}", job.min_nodes));
    }
    if (job.max_nodes > kMaxNodes) {
      return field_error(prefix + ".max_nodes",
                         fmt::format("must be <= {}, got {}", kMaxNodes, job.max_nodes));
    }
    if (job.min_nodes > job.max_nodes) {
      return field_error(prefix + ".max_nodes",
                         fmt::format("min_nodes {} > max_nodes {}", job.min_nodes, job.max_nodes));
    }
    if (absl::Status s = check_seconds(job.grow_stall_s, prefix + ".grow_stall_s"); !s.ok()) {
      return s;
    }
    if (absl::Status s = check_seconds(job.shrink_stall_s, prefix + ".shrink_stall_s"); !s.ok()) {
      return s;
    }
    if (absl::Status s = check_non_negative(job.weight, prefix + ".weight"); !s.ok()) return s;
    if (job.weight > kMaxWeight) {
      return field_error(prefix + ".weight",
                         fmt::format("must be <= {:g}, got {:g}", kMaxWeight, job.weight));
    }
    if (job.min_share < 0) {
      return field_error(prefix + ".min_share", fmt::format("must be >= 0, got {}", job.min_share));
    }
    if (job.scaling.empty()) return field_error(prefix + ".scaling", "empty table");
    if (job.value && job.value->empty()) return field_error(prefix + ".value", "empty table");
    for (std::size_t k = 0; k < job.nodes.size(); ++k) {
      const std::string& name = job.nodes[k];
      const std::string field = fmt::format("{}.nodes[{}]", prefix, k);
      if (name.empty()) return field_error(field, "empty node name");
      const auto [it, inserted] = holder.emplace(name, j);
      if (!inserted) {
        return field_error(field, it->second == j
                                      ? fmt::format("node '{}' listed twice", echo_token(name))
                                      : fmt::format("node '{}' is also held by jobs[{}]",
                                                    echo_token(name), it->second));
      }
      const auto in_pool = pool.find(name);
      if (in_pool != pool.end() && problem.nodes[in_pool->second].kind != job.node_kind) {
        return field_error(
            field, fmt::format("node '{}' is of kind '{}' but the job runs on kind '{}'", name,
                               problem.nodes[in_pool->second].kind, job.node_kind));
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace elastic::alloc
