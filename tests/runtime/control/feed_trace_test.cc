// `elastic feed trace`: a hand-made interval file with known changes gives the exact sequence of
// hostfiles (planned, and written to a real file), the node choice is deterministic (input order
// does not matter, ties are broken by idle time then name), and bad options are named.
#include "elastic/control/feed_trace.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "elastic/control/atomic_file.h"
#include "elastic/traces/interval_csv.h"
#include "temp_dir.h"

namespace elastic::rt {
namespace {

using testing::TempDir;
using testing::write_text;

constexpr double kBase = 1612960000;  // a Summit-like Unix time, so --start can be tested both ways

// Times are offsets from kBase. The trace spans [1000, 2000).
//   a: idle at the start until 1100, again 1300-1400            -> 3 changes
//   b: idle throughout (censored)                                 -> 0 changes
//   c: 1050-1150, 1200-1250, 1500-1600                            -> 6 changes
//   d: 1600 to the end (censored)                                 -> 1 change
//   e: 1100-1200                                                  -> 2 changes
constexpr const char* kRows[] = {
    "a,1000,1100,0", "a,1300,1400,0", "b,1000,2000,1", "c,1050,1150,0",
    "c,1200,1250,0", "c,1500,1600,0", "d,1600,2000,1", "e,1100,1200,0",
};

std::string csv(std::vector<std::string> rows) {
  std::string out = "node,idle_start_unix,idle_end_unix,duration_s,censored\n";
  for (const std::string& r : rows) {
    // "n,s,e,c" with offsets -> the real column layout with Unix times and the duration.
    const auto c1 = r.find(','), c2 = r.find(',', c1 + 1), c3 = r.find(',', c2 + 1);
    const double s = std::stod(r.substr(c1 + 1, c2 - c1 - 1));
    const double e = std::stod(r.substr(c2 + 1, c3 - c2 - 1));
    out += r.substr(0, c1) + "," + std::to_string(static_cast<long>(kBase + s)) + "," +
           std::to_string(static_cast<long>(kBase + e)) + "," +
           std::to_string(static_cast<long>(e - s)) + "," + r.substr(c3 + 1) + "\n";
  }
  return out;
}

traces::HoleTrace load(const TempDir& dir, const std::vector<std::string>& rows) {
  const auto path = dir / "trace.csv";
  write_text(path, csv(rows));
  absl::StatusOr<traces::HoleTrace> t = traces::load_interval_csv(path.string(), {});
  EXPECT_TRUE(t.ok()) << t.status();
  return t.ok() ? *std::move(t) : traces::HoleTrace{};
}

std::vector<std::string> rows() { return {std::begin(kRows), std::end(kRows)}; }

// One line per step: "offset: -left +joined => hosts".
std::vector<std::string> describe(const TraceFeedPlan& plan) {
  std::vector<std::string> out;
  for (const TraceStep& s : plan.steps) {
    std::string line = std::to_string(static_cast<int>(s.offset_s)) + ":";
    for (const auto& n : s.left) line += " -" + n;
    for (const auto& n : s.joined) line += " +" + n;
    line += " =>";
    for (const auto& h : s.hosts) line += " " + h.name;
    out.push_back(line);
  }
  return out;
}

TEST(FeedTrace, WholeTraceExactSequence) {
  TempDir dir;
  const traces::HoleTrace trace = load(dir, rows());
  TraceFeedOptions o;
  o.nodes = 3;
  absl::StatusOr<TraceFeedPlan> plan = plan_trace_feed(trace, o);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->trace_names, (std::vector<std::string>{"c", "a", "e"}));
  EXPECT_EQ(plan->names, (std::vector<std::string>{"node01", "node02", "node03"}));
  EXPECT_EQ(plan->changes, (std::vector<int>{6, 3, 2}));
  EXPECT_EQ(plan->window_start, kBase + 1000);
  EXPECT_EQ(plan->window_end, kBase + 2000);
  EXPECT_EQ(describe(*plan), (std::vector<std::string>{
                                 "0: +node02 => node02",
                                 "50: +node01 => node01 node02",
                                 "100: -node02 +node03 => node01 node03",
                                 "150: -node01 => node03",
                                 "200: -node03 +node01 => node01",
                                 "250: -node01 =>",
                                 "300: +node02 => node02",
                                 "400: -node02 =>",
                                 "500: +node01 => node01",
                                 "600: -node01 =>",
                             }));
}

// --hosts: the same choice and sequence, onto the given hosts (a cluster in a box's h1..hK).
TEST(FeedTrace, OntoNamedHosts) {
  TempDir dir;
  const traces::HoleTrace trace = load(dir, rows());
  TraceFeedOptions o;
  o.hosts = {"h1", "h2", "h3"};
  absl::StatusOr<TraceFeedPlan> plan = plan_trace_feed(trace, o);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->trace_names, (std::vector<std::string>{"c", "a", "e"}));
  EXPECT_EQ(plan->names, (std::vector<std::string>{"h1", "h2", "h3"}));
  ASSERT_GE(plan->steps.size(), 3u);
  EXPECT_EQ(describe(*plan)[2], "100: -h2 +h3 => h1 h3");
  o.hosts = {"h1", "h1"};
  plan = plan_trace_feed(trace, o);
  EXPECT_TRUE(absl::IsInvalidArgument(plan.status())) << plan.status();
  EXPECT_NE(plan.status().message().find("--hosts"), std::string::npos) << plan.status();
  o.hosts = {"h1", "h2", "h3", "h4", "h5", "h6"};  // the trace has 5 nodes
  EXPECT_FALSE(plan_trace_feed(trace, o).ok());
}

