#include <poll.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "elastic/control/atomic_file.h"
#include "elastic/control/hostfile.h"
#include "fmt/format.h"

namespace elastic::rt {
HostfileWatcher::HostfileWatcher(std::filesystem::path path, HostfileWatcherOptions options)
    : path_(std::move(path)), options_(options) {}

HostfileWatcher::~HostfileWatcher() {
  if (inotify_fd_ >= 0) ::close(inotify_fd_);
}

absl::StatusOr<std::unique_ptr<HostfileWatcher>> HostfileWatcher::create(
    const std::filesystem::path& path, HostfileWatcherOptions options) {
  std::unique_ptr<HostfileWatcher> w(new HostfileWatcher(std::filesystem::absolute(path), options));
  const std::filesystem::path dir = w->path_.parent_path();
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) {
    return absl::NotFoundError(fmt::format("hostfile directory {} does not exist", dir.string()));
  }
  // Initial version: must be good (or absent when allowed) — a daemon should not start on a typo.
  std::optional<HostfileUpdate> first = w->check_now(/*complete=*/true);
  if (first && !first->status.ok()) {
    if (!(options.allow_missing && absl::IsNotFound(first->status))) return first->status;
  }
  if (!options.force_polling) {
    const int fd = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (fd >= 0) {
      if (::inotify_add_watch(
              fd, dir.c_str(),
              IN_MOVED_TO | IN_CLOSE_WRITE | IN_MODIFY | IN_DELETE | IN_MOVED_FROM) >= 0) {
        w->inotify_fd_ = fd;
      } else {
        ::close(fd);  // e.g. out of watches: fall back to polling
      }
    }
  }
  w->next_poll_ = std::chrono::steady_clock::now() + options.poll_interval;
  return w;
}

std::optional<HostfileUpdate> HostfileWatcher::check_now(bool complete) {
  struct stat st {};
  if (::stat(path_.c_str(), &st) != 0) {
    if (absence_reported_) return std::nullopt;
    const bool was_seen = seen_exists_;
    seen_exists_ = false;
    absence_reported_ = true;
    HostfileUpdate u;
    u.hosts = hosts_;
    u.status = absl::NotFoundError(fmt::format("{}: hostfile {}{}", path_.string(),
                                               was_seen ? "disappeared" : "does not exist",
                                               was_seen ? "; keeping the last good version" : ""));
    return u;
  }
  // The content decides, not the stat: an in-place rewrite of the same size within one timestamp
  // tick would fool mtime+size, and hostfiles are small enough to read every poll.
  absl::StatusOr<std::string> text = read_file(path_);
  // An event tells of the past: a writer may have opened the file again since it closed it. What
  // arrived while we read decides: another finished write is read again; a write in progress
  // makes this look a poll's (taken only if the next look agrees).
  while (complete && text.ok() && inotify_fd_ >= 0) {
    const FileEvent since = drain_inotify(0);
    if (since == FileEvent::kNone) break;
    if (since == FileEvent::kChanging) complete = false;
    if (since == FileEvent::kDone) text = read_file(path_);
  }
  if (!text.ok()) return std::nullopt;  // vanished between stat and read: next event or poll
  absence_reported_ = false;
  if (seen_exists_ && *text == seen_text_) {
    pending_text_.reset();
    return std::nullopt;
  }
  // A poll may catch an in-place rewrite half-done (even truncated to nothing). Unless an event
  // said the writer is done, a new version must look the same on two consecutive checks.
  if (!complete && pending_text_ != *text) {
    pending_text_ = *text;
    return std::nullopt;
  }
  pending_text_.reset();
  seen_exists_ = true;
  seen_text_ = *text;
  absl::StatusOr<std::vector<HostEntry>> parsed = parse_hostfile(*text, path_.string());
  if (!parsed.ok()) {
    HostfileUpdate u;
    u.hosts = hosts_;
    u.status = absl::InvalidArgumentError(fmt::format(
        "{} (rejected; keeping the last good version)", std::string(parsed.status().message())));
    return u;
  }
  HostfileUpdate u = diff_hosts(hosts_, *parsed);
  hosts_ = std::move(*parsed);
  return u;
}

HostfileWatcher::FileEvent HostfileWatcher::drain_inotify(int timeout_ms) {
  pollfd pfd{inotify_fd_, POLLIN, 0};
  int rc = ::poll(&pfd, 1, timeout_ms);
  if (rc <= 0) return FileEvent::kNone;
  FileEvent last = FileEvent::kNone;
  const std::string name = path_.filename().string();
  alignas(inotify_event) char buf[16384];
  for (;;) {
    const ssize_t n = ::read(inotify_fd_, buf, sizeof(buf));
    if (n <= 0) break;  // EAGAIN: drained
    for (ssize_t off = 0; off < n;) {
      inotify_event ev{};
      std::memcpy(&ev, buf + off, sizeof(ev));
      if (ev.len > 0) {
        const char* ev_name = buf + off + static_cast<ssize_t>(sizeof(inotify_event));
        if (name == ev_name) {
          last = ev.mask & IN_MODIFY ? FileEvent::kChanging : FileEvent::kDone;
        }
      }
      if (ev.mask & IN_Q_OVERFLOW) last = FileEvent::kChanging;  // lost events: look twice
      off += static_cast<ssize_t>(sizeof(inotify_event) + ev.len);
    }
  }
  return last;
}

std::optional<HostfileUpdate> HostfileWatcher::wait(std::chrono::milliseconds timeout) {
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + timeout;
  for (;;) {
    const auto now = Clock::now();
    if (now >= next_poll_) {
      next_poll_ = now + options_.poll_interval;
      if (auto u = check_now(/*complete=*/false)) return u;
    }
    const auto until = std::min(deadline, next_poll_);
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now());
    // Round up so we never spin on a sub-millisecond remainder.
    const int wait_ms = static_cast<int>(std::max<std::int64_t>(0, left.count() + 1));
    if (inotify_fd_ >= 0) {
      // A write in progress waits for its close (or the poll); a finished one is read now.
      if (drain_inotify(Clock::now() >= deadline ? 0 : wait_ms) == FileEvent::kDone) {
        if (auto u = check_now(/*complete=*/true)) return u;
      }
    } else if (Clock::now() < deadline) {
      ::poll(nullptr, 0, wait_ms);
    }
    if (Clock::now() >= deadline) {
      // One last look in polling mode so wait(0) is a real check.
      if (inotify_fd_ < 0 && timeout.count() == 0) return check_now(/*complete=*/false);
      return std::nullopt;
    }
  }
}

}  // namespace elastic::rt
