#include "elastic/control/hostfile.h"

#include <gtest/gtest.h>

#include <string>

#include "elastic/control/up_command.h"
#include "temp_dir.h"

namespace elastic::rt {
namespace {

using testing::TempDir;

TEST(ParseHostfile, GoodFileWithCommentsAndBlankLines) {
  const auto hosts = parse_hostfile(
      "# granted by the adapter\n"
      "\n"
      "node01 slots=2\n"
      "  node02   slots=4 max_slots=8   # a comment after\n"
      "node03\n"
      "\tnode04.cluster.example slots=1 max-slots=1\r\n",
      "hf");
  ASSERT_TRUE(hosts.ok()) << hosts.status();
  ASSERT_EQ(hosts->size(), 4u);
  EXPECT_EQ((*hosts)[0], (HostEntry{"node01", 2, std::nullopt}));
  EXPECT_EQ((*hosts)[1], (HostEntry{"node02", 4, 8}));
  EXPECT_EQ((*hosts)[2], (HostEntry{"node03", 1, std::nullopt}));
  EXPECT_EQ((*hosts)[3], (HostEntry{"node04.cluster.example", 1, 1}));
}

TEST(ParseHostfile, EmptyAndCommentOnlyAreEmptyPools) {
  for (const char* text : {"", "\n\n", "# nothing granted\n   # still nothing\n"}) {
    const auto hosts = parse_hostfile(text, "hf");
    ASSERT_TRUE(hosts.ok()) << hosts.status();
    EXPECT_TRUE(hosts->empty());
  }
}

struct BadCase {
  const char* text;
  const char* expect_prefix;  // "<source>:<line>:"
  const char* expect_token;
};

class ParseHostfileBad : public ::testing::TestWithParam<BadCase> {};

TEST_P(ParseHostfileBad, ErrorNamesFileLineAndToken) {
  const auto hosts = parse_hostfile(GetParam().text, "granted.hosts");
  ASSERT_FALSE(hosts.ok());
  EXPECT_EQ(hosts.status().code(), absl::StatusCode::kInvalidArgument);
  const std::string msg(hosts.status().message());
  EXPECT_EQ(msg.rfind(GetParam().expect_prefix, 0), 0u) << msg;
  EXPECT_NE(msg.find(GetParam().expect_token), std::string::npos) << msg;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, ParseHostfileBad,
    ::testing::Values(
        BadCase{"node01 slots=2\nnode02 slots=two\n", "granted.hosts:2:", "slots=two"},
        BadCase{"node01 slots=0\n", "granted.hosts:1:", "slots=0"},
        BadCase{"node01 slots=-3\n", "granted.hosts:1:", "slots=-3"},
        BadCase{"# c\n\nnode01 cpus=4\n", "granted.hosts:3:", "cpus=4"},
        BadCase{"node01 slots\n", "granted.hosts:1:", "'slots'"},
        BadCase{"node01 slots=4 max_slots=2\n", "granted.hosts:1:", "node01"},
        BadCase{"node01 slots=1 slots=2\n", "granted.hosts:1:", "slots=2"},
        BadCase{"no/de slots=1\n", "granted.hosts:1:", "no/de"},
        BadCase{"a slots=1\nb slots=1\na slots=2\n", "granted.hosts:3:", "duplicate host 'a'"}));

TEST(Hostfile, FormatRoundTripsAndWriteIsAtomic) {
  TempDir dir;
  const std::vector<HostEntry> hosts = {{"n1", 2, std::nullopt}, {"n2", 3, 6}};
  ASSERT_TRUE(write_hostfile(dir / "hosts", hosts).ok());
  const auto back = read_hostfile(dir / "hosts");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, hosts);
  // No temp file is left behind next to it.
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir.path())) {
    (void)e;
    ++files;
  }
  EXPECT_EQ(files, 1);
  EXPECT_EQ(read_hostfile(dir / "missing").status().code(), absl::StatusCode::kNotFound);
}

TEST(Hostfile, DiffNamesAddedRemovedResized) {
  const std::vector<HostEntry> a = {
      {"n1", 2, std::nullopt}, {"n2", 2, std::nullopt}, {"n3", 1, std::nullopt}};
  const std::vector<HostEntry> b = {
      {"n3", 4, std::nullopt}, {"n1", 2, std::nullopt}, {"n4", 1, std::nullopt}};
  const HostfileUpdate u = diff_hosts(a, b);
  EXPECT_TRUE(u.status.ok());
  EXPECT_EQ(u.hosts, b);
  ASSERT_EQ(u.added.size(), 1u);
  EXPECT_EQ(u.added[0].name, "n4");
  EXPECT_EQ(u.removed, std::vector<std::string>{"n2"});
  ASSERT_EQ(u.resized.size(), 1u);
  EXPECT_EQ(u.resized[0], (HostEntry{"n3", 4, std::nullopt}));
}

