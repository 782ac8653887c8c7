// Tests of the trace replay: hole extraction (interval CSV, SWF, EASY backfill), the simulator's
// progress/stall accounting on a scenario computed by hand, bad input, and an end-to-end replay of
// the shared Summit slice checking the metrics' invariants.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "elastic/allocator/solver_table.h"
#include "elastic/replay/easy_backfill.h"
#include "elastic/replay/report.h"
#include "elastic/replay/simulator.h"
#include "elastic/replay/swf_holes.h"
#include "elastic/traces/hole_trace.h"
#include "elastic/traces/interval_csv.h"
#include "elastic/traces/read_lines.h"
#include "elastic/traces/swf_log.h"
#include "elastic/traces/workload_csv.h"

namespace elastic::replay {
namespace {

namespace fs = std::filesystem;

const std::string kData = ELASTIC_SHARED_DATA;
const std::string kSummit = kData + "/nodestate/summit_2021-02-10_first2days_idle_intervals.csv.gz";

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    out.push_back(text.substr(pos, nl - pos));
    pos = nl + 1;
  }
  return out;
}

const std::string kIntervals =
    "node,idle_start_unix,idle_end_unix,duration_s,censored\n"
    "a,100,200,100,0\n"
    "a,200,250,50,0\n"   // touches the previous one: one hole [100,250)
    "b,150,400,250,1\n"  // open at the end of the slice
    "c,300,350,50,0\n";

TEST(IntervalCsv, KnownHolesAndBatches) {
  absl::StatusOr<traces::HoleTrace> t =
      traces::parse_interval_csv("t.csv", lines_of(kIntervals), {});
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->node_names, (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(t->start, 100);
  EXPECT_EQ(t->end, 400);
  ASSERT_EQ(t->intervals.size(), 3u);
  EXPECT_EQ(t->intervals[0].end, 250);
  EXPECT_TRUE(t->intervals[1].censored);
  EXPECT_DOUBLE_EQ(hole_node_seconds(*t), 150 + 250 + 50);

  const std::vector<traces::NodeBatch> b = node_batches(*t);
  ASSERT_EQ(b.size(), 5u);
  EXPECT_EQ(b[0].time, 100);
  EXPECT_EQ(b[0].joins, std::vector<int>{0});
  EXPECT_EQ(b[1].time, 150);
  EXPECT_EQ(b[1].joins, std::vector<int>{1});
  EXPECT_EQ(b[2].time, 250);
  EXPECT_EQ(b[2].leaves, std::vector<int>{0});
  EXPECT_EQ(b[3].time, 300);
  EXPECT_EQ(b[4].time, 350);
  EXPECT_EQ(b[4].leaves, std::vector<int>{2});  // b is censored: it never leaves
}

TEST(IntervalCsv, WindowCutsAndOpensIntervals) {
  absl::StatusOr<traces::HoleTrace> t =
      traces::parse_interval_csv("t.csv", lines_of(kIntervals), {});
  ASSERT_TRUE(t.ok());
  ASSERT_TRUE(clip_to_window(*t, 120.0, 320.0).ok());
  EXPECT_EQ(t->start, 120);
  EXPECT_EQ(t->end, 320);
  EXPECT_DOUBLE_EQ(hole_node_seconds(*t), 130 + 170 + 20);
  for (const traces::IdleInterval& iv : t->intervals)
    EXPECT_EQ(iv.censored, iv.end == 320) << iv.node;
  EXPECT_FALSE(clip_to_window(*t, 500.0, 600.0).ok());
  EXPECT_FALSE(clip_to_window(*t, 300.0, 200.0).ok());
}

// A censored hole that ends before the trace leaves there (it stayed in the pool to the end), and
// a window past the data is cut to it (holes open at the end were stretched to --end).
TEST(IntervalCsv, CensoredHolesLeaveAtTheirEndAndWindowsStopAtTheData) {
  absl::StatusOr<traces::HoleTrace> t =
      traces::parse_interval_csv("t.csv", lines_of(kIntervals + "d,100,200,100,1\n"), {});
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_DOUBLE_EQ(hole_node_seconds(*t), 150 + 250 + 50 + 100);
  bool d_left = false;
  for (const traces::NodeBatch& b : node_batches(*t)) {
    if (b.time == 200) d_left = b.leaves == std::vector<int>{3};
  }
  EXPECT_TRUE(d_left);

  ASSERT_TRUE(clip_to_window(*t, 0.0, 5000.0).ok());
  EXPECT_EQ(t->start, 100);
  EXPECT_EQ(t->end, 400);
  EXPECT_DOUBLE_EQ(hole_node_seconds(*t), 150 + 250 + 50 + 100);
}

TEST(IntervalCsv, BadInputNamesFileLineAndColumn) {
  auto parse = [](const std::string& text, bool lenient = false) {
    return traces::parse_interval_csv("t.csv", lines_of(text), {.lenient = lenient});
  };
  const std::string header = "node,idle_start_unix,idle_end_unix,duration_s,censored\n";
  absl::StatusOr<traces::HoleTrace> t = parse(header + "a,1,2,1,0\na,5,x,1,0\n");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("t.csv:3"), std::string::npos) << t.status();
  EXPECT_NE(t.status().message().find("idle_end_unix"), std::string::npos) << t.status();

  t = parse(header + "a,1,2,1,0\na,5,x,1,0\nb,3,9,6,0\n", true);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->stats.skipped_lines, 1);
  EXPECT_EQ(t->intervals.size(), 2u);

  t = parse("node,idle_start_unix,idle_end_unix,colour\na,1,2,red\n");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("unknown column 'colour'"), std::string::npos);

  t = parse(header + "a,10,5,-5,0\n");  // ends before it starts
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("backwards"), std::string::npos) << t.status();

  t = parse(header + "a,10,50,40,0\na,40,60,20,0\n");  // overlaps the node's previous hole
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("t.csv:3"), std::string::npos) << t.status();

  t = parse(header);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("empty trace"), std::string::npos);

  t = parse(header + "a,1,2,1\n");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("t.csv:2"), std::string::npos);
}

