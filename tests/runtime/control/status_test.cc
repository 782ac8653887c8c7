#include "elastic/control/status.h"

#include <gtest/gtest.h>

#include <string>

#include "fmt/format.h"
#include "temp_dir.h"

namespace elastic::rt {
namespace {

StatusSnapshot sample() {
  StatusSnapshot s;
  s.time = 1700000000.25;
  s.daemon_pid = 42;
  s.nodes = {{"node01", 2, "busy", "a"}, {"node02", 2, "free", ""}, {"node03", 2, "leaving", "a"}};
  JobStatus a;
  a.id = "a";
  a.state = "running";
  a.nodes = {"node01", "node03"};
  a.ranks = 4;
  a.samples_per_s = 1234.5;
  a.step_s = 0.125;
  a.samples_done = 99000;
  a.target_samples = 600000;
  a.rescales = 3;
  a.min_nodes = 1;
  a.max_nodes = 4;
  a.command = "/bin/train";
  JobStatus b;
  b.id = "b\"q";
  b.state = "failed";
  b.reason = "exit status 1";
  s.jobs = {a, b};
  return s;
}

TEST(Status, JsonRoundTripAndAtomicFile) {
  testing::TempDir dir;
  const StatusSnapshot s = sample();
  ASSERT_TRUE(write_status(dir / "status.json", s).ok());
  const auto back = read_status(dir / "status.json");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, s);
  testing::write_text(dir / "bad.json", R"({"jobs": [{"state": "running"}]})");
  const auto bad = read_status(dir / "bad.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(std::string(bad.status().message()).find("jobs[0]"), std::string::npos) << bad.status();
}

// A count that is not an integer of its type is an error naming where it is (nlohmann's
// get<int> made 1e300 undefined behaviour and 2.5 a 2).
TEST(Status, ACountThatIsNotAnIntegerIsAnError) {
  nlohmann::json j = to_json(sample());
  for (const char* field : {"ranks", "samples_done", "rescales", "min_nodes"}) {
    SCOPED_TRACE(field);
    for (const nlohmann::json& bad : {nlohmann::json(1e300), nlohmann::json(2.5)}) {
      nlohmann::json doc = j;
      doc["jobs"][1][field] = bad;
      const auto s = status_from_json(doc);
      ASSERT_FALSE(s.ok());
      EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
      EXPECT_NE(s.status().message().find("field 'jobs[1]'"), std::string::npos) << s.status();
      EXPECT_NE(s.status().message().find(fmt::format("field '{}': expected an integer", field)),
                std::string::npos)
          << s.status();
    }
  }
  nlohmann::json doc = j;
  doc["nodes"][2]["slots"] = 4294967298U;
  EXPECT_NE(status_from_json(doc).status().message().find("field 'nodes[2]'"), std::string::npos);
}

TEST(Status, PrometheusText) {
  const std::string m = format_metrics(sample());
  EXPECT_NE(m.find("# TYPE elastic_nodes gauge\n"), std::string::npos);
  EXPECT_NE(m.find("elastic_nodes{state=\"busy\"} 1\n"), std::string::npos) << m;
  EXPECT_NE(m.find("elastic_nodes{state=\"lost\"} 0\n"), std::string::npos);
  EXPECT_NE(m.find("elastic_nodes{state=\"exiting\"} 0\n"), std::string::npos) << m;
  EXPECT_NE(m.find("elastic_jobs{state=\"failed\"} 1\n"), std::string::npos);
  EXPECT_NE(m.find("elastic_job_samples_per_second{job=\"a\"} 1234.5\n"), std::string::npos) << m;
  EXPECT_NE(m.find("elastic_job_samples_total{job=\"a\"} 99000\n"), std::string::npos);
  EXPECT_NE(m.find("elastic_job_rescales_total{job=\"a\"} 3\n"), std::string::npos);
  EXPECT_NE(m.find("elastic_job_nodes{job=\"b\\\"q\"} 0\n"), std::string::npos) << m;
  EXPECT_NE(m.find("elastic_snapshot_timestamp_seconds 1700000000.250\n"), std::string::npos);
  // Every non-comment line is "name{labels} value" or "name value".
  std::size_t pos = 0;
  while (pos < m.size()) {
    const std::size_t nl = m.find('\n', pos);
    ASSERT_NE(nl, std::string::npos);
    const std::string line = m.substr(pos, nl - pos);
    if (line[0] != '#') {
      const auto space = line.rfind(' ');
      ASSERT_NE(space, std::string::npos) << line;
      EXPECT_NO_THROW((void)std::stod(line.substr(space + 1))) << line;
    }
    pos = nl + 1;
  }
}

TEST(Status, Tables) {
  const std::string jobs = format_jobs_table(sample());
  EXPECT_EQ(jobs.substr(0, jobs.find('\n')),
            "JOB  STATE                   NODES  RANKS  SAMPLES/S  DONE          RESCALES");
  EXPECT_NE(jobs.find("a    running                 2      4      1234.5     99000/600000  3"),
            std::string::npos)
      << jobs;
  EXPECT_NE(jobs.find("failed (exit status 1)"), std::string::npos);
  const std::string nodes = format_nodes_table(sample());
  EXPECT_NE(nodes.find("node02  2      free     -"), std::string::npos) << nodes;
}

}  // namespace
}  // namespace elastic::rt
