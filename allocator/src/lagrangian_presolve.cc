#include "lagrangian_presolve.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"

namespace elastic::alloc {
namespace {

struct HullPoint {
  int n = 0;
  double gain = 0.0;
};

// One edge of a job's upper concave hull, from vertex `index` to `index + 1`.
struct HullEdge {
  double slope = 0.0;
  std::size_t job = 0;
  std::size_t index = 0;
  int nodes = 0;  // count added by taking the edge
};

// Upper concave hull of the piece endpoints (sorted by n), collinear points removed, so the
// edge slopes strictly decrease.
std::vector<HullPoint> upper_hull(const std::vector<CandidateRange>& pieces,
                                  const CountModel& model, std::size_t j) {
  std::vector<HullPoint> points;
  for (const CandidateRange& p : pieces) {
    points.push_back({p.lo, model.gain(j, p.lo)});
    if (p.hi != p.lo) points.push_back({p.hi, model.gain(j, p.hi)});
  }
  std::vector<HullPoint> hull;
  for (const HullPoint& p : points) {
    while (hull.size() >= 2) {
      const HullPoint& a = hull[hull.size() - 2];
      const HullPoint& b = hull.back();
      // Drop b when it lies on or below the line from a to p.
      const double cross = (b.gain - a.gain) * static_cast<double>(p.n - a.n) -
                           (p.gain - a.gain) * static_cast<double>(b.n - a.n);
      if (cross > 0) break;
      hull.pop_back();
    }
    hull.push_back(p);
  }
  return hull;
}

// The integer sub-range of `piece` where the reduced value gain(n) - lambda*n is >= threshold.
// `slack` (in nodes) widens the cut so rounding never drops a qualifying count.
bool candidate_subrange(const CandidateRange& piece, double lambda, double threshold, int* lo,
                        int* hi) {
  constexpr double kSlackNodes = 1e-6;
  const double f0 = piece.gain_lo - lambda * piece.lo;
  const double d = piece.slope - lambda;
  const double len = static_cast<double>(piece.hi - piece.lo);
  *lo = piece.lo;
  *hi = piece.hi;
  if (piece.hi == piece.lo || d == 0.0) return f0 >= threshold;
  const double x = std::clamp((threshold - f0) / d, -1.0, len + 1.0);
  if (d > 0) {
    *lo = piece.lo + std::max(0, static_cast<int>(std::ceil(x - kSlackNodes)));
  } else {
    *hi = piece.lo + std::min(piece.hi - piece.lo, static_cast<int>(std::floor(x + kSlackNodes)));
  }
  return *lo <= *hi;
}

}  // namespace

std::vector<CandidateRange> linear_pieces(const CountModel& model, std::size_t j) {
  const CountJob& job = model.jobs[j];
  std::vector<CandidateRange> pieces;
  if (model.allowed(j, 0)) pieces.push_back({0, 0, model.gain(j, 0), 0.0});
  const int lo = std::max(job.lo, 1);
  const int hi = std::min(job.hi, model.pool);
  if (lo > hi) return pieces;
  std::vector<int> points{lo, hi};
  for (int b : model.breakpoints(j)) {
    if (b >= lo && b <= hi) points.push_back(b);
  }
  std::sort(points.begin(), points.end());
  points.erase(std::unique(points.begin(), points.end()), points.end());
  if (points.size() == 1) {
    pieces.push_back({lo, lo, model.gain(j, lo), 0.0});
    return pieces;
  }
  for (std::size_t i = 0; i + 1 < points.size(); ++i) {
    // Pieces after the first start one past the previous breakpoint so they stay disjoint.
    const int start = i == 0 ? points[0] : points[i] + 1;
    const int end = points[i + 1];
    const double g_start = model.gain(j, start);
    const double slope =
        end > start ? (model.gain(j, end) - g_start) / static_cast<double>(end - start) : 0.0;
    pieces.push_back({start, end, g_start, slope});
  }
  return pieces;
}

absl::StatusOr<PresolveResult> lagrangian_presolve(const CountModel& model) {
  const std::size_t num_jobs = model.jobs.size();
  const int pool = model.pool;
  std::vector<std::vector<CandidateRange>> pieces(num_jobs);
  std::vector<std::vector<HullPoint>> hulls(num_jobs);
  std::vector<HullEdge> edges;
  long long base = 0;
  for (std::size_t j = 0; j < num_jobs; ++j) {
    pieces[j] = linear_pieces(model, j);
    if (pieces[j].empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "count model job ", j, " must run but has no allowed count (lo=", model.jobs[j].lo,
          ", hi=", model.jobs[j].hi, ", pool=", pool, ")"));
    }
    hulls[j] = upper_hull(pieces[j], model, j);
    base += hulls[j].front().n;
    double prev = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i + 1 < hulls[j].size(); ++i) {
      const int dn = hulls[j][i + 1].n - hulls[j][i].n;
      // Clamp so rounding can never reorder one job's edges.
      const double slope =
          std::min(prev, (hulls[j][i + 1].gain - hulls[j][i].gain) / static_cast<double>(dn));
      prev = slope;
      edges.push_back({slope, j, i, dn});
    }
  }
  if (base > pool) {
    return absl::InvalidArgumentError(absl::StrCat("count model infeasible: must-run floors need ",
                                                   base, " nodes, the pool has ", pool));
  }
  std::stable_sort(edges.begin(), edges.end(), [](const HullEdge& a, const HullEdge& b) {
    if (a.slope != b.slope) return a.slope > b.slope;
    if (a.job != b.job) return a.job < b.job;
    return a.index < b.index;
  });

  PresolveResult result;
  // lambda*: the slope of the first edge that no longer fits (0 if every profitable edge fits).
  long long demand = base;
  for (const HullEdge& e : edges) {
    if (e.slope <= 0) break;
    if (demand + e.nodes > pool) {
      result.lambda = e.slope;
      break;
    }
    demand += e.nodes;
  }

  // Incumbent: walk the hulls greedily, skipping a job once its next edge does not fit ...
  std::vector<std::size_t> level(num_jobs, 0);
  std::vector<bool> blocked(num_jobs, false);
  long long used = base;
  for (const HullEdge& e : edges) {
    if (e.slope <= 0) break;
    if (blocked[e.job] || level[e.job] != e.index) continue;
    if (used + e.nodes > pool) {
      blocked[e.job] = true;
      continue;
    }
    used += e.nodes;
    ++level[e.job];
  }
  std::vector<int> counts(num_jobs);
  for (std::size_t j = 0; j < num_jobs; ++j) counts[j] = hulls[j][level[j]].n;
  // ... then spend what is left, job by job, on the best reachable larger count.
  for (std::size_t j = 0; j < num_jobs; ++j) {
    const long long limit = counts[j] + (pool - used);
    int best = counts[j];
    double best_gain = model.gain(j, best);
    for (const CandidateRange& p : pieces[j]) {
      for (long long n : {static_cast<long long>(p.lo), std::min<long long>(p.hi, limit)}) {
        if (n <= counts[j] || n > limit || n < p.lo) continue;
        const double g = model.gain(j, static_cast<int>(n));
        if (g > best_gain) {
          best_gain = g;
          best = static_cast<int>(n);
        }
      }
    }
    used += best - counts[j];
    counts[j] = best;
  }
  double lower_bound = 0.0;
  for (std::size_t j = 0; j < num_jobs; ++j) lower_bound += model.gain(j, counts[j]);
  result.incumbent.counts = counts;
  result.incumbent.objective = lower_bound;
  result.incumbent.status = SolveStatus::kHeuristic;

  // Upper bound at lambda*; h_j is attained at a piece endpoint.
  std::vector<double> h(num_jobs, -std::numeric_limits<double>::infinity());
  double scale = 1.0 + result.lambda * pool;
  for (std::size_t j = 0; j < num_jobs; ++j) {
    double biggest = 0.0;
    for (const HullPoint& p : hulls[j]) {
      h[j] = std::max(h[j], p.gain - result.lambda * p.n);
      biggest = std::max(biggest, std::abs(p.gain));
    }
    scale += biggest;
  }
  double upper_bound = result.lambda * pool;
  for (double hj : h) upper_bound += hj;
  result.upper_bound = upper_bound;

  // Fix: keep counts whose reduced cost is within the gap (plus a relative tolerance).
  const double eps = 1e-9 * scale;
  const double gap = std::max(0.0, upper_bound - lower_bound) + eps;
  result.candidates.resize(num_jobs);
  for (std::size_t j = 0; j < num_jobs; ++j) {
    std::vector<CandidateRange>& out = result.candidates[j];
    const double threshold = h[j] - gap;
    bool has_incumbent = false;
    for (const CandidateRange& p : pieces[j]) {
      int lo = 0;
      int hi = 0;
      if (!candidate_subrange(p, result.lambda, threshold, &lo, &hi)) continue;
      out.push_back({lo, hi, model.gain(j, lo), p.slope});
      if (counts[j] >= lo && counts[j] <= hi) has_incumbent = true;
    }
    // Exact arithmetic always keeps the incumbent's count; guard against rounding anyway.
    if (!has_incumbent) {
      out.push_back({counts[j], counts[j], model.gain(j, counts[j]), 0.0});
      std::sort(out.begin(), out.end(),
                [](const CandidateRange& a, const CandidateRange& b) { return a.lo < b.lo; });
    }
    if (out.size() == 1 && out[0].lo == out[0].hi) ++result.fixed_jobs;
  }
  return result;
}

}  // namespace elastic::alloc