TEST(IntervalCsv, CorruptedRealFileIsRejectedWithItsLine) {
  absl::StatusOr<std::vector<std::string>> lines = traces::read_lines(kSummit);
  ASSERT_TRUE(lines.ok()) << lines.status();
  ASSERT_GT(lines->size(), 1000u);
  (*lines)[999] = "c05n06,16129x0744,1612960916,172,0";
  const fs::path path = fs::temp_directory_path() / "replay_test_corrupt.csv";
  {
    std::ofstream out(path);
    for (const std::string& l : *lines) out << l << '\n';
  }
  absl::StatusOr<traces::HoleTrace> t = traces::load_interval_csv(path.string(), {});
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find(path.string() + ":1000"), std::string::npos) << t.status();
  t = traces::load_interval_csv(path.string(), {.lenient = true});
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->stats.skipped_lines, 1);
  fs::remove(path);
}

// Capacity 4. j1 [1000,1100) 2 nodes; j2 [1050,1150) wants 3 but finds 2 free (overlap beyond the
// capacity); j3 [1210,1260) wants 8 > capacity; j4 has no run time.
const std::string kSwf =
    "; UnixStartTime: 1000\n"
    "; MaxNodes: 4 (batch partition)\n"
    "1 0 0 100 2 -1 -1 2 100 -1 1 1 1 1 1 -1 -1 -1\n"
    "2 50 0 100 3 -1 -1 3 100 -1 1 1 1 1 1 -1 -1 -1\n"
    "3 200 10 50 8 -1 -1 8 60 -1 1 1 1 1 1 -1 -1 -1\n"
    "4 220 0 -1 1 -1 -1 1 60 -1 5 1 1 1 1 -1 -1 -1\n";

