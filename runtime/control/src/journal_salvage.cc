#include "elastic/control/journal_salvage.h"

#include "elastic/control/atomic_file.h"

namespace elastic::rt {

absl::StatusOr<JournalCheck> salvage_journal(const std::filesystem::path& journal) {
  absl::StatusOr<JournalCheck> check = check_journal(journal);
  if (!check.ok() || check->bad.empty()) return check;
  if (absl::Status s = set_aside(journal, check->bad); !s.ok()) return s;
  if (absl::Status s = write_file_atomic(journal, check->good_text, 0600); !s.ok()) return s;
  return check;
}

}  // namespace elastic::rt
