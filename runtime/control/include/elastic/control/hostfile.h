// The granted-node pool as a scheduler adapter publishes it: an Open MPI hostfile
// (`name slots=N [max_slots=M]`, `#` comments, blank lines), replaced atomically (write a temp
// file, rename over). The daemon watches it with HostfileWatcher and re-plans on every accepted
// change; a malformed new version is reported and ignored, so the pool never silently empties.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace elastic::rt {

struct HostEntry {
  std::string name;
  int slots = 1;                 // `slots=N`; 1 when absent
  std::optional<int> max_slots;  // `max_slots=M` (also `max-slots`), must be >= slots
  friend bool operator==(const HostEntry&, const HostEntry&) = default;
};

// What a hostfile takes as a host name: 1..255 characters of [A-Za-z0-9._-], not starting with
// '-'. The feeds check the names they write with it, so the daemon never rejects their hostfile.
bool valid_host_name(std::string_view name);

// Parses hostfile text. `source` names the file in errors, which read
// "<source>:<line>: <what> '<token>'" (InvalidArgument). Duplicate host names are an error.
absl::StatusOr<std::vector<HostEntry>> parse_hostfile(std::string_view text,
                                                      std::string_view source = "<hostfile>");
// Reads and parses a file (NotFound when missing).
absl::StatusOr<std::vector<HostEntry>> read_hostfile(const std::filesystem::path& path);
// The canonical text of a host list, one `name slots=N[ max_slots=M]` line per host.
std::string format_hostfile(const std::vector<HostEntry>& hosts);
// Writes a hostfile atomically (temp + fsync + rename), as an adapter must; `mode` 0600 for one
// inside the state dir, whose files are all owner-only (state_dir.h).
absl::Status write_hostfile(const std::filesystem::path& path, const std::vector<HostEntry>& hosts,
                            unsigned mode = 0644);

// What changed between two accepted versions, or why a new version was rejected.
struct HostfileUpdate {
  // OK: a new version was accepted and `hosts` is it. Otherwise the new version was rejected
  // (message names file:line and token); `hosts` is still the last good version and the
  // added/removed/resized lists are empty.
  absl::Status status;
  std::vector<HostEntry> hosts;      // the pool now in force
  std::vector<HostEntry> added;      // names not in the previous version
  std::vector<std::string> removed;  // names gone: the daemon must vacate them (grace period)
  std::vector<HostEntry> resized;    // same name, different slots/max_slots (new values)
};

struct HostfileWatcherOptions {
  // Use the polling loop even when inotify works (tests; NFS, where inotify is blind).
  bool force_polling = false;
  // How often the polling mode reads the file; a new version is accepted once two consecutive
  // polls agree (so a half-written in-place rewrite is never taken). inotify mode also re-checks at
  // this period as a safety net, so a missed event costs at most one interval.
  std::chrono::milliseconds poll_interval{500};
  // Start with an empty pool when the file does not exist yet instead of failing.
  bool allow_missing = false;
};

// Watches one hostfile. Not thread-safe; one owner (the daemon's event loop) calls wait().
// inotify watches the *directory* (IN_MOVED_TO, IN_CLOSE_WRITE, IN_MODIFY, ...) because an atomic
// replace swaps the inode and a watch on the file itself would go silent after the first rename.
class HostfileWatcher {
 public:
  // Reads the initial version; fails (InvalidArgument/NotFound, naming the file) if it is bad or
  // missing (unless allow_missing). Never blocks.
  static absl::StatusOr<std::unique_ptr<HostfileWatcher>> create(
      const std::filesystem::path& path, HostfileWatcherOptions options = {});
  ~HostfileWatcher();
  HostfileWatcher(const HostfileWatcher&) = delete;
  HostfileWatcher& operator=(const HostfileWatcher&) = delete;

  // Blocks at most `timeout` (0 = just check). Returns the first change of content seen — an
  // accepted version or a rejected one — or nullopt when nothing changed. Rewrites with the same
  // content are not reported. A file that disappears is reported as rejected (last good kept).
  std::optional<HostfileUpdate> wait(std::chrono::milliseconds timeout);

  // The last accepted host list.
  const std::vector<HostEntry>& hosts() const { return hosts_; }
  const std::filesystem::path& path() const { return path_; }
  // The inotify descriptor to add to an external poll()/epoll set (readable => call wait(0)),
  // or -1 in polling mode.
  int fd() const { return inotify_fd_; }
  bool polling() const { return inotify_fd_ < 0; }

 private:
  HostfileWatcher(std::filesystem::path path, HostfileWatcherOptions options);
  // Reads the file and reports a change of content. `complete`: an inotify event says the writer
  // finished; otherwise (a poll) a new version is only taken once two checks in a row agree.
  std::optional<HostfileUpdate> check_now(bool complete);
  // What the events on our file since the last drain say, by the last of them.
  enum class FileEvent {
    kNone,      // none
    kDone,      // closed after writing, renamed into place or away, deleted: look now
    kChanging,  // written to (a writer is at it), or events were lost: wait for kDone or a poll
  };
  FileEvent drain_inotify(int timeout_ms);

  std::filesystem::path path_;
  HostfileWatcherOptions options_;
  int inotify_fd_ = -1;
  std::vector<HostEntry> hosts_;
  // The last version looked at (accepted or rejected), so one bad version is reported once, not
  // on every poll.
  bool seen_exists_ = false;
  bool absence_reported_ = false;
  std::string seen_text_;
  std::optional<std::string> pending_text_;  // seen once by a poll, not yet confirmed
  std::chrono::steady_clock::time_point next_poll_{};
};

// Diff of two host lists (by name); `status` is OK.
HostfileUpdate diff_hosts(const std::vector<HostEntry>& before,
                          const std::vector<HostEntry>& after);

}  // namespace elastic::rt
