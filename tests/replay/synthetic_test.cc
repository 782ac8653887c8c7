// The scale benchmark's generators: the same seed gives the same trace and workload, another seed
// another one; the trace is well formed (per node sorted, disjoint, on the grid, within the span)
// and meets the hole quantiles and the mean idle fraction it was asked for.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "elastic/replay/synthetic_trace.h"
#include "elastic/replay/synthetic_workload.h"

namespace elastic::replay {
namespace {

SyntheticTraceOptions small() {
  SyntheticTraceOptions o;
  o.nodes = 400;
  o.days = 10;
  o.idle_fraction = 0.05;
  return o;
}

bool same(const traces::HoleTrace& a, const traces::HoleTrace& b) {
  if (a.node_names != b.node_names || a.intervals.size() != b.intervals.size()) return false;
  for (std::size_t i = 0; i < a.intervals.size(); ++i) {
    const traces::IdleInterval &x = a.intervals[i], &y = b.intervals[i];
    if (x.node != y.node || x.start != y.start || x.end != y.end || x.censored != y.censored) {
      return false;
    }
  }
  return a.start == b.start && a.end == b.end;
}

TEST(SyntheticTrace, SameSeedSameTrace) {
  auto a = synthetic_trace(small());
  auto b = synthetic_trace(small());
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_TRUE(same(*a, *b));
  SyntheticTraceOptions other = small();
  other.seed = 2;
  auto c = synthetic_trace(other);
  ASSERT_TRUE(c.ok());
  EXPECT_FALSE(same(*a, *c));
}

TEST(SyntheticTrace, WellFormedAndFitted) {
  const SyntheticTraceOptions o = small();
  auto t = synthetic_trace(o);
  ASSERT_TRUE(t.ok()) << t.status();
  ASSERT_EQ(t->node_names.size(), 400u);
  EXPECT_EQ(t->node_names[7], "n00007");
  EXPECT_EQ(t->end - t->start, 10 * 86400.0);
  std::vector<double> lengths;
  double idle_s = 0;
  for (std::size_t i = 0; i < t->intervals.size(); ++i) {
    const traces::IdleInterval& iv = t->intervals[i];
    ASSERT_GE(iv.start, t->start);
    ASSERT_LE(iv.end, t->end);
    ASSERT_LT(iv.start, iv.end);
    ASSERT_EQ(std::fmod(iv.start - t->start, o.grid_s), 0.0);
    ASSERT_EQ(std::fmod(iv.end - t->start, o.grid_s), 0.0);
    ASSERT_EQ(iv.censored, iv.end == t->end);
    if (i > 0 && t->intervals[i - 1].node == iv.node) {
      ASSERT_LT(t->intervals[i - 1].end, iv.start);  // disjoint and not touching
    } else if (i > 0) {
      ASSERT_EQ(t->intervals[i - 1].node + 1, iv.node);
    }
    idle_s += iv.end - iv.start;
    if (!iv.censored && iv.start > t->start) lengths.push_back(iv.end - iv.start);
  }
  ASSERT_GT(lengths.size(), 1000u);
  std::sort(lengths.begin(), lengths.end());
  auto quantile = [&](double q) {
    return lengths[static_cast<std::size_t>(q * static_cast<double>(lengths.size()))];
  };
  // Holes that fit in the span, on a 10 s grid: within 15% of the targets.
  EXPECT_NEAR(quantile(0.1), o.hole_p10_s, 0.15 * o.hole_p10_s);
  EXPECT_NEAR(quantile(0.5), o.hole_median_s, 0.15 * o.hole_median_s);
  EXPECT_NEAR(quantile(0.9), o.hole_p90_s, 0.15 * o.hole_p90_s);
  const double fraction = idle_s / (t->end - t->start) / o.nodes;
  EXPECT_NEAR(fraction, o.idle_fraction, 0.2 * o.idle_fraction);
}

TEST(SyntheticTrace, RejectsBadOptions) {
  SyntheticTraceOptions o = small();
  o.idle_fraction = 1.0;
  EXPECT_EQ(synthetic_trace(o).status().code(), absl::StatusCode::kInvalidArgument);
  o = small();
  o.hole_p10_s = o.hole_median_s;
  EXPECT_EQ(synthetic_trace(o).status().code(), absl::StatusCode::kInvalidArgument);
  o = small();
  o.days = 15.0 / 86400;  // 1.5 grid steps
  EXPECT_EQ(synthetic_trace(o).status().code(), absl::StatusCode::kInvalidArgument);
  o = small();
  o.nodes = 0;
  EXPECT_EQ(synthetic_trace(o).status().code(), absl::StatusCode::kInvalidArgument);
}

std::vector<traces::WorkloadJob> templates() {
  std::vector<traces::WorkloadJob> jobs(3);
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    jobs[i].id = "T" + std::to_string(i);
    jobs[i].max_nodes = static_cast<int>(i) + 1;
  }
  return jobs;
}

TEST(SyntheticWorkload, DeterministicCycledAndSpread) {
  auto a = synthetic_workload(templates(), 1000, 100.0, 5000.0, 7);
  auto b = synthetic_workload(templates(), 1000, 100.0, 5000.0, 7);
  auto c = synthetic_workload(templates(), 1000, 100.0, 5000.0, 8);
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  ASSERT_EQ(a->size(), 1000u);
  bool differs = false;
  for (std::size_t i = 0; i < a->size(); ++i) {
    EXPECT_EQ((*a)[i].submit_unix, (*b)[i].submit_unix);
    differs = differs || (*a)[i].submit_unix != (*c)[i].submit_unix;
    EXPECT_EQ((*a)[i].id, "T" + std::to_string(i % 3) + "~" + std::to_string(i));
    EXPECT_EQ((*a)[i].max_nodes, static_cast<int>(i % 3) + 1);
    EXPECT_GE((*a)[i].submit_unix, 100.0);
    EXPECT_LT((*a)[i].submit_unix, 5100.0);
    if (i > 0) {
      EXPECT_LE((*a)[i - 1].submit_unix, (*a)[i].submit_unix);
    }
  }
  EXPECT_TRUE(differs);
  // Spread over the span: about half the jobs in its first half.
  const auto half = std::count_if(
      a->begin(), a->end(), [](const traces::WorkloadJob& j) { return j.submit_unix < 2600; });
  EXPECT_NEAR(static_cast<double>(half), 500.0, 60.0);
}

TEST(SyntheticWorkload, RejectsBadOptions) {
  EXPECT_FALSE(synthetic_workload({}, 10, 0, 100, 1).ok());
  EXPECT_FALSE(synthetic_workload(templates(), 0, 0, 100, 1).ok());
  EXPECT_FALSE(synthetic_workload(templates(), 10, 0, 0, 1).ok());
}

}  // namespace
}  // namespace elastic::replay