TEST(FakeNodes, NamesArePaddedAndParseBack) {
  for (int n : {1, 2, 8, 13, 100}) {
    const auto nodes = fake_nodes(n, 2);
    ASSERT_EQ(static_cast<int>(nodes.size()), n);
    EXPECT_EQ(nodes.front().name, n >= 100 ? "node001" : "node01");
    const auto parsed = parse_hostfile(format_hostfile(nodes));
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    EXPECT_EQ(*parsed, nodes);
  }
}

// On a cluster mpirun knows only this node: elasticd adds granted nodes as it spawns there
// (PMIX_ADD_HOST), so the hostfile goes to elasticd alone; the agent starts PRRTE's daemons.
TEST(UpCommand, ClusterModeGivesElasticdTheHostfileAndMpirunTheAgent) {
  UpOptions o;
  o.mpirun = "/opt/ompi/bin/mpirun";
  o.elasticd = "/usr/bin/elasticd";
  o.hostfile = "/s/granted hosts";
  o.state_dir = "/s";
  o.launch_agent = "/usr/bin/rsh";
  o.mpirun_args = {"--mca", "coll", "^han"};
  o.elasticd_args = {"--grace-s", "10"};
  EXPECT_EQ(
      shell_join(compose_up_command(o)),
      "/opt/ompi/bin/mpirun --with-ft ulfm -n 1 --bind-to none --prtemca rml_base_radix 16384 "
      "--prtemca plm_ssh_agent /usr/bin/rsh --mca coll '^han' /usr/bin/elasticd --hostfile "
      "'/s/granted hosts' "
      "--state-dir /s --grace-s 10");
  o.launch_agent.clear();
  const auto plain = compose_up_command(o);
  EXPECT_EQ(std::count(plain.begin(), plain.end(), "--prtemca"), 1);  // the radix only
  EXPECT_EQ(shell_join({"it's"}), "'it'\\''s'");
}

// Slurm steps: PRRTE's daemons stay attached to the Slurm agent (else a daemon for a host added at
// run time daemonizes out of the holder's step) and elasticd tells the ranks to ignore SIGTERM.
TEST(UpCommand, SlurmStepsKeepDaemonsAttachedAndRanksOnSigterm) {
  UpOptions o;
  o.mpirun = "mpirun";
  o.elasticd = "/b/elasticd";
  o.hostfile = "/s/hosts";
  o.state_dir = "/s";
  o.launch_agent = "/b/elastic-slurm-agent";
  o.slurm_steps = true;
  EXPECT_EQ(shell_join(compose_up_command(o)),
            "mpirun --with-ft ulfm -n 1 --bind-to none --prtemca rml_base_radix 16384 --prtemca "
            "plm_ssh_agent /b/elastic-slurm-agent --leave-session-attached /b/elasticd --hostfile "
            "/s/hosts "
            "--state-dir /s --ranks-ignore-sigterm");
  o.fake_nodes = true;  // label mode has no remote daemons: nothing of this applies
  const auto fake = compose_up_command(o);
  EXPECT_EQ(std::count(fake.begin(), fake.end(), "--leave-session-attached"), 0);
  EXPECT_EQ(std::count(fake.begin(), fake.end(), "--ranks-ignore-sigterm"), 0);
}

// Fake nodes are labels: mpirun must get neither the hostfile nor an agent (a PRRTE daemon per
// fake node takes only one spawn), and elasticd must be told to run every rank here.
TEST(UpCommand, FakeNodeModeKeepsTheHostfileFromMpirun) {
  UpOptions o;
  o.mpirun = "mpirun";
  o.elasticd = "/b/elasticd";
  o.hostfile = "/s/fake_hostfile";
  o.state_dir = "/s";
  o.fake_nodes = true;
  o.launch_agent = "/ignored/agent";
  o.elasticd_args = {"--ranks-per-node", "1"};
  const auto argv = compose_up_command(o);
  EXPECT_EQ(shell_join(argv),
            "mpirun --with-ft ulfm -n 1 --bind-to none /b/elasticd --hostfile /s/fake_hostfile "
            "--state-dir /s --fake-nodes --ranks-per-node 1");
  const auto daemon = std::find(argv.begin(), argv.end(), "/b/elasticd");
  EXPECT_EQ(std::count(argv.begin(), daemon, "--hostfile"), 0);
  EXPECT_EQ(std::count(argv.begin(), argv.end(), "--prtemca"), 0);
}

}  // namespace
}  // namespace elastic::rt
