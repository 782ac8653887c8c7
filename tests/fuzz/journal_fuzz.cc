// Fuzz target: the job journal (journal.jsonl), what elasticd replays after a crash and
// `elastic journal check|salvage` read. Three properties:
// - check: the good lines it keeps replay to the jobs it reports, and checking them again finds
//   nothing bad (salvaging twice changes nothing);
// - replay: refuses a journal only where check finds a bad line, and gives the jobs check keeps;
// - compaction: a journal that replays, opened and compacted, replays to the same jobs.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "elastic/control/atomic_file.h"
#include "elastic/control/journal.h"
#include "fuzz_input.h"

namespace {

namespace fs = std::filesystem;

// A directory of this process's own for compaction (it renames a file next to the journal),
// removed at exit.
class ScratchDir {
 public:
  ScratchDir() {
    std::string pattern = (fs::temp_directory_path() / "journal-fuzz-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) std::abort();
    path_ = pattern;
  }
  ~ScratchDir() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace elastic;
  const fuzz::MemFile file(fuzz::as_text(data, size));
  const absl::StatusOr<rt::JournalCheck> check = rt::check_journal(file.path());
  FUZZ_CHECK(check.ok());
  {
    const fuzz::MemFile good(check->good_text);
    const absl::StatusOr<rt::JournalCheck> again = rt::check_journal(good.path());
    FUZZ_CHECK(again.ok());
    FUZZ_CHECK(again->bad.empty());
    FUZZ_CHECK(again->replay.jobs == check->replay.jobs);
    FUZZ_CHECK(again->good_text == check->good_text);
  }

  const absl::StatusOr<rt::JournalReplay> replay = rt::replay_journal(file.path());
  if (!replay.ok()) {
    FUZZ_CHECK(!check->bad.empty());
    return 0;
  }
  // Replay refuses only a bad line before the last, drops a bad last line and keeps the first of
  // two submissions: what check keeps.
  FUZZ_CHECK(replay->jobs == check->replay.jobs);

  static const ScratchDir scratch;
  const fs::path journal_path = scratch.path() / "journal.jsonl";
  FUZZ_CHECK(rt::write_file_atomic(journal_path, fuzz::as_text(data, size), 0600).ok());
  {
    absl::StatusOr<rt::Journal> journal = rt::Journal::open(journal_path);
    FUZZ_CHECK(journal.ok());
    FUZZ_CHECK(journal->compact().ok());
  }
  const absl::StatusOr<rt::JournalReplay> compacted = rt::replay_journal(journal_path);
  FUZZ_CHECK(compacted.ok());
  FUZZ_CHECK(!compacted->torn_tail);
  FUZZ_CHECK(compacted->jobs == replay->jobs);
  return 0;
}
