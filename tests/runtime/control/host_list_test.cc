// Compressed host lists (host_list.h) in the forms Slurm and PBS print them.
#include "elastic/control/host_list.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fmt/format.h"

namespace elastic::rt {
namespace {

using Names = std::vector<std::string>;

Names slurm(std::string_view text) {
  auto names = expand_slurm_hosts(text, "t");
  EXPECT_TRUE(names.ok()) << names.status();
  return names.ok() ? *names : Names{};
}

Names pbs(std::string_view text) {
  auto names = expand_pbs_hosts(text, "t");
  EXPECT_TRUE(names.ok()) << names.status();
  return names.ok() ? *names : Names{};
}

// The error message of a list that must be refused.
std::string slurm_error(std::string_view text) {
  auto names = expand_slurm_hosts(text, "sinfo.txt:3");
  EXPECT_FALSE(names.ok()) << text << " expanded to " << (names.ok() ? names->size() : 0);
  return names.ok() ? "" : std::string(names.status().message());
}
std::string pbs_error(std::string_view text) {
  auto names = expand_pbs_hosts(text, "qstat.txt:7");
  EXPECT_FALSE(names.ok()) << text << " expanded to " << (names.ok() ? names->size() : 0);
  return names.ok() ? "" : std::string(names.status().message());
}

TEST(SlurmHosts, RangesAndSingles) {
  EXPECT_EQ(slurm("node[1-4,7]"), (Names{"node1", "node2", "node3", "node4", "node7"}));
  EXPECT_EQ(slurm("node7"), (Names{"node7"}));
  EXPECT_EQ(slurm(""), Names{});
  EXPECT_EQ(slurm("gpu[3]"), (Names{"gpu3"}));
}

TEST(SlurmHosts, ZeroPaddingKeepsTheFirstBoundsWidth) {
  EXPECT_EQ(slurm("n[01-10]"),
            (Names{"n01", "n02", "n03", "n04", "n05", "n06", "n07", "n08", "n09", "n10"}));
  EXPECT_EQ(slurm("n[8-10]"), (Names{"n8", "n9", "n10"}));
  EXPECT_EQ(slurm("nid[00098-00101]"), (Names{"nid00098", "nid00099", "nid00100", "nid00101"}));
}

TEST(SlurmHosts, SeveralNamesAndGroupsAsSinfoPrintsThem) {
  // sinfo -h -o "%N" and squeue -o %N on a Cray-style and a rack-style machine.
  EXPECT_EQ(slurm("nid[00002,00004],login1"), (Names{"nid00002", "nid00004", "login1"}));
  EXPECT_EQ(slurm("r[1-2]-n[01-02]"), (Names{"r1-n01", "r1-n02", "r2-n01", "r2-n02"}));
  EXPECT_EQ(slurm("a[1-2]b,c[3]"), (Names{"a1b", "a2b", "c3"}));
  // Listed twice: once, in first-appearance order.
  EXPECT_EQ(slurm("n[2-3],n[1-2]"), (Names{"n2", "n3", "n1"}));
}

// n[1-N] against names built one by one, at sizes 1 and primes.
class SlurmRangeSize : public ::testing::TestWithParam<int> {};
TEST_P(SlurmRangeSize, MatchesNamesBuiltOneByOne) {
  const int n = GetParam();
  Names want;
  for (int i = 1; i <= n; ++i) want.push_back(fmt::format("c{:03}", i));
  EXPECT_EQ(slurm(fmt::format("c[001-{:03}]", n)), want);
  // The same names as single entries and as ranges of one.
  std::string singles;
  for (const std::string& name : want) singles += (singles.empty() ? "" : ",") + name;
  EXPECT_EQ(slurm(singles), want);
}
INSTANTIATE_TEST_SUITE_P(Sizes, SlurmRangeSize, ::testing::Values(1, 2, 3, 7, 13, 101));

TEST(SlurmHosts, BadListsNameTheSourceAndToken) {
  EXPECT_EQ(slurm_error("n[1-3"), "sinfo.txt:3: unclosed '[' in 'n[1-3'");
  EXPECT_EQ(slurm_error("n1-3]"), "sinfo.txt:3: unbalanced ']' in 'n1-3]'");
  EXPECT_EQ(slurm_error("n[1[2]]"), "sinfo.txt:3: unbalanced '[' in 'n[1[2]]'");
  EXPECT_EQ(slurm_error("n[5-3]"), "sinfo.txt:3: a range must not run backwards: '5-3'");
  EXPECT_EQ(slurm_error("n[a-c]"), "sinfo.txt:3: a range must be N or N-M (digits) in '[a-c]'");
  EXPECT_EQ(slurm_error("n[]"), "sinfo.txt:3: a range must be N or N-M (digits) in '[]'");
  EXPECT_EQ(slurm_error("n[1,]"), "sinfo.txt:3: a range must be N or N-M (digits) in '[1,]'");
  EXPECT_EQ(slurm_error("n1,,n2"), "sinfo.txt:3: empty host name in ''");
  EXPECT_EQ(slurm_error("n1 n2"), "sinfo.txt:3: white space in host name 'n1 n2'");
  EXPECT_NE(slurm_error("n[1-99999999]").find("more than 1000000 hosts"), std::string::npos);
  EXPECT_NE(slurm_error("a[1-1000]b[1-1001]").find("more than 1000000 hosts"), std::string::npos);
}

TEST(PbsHosts, ExecVnodeAsQstatPrintsIt) {
  // qstat -f of a PBS Pro job on Polaris: one chunk per node, resources after the vnode.
  EXPECT_EQ(pbs("(x3001c0s13b0n0:ncpus=64:ngpus=4)+(x3001c0s19b1n0:ncpus=64:ngpus=4)"),
            (Names{"x3001c0s13b0n0", "x3001c0s19b1n0"}));
  // A chunk spread over the vnodes of one multi-vnode host: brackets are part of the names.
  EXPECT_EQ(pbs("(uv[0]:ncpus=8:mem=16gb+uv[1]:ncpus=8)+(uv[2]:ncpus=4)"),
            (Names{"uv[0]", "uv[1]", "uv[2]"}));
  // Two chunks on one node: once.
  EXPECT_EQ(pbs("(n1:ncpus=2)+(n1:ncpus=2)+(n2:ncpus=2)"), (Names{"n1", "n2"}));
  EXPECT_EQ(pbs("(n1)"), (Names{"n1"}));
}

TEST(PbsHosts, ExecHostOfPbsProAndTorque) {
  EXPECT_EQ(pbs("x1/0*64+x2/0*64"), (Names{"x1", "x2"}));                     // PBS Pro
  EXPECT_EQ(pbs("node01/0+node01/1+node02/0"), (Names{"node01", "node02"}));  // Torque
  EXPECT_EQ(pbs("node01/0-15+node02/0-15"), (Names{"node01", "node02"}));     // Torque 5+
  EXPECT_EQ(pbs("node01/0,2,5"), (Names{"node01"}));
  EXPECT_EQ(pbs("n1+n2+n1"), (Names{"n1", "n2"}));  // nodes=n1+n2 style
  EXPECT_EQ(pbs(" "), Names{});
}

TEST(PbsHosts, BadListsNameTheSourceAndToken) {
  EXPECT_EQ(pbs_error("(n1:ncpus=2"), "qstat.txt:7: unclosed '(' in '(n1:ncpus=2'");
  EXPECT_EQ(pbs_error("n1:ncpus=2)"), "qstat.txt:7: unbalanced ')' in 'n1:ncpus=2)'");
  EXPECT_EQ(pbs_error("n1++n2"), "qstat.txt:7: empty chunk between '+' in 'n1++n2'");
  EXPECT_EQ(pbs_error("(n1:ncpus=2)x"), "qstat.txt:7: text after ')' in '(n1:ncpus=2)x'");
  EXPECT_EQ(pbs_error("(:ncpus=2)"), "qstat.txt:7: empty vnode name in ':ncpus=2'");
  EXPECT_EQ(pbs_error("(n1:ncpus)"),
            "qstat.txt:7: expected 'resource=value' after the vnode in 'n1:ncpus'");
  EXPECT_EQ(pbs_error("n1/x"),
            "qstat.txt:7: slots after '/' must be N, N*COUNT, N-M or N,M in 'n1/x'");
  EXPECT_EQ(pbs_error("n1:ncpus=2"),
            "qstat.txt:7: expected 'host' or 'host/slots', got 'n1:ncpus=2'");
  EXPECT_EQ(pbs_error("/0*4"), "qstat.txt:7: expected 'host' or 'host/slots', got '/0*4'");
}

}  // namespace
}  // namespace elastic::rt