TEST(SwfHoles, RecordedScheduleKnownHoles) {
  absl::StatusOr<traces::SwfLog> log = traces::parse_swf("t.swf", lines_of(kSwf), {});
  ASSERT_TRUE(log.ok()) << log.status();
  EXPECT_EQ(log->max_nodes, 4);
  EXPECT_EQ(log->unix_start, 1000);
  absl::StatusOr<traces::HoleTrace> t = holes_from_swf(*log, {});
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->node_names.size(), 4u);
  EXPECT_EQ(t->node_names[0], "node0000");
  EXPECT_EQ(t->start, 1000);
  EXPECT_EQ(t->end, 1260);
  EXPECT_EQ(t->stats.clipped_jobs, 1);
  EXPECT_EQ(t->stats.oversubscribed_jobs, 1);
  EXPECT_EQ(t->stats.ignored_jobs, 1);
  // node0/1: idle [1100,1210); node2/3: idle [1000,1050) and [1150,1210).
  struct Want {
    int node;
    double start, end;
  };
  const std::vector<Want> want = {{0, 1100, 1210}, {1, 1100, 1210}, {2, 1000, 1050},
                                  {2, 1150, 1210}, {3, 1000, 1050}, {3, 1150, 1210}};
  ASSERT_EQ(t->intervals.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(t->intervals[i].node, want[i].node) << i;
    EXPECT_EQ(t->intervals[i].start, want[i].start) << i;
    EXPECT_EQ(t->intervals[i].end, want[i].end) << i;
    EXPECT_FALSE(t->intervals[i].censored);
  }
  EXPECT_DOUBLE_EQ(hole_node_seconds(*t), 440);
}

TEST(SwfHoles, CapacityOptionAndOpenHolesAtTheEnd) {
  absl::StatusOr<traces::SwfLog> log = traces::parse_swf("t.swf", lines_of(kSwf), {});
  ASSERT_TRUE(log.ok());
  absl::StatusOr<traces::HoleTrace> t = holes_from_swf(*log, {.capacity = 10});
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->stats.clipped_jobs, 0);
  EXPECT_EQ(t->stats.oversubscribed_jobs, 0);
  // Nodes 8 and 9 are never used: idle from 1000 to the end, open there.
  int open = 0;
  for (const traces::IdleInterval& iv : t->intervals) open += iv.censored ? 1 : 0;
  EXPECT_EQ(open, 2);
  // busy node-seconds = 2*100 + 3*100 + 8*50 = 900 of 10 * 260
  EXPECT_DOUBLE_EQ(hole_node_seconds(*t), 2600 - 900);
}

TEST(SwfLog, BadLinesAndMissingCapacity) {
  absl::StatusOr<traces::SwfLog> log =
      traces::parse_swf("t.swf", lines_of("; MaxNodes: 4\n1 0 0 100 2 -1 -1 2 100 -1 1 1 1\n"), {});
  ASSERT_FALSE(log.ok());
  EXPECT_NE(log.status().message().find("t.swf:2"), std::string::npos) << log.status();
  log = traces::parse_swf(
      "t.swf", lines_of("; MaxNodes: 4\n1 0 0 1OO 2 -1 -1 2 100 -1 1 1 1 1 1 -1 -1 -1\n"), {});
  ASSERT_FALSE(log.ok());
  EXPECT_NE(log.status().message().find("field 4"), std::string::npos) << log.status();
  log = traces::parse_swf("t.swf", lines_of("1 0 0 100 2 -1 -1 2 100 -1 1 1 1 1 1 -1 -1 -1\n"), {});
  ASSERT_TRUE(log.ok());
  EXPECT_FALSE(holes_from_swf(*log, {}).ok());  // no MaxNodes and no --capacity
  EXPECT_TRUE(holes_from_swf(*log, {.capacity = 4}).ok());
  EXPECT_FALSE(traces::parse_swf("t.swf", lines_of("; MaxNodes: 4\n"), {}).ok());  // no jobs
}

// A textbook EASY case on 10 nodes (times in s): A holds 6, B (8 nodes) must wait for A; C backfills
// on the 2 nodes B will not need, D backfills because it ends before B's reservation, E later fills
// the gap D leaves, F does not (it would delay B).
TEST(EasyBackfill, TextbookExample) {
  const std::vector<BatchJob> jobs = {
      {.submit = 0, .run = 10, .estimate = 10, .nodes = 6},  // A
      {.submit = 1, .run = 5, .estimate = 5, .nodes = 8},    // B
      {.submit = 2, .run = 20, .estimate = 20, .nodes = 2},  // C
      {.submit = 3, .run = 5, .estimate = 5, .nodes = 2},    // D
      {.submit = 4, .run = 1, .estimate = 1, .nodes = 1},    // E
      {.submit = 5, .run = 10, .estimate = 10, .nodes = 2},  // F
  };
  EXPECT_EQ(easy_backfill(jobs, 10), (std::vector<double>{0, 10, 2, 3, 8, 15}));
}

