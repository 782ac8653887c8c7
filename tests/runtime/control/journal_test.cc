// The journal keeps every submitted job through crashes: we write real files, cut them mid-line
// the way a crash would, and replay.
#include "elastic/control/journal.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>

#include <fstream>
#include <string>

#include "elastic/control/atomic_file.h"
#include "elastic/control/journal_salvage.h"
#include "temp_dir.h"

namespace elastic::rt {
namespace {

using testing::TempDir;

JobSpec spec(std::string id) {
  JobSpec s;
  s.id = std::move(id);
  s.command = "/bin/train";
  s.args = {"--x", "1"};
  s.min_nodes = 1;
  s.max_nodes = 4;
  s.target_samples = 1000;
  return s;
}

const JobRecord* find(const JournalReplay& r, std::string_view id) {
  for (const JobRecord& j : r.jobs) {
    if (j.spec.id == id) return &j;
  }
  return nullptr;
}

std::uintmax_t size_of(const std::filesystem::path& p) { return std::filesystem::file_size(p); }

TEST(Journal, ReplayRebuildsStates) {
  TempDir dir;
  const auto path = dir / "journal.jsonl";
  {
    auto j = Journal::open(path);
    ASSERT_TRUE(j.ok()) << j.status();
    ASSERT_TRUE(j->submitted(spec("queued")).ok());
    ASSERT_TRUE(j->submitted(spec("running")).ok());
    ASSERT_TRUE(j->submitted(spec("done")).ok());
    ASSERT_TRUE(j->submitted(spec("broken")).ok());
    ASSERT_TRUE(j->submitted(spec("gone")).ok());
    ASSERT_TRUE(j->started("running", {"n1", "n2"}, 4).ok());
    ASSERT_TRUE(j->rescaled("running", {"n1", "n2", "n3"}, 6, "grow").ok());
    ASSERT_TRUE(j->checkpoint("running", "/ckpt/3", 500).ok());
    ASSERT_TRUE(j->started("done", {"n4"}, 2).ok());
    ASSERT_TRUE(j->finished("done", 1000).ok());
    ASSERT_TRUE(j->failed("broken", "exit status 1").ok());
    ASSERT_TRUE(j->cancelled("gone", "user").ok());
  }
  const auto r = replay_journal(path);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->records, 12u);
  EXPECT_FALSE(r->torn_tail);
  EXPECT_EQ(r->valid_bytes, size_of(path));
  ASSERT_EQ(r->jobs.size(), 5u);
  EXPECT_EQ(r->jobs[0].spec.id, "queued");  // submission order
  EXPECT_EQ(find(*r, "queued")->state, JobState::kQueued);
  EXPECT_EQ(find(*r, "queued")->spec, spec("queued"));
  const JobRecord* running = find(*r, "running");
  EXPECT_EQ(running->state, JobState::kToRestart);  // the daemon that ran it is gone
  EXPECT_EQ(running->rescales, 1);
  EXPECT_EQ(running->nodes, (std::vector<std::string>{"n1", "n2", "n3"}));
  EXPECT_EQ(running->ranks, 6);
  EXPECT_EQ(running->checkpoint, "/ckpt/3");
  EXPECT_EQ(running->samples_done, 500);
  EXPECT_EQ(running->starts, 1);
  EXPECT_EQ(find(*r, "done")->state, JobState::kFinished);
  EXPECT_EQ(find(*r, "done")->samples_done, 1000);
  EXPECT_EQ(find(*r, "broken")->state, JobState::kFailed);
  EXPECT_EQ(find(*r, "broken")->reason, "exit status 1");
  EXPECT_EQ(find(*r, "gone")->state, JobState::kCancelled);
}

// Every event elasticd journals (runtime/daemon/src/daemon.cc: submitted, started, rescaled,
// requeued, finished, failed, cancelled) replays without a warning. "requeued" (all of a job's
// nodes taken back) puts the job back to waiting, keeping it, its history and the samples of its
// runs so far; it can start again.
TEST(Journal, RequeuedJobWaitsAndStartsAgain) {
  TempDir dir;
  const auto path = dir / "journal.jsonl";
  {
    auto j = Journal::open(path);
    ASSERT_TRUE(j.ok()) << j.status();
    for (const char* id : {"waiting", "again", "ended"}) ASSERT_TRUE(j->submitted(spec(id)).ok());
    for (const char* id : {"waiting", "again", "ended"}) {
      ASSERT_TRUE(j->started(id, {"n1", "n2"}, 2).ok());
      ASSERT_TRUE(j->rescaled(id, {"n1"}, 1, "shrink").ok());
    }
    ASSERT_TRUE(j->checkpoint("waiting", "/ckpt/w", 300).ok());
    // A record written before requeues carried the samples: the count it had is kept.
    ASSERT_TRUE(j->append("requeued", "waiting", {{"reason", "all nodes taken back"}}).ok());
    ASSERT_TRUE(j->requeued("again", "all nodes taken back", 4096).ok());
    ASSERT_TRUE(j->started("again", {"n3"}, 1).ok());
    ASSERT_TRUE(j->requeued("ended", "all nodes taken back", 512).ok());
    ASSERT_TRUE(j->started("ended", {"n4"}, 1).ok());
    ASSERT_TRUE(j->failed("ended", "rank 0 exited with code 1").ok());
  }
  const auto r = replay_journal(path);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->warnings.empty()) << r->warnings.front();
  EXPECT_EQ(r->records, 16u);
  ASSERT_EQ(r->jobs.size(), 3u);
  const JobRecord* waiting = find(*r, "waiting");
  EXPECT_EQ(waiting->state, JobState::kToRestart);
  EXPECT_TRUE(waiting->nodes.empty());
  EXPECT_EQ(waiting->ranks, 0);
  EXPECT_EQ(waiting->starts, 1);
  EXPECT_EQ(waiting->rescales, 1);
  EXPECT_EQ(waiting->checkpoint, "/ckpt/w");
  EXPECT_EQ(waiting->samples_done, 300);
  EXPECT_EQ(waiting->reason, "all nodes taken back");  // why it waits
  const JobRecord* again = find(*r, "again");
  EXPECT_EQ(again->state, JobState::kToRestart);  // was running again when the daemon went away
  EXPECT_EQ(again->nodes, (std::vector<std::string>{"n3"}));
  EXPECT_EQ(again->starts, 2);
  EXPECT_EQ(again->samples_done, 4096);  // its earlier run's, which the next run adds to
  EXPECT_TRUE(again->reason.empty());    // started since
  EXPECT_EQ(find(*r, "ended")->state, JobState::kFailed);
  EXPECT_EQ(find(*r, "ended")->starts, 2);

