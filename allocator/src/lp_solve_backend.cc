// lp_solve 5.5 backend for MilpModel. The only translation unit that includes lp_lib.h.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "elastic/allocator/solvers.h"
#include "milp_model.h"

// Last: lp_lib.h defines macros (TRUE, LE, EQ, ...) that break headers included after it.
#include <lp_lib.h>

// Every lp_solve call that reports failure goes through this, so an error names the call and
// where it was made (lp_solve has no per-call error string beyond the boolean).
#define ELASTIC_LP_CHECK(call)                                                              \
  do {                                                                                      \
    if (!(call)) {                                                                          \
      return absl::InternalError(                                                           \
          absl::StrCat("lp_solve call `", #call, "` failed at ", __FILE__, ":", __LINE__)); \
    }                                                                                       \
  } while (false)

namespace elastic::alloc {
namespace {

struct LpDeleter {
  void operator()(lprec* lp) const { delete_lp(lp); }
};
using LpPtr = std::unique_ptr<lprec, LpDeleter>;

// set_timeout only takes whole seconds; the abort callback gives the sub-second limit the
// allocator needs (lp_solve then returns SUBOPTIMAL when it holds an incumbent).
struct Deadline {
  std::chrono::steady_clock::time_point end;
  bool fired = false;
};

int __WINAPI abort_at_deadline(lprec* /*lp*/, void* handle) {
  auto* deadline = static_cast<Deadline*>(handle);
  if (std::chrono::steady_clock::now() >= deadline->end) deadline->fired = true;
  return deadline->fired ? TRUE : FALSE;
}

absl::Status validate(const MilpModel& model) {
  const int n = static_cast<int>(model.columns.size());
  for (std::size_t c = 0; c < model.columns.size(); ++c) {
    const MilpColumn& col = model.columns[c];
    if (std::isnan(col.lower) || std::isnan(col.upper) || col.lower > col.upper ||
        !std::isfinite(col.objective)) {
      return absl::InvalidArgumentError(absl::StrCat("milp column ", c, ": bounds [", col.lower,
                                                     ", ", col.upper, "] objective ",
                                                     col.objective));
    }
  }
  for (std::size_t r = 0; r < model.rows.size(); ++r) {
    const MilpRow& row = model.rows[r];
    if (!std::isfinite(row.rhs)) {
      return absl::InvalidArgumentError(absl::StrCat("milp row ", r, ": rhs ", row.rhs));
    }
    for (const auto& [col, coef] : row.terms) {
      if (col < 0 || col >= n || !std::isfinite(coef)) {
        return absl::InvalidArgumentError(
            absl::StrCat("milp row ", r, ": term (", col, ", ", coef, ")"));
      }
    }
  }
  for (std::size_t s = 0; s < model.sos2.size(); ++s) {
    if (model.sos2[s].columns.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("milp sos2 set ", s, ": empty"));
    }
    for (int col : model.sos2[s].columns) {
      if (col < 0 || col >= n) {
        return absl::InvalidArgumentError(absl::StrCat("milp sos2 set ", s, ": column ", col));
      }
    }
  }
  return absl::OkStatus();
}

int lp_sense(MilpSense sense) {
  switch (sense) {
    case MilpSense::kLessEqual:
      return LE;
    case MilpSense::kGreaterEqual:
      return GE;
    case MilpSense::kEqual:
      return EQ;
  }
  return EQ;
}

absl::Status load(lprec* lp, const MilpModel& model) {
  const int n = static_cast<int>(model.columns.size());
  const REAL inf = get_infinite(lp);
  auto clip = [inf](double v) { return std::isinf(v) ? (v > 0 ? inf : -inf) : v; };

  // Row mode first: lp_solve stores rows column-wise and is quadratic without it.
  ELASTIC_LP_CHECK(set_add_rowmode(lp, TRUE));
  std::vector<REAL> values;
  std::vector<int> indices;
  for (int c = 0; c < n; ++c) {
    const double obj = model.columns[static_cast<std::size_t>(c)].objective;
    if (obj != 0.0) {
      values.push_back(obj);
      indices.push_back(c + 1);
    }
  }
  if (!values.empty()) {  // lp_solve rejects an empty (null) vector
    ELASTIC_LP_CHECK(
        set_obj_fnex(lp, static_cast<int>(values.size()), values.data(), indices.data()));
  }
  for (const MilpRow& row : model.rows) {
    values.clear();
    indices.clear();
    for (const auto& [col, coef] : row.terms) {
      values.push_back(coef);
      indices.push_back(col + 1);
    }
    ELASTIC_LP_CHECK(add_constraintex(lp, static_cast<int>(values.size()), values.data(),
                                      indices.data(), lp_sense(row.sense), row.rhs));
  }
  ELASTIC_LP_CHECK(set_add_rowmode(lp, FALSE));

  for (int c = 0; c < n; ++c) {
    const MilpColumn& col = model.columns[static_cast<std::size_t>(c)];
    ELASTIC_LP_CHECK(set_bounds(lp, c + 1, clip(col.lower), clip(col.upper)));
    if (col.integer) ELASTIC_LP_CHECK(set_int(lp, c + 1, TRUE));
  }
  for (const MilpSos2& set : model.sos2) {
    indices.clear();
    values.clear();
    for (std::size_t k = 0; k < set.columns.size(); ++k) {
      indices.push_back(set.columns[k] + 1);
      values.push_back(static_cast<REAL>(k + 1));  // strictly increasing order weights
    }
    // add_SOS returns the new set's number, 0 on failure.
    ELASTIC_LP_CHECK(add_SOS(lp, nullptr, 2, set.priority, static_cast<int>(indices.size()),
                             indices.data(), values.data()) != 0);
  }
  set_maxim(lp);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<MilpResult> solve_with_lp_solve(const MilpModel& model, double time_limit_s) {
  if (absl::Status s = validate(model); !s.ok()) return s;
  const int n = static_cast<int>(model.columns.size());
  MilpResult result;
  if (n == 0) {
    // lp_solve cannot hold a model without columns; every row reads 0 <=/>=/= rhs.
    for (const MilpRow& row : model.rows) {
      const bool ok = row.sense == MilpSense::kLessEqual      ? 0.0 <= row.rhs
                      : row.sense == MilpSense::kGreaterEqual ? 0.0 >= row.rhs
                                                              : row.rhs == 0.0;
      if (!ok) return result;  // kInfeasible
    }
    result.status = MilpStatus::kOptimal;
    return result;
  }

  LpPtr lp(make_lp(0, n));
  if (lp == nullptr) {
    return absl::ResourceExhaustedError(
        absl::StrCat("lp_solve call `make_lp(0, ", n, ")` failed at ", __FILE__, ":", __LINE__));
  }
  set_verbose(lp.get(), NEUTRAL);
  if (absl::Status s = load(lp.get(), model); !s.ok()) return s;

  // Exact to 1e-9 relative: solvers are cross-checked against a dynamic program to that bound.
  set_mip_gap(lp.get(), TRUE, 1e-11);
  set_mip_gap(lp.get(), FALSE, 1e-9);
  set_break_at_first(lp.get(), FALSE);
  // Floor first: on count models in segment form it was 30-100x faster than ceiling or automatic
  // (20 jobs x 100 nodes: 0.009 s vs 0.30 s), the other node-selection rules made little
  // difference.
  set_bb_floorfirst(lp.get(), BRANCH_FLOOR);
  set_bb_rule(lp.get(), NODE_FIRSTSELECT);

  Deadline deadline;
  deadline.end = deadline_after(std::chrono::steady_clock::now(), time_limit_s);
  const bool limited = deadline.end != std::chrono::steady_clock::time_point::max();
  if (limited) {
    const double clamped = std::max(0.0, time_limit_s);
    // Whole-second backstop for phases that do not poll the abort callback.
    set_timeout(lp.get(), static_cast<long>(std::ceil(clamped)) + 1);
    put_abortfunc(lp.get(), abort_at_deadline, &deadline);
  }

  const int ret = solve(lp.get());
  const bool out_of_time =
      deadline.fired || (limited && std::chrono::steady_clock::now() >= deadline.end);
  auto fetch = [&]() -> absl::Status {
    result.values.assign(static_cast<std::size_t>(n), 0.0);
    ELASTIC_LP_CHECK(get_variables(lp.get(), result.values.data()));
    result.objective = get_objective(lp.get());
    return absl::OkStatus();
  };
  switch (ret) {
    case OPTIMAL:
    case PRESOLVED:
      result.status = MilpStatus::kOptimal;
      if (absl::Status s = fetch(); !s.ok()) return s;
      return result;
    case SUBOPTIMAL:
      // Also returned when the search ended by the relative gap alone, which is our optimality
      // criterion; only a stop by the clock leaves the incumbent unproven.
      result.status = out_of_time ? MilpStatus::kTimeLimitWithSolution : MilpStatus::kOptimal;
      if (absl::Status s = fetch(); !s.ok()) return s;
      return result;
    case TIMEOUT:
    case USERABORT:
      if (get_solutioncount(lp.get()) > 0) {
        result.status = MilpStatus::kTimeLimitWithSolution;
        if (absl::Status s = fetch(); !s.ok()) return s;
      } else {
        result.status = MilpStatus::kTimeLimitWithoutSolution;
      }
      return result;
    case INFEASIBLE:
      result.status = MilpStatus::kInfeasible;
      return result;
    case NOMEMORY:
      return absl::ResourceExhaustedError(
          absl::StrCat("lp_solve call `solve(lp)` ran out of memory at ", __FILE__, ":", __LINE__));
    default:
      return absl::InternalError(absl::StrCat("lp_solve call `solve(lp)` returned ", ret, " (",
                                              get_statustext(lp.get(), ret), ") at ", __FILE__, ":",
                                              __LINE__));
  }
}

}  // namespace elastic::alloc