TEST(EasyBackfill, EstimatesDecideActualRunTimesEnd) {
  // B's reservation is at A's estimated end (100), so C (ends at 51) backfills at 1. A really ends
  // at 20, but then B still has to wait for C's node: it starts at 51.
  const std::vector<BatchJob> jobs = {
      {.submit = 0, .run = 20, .estimate = 100, .nodes = 3},
      {.submit = 1, .run = 10, .estimate = 10, .nodes = 4},
      {.submit = 1, .run = 50, .estimate = 50, .nodes = 1},
  };
  EXPECT_EQ(easy_backfill(jobs, 4), (std::vector<double>{0, 51, 1}));
}

TEST(SwfHoles, LogWithoutWaitTimesIsResimulated) {
  // The EASY example above as an SWF log without wait times (field 3 = -1).
  const std::string swf =
      "; MaxNodes: 10\n"
      "1 0 -1 10 6 -1 -1 6 10 -1 1 1 1 1 1 -1 -1 -1\n"
      "2 1 -1 5 8 -1 -1 8 5 -1 1 1 1 1 1 -1 -1 -1\n"
      "3 2 -1 20 2 -1 -1 2 20 -1 1 1 1 1 1 -1 -1 -1\n";
  absl::StatusOr<traces::SwfLog> log = traces::parse_swf("t.swf", lines_of(swf), {});
  ASSERT_TRUE(log.ok());
  absl::StatusOr<traces::HoleTrace> t = holes_from_swf(*log, {});
  ASSERT_TRUE(t.ok()) << t.status();
  // A [0,10) 6, C [2,22) 2, B [10,15) 8: busy = 60 + 40 + 40 = 140 of 10 * 22 node-s.
  EXPECT_EQ(t->end, 22);
  EXPECT_DOUBLE_EQ(hole_node_seconds(*t), 220 - 140);
  EXPECT_FALSE(holes_from_swf(*log, {.schedule = SwfSchedule::kRecorded}).ok());
}

traces::WorkloadJob make_job(const std::string& id, int max_nodes, double grow, double shrink,
                             double pmax, double submit) {
  traces::WorkloadJob j;
  j.id = id;
  j.grow_stall_s = grow;
  j.shrink_stall_s = shrink;
  j.min_nodes = 1;
  j.max_nodes = max_nodes;
  j.target_samples = pmax;
  j.submit_unix = submit;
  const std::vector<int> ns = {0, 1, 2};
  const std::vector<double> ps = {0, 10, 20};
  j.scaling = *alloc::PiecewiseLinear::create(ns, ps);
  j.value = j.scaling;
  return j;
}

