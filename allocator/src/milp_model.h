// A plain mixed-integer model (columns, sparse rows, SOS2 sets; always maximised) and the one
// backend that solves it. The MILP formulations build this struct; only lp_solve_backend.cc knows
// lp_solve, so no lp_lib.h leaks into the rest of the allocator (or-tools' proto-solver pattern).
// Private to the allocator.
#pragma once

#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace elastic::alloc {

inline constexpr double kMilpInfinity = std::numeric_limits<double>::infinity();

struct MilpColumn {
  double lower = 0.0;
  double upper = kMilpInfinity;
  bool integer = false;
  double objective = 0.0;  // coefficient in the maximised objective
};

enum class MilpSense { kLessEqual, kGreaterEqual, kEqual };

struct MilpRow {
  std::vector<std::pair<int, double>> terms;  // (column index, coefficient)
  MilpSense sense = MilpSense::kLessEqual;
  double rhs = 0.0;
};

// At most two consecutive columns of `columns` (in this order) may be non-zero.
struct MilpSos2 {
  std::vector<int> columns;
  int priority = 0;  // lower branches first
};

struct MilpModel {
  std::vector<MilpColumn> columns;
  std::vector<MilpRow> rows;
  std::vector<MilpSos2> sos2;

  int add_column(double lower, double upper, bool integer, double objective) {
    columns.push_back({lower, upper, integer, objective});
    return static_cast<int>(columns.size()) - 1;
  }
  void add_row(std::vector<std::pair<int, double>> terms, MilpSense sense, double rhs) {
    rows.push_back({std::move(terms), sense, rhs});
  }
};

enum class MilpStatus {
  kOptimal,                   // proven optimal (within the backend's 1e-9 relative gap)
  kTimeLimitWithSolution,     // stopped by the time limit; `values` is the best incumbent
  kTimeLimitWithoutSolution,  // stopped by the time limit before any integer solution
  kInfeasible,
};

struct MilpResult {
  MilpStatus status = MilpStatus::kInfeasible;
  std::vector<double> values;  // one per column when a solution exists, else empty
  double objective = 0.0;      // the backend's floating-point objective of `values`
};

// Solves `model` with lp_solve, silently, stopping after `time_limit_s` seconds of wall time.
// Errors (absl::Status) are failures of the call itself: a malformed model, out of memory, or an
// lp_solve outcome that is neither a solution nor infeasibility (numerical failure, unbounded).
absl::StatusOr<MilpResult> solve_with_lp_solve(const MilpModel& model, double time_limit_s);

}  // namespace elastic::alloc