  // The live view (apply_journal_record, as the daemon applies records) agrees: no warning.
  std::vector<JobRecord> jobs;
  std::vector<std::string> warnings;
  ASSERT_TRUE(apply_journal_record(
                  {{"event", "submitted"}, {"job", "x"}, {"spec", job_spec_to_json(spec("x"))}},
                  jobs, &warnings)
                  .ok());
  ASSERT_TRUE(
      apply_journal_record({{"event", "started"}, {"job", "x"}, {"nodes", {"n1"}}, {"ranks", 1}},
                           jobs, &warnings)
          .ok());
  ASSERT_TRUE(
      apply_journal_record({{"event", "requeued"}, {"job", "x"}, {"reason", "r"}}, jobs, &warnings)
          .ok());
  EXPECT_TRUE(warnings.empty());
  EXPECT_EQ(jobs.at(0).state, JobState::kToRestart);
  // An event this build does not know is still only a warning (a newer daemon's journal).
  ASSERT_TRUE(apply_journal_record({{"event", "paused"}, {"job", "x"}}, jobs, &warnings).ok());
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("unknown event 'paused'"), std::string::npos) << warnings[0];
}

// Cut the file at every byte inside the last record: each is a crash mid-append.
TEST(Journal, TornLastLineIsDroppedAndRepaired) {
  TempDir dir;
  const auto path = dir / "journal.jsonl";
  std::uintmax_t before_last = 0, full = 0;
  {
    auto j = Journal::open(path);
    ASSERT_TRUE(j.ok());
    ASSERT_TRUE(j->submitted(spec("a")).ok());
    ASSERT_TRUE(j->submitted(spec("b")).ok());
    before_last = size_of(path);
    ASSERT_TRUE(j->submitted(spec("c")).ok());
    full = size_of(path);
  }
  std::string original;
  {
    std::ifstream in(path, std::ios::binary);
    original.assign(std::istreambuf_iterator<char>(in), {});
  }
  std::uintmax_t last_cut = 0;
  for (std::uintmax_t cut = before_last + 1; cut < full; cut += 7) {
    last_cut = cut;
    testing::write_text(path, original);
    std::filesystem::resize_file(path, cut);
    const auto r = replay_journal(path);
    ASSERT_TRUE(r.ok()) << "cut at " << cut << ": " << r.status();
    EXPECT_TRUE(r->torn_tail) << cut;
    EXPECT_EQ(r->jobs.size(), 2u) << cut;  // c was never acknowledged; a and b survive
    EXPECT_EQ(r->valid_bytes, before_last);
  }
  // Reopening for append truncates the torn tail, so new records stay parseable.
  {
    JournalReplay replay;
    auto j = Journal::open(path, &replay);
    ASSERT_TRUE(j.ok()) << j.status();
    EXPECT_TRUE(replay.torn_tail);
    EXPECT_EQ(size_of(path), before_last);
    ASSERT_TRUE(j->submitted(spec("d")).ok());
  }
  // What was cut off is kept beside the journal, as salvage keeps bad lines.
  const auto side = read_file(bad_lines_path(path));
  ASSERT_TRUE(side.ok()) << side.status();
  EXPECT_EQ(*side, path.string().insert(0, "# ") + ":3: incomplete line\n" +
                       original.substr(before_last, last_cut - before_last) + "\n");
  const auto r = replay_journal(path);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_FALSE(r->torn_tail);
  ASSERT_EQ(r->jobs.size(), 3u);
  EXPECT_EQ(r->jobs[2].spec.id, "d");
}