std::string solver_name(const ::testing::TestParamInfo<alloc::SolverKind>& info) {
  std::string name(alloc::to_string(info.param));
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

class Accounting : public ::testing::TestWithParam<alloc::SolverKind> {};

// Nodes n0, n1 idle over [0,1000); n1 leaves at 100 and comes back at 200. Job A (2 nodes max,
// Tcup 5, Tcdw 3, Pmax 3000) arrives at 0, job B (Tcup 4, Pmax 1000) at 200; r(n) = 10 n.
//   t=0    A grows 0->2, stalls to 5.             [5,100) at 20/s: 1900
//   t=100  A loses n1, stalls to 103.             [103,200) at 10/s: 970 -> 2870
//   t=200  n1 back, B arrives: A=1, B=1 (200 > 150); B stalls to 204.
//   t=213  A reaches 3000 (130 more at 10/s). B has 90; grows to 2, stalls to 217.
//   t=262.5 B reaches 1000 (910 more at 20/s).
TEST_P(Accounting, TwoJobsThreeTraceEventsByHand) {
  traces::HoleTrace trace;
  trace.node_names = {"n0", "n1"};
  trace.intervals = {{0, 0, 1000, true}, {1, 0, 100, false}, {1, 200, 1000, true}};
  trace.start = 0;
  trace.end = 1000;
  const std::vector<traces::WorkloadJob> workload = {make_job("A", 2, 5, 3, 3000, 50),
                                                     make_job("B", 2, 4, 2, 1000, 250)};
  ReplayOptions options;
  options.solver = GetParam();
  absl::StatusOr<ReplayResult> r = run_replay(trace, workload, options);
  ASSERT_TRUE(r.ok()) << r.status();
  const Metrics& m = r->metrics;
  EXPECT_DOUBLE_EQ(r->jobs[0].arrival, 0);
  EXPECT_DOUBLE_EQ(r->jobs[1].arrival, 200);
  EXPECT_NEAR(r->jobs[0].finish, 213, 1e-9);
  EXPECT_NEAR(r->jobs[1].finish, 262.5, 1e-9);
  EXPECT_EQ(m.jobs_submitted, 2);
  EXPECT_EQ(m.jobs_finished, 2);
  EXPECT_EQ(m.rescales, 3);
  EXPECT_EQ(m.preemptions, 1);
  EXPECT_EQ(m.events, 5);
  EXPECT_NEAR(m.samples, 4000, 1e-6);
  EXPECT_NEAR(m.ideal_samples, 2000 + 1130 + 130 + 990, 1e-6);
  EXPECT_NEAR(m.allocated_node_s, 313 + 112, 1e-9);
  EXPECT_NEAR(m.hole_node_s, 1000 + 900, 1e-9);
  EXPECT_NEAR(m.scaling_ideal_samples, 4250, 1e-6);
  EXPECT_NEAR(m.elastic_efficiency, 4000.0 / 4250, 1e-12);
  // I - S by cause: A's start (5 s x 20) and B's (4 s x 10), B's grow (4 s x 20), A's
  // preemption (3 s x 10). Grants: A 2, B 1 + 1; finishes give back A's 1 and B's 2.
  const auto lost = [&](StallCause c) { return m.lost_samples[static_cast<std::size_t>(c)]; };
  EXPECT_NEAR(lost(StallCause::kStart), 100 + 40, 1e-9);
  EXPECT_NEAR(lost(StallCause::kGrow), 80, 1e-9);
  EXPECT_NEAR(lost(StallCause::kShrink), 0, 1e-9);
  EXPECT_NEAR(lost(StallCause::kPreemption), 30, 1e-9);
  EXPECT_EQ(m.node_grants, 4);
  EXPECT_EQ(m.nodes_freed_by_finishes, 3);
  EXPECT_NEAR(m.utilization, 425.0 / 1900, 1e-12);
  EXPECT_NEAR(m.jct_s_p50, 62.5, 1e-9);
  EXPECT_NEAR(m.jct_s_p99, 213, 1e-9);
  // The timeline after each event: (idle, allocated).
  std::vector<std::pair<int, int>> rows;
  for (const TimelineRow& row : r->timeline) rows.emplace_back(row.idle, row.allocated);
  EXPECT_EQ(rows, (std::vector<std::pair<int, int>>{{2, 2}, {1, 1}, {2, 2}, {2, 2}, {2, 0}}));
}

INSTANTIATE_TEST_SUITE_P(Solvers, Accounting,
                         ::testing::Values(alloc::SolverKind::kMilp, alloc::SolverKind::kDp,
                                           alloc::SolverKind::kEqualShare),
                         solver_name);

// Node n0 idle over [0,100), n1 over [100,1000): at 100 job A (1 node, Tcup 5, Tcdw 3) loses n0
// and is given n1 in the same event. With no node left it had nothing to shrink: it stalls 5 s
// (a fresh start), not 3 + 5. [5,100) and [105,1000) at 10/s: 950 + 8950.
TEST(Replay, JobLeftWithNoNodeRestartsWithoutAShrinkStall) {
  traces::HoleTrace trace;
  trace.node_names = {"n0", "n1"};
  trace.intervals = {{0, 0, 100, false}, {1, 100, 1000, true}};
  trace.start = 0;
  trace.end = 1000;
  const std::vector<traces::WorkloadJob> workload = {make_job("A", 1, 5, 3, 1e9, 0)};
  absl::StatusOr<ReplayResult> r = run_replay(trace, workload, ReplayOptions{});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->metrics.preemptions, 1);
  EXPECT_EQ(r->metrics.rescales, 2);
  EXPECT_NEAR(r->metrics.samples, 950 + 8950, 1e-6);
  EXPECT_NEAR(r->metrics.ideal_samples, 10000, 1e-6);
  // Both losses are starts (5 s x 10 each); the preemption to no node cost nothing.
  EXPECT_NEAR(r->metrics.lost_samples[static_cast<std::size_t>(StallCause::kStart)], 100, 1e-9);
  EXPECT_EQ(r->metrics.lost_samples[static_cast<std::size_t>(StallCause::kPreemption)], 0);
}

