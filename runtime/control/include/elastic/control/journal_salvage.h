// The operator's way forward when the journal has a bad line in the middle (the daemon refuses to
// start on it: journal.h). `elastic journal salvage` keeps every record that replays, moves the
// others to a side file with their line numbers, and rewrites the journal atomically, so that
// elasticd starts again with everything that could be read. LOCAL; blocks on file I/O only.
#pragma once

#include <filesystem>

#include "absl/status/statusor.h"
#include "elastic/control/journal.h"

namespace elastic::rt {

// check_journal, then, when a line is bad: appends the bad lines to bad_lines_path (written
// atomically, 0600) and replaces the journal with its good lines (atomically, 0600), in that order,
// so a crash in between loses nothing. A clean journal is left untouched. The caller holds the
// state dir's DaemonLock (no daemon may append meanwhile).
absl::StatusOr<JournalCheck> salvage_journal(const std::filesystem::path& journal);

}  // namespace elastic::rt