TEST(Journal, CorruptMiddleLineIsDataLossNamingTheLine) {
  TempDir dir;
  const auto path = dir / "journal.jsonl";
  {
    auto j = Journal::open(path);
    ASSERT_TRUE(j.ok());
    ASSERT_TRUE(j->submitted(spec("a")).ok());
    ASSERT_TRUE(j->submitted(spec("b")).ok());
    ASSERT_TRUE(j->submitted(spec("c")).ok());
  }
  std::string text;
  {
    std::ifstream in(path, std::ios::binary);
    text.assign(std::istreambuf_iterator<char>(in), {});
  }
  const auto second = text.find('\n') + 1;
  text[second + 3] = '#';  // garble line 2
  testing::write_text(path, text);
  const auto r = replay_journal(path);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_NE(std::string(r.status().message()).find("journal.jsonl:2:"), std::string::npos)
      << r.status();
  EXPECT_FALSE(Journal::open(path).ok());
}

// A last line that is whole (its newline written) but cannot be applied is not a torn write: it is
// refused like a bad line anywhere else, and the file is left as it was (it used to be dropped as
// torn and cut off the disk when the journal was opened).
TEST(Journal, ABadCompleteLastLineIsRefusedNotCutOff) {
  TempDir dir;
  const auto path = dir / "journal.jsonl";
  {
    auto j = Journal::open(path);
    ASSERT_TRUE(j.ok());
    ASSERT_TRUE(j->submitted(spec("a")).ok());
    ASSERT_TRUE(j->started("a", {"n1"}, 2).ok());
  }
  std::ofstream(path, std::ios::app) << R"({"t":3,"event":"finished","job":"a","samples_done":1.5})"
                                     << "\n";
  const auto before = read_file(path);
  ASSERT_TRUE(before.ok());
  const auto r = replay_journal(path);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_NE(std::string(r.status().message()).find("journal.jsonl:3: bad journal record"),
            std::string::npos)
      << r.status();
  EXPECT_FALSE(Journal::open(path).ok());
  EXPECT_EQ(*read_file(path), *before);
  EXPECT_FALSE(std::filesystem::exists(bad_lines_path(path)));
}