// n0 idle over [0,5000), n1 over [3550,7200); job A (2 nodes, Tcup 100, Tcdw 50, r(n) = 10 n)
// arrives at 0; a 600 s horizon makes the grow at 3550 pay. By hand, per hour:
//   hour 0: A starts on n0 (lost 100 s x 10), grows onto n1 at 3550 and stalls to 3650, 50 s of
//           it here (x 20); ideal 10 x 3550 + 20 x 50; 3650 node-s; 2 grants.
//   hour 1: the other 50 s of the grow stall; n0 leaves at 5000, A stalls 50 s at 10/s; ideal
//           20 x 1400 + 10 x 2200; 1400 + 3600 node-s.
TEST(Replay, HourlyTotalsSplitAStallAtTheHourAndSumToTheRun) {
  traces::HoleTrace trace;
  trace.node_names = {"n0", "n1"};
  trace.intervals = {{0, 0, 5000, false}, {1, 3550, 7200, true}};
  trace.start = 0;
  trace.end = 7200;
  const std::vector<traces::WorkloadJob> workload = {make_job("A", 2, 100, 50, 1e9, 0)};
  ReplayOptions options;
  options.solver = alloc::SolverKind::kDp;
  options.horizon_s = 600;
  absl::StatusOr<ReplayResult> r = run_replay(trace, workload, options);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->hours.size(), 2u);
  const auto lost = [](const HourTotals& h, StallCause c) {
    return h.lost_samples[static_cast<std::size_t>(c)];
  };
  const HourTotals& h0 = r->hours[0];
  const HourTotals& h1 = r->hours[1];
  EXPECT_NEAR(h0.hole_node_s, 3650, 1e-9);
  EXPECT_NEAR(h0.allocated_node_s, 3650, 1e-9);
  EXPECT_NEAR(h0.ideal_samples, 35500 + 1000, 1e-6);
  EXPECT_NEAR(lost(h0, StallCause::kStart), 1000, 1e-9);
  EXPECT_NEAR(lost(h0, StallCause::kGrow), 1000, 1e-9);
  EXPECT_EQ(h0.node_grants, 2);
  EXPECT_NEAR(h1.hole_node_s, 5000, 1e-9);
  EXPECT_NEAR(h1.ideal_samples, 28000 + 22000, 1e-6);
  EXPECT_NEAR(lost(h1, StallCause::kGrow), 1000, 1e-9);
  EXPECT_NEAR(lost(h1, StallCause::kPreemption), 500, 1e-9);
  EXPECT_EQ(lost(h1, StallCause::kStart), 0);
  EXPECT_EQ(h1.node_grants, 0);
  // The hours add up to the run.
  const Metrics& m = r->metrics;
  EXPECT_NEAR(h0.ideal_samples + h1.ideal_samples, m.ideal_samples, 1e-6);
  EXPECT_NEAR(h0.hole_node_s + h1.hole_node_s, m.hole_node_s, 1e-9);
  for (std::size_t c = 0; c < kStallCauses; ++c) {
    EXPECT_NEAR(h0.lost_samples[c] + h1.lost_samples[c], m.lost_samples[c], 1e-9) << c;
  }
  EXPECT_EQ(h0.node_grants + h1.node_grants, m.node_grants);
  // Without the timeline nothing is kept per hour.
  options.record_timeline = false;
  r = run_replay(trace, workload, options);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->hours.empty());
}

TEST(Replay, EmptyInputsAreErrors) {
  traces::HoleTrace trace;
  trace.node_names = {"n0"};
  trace.start = 0;
  trace.end = 10;
  const std::vector<traces::WorkloadJob> workload = {make_job("A", 2, 5, 3, 3000, 0)};
  EXPECT_FALSE(run_replay(trace, workload, {}).ok());
  trace.intervals = {{0, 0, 10, true}};
  EXPECT_FALSE(run_replay(trace, {}, {}).ok());
}

// The shared 2-day Summit slice with the 10-job ShuffleNet workload, through milp and equal-share.
class SummitEndToEnd : public ::testing::TestWithParam<alloc::SolverKind> {};

