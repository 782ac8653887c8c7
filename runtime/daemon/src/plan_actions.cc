#include "elastic/daemon/plan_actions.h"

#include <algorithm>
#include <iterator>
#include <utility>

namespace elastic::rt {

namespace {

// `a` less the elements of `b`, in `a`'s order.
std::vector<std::string> minus(const std::vector<std::string>& a,
                               const std::vector<std::string>& b) {
  std::vector<std::string> out;
  for (const std::string& x : a) {
    if (std::find(b.begin(), b.end(), x) == b.end()) out.push_back(x);
  }
  return out;
}

}  // namespace

absl::StatusOr<alloc::Job> plan_job(const JobSpec& spec, std::vector<std::string> held,
                                    const alloc::PiecewiseLinear& learned,
                                    const PlanOptions& options, std::int64_t samples_done) {
  alloc::Job j;
  j.id = spec.id;
  j.min_nodes = spec.min_nodes;
  j.max_nodes = spec.max_nodes;
  j.nodes = std::move(held);
  j.grow_stall_s = options.grow_stall_s;
  j.shrink_stall_s = options.shrink_stall_s;
  if (spec.scaling) {
    absl::StatusOr<alloc::PiecewiseLinear> r = alloc::PiecewiseLinear::create(
        spec.scaling->nodes, spec.scaling->samples_per_s, "scaling.samples_per_s");
    if (!r.ok()) return r.status();
    j.scaling = *std::move(r);
    if (!spec.scaling->value.empty()) {
      absl::StatusOr<alloc::PiecewiseLinear> v =
          alloc::PiecewiseLinear::create(spec.scaling->nodes, spec.scaling->value, "scaling.value");
      if (!v.ok()) return v.status();
      j.value = *std::move(v);
    }
    if (spec.scaling->grow_stall_s) j.grow_stall_s = *spec.scaling->grow_stall_s;
    if (spec.scaling->shrink_stall_s) j.shrink_stall_s = *spec.scaling->shrink_stall_s;
  } else {
    j.scaling = learned;
  }
  j.weight = 1.0 + spec.priority;
  if (spec.target_samples) {
    j.remaining_samples = static_cast<double>(*spec.target_samples - samples_done);
  }
  return j;
}

alloc::Problem plan_problem(std::span<const HostEntry> pool, const std::set<std::string>& lost,
                            std::vector<alloc::Job> jobs, const PlanOptions& options,
                            std::span<const double> expected_idle_s) {
  alloc::Problem p;
  p.solver = options.solver;
  p.time_limit_s = options.time_limit_s;
  p.horizon_s = options.horizon_s;
  const bool holes = options.hole_loss && expected_idle_s.size() == pool.size();
  p.expect_departures = holes;
  p.finish_window_scale = holes ? options.finish_window_scale : 0.0;
  for (std::size_t i = 0; i < pool.size(); ++i) {
    if (lost.contains(pool[i].name)) continue;
    p.nodes.push_back(alloc::Node{pool[i].name, "", false, holes ? expected_idle_s[i] : 1e300});
  }
  p.jobs = std::move(jobs);
  return p;
}

std::vector<PlanAction> plan_actions(std::span<const std::vector<std::string>> held,
                                     const alloc::Allocation& allocation) {
  using Kind = PlanAction::Kind;
  std::vector<PlanAction> frees;
  std::vector<PlanAction> takes;
  for (std::size_t j = 0; j < held.size(); ++j) {
    const std::vector<std::string>& have = held[j];
    const alloc::JobAllocation& ja = allocation.jobs[j];
    const std::vector<std::string> gone = minus(have, ja.nodes);
    bool stopped = false;
    if (!have.empty() && (ja.count == 0 || gone.size() == have.size())) {
      frees.push_back(
          {Kind::kStop, j, have,
           ja.count == 0 ? "the plan gave it no nodes" : "all of its nodes were taken back"});
      stopped = true;
    } else if (!gone.empty()) {
      frees.push_back({Kind::kShrink, j, gone, ""});
    }
    if (ja.count == 0) continue;
    if (have.empty() || stopped) {
      takes.push_back({Kind::kStart, j, ja.nodes, ""});
    } else if (std::vector<std::string> fresh = minus(ja.nodes, have); !fresh.empty()) {
      takes.push_back({Kind::kGrow, j, std::move(fresh), ""});
    }
  }
  frees.insert(frees.end(), std::make_move_iterator(takes.begin()),
               std::make_move_iterator(takes.end()));
  return frees;
}

}  // namespace elastic::rt
