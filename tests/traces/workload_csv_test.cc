// The BFTrainer workload loader on the real files in ../shared/data/workloads, and on corrupted
// copies written to a temp directory (errors must name file, line and column).
#include "elastic/traces/workload_csv.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>

#include "elastic/allocator/input_limits.h"
#include "elastic/traces/gz_line_reader.h"

namespace elastic::traces {
namespace {

namespace fs = std::filesystem;

const std::string kData = std::string(ELASTIC_SHARED_DATA) + "/workloads/";

double utc(int year, int month, int day, int hour, int minute, int second) {
  std::tm tm{};
  tm.tm_year = year - 1900;
  tm.tm_mon = month - 1;
  tm.tm_mday = day;
  tm.tm_hour = hour;
  tm.tm_min = minute;
  tm.tm_sec = second;
  return static_cast<double>(timegm(&tm));
}

class TempDir : public ::testing::Test {
 protected:
  void SetUp() override {
    // A parameterised test's name holds a '/': one flat folder per test, removed whole.
    std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::replace(name.begin(), name.end(), '/', '_');
    dir_ = fs::temp_directory_path() /
           ("workload_csv_test_" +
            std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" + name);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& text) {
    const fs::path path = dir_ / name;
    std::ofstream(path, std::ios::binary) << text;
    return path.string();
  }
  fs::path dir_;
};

const std::string kHeader = "job,Tcup,Tcdw,Jmin,Jmax,Pmax,Tsub,Ns,Ps,Os\n";
const std::string kGood =
    "J1,18.0,12.0,1.0,64.0,130000000.0,2021-02-10 20:21:15,\"[0.0, 1.0, 2.0]\","
    "\"[0.0, 2831.0, 5259.0]\",\"[0.0, 1.0, 1.86]\"";

TEST(WorkloadCsv, Reads10JobShufflenetWorkload) {
  auto jobs = load_workload_csv(kData + "hps-shufflenet-jobs-10J.csv.gz");
  ASSERT_TRUE(jobs.ok()) << jobs.status();
  ASSERT_EQ(jobs->size(), 10u);
  for (const WorkloadJob& job : *jobs) {
    EXPECT_EQ(job.max_nodes, 64);
    EXPECT_EQ(job.min_nodes, 1);
    EXPECT_EQ(job.grow_stall_s, 18.0);
    EXPECT_EQ(job.shrink_stall_s, 12.0);
    EXPECT_EQ(job.target_samples, 130000000.0);
    EXPECT_EQ(job.scaling.counts().back(), 64);
    EXPECT_DOUBLE_EQ(job.scaling.at(1), 2831.0);
    EXPECT_DOUBLE_EQ(job.scaling.at(64), 145081.5);
    EXPECT_DOUBLE_EQ(job.scaling.at(3), (5259.0 + 9988.0) / 2);  // between 2 and 4 nodes
  }
  EXPECT_EQ((*jobs)[0].id, "J00000");
  EXPECT_EQ((*jobs)[0].submit_unix, utc(2021, 2, 10, 20, 21, 15));
  EXPECT_LT((*jobs)[0].submit_unix, (*jobs)[9].submit_unix);
}

TEST(WorkloadCsv, Reads1000JobWorkload) {
  auto jobs = load_workload_csv(kData + "hps-shufflenet-jobs-1000J.csv.gz");
  ASSERT_TRUE(jobs.ok()) << jobs.status();
  EXPECT_EQ(jobs->size(), 1000u);
  std::set<std::string> ids;
  for (const WorkloadJob& job : *jobs) ids.insert(job.id);
  EXPECT_EQ(ids.size(), 1000u);
}

TEST(WorkloadCsv, ReadsSpeedupWorkloadValueTable) {
  auto jobs = load_workload_csv(kData + "ImageNet-spdup-jobs-1001J.csv.gz");
  ASSERT_TRUE(jobs.ok()) << jobs.status();
  ASSERT_EQ(jobs->size(), 1001u);
  for (const WorkloadJob& job : *jobs) {
    EXPECT_NEAR(job.value.at(1), 1.0, 1e-12) << job.id;  // Os = speedup over one node
    EXPECT_NEAR(job.value.at(64), job.scaling.at(64) / job.scaling.at(1), 1e-6) << job.id;
  }
  EXPECT_EQ((*jobs)[1].id, "J00001-vgg16");
}

TEST_F(TempDir, PlainCsvLoadsLikeTheGzip) {
  auto reader = GzLineReader::open(kData + "hps-shufflenet-jobs-10J.csv.gz");
  ASSERT_TRUE(reader.ok()) << reader.status();
  std::string text, line;
  while (*reader->next(line)) text += line + "\n";
  const std::string plain = write("plain.csv", text);
  auto a = load_workload_csv(plain);
  auto b = load_workload_csv(kData + "hps-shufflenet-jobs-10J.csv.gz");
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_TRUE(b.ok());
  ASSERT_EQ(a->size(), b->size());
  for (std::size_t i = 0; i < a->size(); ++i) {
    EXPECT_EQ((*a)[i].id, (*b)[i].id);
    EXPECT_EQ((*a)[i].submit_unix, (*b)[i].submit_unix);
    EXPECT_EQ((*a)[i].scaling.values(), (*b)[i].scaling.values());
  }
}

// Tsub is UTC, with ' ' or 'T' between date and time; leap days exist only in leap years.
TEST_F(TempDir, SubmitTimesAreUtcAndDatesMustExist) {
  const std::string tables = ",\"[0, 1]\",\"[0, 5]\",\"[0, 1]\"\n";
  const std::string good = write("good.csv", kHeader + "A,1,1,1,1,1,2020-02-29 23:59:59" + tables +
                                                 "B,1,1,1,1,1,2000-02-29T00:00:00" + tables +
                                                 "C,1,1,1,1,1,1970-01-01 00:00:00" + tables +
                                                 "D,1,1,1,1,1,2021-12-31 12:34:56" + tables);
  auto jobs = load_workload_csv(good);
  ASSERT_TRUE(jobs.ok()) << jobs.status();
  ASSERT_EQ(jobs->size(), 4u);
  EXPECT_EQ((*jobs)[0].submit_unix, utc(2020, 2, 29, 23, 59, 59));
  EXPECT_EQ((*jobs)[1].submit_unix, utc(2000, 2, 29, 0, 0, 0));
  EXPECT_EQ((*jobs)[2].submit_unix, 0.0);
  EXPECT_EQ((*jobs)[3].submit_unix, utc(2021, 12, 31, 12, 34, 56));

  for (const std::string bad : {"2021-02-29 00:00:00", "1900-02-29 00:00:00", "2021-13-01 00:00:00",
                                "2021-04-31 00:00:00", "2021-01-01 24:00:00", "2021-01-01 00:60:00",
                                "2021/01/01 00:00:00", "2021-01-01_00:00:00", "2021-01-01 00:00"}) {
    const std::string path = write("bad.csv", kHeader + "A,1,1,1,1,1," + bad + tables);
    jobs = load_workload_csv(path);
    ASSERT_FALSE(jobs.ok()) << bad;
    EXPECT_NE(jobs.status().message().find(path + ":2:13: Tsub: "), std::string::npos)
        << jobs.status().message();
  }
}

// Each corruption and the "file:line:column" plus field its message must carry.
struct Corruption {
  std::string name;
  std::string row;     // the data row (line 2)
  std::string marker;  // the column is where this text starts in the row (1-based)
  std::string field;   // the column or element named
};

class CorruptRow : public TempDir, public ::testing::WithParamInterface<Corruption> {};

TEST_P(CorruptRow, ErrorNamesLineAndColumn) {
  const Corruption& c = GetParam();
  const std::string path = write(c.name + ".csv", kHeader + kGood + "\n" + c.row + "\n");
  auto jobs = load_workload_csv(path);
  ASSERT_FALSE(jobs.ok()) << c.name;
  EXPECT_EQ(jobs.status().code(), absl::StatusCode::kInvalidArgument);
  const std::size_t column = c.row.rfind(c.marker) + 1;
  const std::string message(jobs.status().message());
  EXPECT_NE(message.find(path + ":3:" + std::to_string(column) + ":"), std::string::npos)
      << message;
  EXPECT_NE(message.find(c.field), std::string::npos) << message;
}

INSTANTIATE_TEST_SUITE_P(
    Workload, CorruptRow,
    ::testing::Values(
        Corruption{
            "bad_rate",
            "J2,18,12,1,64,1e8,2021-02-10 20:21:15,\"[0, 1, 2]\",\"[0, 2831, x9]\",\"[0, 1, 2]\"",
            "x9", "Ps[2]"},
        Corruption{
            "negative_rate",
            "J2,18,12,1,64,1e8,2021-02-10 20:21:15,\"[0, 1, 2]\",\"[0, -5, 9]\",\"[0, 1, 2]\"",
            "\"[0, -5", "Ps"},
        Corruption{
            "bad_date",
            "J2,18,12,1,64,1e8,2021-02-30 20:21:15,\"[0, 1, 2]\",\"[0, 5, 9]\",\"[0, 1, 2]\"",
            "2021-02-30", "Tsub"},
        Corruption{"min_above_max",
                   "J2,18,12,8,4,1e8,2021-02-10 20:21:15,\"[0, 1, 2]\",\"[0, 5, 9]\",\"[0, 1, 2]\"",
                   "4,1e8", "Jmax"},
        Corruption{
            "stall_beyond_the_limit",
            "J2,18,2e7,1,4,1e8,2021-02-10 20:21:15,\"[0, 1, 2]\",\"[0, 5, 9]\",\"[0, 1, 2]\"",
            "2e7", "Tcdw: must be <= 1e+07 s, got 2e+07"},
        Corruption{
            "stall_not_a_number",
            "J2,18,abc,1,4,1e8,2021-02-10 20:21:15,\"[0, 1, 2]\",\"[0, 5, 9]\",\"[0, 1, 2]\"",
            "abc", "Tcdw"},
        Corruption{"counts_not_increasing",
                   "J2,18,12,1,4,1e8,2021-02-10 20:21:15,\"[0, 2, 2]\",\"[0, 5, 9]\",\"[0, 1, 2]\"",
                   "\"[0, 2, 2]", "Ns[2]"},
        Corruption{"length_mismatch",
                   "J2,18,12,1,4,1e8,2021-02-10 20:21:15,\"[0, 1, 2]\",\"[0, 5]\",\"[0, 1, 2]\"",
                   "\"[0, 5]", "Ps"},
        Corruption{"unterminated_quote",
                   "J2,18,12,1,4,1e8,2021-02-10 20:21:15,\"[0, 1, 2]\",\"[0, 5, 9]\",\"[0, 1, 2]",
                   "\"[0, 1, 2]", "quote"}),
    [](const ::testing::TestParamInfo<Corruption>& p) { return p.param.name; });

TEST_F(TempDir, MissingColumnAndWrongFieldCountAreErrors) {
  const std::string no_ps = write("no_ps.csv", "job,Tcup,Tcdw,Jmin,Jmax,Pmax,Tsub,Ns,Os\n");
  auto jobs = load_workload_csv(no_ps);
  ASSERT_FALSE(jobs.ok());
  EXPECT_NE(jobs.status().message().find(no_ps + ":1:"), std::string::npos);
  EXPECT_NE(jobs.status().message().find("Ps"), std::string::npos);

  const std::string short_row = write("short.csv", kHeader + "J1,18,12\n");
  jobs = load_workload_csv(short_row);
  ASSERT_FALSE(jobs.ok());
  EXPECT_NE(jobs.status().message().find(short_row + ":2:"), std::string::npos)
      << jobs.status().message();
}

// Issue 16: a second J1 was reported only when the first allocation ran, naming no file or line.
TEST_F(TempDir, DuplicateJobIdNamesBothLines) {
  const std::string path = write("dup.csv", kHeader + kGood + "\n" + kGood + "\n");
  auto jobs = load_workload_csv(path);
  ASSERT_FALSE(jobs.ok());
  EXPECT_EQ(jobs.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(jobs.status().message(), path + ":3:1: job: duplicate job id 'J1' (also on line 2)");
}

// Limits (input_limits.h) are refused with the field named, before anything sized by them.
TEST_F(TempDir, CountsTablesAndLinesBeyondTheLimitsAreRefused) {
  const std::string nodes =
      write("nodes.csv", kHeader +
                             "J1,18,12,1,2000000000,1e8,2021-02-10 20:21:15,\"[0, 1]\",\"[0, 5]\","
                             "\"[0, 1]\"\n");
  auto jobs = load_workload_csv(nodes);
  ASSERT_FALSE(jobs.ok());
  EXPECT_NE(jobs.status().message().find(nodes + ":2:12: Jmax: must be a whole number of nodes in "
                                                 "[0, 1000000], got 2000000000"),
            std::string::npos)
      << jobs.status().message();

  std::string rows;
  for (std::size_t i = 0; i <= alloc::kMaxTableRows; ++i)
    rows += (i ? ", " : "") + std::to_string(i);
  const std::string table =
      write("table.csv",
            kHeader + "J1,18,12,1,4,1e8,2021-02-10 20:21:15,\"[" + rows + "]\",\"[0]\",\"[0]\"\n");
  jobs = load_workload_csv(table);
  ASSERT_FALSE(jobs.ok());
  EXPECT_NE(jobs.status().message().find("Ns: more than 10000 values"), std::string::npos)
      << jobs.status().message().substr(0, 300);

  const std::string line =
      write("line.csv", kHeader + std::string(alloc::kMaxLineBytes + 2, 'x') + "\n");
  jobs = load_workload_csv(line);
  ASSERT_FALSE(jobs.ok());
  EXPECT_EQ(jobs.status().message(), line + ":2: line longer than 1048576 bytes");
}

TEST_F(TempDir, HugeTokenIsEchoedCapped) {
  const std::string path =
      write("token.csv", kHeader + "J1," + std::string(100'000, '7') +
                             "x,12,1,4,1e8,"
                             "2021-02-10 20:21:15,\"[0, 1]\",\"[0, 5]\",\"[0, 1]\"\n");
  auto jobs = load_workload_csv(path);
  ASSERT_FALSE(jobs.ok());
  EXPECT_EQ(jobs.status().message(),
            path + ":2:4: Tcup: not a number: '" + std::string(64, '7') + "... (100001 bytes)'");
}

TEST_F(TempDir, TruncatedGzipIsAnErrorNotAShortWorkload) {
  std::ifstream in(kData + "hps-shufflenet-jobs-1000J.csv.gz", std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_GT(bytes.size(), 1000u);
  const std::string path = write("truncated.csv.gz", bytes.substr(0, bytes.size() / 2));
  auto jobs = load_workload_csv(path);
  ASSERT_FALSE(jobs.ok());
  EXPECT_NE(jobs.status().message().find(path + ":"), std::string::npos) << jobs.status().message();
}

TEST(WorkloadCsv, MissingFileIsNotFound) {
  auto jobs = load_workload_csv("/nonexistent/workload.csv.gz");
  EXPECT_EQ(jobs.status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace elastic::traces