// The process may write no file past a limit (RLIMIT_FSIZE), as a full disk would stop it: a
// write() past it fails with EFBIG once SIGXFSZ is ignored. Restores both on destruction.
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) : old_handler_(signal(SIGXFSZ, SIG_IGN)) {
    EXPECT_EQ(getrlimit(RLIMIT_FSIZE, &old_), 0);
    rlimit small = old_;
    small.rlim_cur = bytes;
    EXPECT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  }
  ~FileSizeLimit() {
    EXPECT_EQ(setrlimit(RLIMIT_FSIZE, &old_), 0);
    signal(SIGXFSZ, old_handler_);
  }
  FileSizeLimit(const FileSizeLimit&) = delete;
  FileSizeLimit& operator=(const FileSizeLimit&) = delete;

 private:
  rlimit old_{};
  void (*old_handler_)(int);
};

// The fault: the disk fills part way through a record (the first write() stores 20 bytes of it,
// the next fails). The partial record is cut off again, so the file holds what the journal
// acknowledged and the next record starts on a line of its own (it used to be glued onto the
// fragment: the next start refused the journal).
TEST(Journal, AFailedAppendLeavesNoPartialRecord) {
  TempDir dir;
  const auto path = dir / "journal.jsonl";
  auto j = Journal::open(path);
  ASSERT_TRUE(j.ok());
  ASSERT_TRUE(j->submitted(spec("a")).ok());
  const auto before = read_file(path);
  ASSERT_TRUE(before.ok());
  absl::Status st;
  {
    FileSizeLimit limit(before->size() + 20);
    st = j->submitted(spec("b"));
  }
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("journal.jsonl: write: File too large"), std::string::npos) << st;
  EXPECT_EQ(*read_file(path), *before);
  ASSERT_TRUE(j->submitted(spec("c")).ok());
  const auto r = replay_journal(path);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_FALSE(r->torn_tail);
  EXPECT_EQ(r->records, 2u);
  ASSERT_EQ(r->jobs.size(), 2u);
  EXPECT_EQ(r->jobs[1].spec.id, "c");
}

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Issue 16: one corrupt middle line stops elasticd (above); check lists every bad line, salvage
// keeps every record that replays, moves the rest to journal.jsonl.bad with their line numbers,
// and the journal opens again (what the daemon does first).
TEST(Journal, SalvageKeepsGoodRecordsAndSetsBadLinesAside) {
  TempDir dir;
  const auto path = dir / "journal.jsonl";
  {
    auto j = Journal::open(path);
    ASSERT_TRUE(j.ok());
    ASSERT_TRUE(j->submitted(spec("a")).ok());     // line 1
    ASSERT_TRUE(j->submitted(spec("b")).ok());     // line 2: garbled below
    ASSERT_TRUE(j->submitted(spec("c")).ok());     // line 3
    ASSERT_TRUE(j->started("a", {"n1"}, 2).ok());  // line 4
    ASSERT_TRUE(j->submitted(spec("a")).ok());     // line 5: a second `submitted` for a
    ASSERT_TRUE(j->append("started", "c", {{"nodes", 7}}).ok());  // line 6: nodes not a list
    ASSERT_TRUE(j->finished("a", 1000).ok());                     // line 7
  }
  std::string text = slurp(path);
  const auto second = text.find('\n') + 1;
  text[second] = '#';  // not JSON any more
  const std::string garbled = text.substr(second, text.find('\n', second) - second);
  text += "{\"event\": 3, \"job\": \"a\"}\n";  // line 8: event not a string
  text += "{\"t\": \"x\", \"event\": \"finished\", \"job\": \"a\"}\n";  // line 9: threw
  text += "{\"t\": 1, \"event\": \"fini";                               // line 10: torn
  testing::write_text(path, text);
  ASSERT_FALSE(replay_journal(path).ok());

  auto check = check_journal(path);
  ASSERT_TRUE(check.ok()) << check.status();
  ASSERT_EQ(check->bad.size(), 6u);
  EXPECT_EQ(check->bad[0].line, 2u);
  EXPECT_EQ(check->bad[0].reason, "not valid JSON");
  EXPECT_EQ(check->bad[0].text, garbled);
  EXPECT_EQ(check->bad[1].line, 5u);
  EXPECT_EQ(check->bad[1].reason, "job a submitted again; the first submission is kept");
  EXPECT_EQ(check->bad[2].line, 6u);
  EXPECT_NE(check->bad[2].reason.find("'started' record"), std::string::npos);
  EXPECT_EQ(check->bad[3].line, 8u);
  EXPECT_EQ(check->bad[3].reason, "record needs string fields 'event' and 'job'");
  EXPECT_EQ(check->bad[4].line, 9u);
  EXPECT_NE(check->bad[4].reason.find("'finished' record"), std::string::npos);
  EXPECT_EQ(check->bad[5].line, 10u);
  EXPECT_EQ(check->bad[5].reason, "incomplete line");
  EXPECT_EQ(check->replay.records, 4u);
  EXPECT_EQ(slurp(path), text) << "check must not change the file";

  auto salvaged = salvage_journal(path);
  ASSERT_TRUE(salvaged.ok()) << salvaged.status();
  EXPECT_EQ(salvaged->bad.size(), 6u);
  const std::string side = slurp(bad_lines_path(path));
  EXPECT_EQ(bad_lines_path(path), dir / "journal.jsonl.bad");
  EXPECT_NE(side.find("# " + path.string() + ":2: not valid JSON\n" + garbled + "\n"),
            std::string::npos)
      << side;
  EXPECT_NE(side.find(path.string() + ":10: incomplete line\n{\"t\": 1, \"event\": \"fini\n"),
            std::string::npos)
      << side;
  EXPECT_EQ((std::filesystem::status(path).permissions() & std::filesystem::perms::all),
            std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);

  JournalReplay replay;
  auto reopened = Journal::open(path, &replay);
  ASSERT_TRUE(reopened.ok()) << reopened.status();
  EXPECT_EQ(replay.records, 4u);
  EXPECT_TRUE(replay.warnings.empty());
  ASSERT_EQ(replay.jobs.size(), 2u);
  EXPECT_EQ(find(replay, "a")->state, JobState::kFinished);
  EXPECT_EQ(find(replay, "c")->state, JobState::kQueued);
  EXPECT_EQ(find(replay, "b"), nullptr);

  auto clean = check_journal(path);
  ASSERT_TRUE(clean.ok());
  EXPECT_TRUE(clean->bad.empty());
  EXPECT_EQ(slurp(bad_lines_path(path)), side) << "a clean journal leaves the side file alone";
}

