#include "elastic/control/job_spec.h"

#include <gtest/gtest.h>

#include <string>

#include "temp_dir.h"

namespace elastic::rt {
namespace {

constexpr const char* kFull = R"(# a complete spec
id = "mnist-a"
command = "/usr/bin/train"
args = ["--epochs", "3"]
workdir = "/scratch/me"
min_nodes = 2
max_nodes = 8
ranks_per_node = 4
priority = 5
target_samples = 600000
checkpoint = "/scratch/ckpt"

[env]
OMP_NUM_THREADS = "2"

[scaling]
nodes = [1, 2, 4]
samples_per_s = [900.0, 1700, 3100.5]
value = [1.0, 1.9, 3.4]
grow_stall_s = 1.5
shrink_stall_s = 0.25
)";

TEST(JobSpec, ParsesEveryField) {
  const auto spec = parse_job_spec(kFull, "full.toml");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_EQ(spec->id, "mnist-a");
  EXPECT_EQ(spec->command, "/usr/bin/train");
  EXPECT_EQ(spec->args, (std::vector<std::string>{"--epochs", "3"}));
  EXPECT_EQ(spec->workdir, "/scratch/me");
  EXPECT_EQ(spec->min_nodes, 2);
  EXPECT_EQ(spec->max_nodes, 8);
  EXPECT_EQ(spec->ranks_per_node, 4);
  EXPECT_EQ(spec->priority, 5);
  EXPECT_EQ(spec->target_samples, 600000);
  EXPECT_EQ(spec->checkpoint, "/scratch/ckpt");
  EXPECT_EQ(spec->env.at("OMP_NUM_THREADS"), "2");
  ASSERT_TRUE(spec->scaling.has_value());
  EXPECT_EQ(spec->scaling->nodes, (std::vector<int>{1, 2, 4}));
  EXPECT_EQ(spec->scaling->samples_per_s, (std::vector<double>{900.0, 1700.0, 3100.5}));
  EXPECT_EQ(spec->scaling->value, (std::vector<double>{1.0, 1.9, 3.4}));
  EXPECT_EQ(spec->scaling->grow_stall_s, 1.5);
  EXPECT_EQ(spec->scaling->shrink_stall_s, 0.25);
}

TEST(JobSpec, MinimalSpecGetsDefaults) {
  const auto spec = parse_job_spec("command = \"train\"\n", "min.toml");
  ASSERT_TRUE(spec.ok()) << spec.status();
  EXPECT_TRUE(spec->id.empty());
  EXPECT_EQ(spec->min_nodes, 1);
  EXPECT_EQ(spec->max_nodes, 1);
  EXPECT_EQ(spec->ranks_per_node, 0);
  EXPECT_FALSE(spec->scaling.has_value());
  EXPECT_FALSE(spec->target_samples.has_value());
  // min alone raises max with it.
  const auto only_min = parse_job_spec("command = \"t\"\nmin_nodes = 3\n", "m.toml");
  ASSERT_TRUE(only_min.ok()) << only_min.status();
  EXPECT_EQ(only_min->max_nodes, 3);
}

TEST(JobSpec, RoundTripsThroughTomlAndJson) {
  const auto spec = parse_job_spec(kFull, "full.toml");
  ASSERT_TRUE(spec.ok());
  const auto again = parse_job_spec(job_spec_to_toml(*spec), "again.toml");
  ASSERT_TRUE(again.ok()) << again.status() << "\n" << job_spec_to_toml(*spec);
  EXPECT_EQ(*again, *spec);
  const auto from_json = job_spec_from_json(nlohmann::json::parse(job_spec_to_json(*spec).dump()));
  ASSERT_TRUE(from_json.ok()) << from_json.status();
  EXPECT_EQ(*from_json, *spec);
}

// Found by fuzz.job_spec: toml++ wrote a string with a leading newline as a multi-line string,
// whose first newline TOML trims, so the queue's copy of the job lost it.
TEST(JobSpec, StringsWithNewlinesRoundTripThroughToml) {
  JobSpec spec;
  spec.command = "train";
  spec.args = {"\nleading", "trailing\n", "in\nside", "\r\n", "'''", "\"\"\"", "tab\there"};
  spec.env = {{"A", "\nx"}, {"B", "y\n"}};
  spec.workdir = "\n/scratch";
  const auto again = parse_job_spec(job_spec_to_toml(spec), "again.toml");
  ASSERT_TRUE(again.ok()) << again.status() << "\n" << job_spec_to_toml(spec);
  EXPECT_EQ(*again, spec) << job_spec_to_toml(spec);
}

struct BadSpec {
  const char* name;
  const char* text;
  const char* expect;  // substring of the message; always also "bad.toml"
};

class JobSpecBad : public ::testing::TestWithParam<BadSpec> {};

TEST_P(JobSpecBad, ErrorNamesFileLineAndField) {
  const auto spec = parse_job_spec(GetParam().text, "bad.toml");
  ASSERT_FALSE(spec.ok());
  EXPECT_EQ(spec.status().code(), absl::StatusCode::kInvalidArgument);
  const std::string msg(spec.status().message());
  EXPECT_EQ(msg.rfind("bad.toml", 0), 0u) << msg;
  EXPECT_NE(msg.find(GetParam().expect), std::string::npos) << msg;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, JobSpecBad,
    ::testing::Values(
        BadSpec{"MinAboveMax", "command = \"t\"\nmin_nodes = 4\nmax_nodes = 2\n",
                "bad.toml:3:13: field 'max_nodes': min_nodes (4) is greater than max_nodes (2)"},
        BadSpec{"MissingCommand", "min_nodes = 1\n", "field 'command': is required"},
        BadSpec{"EmptyCommand", "command = \"\"\n", "bad.toml:1:11: field 'command'"},
        BadSpec{"UnknownKey", "command = \"t\"\n\nmax_nodez = 4\n",
                "bad.toml:3:1: field 'max_nodez': unknown key"},
        BadSpec{"UnknownScalingKey",
                "command = \"t\"\n[scaling]\nnodes = [1]\nsamples_per_s = [1.0]\nstall = 2\n",
                "bad.toml:5:1: field 'scaling.stall': unknown key"},
        BadSpec{"NegativeMin", "command = \"t\"\nmin_nodes = -1\n",
                "bad.toml:2:13: field 'min_nodes': must be >= 1"},
        BadSpec{"NegativeRanks", "command = \"t\"\nranks_per_node = -2\n",
                "field 'ranks_per_node': must be >= 0"},
        BadSpec{"NegativeStall", "command = \"t\"\n[scaling]\ngrow_stall_s = -1.0\n",
                "bad.toml:3:16: field 'scaling.grow_stall_s'"},
        BadSpec{"NegativeRate",
                "command = \"t\"\n[scaling]\nnodes = [1, 2]\nsamples_per_s = [1.0, -2.0]\n",
                "field 'scaling.samples_per_s[1]'"},
        BadSpec{"WrongType", "command = \"t\"\nmax_nodes = \"four\"\n",
                "bad.toml:2:13: field 'max_nodes': must be an integer"},
        BadSpec{"ArgsNotStrings", "command = \"t\"\nargs = [\"a\", 3]\n",
                "field 'args[1]': must be a string"},
        BadSpec{"TableLengths",
                "command = \"t\"\n[scaling]\nnodes = [1, 2]\nsamples_per_s = [1.0]\n",
                "field 'scaling.samples_per_s': has 1 entries"},
        BadSpec{"NotIncreasing",
                "command = \"t\"\n[scaling]\nnodes = [2, 1]\nsamples_per_s = [1.0, 2.0]\n",
                "field 'scaling.nodes': node counts must be strictly increasing"},
        BadSpec{"BadId", "id = \"../etc\"\ncommand = \"t\"\n", "bad.toml:1:6: field 'id'"},
        BadSpec{"EnvNotString", "command = \"t\"\n[env]\nX = 1\n", "bad.toml:3:5: field 'env.X'"},
        BadSpec{"NulInCommand", "command = \"t\\u0000x\"\n",
                "bad.toml:1:11: field 'command': must not contain a NUL character"},
        BadSpec{"NulInArg", "command = \"t\"\nargs = [\"a\", \"b\\u0000\"]\n",
                "field 'args[1]': must not contain a NUL character"},
        BadSpec{"NulInEnvName", "command = \"t\"\n[env]\n\"X\\u0000\" = \"1\"\n",
                "bad.toml:3:1: field 'env.X\\000': is not a valid environment variable name"},
        BadSpec{"QuoteInEnvName", "command = \"t\"\n[env]\n\"A'B\" = \"1\"\n",
                "bad.toml:3:1: field 'env.A\\'B': is not a valid environment variable name"},
        BadSpec{"EnvNameStartsWithADigit", "command = \"t\"\n[env]\n1X = \"1\"\n",
                "bad.toml:3:1: field 'env.1X': is not a valid environment variable name"},
        BadSpec{"NulInEnvValue", "command = \"t\"\n[env]\nX = \"\\u0000\"\n",
                "bad.toml:3:5: field 'env.X': must not contain a NUL character"},
        BadSpec{"Syntax", "command = \"t\nmin_nodes = 1\n", "bad.toml:1:"}),
    [](const auto& p) { return std::string(p.param.name); });

TEST(JobSpec, ReadNamesThePath) {
  testing::TempDir dir;
  testing::write_text(dir / "j.toml", "command = \"t\"\nmin_nodes = 5\nmax_nodes = 1\n");
  const auto spec = read_job_spec(dir / "j.toml");
  ASSERT_FALSE(spec.ok());
  EXPECT_NE(std::string(spec.status().message()).find((dir / "j.toml").string() + ":3:"),
            std::string::npos)
      << spec.status();
  EXPECT_EQ(read_job_spec(dir / "none.toml").status().code(), absl::StatusCode::kNotFound);
}

TEST(JobSpec, IdsAndCommands) {
  EXPECT_TRUE(validate_job_id("mnist-a_1.2").ok());
  for (const char* bad : {"", ".hidden", "-x", "a/b", "a b", "é"}) {
    EXPECT_FALSE(validate_job_id(bad).ok()) << bad;
  }
  EXPECT_FALSE(validate_job_id(std::string(65, 'a')).ok());
  const std::string id = generate_job_id();
  EXPECT_TRUE(validate_job_id(id).ok()) << id;

  const auto sh = resolve_command("sh", "/nonexistent:/bin:/usr/bin");
  ASSERT_TRUE(sh.ok()) << sh.status();
  EXPECT_EQ(sh->filename(), "sh");
  EXPECT_EQ(resolve_command("no-such-command-xyz", "/bin:/usr/bin").status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_TRUE(resolve_command("/bin/sh", "").ok());
  EXPECT_FALSE(resolve_command("/etc/passwd", "").ok());  // exists, not executable
}

}  // namespace
}  // namespace elastic::rt
