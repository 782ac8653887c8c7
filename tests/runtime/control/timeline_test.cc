// read_timeline / write_timeline: the nodes each job held, read back from a decision log written
// here line by line as elasticd writes it (rotated file first), and what bad lines give.
#include "elastic/control/timeline.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "elastic/control/event_log.h"
#include "temp_dir.h"

namespace elastic::rt {
namespace {

using testing::TempDir;
using testing::write_text;
using Counts = std::vector<std::pair<int, int>>;

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Rotation moved the first part of the log to events.1.jsonl; the daemon restarted in between.
class TimelineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    write_text(EventLog::rotated_path(log_, 1),
               R"({"t":100,"event":"daemon_started","pid":1,"pool":0}
{"t":101,"event":"hostfile","added":["h1","h2","h3"],"removed":[],"pool":3,"leaving":0}
{"t":102,"event":"job_submitted","job":"a"}
{"t":103,"event":"job_started","job":"a","nodes":["h1"],"ranks":1}
{"t":104,"event":"plan","jobs":[],"plan":[]}
{"t":105,"event":"job_grown","job":"a","nodes":["h1","h2"],"ranks":2,"ok":true}
)");
    write_text(log_, R"({"t":106,"event":"job_started","job":"b","nodes":["h3"],"ranks":1}
{"t":107,"event":"node_lost","node":"h2","job":"a"}
{"t":108,"event":"job_recovered","job":"a","nodes":["h1"],"ranks":1}
{"t":109,"event":"hostfile","added":[],"removed":["h2"],"pool":2,"leaving":0}
{"t":110,"event":"job_finished","job":"a","reason":"","samples_done":10}
{"t":111,"event":"daemon_stopped"}
{"t":112,"event":"daemon_started","pid":2,"pool":2}
{"t":113,"event":"job_started","job":"b","nodes":["h1","h3"],"ranks":2}
{"t":114,"event":"job_req)");  // the daemon is writing this line
  }
  TempDir dir_;
  const std::filesystem::path log_ = dir_ / "events.jsonl";
};

TEST_F(TimelineTest, ReadsTheNodesEachJobHeldAcrossRotationAndRestart) {
  absl::StatusOr<Timeline> t = read_timeline(log_);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->events, 14u);  // the torn line is not one
  EXPECT_EQ(t->start, 100);
  EXPECT_EQ(t->end, 113);
  EXPECT_EQ(t->jobs, (std::vector<std::string>{"a", "b"}));
  std::vector<double> times;
  std::vector<int> granted;
  std::vector<Counts> counts;
  for (const TimelineStep& s : t->steps) {
    times.push_back(s.time);
    granted.push_back(s.granted);
    counts.push_back(s.counts);
  }
  EXPECT_EQ(times, (std::vector<double>{100, 101, 103, 105, 106, 108, 109, 110, 111, 112, 113}));
  EXPECT_EQ(granted, (std::vector<int>{0, 3, 3, 3, 3, 3, 2, 2, 0, 2, 2}));
  EXPECT_EQ(counts, (std::vector<Counts>{{},
                                         {},
                                         {{0, 1}},
                                         {{0, 2}},
                                         {{0, 2}, {1, 1}},
                                         {{0, 1}, {1, 1}},
                                         {{0, 1}, {1, 1}},
                                         {{1, 1}},
                                         {},  // the daemon stopped: nothing runs
                                         {},
                                         {{1, 2}}}));
  ASSERT_EQ(t->nodes_lost.size(), 1u);
  EXPECT_EQ(t->nodes_lost[0], (std::pair<double, std::string>{107, "h2"}));
}