TEST(Journal, MissingFileIsEmptyAndUnknownJobsWarn) {
  TempDir dir;
  const auto r = replay_journal(dir / "none.jsonl");
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->jobs.empty());
  std::vector<JobRecord> jobs;
  std::vector<std::string> warnings;
  ASSERT_TRUE(
      apply_journal_record({{"event", "finished"}, {"job", "ghost"}}, jobs, &warnings).ok());
  EXPECT_TRUE(jobs.empty());
  EXPECT_EQ(warnings.size(), 1u);
  EXPECT_FALSE(apply_journal_record({{"event", "started"}}, jobs).ok());
  EXPECT_FALSE(
      apply_journal_record({{"event", "submitted"}, {"job", "x"}, {"spec", 3}}, jobs).ok());
}

TEST(Journal, ManyJobsNoneLost) {
  TempDir dir;
  const auto path = dir / "journal.jsonl";
  constexpr int kJobs = 257;
  for (int round = 0; round < 3; ++round) {  // three daemon lifetimes appending
    auto j = Journal::open(path);
    ASSERT_TRUE(j.ok());
    for (int i = round; i < kJobs; i += 3)
      ASSERT_TRUE(j->submitted(spec("j" + std::to_string(i))).ok());
  }
  const auto r = replay_journal(path);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->jobs.size(), static_cast<std::size_t>(kJobs));
  for (int i = 0; i < kJobs; ++i) EXPECT_NE(find(*r, "j" + std::to_string(i)), nullptr) << i;
}

void expect_same_jobs(const JournalReplay& a, const JournalReplay& b) {
  ASSERT_EQ(a.jobs.size(), b.jobs.size());
  for (std::size_t i = 0; i < a.jobs.size(); ++i) {
    // Every field (JobRecord's operator== is the defaulted one).
    EXPECT_TRUE(a.jobs[i] == b.jobs[i]) << "job " << i << ": " << a.jobs[i].spec.id;
  }
}

std::size_t lines_of(const std::filesystem::path& p) {
  absl::StatusOr<std::string> text = read_file(p);
  return text.ok() ? static_cast<std::size_t>(std::count(text->begin(), text->end(), '\n')) : 0;
}

