// BFTrainer's node-level MILP, kept as the reference the count formulations are checked against
// and as the benchmark's baseline: one binary per (job, node), each node to at most one job, and
// no job both gains and loses nodes in one step. It has J*N binaries and a great deal of symmetry,
// so it is slow at scale by design; its optimum equals the count MILP's.
#include <chrono>

#include "absl/strings/str_cat.h"
#include "milp_count.h"

namespace elastic::alloc {

absl::StatusOr<CountSolution> solve_node_milp(const CountModel& model,
                                              const SolveOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  if (absl::Status s = check_count_model(model); !s.ok()) return s;
  long held = 0;
  for (std::size_t j = 0; j < model.jobs.size(); ++j) {
    if (model.jobs[j].current < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("jobs[", j, "]: negative current count ", model.jobs[j].current));
    }
    held += model.jobs[j].current;
  }
  if (held > model.pool) {
    return absl::InvalidArgumentError(absl::StrCat("jobs hold ", held, " nodes, pool has ",
                                                   model.pool, ": held nodes must be in the pool"));
  }

  // Synthesised nodes 0..N-1; job j holds [offset_j, offset_j + C_j).
  MilpModel milp;
  std::vector<CountBlock> blocks;
  std::vector<std::vector<std::pair<int, double>>> node_users(static_cast<std::size_t>(model.pool));
  int offset = 0;
  for (std::size_t j = 0; j < model.jobs.size(); ++j) {
    const int current = model.jobs[j].current;
    const CountBlock& block =
        blocks.emplace_back(add_count_block(model, j, allowed_intervals(model, j),
                                            CountEncoding::kSegments, static_cast<int>(j), milp));
    // gain_j / lose_j: did the job take a node it did not hold / release one it held.
    const int gain = milp.add_column(0.0, block.grow >= 0 ? 1.0 : 0.0, true, 0.0);
    const int lose = milp.add_column(0.0, block.shrink >= 0 ? 1.0 : 0.0, true, 0.0);
    milp.add_row({{gain, 1.0}, {lose, 1.0}}, MilpSense::kLessEqual, 1.0);
    // Without migration, gaining is growing and losing is shrinking.
    if (block.grow >= 0) milp.add_row({{block.grow, 1.0}, {gain, -1.0}}, MilpSense::kEqual, 0.0);
    if (block.shrink >= 0)
      milp.add_row({{block.shrink, 1.0}, {lose, -1.0}}, MilpSense::kEqual, 0.0);

    std::vector<std::pair<int, double>> count_link{{block.count, -1.0}};
    if (block.points.back() > 0) {
      for (int k = 0; k < model.pool; ++k) {
        const int x = milp.add_column(0.0, 1.0, true, 0.0);
        count_link.emplace_back(x, 1.0);
        node_users[static_cast<std::size_t>(k)].emplace_back(x, 1.0);
        if (k >= offset && k < offset + current) {
          milp.add_row({{lose, 1.0}, {x, 1.0}}, MilpSense::kGreaterEqual, 1.0);  // lose >= 1 - x
        } else {
          milp.add_row({{gain, 1.0}, {x, -1.0}}, MilpSense::kGreaterEqual, 0.0);  // gain >= x
        }
      }
    }
    milp.add_row(std::move(count_link), MilpSense::kEqual, 0.0);
    offset += current;
  }
  for (auto& users : node_users) {
    if (!users.empty()) milp.add_row(std::move(users), MilpSense::kLessEqual, 1.0);
  }

  absl::StatusOr<MilpResult> result =
      solve_with_lp_solve(milp, seconds_left(start, options.time_limit_s));
  if (!result.ok()) return result.status();
  return count_solution(model, blocks, *result);
}

}  // namespace elastic::alloc