TEST_F(TimelineTest, WritesTheCsvAndStacksJobsInTheirOrder) {
  absl::StatusOr<Timeline> t = read_timeline(log_);
  ASSERT_TRUE(t.ok()) << t.status();
  const std::string csv = timeline_csv(*t);
  EXPECT_EQ(csv.substr(0, csv.find('\n')), "time_unix,time_s,granted_nodes,allocated_nodes,a,b");
  EXPECT_NE(csv.find("\n106.000,6.000,3,3,2,1\n"), std::string::npos) << csv;
  EXPECT_NE(csv.find("\n111.000,11.000,0,0,0,0\n112.000,12.000,2,0,0,0\n113.000,13.000,2,2,0,2\n"),
            std::string::npos)
      << csv;

  absl::StatusOr<std::string> warning = write_timeline(*t, dir_ / "out");
  ASSERT_TRUE(warning.ok()) << warning.status();
  EXPECT_EQ(slurp(dir_ / "out" / "timeline.csv"), csv);
  // Job a at the bottom; b rides on a's 2 nodes from 106 s, on its 1 node from 108 s, and is at
  // the bottom from 110 s. Each run of the same (low, high) is one rectangle; b's last allocation
  // starts with the last event and has no length yet.
  const std::string rects = slurp(dir_ / "out" / "timeline_rects.dat");
  EXPECT_EQ(rects,
            "# from to nodes_low nodes_high job\n"
            "3.00000 5.00000 0 1 0\n"
            "5.00000 8.00000 0 2 0\n"
            "6.00000 8.00000 2 3 1\n"
            "8.00000 10.00000 0 1 0\n"
            "8.00000 10.00000 1 2 1\n"
            "10.00000 11.00000 0 1 1\n");
  EXPECT_NE(slurp(dir_ / "out" / "timeline_lost.dat").find("7.00000 3 h2\n"), std::string::npos);
  if (warning->empty()) {  // gnuplot drew it
    EXPECT_EQ(slurp(dir_ / "out" / "timeline.png").substr(1, 3), "PNG");
  } else {
    EXPECT_NE(warning->find("gnuplot"), std::string::npos) << *warning;
  }
}

TEST_F(TimelineTest, ABadLineIsAnErrorNamingFileAndLine) {
  write_text(log_, R"({"t":106,"event":"job_started","job":"b","nodes":["h3"],"ranks":1}
{"t":107,"event":"job_grown","job":"b","ranks":2}
)");
  absl::StatusOr<Timeline> t = read_timeline(log_);
  ASSERT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(t.status().message(), log_.string() + ":2: job_grown: no list \"nodes\"");

  write_text(log_, "{\"t\":106,\"event\":\"plan\"}\nnot json\n");
  EXPECT_EQ(read_timeline(log_).status().message(), log_.string() + ":2: not a JSON object");
  write_text(log_, "{\"event\":\"plan\"}\n");
  EXPECT_EQ(read_timeline(log_).status().message(),
            log_.string() + ":1: no number \"t\" (the event's time)");
  // The rotated file is read first, and its errors name it.
  write_text(log_, "");
  write_text(EventLog::rotated_path(log_, 1), "{\"t\":1,\"event\":\"hostfile\",\"pool\":-1}\n");
  EXPECT_EQ(
      read_timeline(log_).status().message(),
      EventLog::rotated_path(log_, 1).string() + ":1: hostfile: \"pool\" is not a count of nodes");
  std::filesystem::remove(EventLog::rotated_path(log_, 1));
  write_text(log_, "{\"t\":1,\"event\":\"daemon_started\",\"pool\":4294967296}\n");
  EXPECT_EQ(read_timeline(log_).status().message(),
            log_.string() + ":1: daemon_started: \"pool\" is not a count of nodes");
  // A job id that no job spec can have (it would break the CSV's columns).
  write_text(log_, "{\"t\":1,\"event\":\"job_started\",\"job\":\"a,b\",\"nodes\":[]}\n");
  EXPECT_EQ(
      read_timeline(log_).status().message().find(log_.string() + ":1: job_started: \"job\": "),
      0U);
}

TEST(Timeline, NoLogIsNotFound) {
  TempDir dir;
  absl::StatusOr<Timeline> t = read_timeline(dir / "events.jsonl");
  EXPECT_EQ(t.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(t.status().message().find("events.jsonl not found"), std::string::npos);
}

}  // namespace
}  // namespace elastic::rt