// A history with a job in every state, each through several records.
void write_history(Journal& j) {
  for (const char* id : {"queued", "running", "requeued", "done", "broken", "gone"}) {
    ASSERT_TRUE(j.submitted(spec(id)).ok());
  }
  ASSERT_TRUE(j.started("running", {"n1"}, 1).ok());
  for (int i = 2; i <= 6; ++i) {
    std::vector<std::string> nodes;
    for (int n = 1; n <= i; ++n) nodes.push_back("n" + std::to_string(n));
    ASSERT_TRUE(j.rescaled("running", nodes, i, "grow").ok());
  }
  ASSERT_TRUE(j.checkpoint("running", "/ckpt/running/7", 700).ok());
  ASSERT_TRUE(j.started("requeued", {"n7", "n8"}, 2).ok());
  ASSERT_TRUE(j.checkpoint("requeued", "/ckpt/requeued/2", 200).ok());
  ASSERT_TRUE(j.requeued("requeued", "all of its nodes were taken back", 250).ok());
  ASSERT_TRUE(j.started("done", {"n9"}, 1).ok());
  ASSERT_TRUE(j.requeued("done", "the plan gave it no nodes", 400).ok());
  ASSERT_TRUE(j.started("done", {"n9", "n10"}, 2).ok());
  ASSERT_TRUE(j.finished("done", 1000).ok());
  ASSERT_TRUE(j.started("broken", {"n11"}, 1).ok());
  ASSERT_TRUE(j.failed("broken", "rank 0 on node n11 exited with code 3").ok());
  ASSERT_TRUE(j.cancelled("gone", "user").ok());
}

TEST(JournalCompaction, ReplaysToTheSameJobs) {
  TempDir dir;
  const auto path = dir / "journal.jsonl";
  auto j = Journal::open(path);
  ASSERT_TRUE(j.ok()) << j.status();
  write_history(*j);
  const auto full = replay_journal(path);
  ASSERT_TRUE(full.ok()) << full.status();
  ASSERT_EQ(full->records, 23u);
  EXPECT_EQ(j->records(), 23u);
  EXPECT_EQ(j->jobs(), 6u);

  // Compacted by the writer that wrote it (a live daemon: "running" is still running there).
  ASSERT_TRUE(j->compact().ok());
  EXPECT_EQ(j->records(), 6u);
  EXPECT_EQ(lines_of(path), 6u);
  const auto compacted = replay_journal(path);
  ASSERT_TRUE(compacted.ok()) << compacted.status();
  EXPECT_EQ(compacted->records, 6u);
  EXPECT_TRUE(compacted->warnings.empty());
  expect_same_jobs(*full, *compacted);
  EXPECT_EQ(find(*compacted, "running")->rescales, 5);
  EXPECT_EQ(find(*compacted, "running")->state, JobState::kToRestart);
  EXPECT_EQ(find(*compacted, "done")->starts, 2);

  // It goes on appending to the new file, and a later daemon replays both.
  ASSERT_TRUE(j->finished("running", 2000).ok());
  EXPECT_EQ(lines_of(path), 7u);
  const auto after = replay_journal(path);
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_EQ(find(*after, "running")->state, JobState::kFinished);
  EXPECT_EQ(find(*after, "running")->samples_done, 2000);
  EXPECT_EQ(find(*after, "running")->rescales, 5);

  // A compacted journal compacts again to the same thing, after a restart too.
  j = Journal::open(path);
  ASSERT_TRUE(j.ok());
  ASSERT_TRUE(j->compact().ok());
  const auto again = replay_journal(path);
  ASSERT_TRUE(again.ok());
  expect_same_jobs(*after, *again);
}

