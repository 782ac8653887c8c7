#include "elastic/control/state_dir.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <latch>
#include <string>
#include <thread>

#include "elastic/control/event_log.h"
#include "elastic/control/hostfile.h"
#include "temp_dir.h"

namespace elastic::rt {
namespace {

using testing::TempDir;

unsigned mode_of(const std::filesystem::path& p) {
  struct stat st {};
  EXPECT_EQ(::stat(p.c_str(), &st), 0);
  return st.st_mode & 07777;
}

TEST(StateDir, CreatesPrivateLayout) {
  TempDir tmp;
  const auto root = tmp / "a/b/state";
  auto dir = StateDir::open(root);
  ASSERT_TRUE(dir.ok()) << dir.status();
  EXPECT_EQ(mode_of(root), 0700u);
  EXPECT_TRUE(std::filesystem::is_directory(dir->queue_dir()));
  EXPECT_TRUE(std::filesystem::is_directory(dir->jobs_dir()));
  auto jd = dir->make_job_dir("j1");
  ASSERT_TRUE(jd.ok());
  EXPECT_EQ(mode_of(*jd), 0700u);
  EXPECT_EQ(dir->job_stdout("j1"), *jd / "stdout");
  EXPECT_FALSE(dir->make_job_dir("../x").ok());
  EXPECT_EQ(StateDir::open(tmp / "nope", /*create=*/false).status().code(),
            absl::StatusCode::kNotFound);
}

TEST(StateDir, RefusesGroupOrWorldWritableDir) {
  TempDir tmp;
  const auto root = tmp / "state";
  ASSERT_TRUE(StateDir::open(root).ok());
  for (unsigned mode : {0777u, 0770u, 0702u}) {
    ASSERT_EQ(::chmod(root.c_str(), mode), 0);
    const auto dir = StateDir::open(root);
    ASSERT_FALSE(dir.ok()) << std::oct << mode;
    EXPECT_EQ(dir.status().code(), absl::StatusCode::kFailedPrecondition);
    EXPECT_NE(std::string(dir.status().message()).find("chmod 700"), std::string::npos)
        << dir.status();
  }
  ASSERT_EQ(::chmod(root.c_str(), 0750), 0);  // readable by group is the owner's call
  EXPECT_TRUE(StateDir::open(root).ok());
  // A file where the dir should be.
  testing::write_text(tmp / "file", "x");
  EXPECT_FALSE(StateDir::open(tmp / "file").ok());
}

TEST(StateDir, RefusesDirOwnedBySomeoneElse) {
  if (::getuid() != 0) GTEST_SKIP() << "needs root to chown";
  TempDir tmp;
  const auto root = tmp / "state";
  ASSERT_TRUE(StateDir::open(root).ok());
  ASSERT_EQ(::chown(root.c_str(), 12345, 12345), 0);
  const auto dir = StateDir::open(root);
  ASSERT_FALSE(dir.ok());
  EXPECT_NE(std::string(dir.status().message()).find("owned by uid 12345"), std::string::npos)
      << dir.status();
}

TEST(StateDir, DefaultFromEnvironment) {
  ::setenv("ELASTIC_STATE_DIR", "/tmp/somewhere", 1);
  EXPECT_EQ(default_state_dir(), "/tmp/somewhere");
  ::setenv("ELASTIC_STATE_DIR", "", 1);
  ::setenv("HOME", "/home/u", 1);
  EXPECT_EQ(default_state_dir(), "/home/u/.local/state/elastic");
  ::unsetenv("ELASTIC_STATE_DIR");
}

// The lock is per open file description, so a second process is the honest test.
TEST(DaemonLock, SecondDaemonIsRefusedAndLockDiesWithProcess) {
  TempDir tmp;
  auto dir = StateDir::open(tmp / "state");
  ASSERT_TRUE(dir.ok());
  EXPECT_EQ(DaemonLock::holder_pid(*dir), 0);
  int ready[2], release[2];
  ASSERT_EQ(::pipe(ready), 0);
  ASSERT_EQ(::pipe(release), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    auto lock = DaemonLock::acquire(*dir);
    char c = lock.ok() ? 'y' : 'n';
    (void)!::write(ready[1], &c, 1);
    (void)!::read(release[0], &c, 1);
    ::_exit(0);
  }
  char c = 0;
  ASSERT_EQ(::read(ready[0], &c, 1), 1);
  ASSERT_EQ(c, 'y');
  EXPECT_EQ(DaemonLock::holder_pid(*dir), child);
  const auto second = DaemonLock::acquire(*dir);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_NE(std::string(second.status().message()).find(std::to_string(child)), std::string::npos);
  ::kill(child, SIGKILL);  // no cleanup runs: the kernel drops the flock
  int status = 0;
  ::waitpid(child, &status, 0);
  EXPECT_EQ(DaemonLock::holder_pid(*dir), 0);
  auto mine = DaemonLock::acquire(*dir);
  ASSERT_TRUE(mine.ok()) << mine.status();
  EXPECT_EQ(DaemonLock::holder_pid(*dir), ::getpid());
  // A held lock whose file names no pid (atoi made one beyond int undefined behaviour).
  for (const char* text : {"99999999999\n", "pid\n", "-4\n"}) {
    testing::write_text(dir->pid_path(), text);
    EXPECT_EQ(DaemonLock::holder_pid(*dir), -1) << text;
  }
}

TEST(JobQueue, SubmitCancelTakeRemove) {
  TempDir tmp;
  auto dir = StateDir::open(tmp / "state");
  ASSERT_TRUE(dir.ok());
  JobQueue q(*dir);
  JobSpec s;
  s.command = "/bin/true";
  s.max_nodes = 2;
  const auto generated = q.submit(s);
  ASSERT_TRUE(generated.ok()) << generated.status();
  s.id = "named";
  ASSERT_TRUE(q.submit(s).ok());
  EXPECT_EQ(q.submit(s).status().code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(mode_of(dir->queue_dir() / "named.toml"), 0600u);
  // A hand-written bad file shows up with its error rather than vanishing.
  testing::write_text(dir->queue_dir() / "hand.toml", "command = \"x\"\nmin_nodes = 0\n");
  const auto subs = q.submissions();
  ASSERT_EQ(subs.size(), 3u);
  int good = 0;
  for (const auto& sub : subs) {
    if (sub.id == "hand") {
      ASSERT_FALSE(sub.spec.ok());
      EXPECT_NE(std::string(sub.spec.status().message()).find("hand.toml:2:"), std::string::npos);
    } else {
      ASSERT_TRUE(sub.spec.ok()) << sub.spec.status();
      EXPECT_EQ(sub.spec->id, sub.id);
      EXPECT_EQ(sub.spec->max_nodes, 2);
      ++good;
    }
  }
  EXPECT_EQ(good, 2);
  ASSERT_TRUE(q.request_cancel("named").ok());
  ASSERT_TRUE(q.request_cancel("named").ok());
  EXPECT_EQ(q.cancel_requests(), std::vector<std::string>{"named"});
  ASSERT_TRUE(q.remove_cancel("named").ok());
  ASSERT_TRUE(q.remove_submission("named").ok());
  EXPECT_TRUE(q.cancel_requests().empty());
  EXPECT_EQ(q.submissions().size(), 2u);
}

// Two submits of one id at the same moment: one is queued, the other refused, and the queued file
// is the one that was accepted (both used to succeed, the second overwriting the first).
TEST(JobQueue, RacingSubmitsOfOneIdQueueOne) {
  TempDir tmp;
  auto dir = StateDir::open(tmp / "state");
  ASSERT_TRUE(dir.ok());
  const JobQueue q(*dir);
  constexpr int kIds = 40;
  for (int i = 0; i < kIds; ++i) {
    std::array<absl::StatusOr<std::string>, 2> result{absl::UnknownError(""),
                                                      absl::UnknownError("")};
    std::latch start(2);
    std::array<std::thread, 2> writers;
    for (int w = 0; w < 2; ++w) {
      writers[static_cast<std::size_t>(w)] = std::thread([&, w] {
        JobSpec s;
        s.id = "r" + std::to_string(i);
        s.command = "/bin/true";
        s.args = {"writer" + std::to_string(w)};
        start.arrive_and_wait();
        result[static_cast<std::size_t>(w)] = q.submit(s);
      });
    }
    for (std::thread& t : writers) t.join();
    ASSERT_NE(result[0].ok(), result[1].ok()) << "round " << i;
    const int winner = result[0].ok() ? 0 : 1;
    EXPECT_EQ(result[static_cast<std::size_t>(1 - winner)].status().code(),
              absl::StatusCode::kAlreadyExists);
    auto queued = read_job_spec(dir->queue_dir() / ("r" + std::to_string(i) + ".toml"));
    ASSERT_TRUE(queued.ok()) << queued.status();
    EXPECT_EQ(queued->args, std::vector<std::string>{"writer" + std::to_string(winner)});
  }
  // No temp file is left behind by the refused writers.
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir->queue_dir())) {
    ++files;
  }
  EXPECT_EQ(files, static_cast<std::size_t>(kIds));
}

TEST(EventLog, AppendsJsonLines) {
  TempDir tmp;
  {
    auto log = EventLog::open(tmp / "events.jsonl");
    ASSERT_TRUE(log.ok());
    ASSERT_TRUE(log->write("plan", {{"solver_s", 0.01}, {"nodes", 3}}).ok());
    ASSERT_TRUE(log->write("node_lost", {{"node", "n1"}}).ok());
    EXPECT_FALSE(log->write("bad", nlohmann::json::array()).ok());
  }
  std::ifstream in(tmp / "events.jsonl");
  std::string line;
  std::vector<nlohmann::json> lines;
  while (std::getline(in, line)) lines.push_back(nlohmann::json::parse(line));
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0]["event"], "plan");
  EXPECT_EQ(lines[0]["nodes"], 3);
  EXPECT_GT(lines[1]["t"].get<double>(), 1.6e9);
}

