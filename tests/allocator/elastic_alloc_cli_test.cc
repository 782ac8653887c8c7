// Runs the real elastic-alloc binary: good JSON -> exit 0 and the issue's output shape; bad input
// -> exit 2 with the file and field on stderr; the workload mode on the real 10-job workload.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "nlohmann/json.hpp"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct CliRun {
  int code = -1;
  std::string out;
  std::string err;
};

class Cli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("elastic_alloc_cli_test_" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "_" +
            std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const std::string& name, const std::string& text) {
    const fs::path path = dir_ / name;
    std::ofstream(path) << text;
    return path.string();
  }
  static std::string slurp(const fs::path& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  // Runs elastic-alloc ARGS; its stdout goes to `stdout_path` when given (r.out is then empty).
  CliRun run(const std::string& args, const std::string& stdin_path = "/dev/null",
             const std::string& stdout_path = "") {
    const fs::path out = dir_ / "stdout", err = dir_ / "stderr";
    const std::string command =
        std::string("'") + ELASTIC_ALLOC_BIN + "' " + args + " <'" + stdin_path + "' >'" +
        (stdout_path.empty() ? out.string() : stdout_path) + "' 2>'" + err.string() + "'";
    const int status = std::system(command.c_str());
    CliRun r;
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = stdout_path.empty() ? slurp(out) : std::string();
    r.err = slurp(err);
    return r;
  }
  fs::path dir_;
};

const char* kGood =
    R"({"nodes": ["n1", "n2", "n3", "n4"], "horizon_s": 10, "objective": "throughput",
  "solver": "milp", "time_limit_s": 10,
  "jobs": [{"id": "J1", "min_nodes": 1, "max_nodes": 64, "nodes": ["n1"],
            "scaling": {"nodes": [0, 1, 2, 4], "samples_per_s": [0, 2831, 5259, 9988]},
            "grow_stall_s": 18, "shrink_stall_s": 12, "weight": 1.0}]})";

TEST_F(Cli, GoodProblemPrintsTheAllocation) {
  const CliRun r = run("'" + write("good.json", kGood) + "'");
  ASSERT_EQ(r.code, 0) << r.err;
  const json out = json::parse(r.out);
  EXPECT_EQ(out["status"], "optimal");
  EXPECT_TRUE(out["objective"].is_number());
  EXPECT_TRUE(out["solve_ms"].is_number());
  ASSERT_EQ(out["jobs"].size(), 1u);
  EXPECT_EQ(out["jobs"][0]["id"], "J1");
  EXPECT_EQ(out["jobs"][0]["count"], 4);
  EXPECT_EQ(out["jobs"][0]["nodes"], json({"n1", "n2", "n3", "n4"}));
  EXPECT_EQ(out["jobs"][0]["change"], "grow");
}

TEST_F(Cli, ReadsStdinAndAppliesOverrides) {
  const CliRun r = run("- --solver equal-share --pretty", write("good.json", kGood));
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("\n  \"jobs\""), std::string::npos);  // indented
  EXPECT_EQ(json::parse(r.out)["status"], "heuristic");
}

TEST_F(Cli, BadFieldExitsTwoNamingFileAndField) {
  json bad = json::parse(kGood);
  bad["jobs"][0]["scaling"]["nodes"][2] = 1;
  const std::string path = write("bad.json", bad.dump());
  const CliRun r = run("'" + path + "'");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find(path), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("jobs[0].scaling.nodes[2]"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty());
}

TEST_F(Cli, SyntaxErrorUnknownFieldAndMissingFileExitTwo) {
  CliRun r = run("'" + write("syntax.json", "{\"nodes\": [") + "'");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("syntax.json"), std::string::npos) << r.err;

  json bad = json::parse(kGood);
  bad["jobs"][0]["colour"] = "red";
  r = run("'" + write("unknown.json", bad.dump()) + "'");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("jobs[0].colour"), std::string::npos) << r.err;

  r = run("'" + (dir_ / "missing.json").string() + "'");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("missing.json"), std::string::npos) << r.err;

  r = run("'" + write("good.json", kGood) + "' --solver cplex");
  EXPECT_EQ(r.code, 2);
}

// Issue 16: `1e999` overflowed nlohmann's parser and exited 1 with "internal error", naming no
// field; a number past the allocator's limits (horizon 1e308) reached the MILP.
TEST_F(Cli, NumberOverflowAndLimitsExitTwoNamingTheField) {
  std::string text = kGood;
  text.replace(text.find("\"grow_stall_s\": 18"), 18, "\"grow_stall_s\": 1e999");
  CliRun r = run("'" + write("overflow.json", text) + "'");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("overflow.json: jobs[0].grow_stall_s: number too large"), std::string::npos)
      << r.err;

  text = kGood;
  text.replace(text.find("9988"), 4, "1e999");
  r = run("'" + write("table.json", text) + "'");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("jobs[0].scaling.samples_per_s[3]: number too large"), std::string::npos)
      << r.err;

  json bad = json::parse(kGood);
  bad["horizon_s"] = 1e308;
  r = run("'" + write("horizon.json", bad.dump()) + "'");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("horizon_s: must be in (0, 1e+07]"), std::string::npos) << r.err;

  bad = json::parse(kGood);
  bad["jobs"][0]["max_nodes"] = 2000000000;
  r = run("'" + write("max_nodes.json", bad.dump()) + "'");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("jobs[0].max_nodes: must be <= 1000000"), std::string::npos) << r.err;

  // A weight of 1e300 made the weighted gains infinite: dp called a nonsense plan optimal.
  bad = json::parse(kGood);
  bad["objective"] = "weighted";
  bad["jobs"][0]["weight"] = 1e300;
  r = run("'" + write("weight.json", bad.dump()) + "'");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("jobs[0].weight: must be <= 1e+06, got 1e+300"), std::string::npos) << r.err;
}