TEST(JournalCompaction, WantedAtTwiceTheJobsAndTheFloor) {
  TempDir dir;
  auto j = Journal::open(dir / "journal.jsonl");
  ASSERT_TRUE(j.ok());
  for (const char* id : {"a", "b", "c"}) ASSERT_TRUE(j->submitted(spec(id)).ok());
  EXPECT_FALSE(j->wants_compaction(1));  // one record per job: nothing to gain
  ASSERT_TRUE(j->started("a", {"n1"}, 1).ok());
  ASSERT_TRUE(j->rescaled("a", {"n1", "n2"}, 2, "grow").ok());
  EXPECT_FALSE(j->wants_compaction(1));  // 5 records, 3 jobs
  ASSERT_TRUE(j->rescaled("a", {"n1"}, 1, "shrink").ok());
  EXPECT_TRUE(j->wants_compaction(1));     // 6 = 2 x 3
  EXPECT_TRUE(j->wants_compaction(6));     // the floor reached
  EXPECT_FALSE(j->wants_compaction(100));  // the floor not reached
  ASSERT_TRUE(j->compact().ok());
  EXPECT_FALSE(j->wants_compaction(1));
}

// The fault: the compacted file cannot be written (no file past 1 KiB: FileSizeLimit). The old
// journal stays as it was and in use.
TEST(JournalCompaction, AFailedCompactionKeepsTheJournal) {
  TempDir dir;
  const auto path = dir / "journal.jsonl";
  auto j = Journal::open(path);
  ASSERT_TRUE(j.ok());
  write_history(*j);
  const auto before = read_file(path);
  ASSERT_TRUE(before.ok());
  ASSERT_GT(before->size(), 2048u);

  absl::Status st;
  {
    FileSizeLimit limit(1024);
    st = j->compact();
  }

  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("cannot write"), std::string::npos) << st;
  EXPECT_EQ(j->records(), 23u);
  const auto after = read_file(path);
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(*after, *before);
  for (const auto& e : std::filesystem::directory_iterator(dir.path())) {
    EXPECT_EQ(e.path().filename(), "journal.jsonl") << "left behind: " << e.path();
  }
  ASSERT_TRUE(j->finished("running", 2000).ok());  // still appending to the old file
  const auto r = replay_journal(path);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->records, 24u);
  EXPECT_EQ(find(*r, "running")->state, JobState::kFinished);
}

TEST(JournalCompaction, ASnapshotMissingAFieldIsABadLine) {
  TempDir dir;
  const auto path = dir / "journal.jsonl";
  {
    auto j = Journal::open(path);
    ASSERT_TRUE(j.ok());
    write_history(*j);
    ASSERT_TRUE(j->compact().ok());
  }
  absl::StatusOr<std::string> text = read_file(path);
  ASSERT_TRUE(text.ok());
  const std::size_t at = text->find("\"starts\":");
  ASSERT_NE(at, std::string::npos);
  text->replace(at, 9, "\"stArts\":");  // line 1 loses its "starts"
  ASSERT_TRUE(write_file_atomic(path, *text).ok());
  const auto r = replay_journal(path);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_NE(r.status().message().find("journal.jsonl:1:"), std::string::npos) << r.status();
  const auto check = check_journal(path);
  ASSERT_TRUE(check.ok());
  ASSERT_EQ(check->bad.size(), 1u);
  EXPECT_EQ(check->bad[0].line, 1u);
  EXPECT_EQ(check->replay.jobs.size(), 5u);
}

// Found by the journal fuzz target: a count that is not an integer of its type ("ranks": 6.3e51
// was undefined behaviour in nlohmann's get<int>, 2.5 became 2, 2^32 wrapped) is a bad line that
// check names. (The job spec a record carries is read by submit's rules: the next test.)
TEST(Journal, ACountThatIsNotAnIntegerIsABadLine) {
  TempDir dir;
  const auto path = dir / "journal.jsonl";
  const std::string good =
      nlohmann::json{
          {"t", 1}, {"event", "submitted"}, {"job", "a"}, {"spec", job_spec_to_json(spec("a"))}}
          .dump() +
      "\n";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"t":2,"event":"started","job":"a","nodes":["h1"],"ranks":6.33333e+51})",
       "field 'ranks': expected an integer in [-2147483648, 2147483647], got 6.33333e+51"},
      {R"({"t":2,"event":"rescaled","job":"a","nodes":["h1"],"ranks":2.5})", "field 'ranks'"},
      {R"({"t":2,"event":"checkpoint","job":"a","path":"/c","samples_done":1e300})",
       "field 'samples_done'"},
      {R"({"t":2,"event":"requeued","job":"a","samples_done":-1.5})", "field 'samples_done'"}};
  for (const auto& [bad, why] : cases) {
    SCOPED_TRACE(bad);
    testing::write_text(path, good + bad + "\n" + good);  // the bad line is not the last
    const auto r = replay_journal(path);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), absl::StatusCode::kDataLoss);
    EXPECT_NE(r.status().message().find("journal.jsonl:2:"), std::string::npos) << r.status();
    const auto check = check_journal(path);
    ASSERT_TRUE(check.ok());
    ASSERT_EQ(check->bad.size(), 2u);  // line 3 submits "a" again
    EXPECT_EQ(check->bad[0].line, 2u);
    EXPECT_NE(check->bad[0].reason.find(why), std::string::npos) << check->bad[0].reason;
    EXPECT_NE(check->bad[0].reason.find("expected an integer"), std::string::npos);
    ASSERT_EQ(check->replay.jobs.size(), 1u);
    EXPECT_EQ(check->replay.jobs[0].ranks, 0);
    EXPECT_EQ(check->replay.jobs[0].samples_done, 0);
  }
}