// A daemon that runs for months must not fill its disk with plan records: past its bound the log
// is rotated, and what is kept is whole lines, in order, ending with the newest.
TEST(EventLog, RotatesPastItsBoundKeepingWholeLinesInOrder) {
  TempDir tmp;
  const auto path = tmp / "events.jsonl";
  const mode_t old = ::umask(0);
  {
    auto log = EventLog::open(path, {.max_bytes = 4096, .keep = 2});
    ASSERT_TRUE(log.ok()) << log.status();
    for (int i = 0; i < 300; ++i) {
      ASSERT_TRUE(log->write("plan", {{"i", i}, {"pool", {"h1", "h2", "h3", "h4"}}}).ok());
    }
  }
  ::umask(old);
  const std::vector<std::filesystem::path> files = {EventLog::rotated_path(path, 2),
                                                    EventLog::rotated_path(path, 1), path};
  EXPECT_EQ(files[0].filename(), "events.2.jsonl");
  EXPECT_FALSE(std::filesystem::exists(EventLog::rotated_path(path, 3)));
  std::vector<int> seen;
  for (const auto& f : files) {
    ASSERT_TRUE(std::filesystem::exists(f)) << f;
    EXPECT_LE(std::filesystem::file_size(f), 4096u) << f;
    EXPECT_EQ(mode_of(f), 0600u) << f;
    std::ifstream in(f);
    std::string line;
    while (std::getline(in, line)) {
      const auto j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
      ASSERT_FALSE(j.is_discarded()) << f << ": " << line;
      seen.push_back(j["i"].get<int>());
    }
  }
  ASSERT_GT(seen.size(), 60u);
  EXPECT_LT(seen.size(), 300u);  // the oldest were dropped
  EXPECT_EQ(seen.back(), 299);
  for (std::size_t k = 1; k < seen.size(); ++k) EXPECT_EQ(seen[k], seen[k - 1] + 1) << k;
}