// Issue 16: a bad token was echoed whole (a 2 MB token gave a 2 MB line).
TEST_F(Cli, HugeTokenIsEchoedCapped) {
  const std::string token(2'000'000, 'x');
  json bad = json::parse(kGood);
  bad["solver"] = token;
  CliRun r = run("'" + write("solver.json", bad.dump()) + "'");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("solver: unknown solver '" + std::string(64, 'x') + "... (2000000 bytes)'"),
            std::string::npos)
      << r.err.substr(0, 300);
  EXPECT_LT(r.err.size(), 400u);

  r = run("'" + write("unterminated.json", "{\"nodes\": [\"" + token) + "'");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("unterminated.json"), std::string::npos) << r.err.substr(0, 300);
  EXPECT_LT(r.err.size(), 400u);
}

// A folder given as the problem was read as an empty text: "json parse error ... unexpected end
// of input", naming neither the folder nor the mistake.
TEST_F(Cli, DirectoryAsTheProblemIsNamed) {
  const CliRun r = run("'" + dir_.string() + "'");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find(dir_.string() + ": is a directory, not a problem file"), std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("parse error"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty());
  // ... and as the workload: bad input (2), not an I/O error (1).
  const CliRun w = run("--workload '" + dir_.string() + "' --nodes 4");
  EXPECT_EQ(w.code, 2);
  EXPECT_NE(w.err.find(dir_.string() + ": is a directory, not a file"), std::string::npos) << w.err;
}

// --time-limit inf passed and --emit-problem wrote "time_limit_s": null, which elastic-alloc could
// not read back; the limit is a finite number of seconds, at most 1e7.
TEST_F(Cli, TimeLimitIsFiniteAndBounded) {
  const std::string good = write("good.json", kGood);
  CliRun r = run("--time-limit inf --emit-problem '" + good + "'");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--time-limit: must be a finite number, got inf"), std::string::npos)
      << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  r = run("--time-limit 1e300 --emit-problem '" + good + "'");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--time-limit: must be at most 1e7 seconds (about 116 days), got 1e300"),
            std::string::npos)
      << r.err;
  r = run("--time-limit 1e7 --emit-problem '" + good + "'");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["time_limit_s"], 1e7);
  r = run("- --solver equal-share", write("emitted.json", r.out));
  EXPECT_EQ(r.code, 0) << r.err;
}

// What did not reach stdout (a full disk) is a failure: --emit-problem > /dev/full exited 0.
TEST_F(Cli, AnUnwritableStdoutExitsOne) {
  const std::string good = write("good.json", kGood);
  CliRun r = run("--emit-problem '" + good + "'", "/dev/null", "/dev/full");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("cannot write the output"), std::string::npos) << r.err;
  r = run("'" + good + "'", "/dev/null", "/dev/full");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("cannot write the output"), std::string::npos) << r.err;
}

TEST_F(Cli, HelpDescribesFormatsAndExitCodes) {
  const CliRun r = run("--help");
  EXPECT_EQ(r.code, 0);
  for (const char* text : {"PROBLEM JSON", "ALLOCATION JSON", "node-milp", "equal-share", "fair",
                           "EXIT CODES", "--workload"}) {
    EXPECT_NE(r.out.find(text), std::string::npos) << text;
  }
}

TEST_F(Cli, WorkloadModeOnTheReal10JobWorkload) {
  const std::string workload =
      std::string(ELASTIC_SHARED_DATA) + "/workloads/hps-shufflenet-jobs-10J.csv.gz";
  CliRun r = run("--workload '" + workload + "' --nodes 100 --json --solver dp");
  ASSERT_EQ(r.code, 0) << r.err;
  const json out = json::parse(r.out);
  ASSERT_EQ(out["jobs"].size(), 10u);
  int used = 0;
  for (const json& job : out["jobs"]) {
    used += job["count"].get<int>();
    EXPECT_EQ(job["nodes"].size(), job["count"].get<std::size_t>());
  }
  EXPECT_LE(used, 100);
  EXPECT_GT(used, 0);

  r = run("--workload '" + workload + "' --nodes 100 --jobs 3");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("J00002"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("J00003"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("samples/s"), std::string::npos);

  r = run("--workload '" + write("broken.csv", "job,Tcup\nJ1,x\n") + "' --nodes 10");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("broken.csv:1:"), std::string::npos) << r.err;
}

}  // namespace