// A spec in the journal obeys the rules of a submitted one (job_spec.h), and a job's id names a
// directory: a journal edited by hand or corrupted on disk cannot bring in a job that
// `elastic submit` would have refused.
TEST(Journal, ASpecOrIdThatSubmitRefusesIsABadLine) {
  TempDir dir;
  const auto path = dir / "journal.jsonl";
  const std::string spec_b = R"("spec":{"id":"b","command":"/t","min_nodes":1,"max_nodes":2})";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"t":1,"event":"submitted","job":"b","spec":{"id":"b","command":"/t","min_nodes":0,"max_nodes":2}})",
       "job spec: field 'min_nodes': must be >= 1, got 0"},
      {R"({"t":1,"event":"submitted","job":"b","spec":{"id":"b","command":"/t","min_nodes":3,"max_nodes":2}})",
       "min_nodes (3) is greater than max_nodes (2)"},
      {R"({"t":1,"event":"submitted","job":"b","spec":{"id":"b","command":""}})",
       "field 'command'"},
      {R"({"t":1,"event":"submitted","job":"b","spec":{"id":"b","command":null}})",
       "job spec JSON: [json.exception.type_error.302] field 'command': null is not a job spec "
       "value"},
      {R"({"t":1,"event":"submitted","job":"b","spec":{"id":"b","command":"/t","min_nodes":4294967297}})",
       "job spec: field 'min_nodes': is too large"},
      {R"({"t":1,"event":"submitted","job":"b","spec":{"id":"b","command":"/t","min_nodes":2.0}})",
       "job spec: field 'min_nodes': must be an integer"},
      {R"({"t":1,"event":"submitted","job":"b","spec":{"id":"b","command":"/t","scaling":{"nodes":[1,2.5],"samples_per_s":[1,2]}}})",
       "job spec: field 'scaling.nodes[1]': must be an integer"},
      {R"({"t":1,"event":"submitted","job":"b","spec":{"id":"b","command":"/t","scaling":{"nodes":[2,1],"samples_per_s":[1,2]}}})",
       "strictly increasing"},
      {R"({"t":1,"event":"submitted","job":"../b",)" + spec_b + "}", "job id '../b'"},
      {R"({"t":1,"event":"submitted","job":"b","spec":{"id":"b/c","command":"/t"}})",
       "field 'id'"}};
  for (const auto& [bad, why] : cases) {
    SCOPED_TRACE(bad);
    testing::write_text(path,
                        bad + "\n" + R"({"t":2,"event":"submitted","job":"b",)" + spec_b + "}\n");
    EXPECT_EQ(replay_journal(path).status().code(), absl::StatusCode::kDataLoss);
    const auto check = check_journal(path);
    ASSERT_TRUE(check.ok());
    ASSERT_EQ(check->bad.size(), 1u);
    EXPECT_EQ(check->bad[0].line, 1u);
    EXPECT_NE(check->bad[0].reason.find(why), std::string::npos) << check->bad[0].reason;
    ASSERT_EQ(check->replay.jobs.size(), 1u);
    EXPECT_EQ(check->replay.jobs[0].spec.max_nodes, 2);
  }
}

}  // namespace
}  // namespace elastic::rt