// What the control plane writes into the state dir is owner-only whatever the umask (with umask 0,
// fopen and a 0644 write would leave it readable, or writable, by all). elastic_cli.private_state
// checks the same of a whole state dir after a job ran.
TEST(StateDir, FilesAreOwnerOnlyUnderAnyUmask) {
  TempDir tmp;
  const mode_t old = ::umask(0);
  auto dir = StateDir::open(tmp / "state");
  ASSERT_TRUE(dir.ok()) << dir.status();
  ASSERT_TRUE(EventLog::open(dir->events_path()).ok());
  ASSERT_TRUE(write_hostfile(dir->root() / "fake_hostfile", {{"n1", 1, std::nullopt}}, 0600).ok());
  JobSpec spec;
  spec.id = "j";
  spec.command = "/bin/true";
  ASSERT_TRUE(JobQueue(*dir).submit(spec).ok());
  auto job = dir->make_job_dir("j");
  ::umask(old);
  ASSERT_TRUE(job.ok()) << job.status();
  EXPECT_EQ(mode_of(dir->root()), 0700u);
  EXPECT_EQ(mode_of(dir->queue_dir()), 0700u);
  EXPECT_EQ(mode_of(*job), 0700u);
  EXPECT_EQ(mode_of(dir->events_path()), 0600u);
  EXPECT_EQ(mode_of(dir->root() / "fake_hostfile"), 0600u);
  EXPECT_EQ(mode_of(dir->queue_dir() / "j.toml"), 0600u);
}

}  // namespace
}  // namespace elastic::rt
