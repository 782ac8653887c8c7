#include "elastic/control/journal_salvage.h"

#include <string>

#include "elastic/control/atomic_file.h"
#include "fmt/format.h"

namespace elastic::rt {

std::filesystem::path bad_lines_path(const std::filesystem::path& journal) {
  return std::filesystem::path(journal.string() + ".bad");
}

absl::StatusOr<JournalCheck> salvage_journal(const std::filesystem::path& journal) {
  absl::StatusOr<JournalCheck> check = check_journal(journal);
  if (!check.ok() || check->bad.empty()) return check;
  const std::filesystem::path side = bad_lines_path(journal);
  absl::StatusOr<std::string> kept = read_file(side);
  if (!kept.ok() && !absl::IsNotFound(kept.status())) return kept.status();
  std::string text = kept.ok() ? *std::move(kept) : std::string();
  for (const BadJournalLine& b : check->bad) {
    text += fmt::format("# {}:{}: {}\n{}\n", journal.string(), b.line, b.reason, b.text);
  }
  if (absl::Status s = write_file_atomic(side, text, 0600); !s.ok()) return s;
  if (absl::Status s = write_file_atomic(journal, check->good_text, 0600); !s.ok()) return s;
  return check;
}

}  // namespace elastic::rt