TEST(FeedTrace, WritesEachVersionOfTheHostfile) {
  TempDir dir;
  const traces::HoleTrace trace = load(dir, rows());
  TraceFeedOptions o;
  o.nodes = 5;
  o.slots = 2;
  absl::StatusOr<TraceFeedPlan> plan = plan_trace_feed(trace, o);
  ASSERT_TRUE(plan.ok()) << plan.status();
  // d (1 change) before b (0 changes).
  EXPECT_EQ(plan->trace_names, (std::vector<std::string>{"c", "a", "e", "d", "b"}));
  const auto out = dir / "hosts";
  std::vector<std::string> written;
  std::vector<double> walls;
  absl::Status s = run_trace_feed(*plan, out, 1e7, [&](const TraceStep&, double wall) {
    absl::StatusOr<std::string> text = read_file(out);
    ASSERT_TRUE(text.ok()) << text.status();
    written.push_back(*text);
    walls.push_back(wall);
  });
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(written, (std::vector<std::string>{
                         "node02 slots=2\nnode05 slots=2\n",
                         "node01 slots=2\nnode02 slots=2\nnode05 slots=2\n",
                         "node01 slots=2\nnode03 slots=2\nnode05 slots=2\n",
                         "node03 slots=2\nnode05 slots=2\n",
                         "node01 slots=2\nnode05 slots=2\n",
                         "node05 slots=2\n",
                         "node02 slots=2\nnode05 slots=2\n",
                         "node05 slots=2\n",
                         "node01 slots=2\nnode05 slots=2\n",
                         // 1600: c leaves and d joins in the same instant: one version.
                         "node04 slots=2\nnode05 slots=2\n",
                     }));
  EXPECT_TRUE(std::is_sorted(walls.begin(), walls.end()));
  // Every version is a hostfile the daemon's parser accepts.
  absl::StatusOr<std::vector<HostEntry>> last = read_hostfile(out);
  ASSERT_TRUE(last.ok()) << last.status();
  EXPECT_EQ(last->size(), 2u);
}

TEST(FeedTrace, WindowByOffsetOrUnixTime) {
  TempDir dir;
  const traces::HoleTrace trace = load(dir, rows());
  TraceFeedOptions o;
  o.nodes = 2;
  o.start = 250;  // [1250, 1550)
  o.duration = 300;
  absl::StatusOr<TraceFeedPlan> by_offset = plan_trace_feed(trace, o);
  ASSERT_TRUE(by_offset.ok()) << by_offset.status();
  // In the window a changes twice (1300, 1400); c once (joins at 1500, still idle at 1550).
  EXPECT_EQ(by_offset->trace_names, (std::vector<std::string>{"a", "c"}));
  EXPECT_EQ(by_offset->changes, (std::vector<int>{2, 1}));
  EXPECT_EQ(describe(*by_offset), (std::vector<std::string>{
                                      "0: =>",
                                      "50: +node01 => node01",
                                      "150: -node01 =>",
                                      "250: +node02 => node02",
                                  }));
  o.start = kBase + 1250;
  absl::StatusOr<TraceFeedPlan> by_time = plan_trace_feed(trace, o);
  ASSERT_TRUE(by_time.ok()) << by_time.status();
  EXPECT_EQ(describe(*by_time), describe(*by_offset));
  EXPECT_EQ(by_time->window_start, kBase + 1250);
  EXPECT_EQ(by_time->window_end, kBase + 1550);
}

TEST(FeedTrace, ChoiceIgnoresInputOrderAndBreaksTies) {
  TempDir dir;
  // x and y change twice each, y idles longer: y first. v and w change twice with equal idle
  // time: by name. z changes twice but idles shortest.
  std::vector<std::string> r = {"x,1000,1001,0", "x,1100,1200,0", "x,1900,2000,1", "y,1100,1300,0",
                                "w,1300,1450,0", "v,1500,1650,0", "z,1700,1710,0"};
  const traces::HoleTrace forward = load(dir, r);
  // Nodes in the opposite order (each node's own rows stay in time order, as the loader wants).
  std::stable_sort(r.begin(), r.end(),
                   [](const std::string& p, const std::string& q) { return p[0] > q[0]; });
  const traces::HoleTrace backward = load(dir, r);
  TraceFeedOptions o;
  o.nodes = 5;
  absl::StatusOr<TraceFeedPlan> a = plan_trace_feed(forward, o);
  absl::StatusOr<TraceFeedPlan> b = plan_trace_feed(backward, o);
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_TRUE(b.ok()) << b.status();
  // x: leaves at 1001, joins 1100, leaves 1200, joins 1900 (censored): 4 changes.
  EXPECT_EQ(a->trace_names, (std::vector<std::string>{"x", "y", "v", "w", "z"}));
  EXPECT_EQ(a->changes, (std::vector<int>{4, 2, 2, 2, 2}));
  EXPECT_EQ(a->trace_names, b->trace_names);
  EXPECT_EQ(describe(*a), describe(*b));
}