TEST_P(SummitEndToEnd, InvariantsHold) {
  absl::StatusOr<traces::HoleTrace> trace = traces::load_interval_csv(kSummit, {});
  ASSERT_TRUE(trace.ok()) << trace.status();
  EXPECT_EQ(trace->intervals.size() + 0u, 47271u);  // no two intervals of a node touch here
  absl::StatusOr<std::vector<traces::WorkloadJob>> workload =
      traces::load_workload_csv(kData + "/workloads/hps-shufflenet-jobs-10J.csv.gz");
  ASSERT_TRUE(workload.ok()) << workload.status();
  ReplayOptions options;
  options.solver = GetParam();
  absl::StatusOr<ReplayResult> r = run_replay(*trace, *workload, options);
  ASSERT_TRUE(r.ok()) << r.status();
  const Metrics& m = r->metrics;
  EXPECT_NEAR(m.hole_node_s, hole_node_seconds(*trace), 1e-6 * m.hole_node_s);
  for (double x : {m.utilization, m.elastic_efficiency, m.scaling_efficiency}) {
    EXPECT_GE(x, 0.0);
    EXPECT_LE(x, 1.0);
  }
  EXPECT_GT(m.utilization, 0.0);
  EXPECT_GT(m.samples, 0.0);
  EXPECT_LE(m.samples, m.ideal_samples * (1 + 1e-12));
  // Every sample the allocations could have made and did not is lost to some stall.
  double lost = 0.0;
  for (double x : m.lost_samples) {
    EXPECT_GE(x, 0.0);
    lost += x;
  }
  EXPECT_NEAR(lost, m.ideal_samples - m.samples, 1e-9 * m.ideal_samples);
  EXPECT_GT(m.lost_samples[static_cast<std::size_t>(StallCause::kStart)], 0.0);
  EXPECT_EQ(m.jobs_submitted, 10);
  EXPECT_GT(m.jobs_finished, 0);
  for (std::size_t j = 0; j < workload->size(); ++j) {
    const JobOutcome& out = r->jobs[j];
    if (out.finish >= 0) {
      EXPECT_DOUBLE_EQ(out.samples, (*workload)[j].target_samples) << j;
      EXPECT_GE(out.finish, out.arrival);
    } else {
      EXPECT_LT(out.samples, (*workload)[j].target_samples) << j;
    }
  }
  ASSERT_FALSE(r->timeline.empty());
  for (const TimelineRow& row : r->timeline) {
    ASSERT_LE(row.allocated, row.idle) << "at t=" << row.time;
    int sum = 0;
    for (auto [job, n] : row.counts) {
      EXPECT_LE(n, (*workload)[job].max_nodes);
      sum += n;
    }
    ASSERT_EQ(sum, row.allocated);
    ASSERT_LE(row.running, 10);
  }
  // The hours add up to the run.
  ASSERT_EQ(r->hours.size(), 48u);  // 47.3 h
  double ideal = 0.0, lost_h = 0.0;
  std::int64_t grants = 0;
  for (const HourTotals& h : r->hours) {
    ideal += h.ideal_samples;
    for (double x : h.lost_samples) lost_h += x;
    grants += h.node_grants;
  }
  EXPECT_NEAR(ideal, m.ideal_samples, 1e-9 * m.ideal_samples);
  EXPECT_NEAR(lost_h, m.ideal_samples - m.samples, 1e-9 * m.ideal_samples);
  EXPECT_EQ(grants, m.node_grants);
  // The outputs are written and readable.
  const fs::path dir = fs::temp_directory_path() /
                       ("replay_test_out_" + std::to_string(static_cast<int>(GetParam())));
  ASSERT_TRUE(write_outputs(dir.string(), *trace, *workload, *r).ok());
  EXPECT_TRUE(fs::exists(dir / "metrics.json"));
  std::ifstream timeline(dir / "timeline.csv");
  std::string header;
  std::getline(timeline, header);
  EXPECT_EQ(header.rfind("time_unix,time_s,idle_nodes,allocated_nodes", 0), 0u);
  std::ifstream hours(dir / "hours.csv");
  int lines = 0;
  for (std::string line; std::getline(hours, line);) ++lines;
  EXPECT_EQ(lines, 1 + 48);
  fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Solvers, SummitEndToEnd,
                         ::testing::Values(alloc::SolverKind::kMilp,
                                           alloc::SolverKind::kEqualShare),
                         solver_name);

}  // namespace
}  // namespace elastic::replay