TEST(FeedTrace, BadOptionsAreNamed) {
  TempDir dir;
  const traces::HoleTrace trace = load(dir, rows());
  const auto message = [&](TraceFeedOptions o) {
    absl::StatusOr<TraceFeedPlan> p = plan_trace_feed(trace, o);
    EXPECT_FALSE(p.ok());
    EXPECT_TRUE(absl::IsInvalidArgument(p.status())) << p.status();
    return std::string(p.status().message());
  };
  TraceFeedOptions o;
  o.nodes = 6;  // the trace has 5 nodes
  EXPECT_NE(message(o).find("--nodes"), std::string::npos);
  o.nodes = 0;
  EXPECT_NE(message(o).find("--nodes"), std::string::npos);
  o = {};
  o.nodes = 2;
  o.start = 1000;  // offset 1000 = the trace's end
  EXPECT_NE(message(o).find("--start"), std::string::npos);
  o.start = kBase + 5000;
  EXPECT_NE(message(o).find("--start"), std::string::npos);
  // Issue 16: printed "-9223372036854775808 is outside the trace" (a double cast to long long).
  o.start = 1e300;
  const std::string huge = message(o);
  EXPECT_EQ(huge.rfind("--start: 1e+300 is outside the trace [", 0), 0u) << huge;
  EXPECT_EQ(huge.find("-9223372036854775808"), std::string::npos) << huge;
  o.start.reset();
  o.duration = 0;
  EXPECT_NE(message(o).find("--duration"), std::string::npos);
  o.duration.reset();
  o.slots = 0;
  EXPECT_NE(message(o).find("--slots"), std::string::npos);

  o = {};
  o.nodes = 1;
  absl::StatusOr<TraceFeedPlan> plan = plan_trace_feed(trace, o);
  ASSERT_TRUE(plan.ok());
  absl::Status s = run_trace_feed(*plan, dir / "hosts", 0, nullptr);
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  EXPECT_FALSE(std::filesystem::exists(dir / "hosts"));
}

// The shared Summit slice: the plan is a consistent replay (each step's diff is exactly its
// joined/left lists, changes add up) and choosing twice gives the same nodes.
TEST(FeedTrace, SummitSliceIsConsistentAndDeterministic) {
  const std::string path = std::string(ELASTIC_SHARED_DATA) +
                           "/nodestate/summit_2021-02-10_first2days_idle_intervals.csv.gz";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "no shared data at " << path;
  absl::StatusOr<traces::HoleTrace> trace = traces::load_interval_csv(path, {});
  ASSERT_TRUE(trace.ok()) << trace.status();
  TraceFeedOptions o;
  o.nodes = 8;
  o.start = 14 * 3600;  // the window scripts/demo.sh replays
  o.duration = 2 * 3600;
  absl::StatusOr<TraceFeedPlan> p1 = plan_trace_feed(*trace, o);
  absl::StatusOr<TraceFeedPlan> p2 = plan_trace_feed(*trace, o);
  ASSERT_TRUE(p1.ok()) << p1.status();
  ASSERT_TRUE(p2.ok());
  EXPECT_EQ(p1->trace_names, p2->trace_names);
  EXPECT_EQ(describe(*p1), describe(*p2));
  EXPECT_TRUE(std::is_sorted(p1->changes.rbegin(), p1->changes.rend()));
  int total = 0;
  for (int c : p1->changes) total += c;
  EXPECT_GT(total, 0);
  int seen = 0;
  std::vector<HostEntry> before;
  for (std::size_t i = 0; i < p1->steps.size(); ++i) {
    const TraceStep& s = p1->steps[i];
    HostfileUpdate d = diff_hosts(before, s.hosts);
    std::vector<std::string> added;
    for (const HostEntry& h : d.added) added.push_back(h.name);
    EXPECT_EQ(added, s.joined) << "step " << i;
    EXPECT_EQ(d.removed, s.left) << "step " << i;
    if (i > 0) {
      EXPECT_GT(s.offset_s, p1->steps[i - 1].offset_s);
      seen += static_cast<int>(s.joined.size() + s.left.size());
    }
    EXPECT_LE(s.hosts.size(), 8u);
    before = s.hosts;
  }
  EXPECT_EQ(seen, total);
}

}  // namespace
}  // namespace elastic::rt
