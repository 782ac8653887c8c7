#include "elastic/control/state_dir.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>

#include "elastic/control/atomic_file.h"
#include "fmt/format.h"

namespace elastic::rt {
namespace fs = std::filesystem;

fs::path default_state_dir() {
  if (const char* env = std::getenv("ELASTIC_STATE_DIR"); env != nullptr && *env != '\0') {
    return env;
  }
  const char* home = std::getenv("HOME");
  return fs::path(home != nullptr && *home != '\0' ? home : "/tmp") / ".local/state/elastic";
}

absl::Status check_private_dir(const fs::path& dir) {
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0) {
    return absl::NotFoundError(fmt::format("state dir {}: {}", dir.string(), std::strerror(errno)));
  }
  if (!S_ISDIR(st.st_mode)) {
    return absl::FailedPreconditionError(
        fmt::format("state dir {} is not a directory", dir.string()));
  }
  if (st.st_uid != ::getuid()) {
    return absl::FailedPreconditionError(
        fmt::format("state dir {} is owned by uid {}, not by you (uid {}); refusing to use it. "
                    "Pick another with --state-dir or $ELASTIC_STATE_DIR",
                    dir.string(), st.st_uid, ::getuid()));
  }
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    return absl::FailedPreconditionError(
        fmt::format("state dir {} is writable by group or others (mode {:04o}); anyone could "
                    "submit jobs as you. Fix it with: chmod 700 {}",
                    dir.string(), st.st_mode & 07777, dir.string()));
  }
  return absl::OkStatus();
}

absl::StatusOr<StateDir> StateDir::open(const fs::path& root_in, bool create) {
  const fs::path root = fs::absolute(root_in).lexically_normal();
  std::error_code ec;
  if (!fs::exists(root, ec)) {
    if (!create) {
      return absl::NotFoundError(fmt::format("state dir {} does not exist", root.string()));
    }
    // Parents are created with the usual umask; only the state dir itself must be private.
    fs::create_directories(root.parent_path(), ec);
    if (::mkdir(root.c_str(), 0700) != 0 && errno != EEXIST) {
      return absl::InternalError(
          fmt::format("cannot create state dir {}: {}", root.string(), std::strerror(errno)));
    }
  }
  if (absl::Status s = check_private_dir(root); !s.ok()) return s;
  StateDir dir(root);
  if (create) {
    for (const fs::path& sub : {dir.queue_dir(), dir.jobs_dir()}) {
      if (::mkdir(sub.c_str(), 0700) != 0 && errno != EEXIST) {
        return absl::InternalError(
            fmt::format("cannot create {}: {}", sub.string(), std::strerror(errno)));
      }
    }
  }
  return dir;
}

absl::StatusOr<fs::path> StateDir::make_job_dir(std::string_view id) const {
  if (absl::Status s = validate_job_id(id); !s.ok()) return s;
  const fs::path d = job_dir(id);
  if (::mkdir(d.c_str(), 0700) != 0 && errno != EEXIST) {
    return absl::InternalError(
        fmt::format("cannot create {}: {}", d.string(), std::strerror(errno)));
  }
  return d;
}

// --- DaemonLock -------------------------------------------------------------------------------

absl::StatusOr<DaemonLock> DaemonLock::acquire(const StateDir& dir) {
  const fs::path path = dir.pid_path();
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) {
    return absl::InternalError(
        fmt::format("cannot open {}: {}", path.string(), std::strerror(errno)));
  }
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    ::close(fd);
    if (err == EWOULDBLOCK) {
      return absl::UnavailableError(fmt::format("another elasticd (pid {}) is using state dir {}",
                                                holder_pid(dir), dir.root().string()));
    }
    return absl::InternalError(
        fmt::format("cannot lock {}: {}", path.string(), std::strerror(err)));
  }
  const std::string pid = fmt::format("{}\n", ::getpid());
  if (::ftruncate(fd, 0) != 0 ||
      ::pwrite(fd, pid.data(), pid.size(), 0) != static_cast<ssize_t>(pid.size())) {
    const int err = errno;
    ::close(fd);
    return absl::InternalError(
        fmt::format("cannot write {}: {}", path.string(), std::strerror(err)));
  }
  return DaemonLock(fd);
}

int DaemonLock::holder_pid(const StateDir& dir) {
  const int fd = ::open(dir.pid_path().c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  int pid = 0;
  // If we can take a shared lock nobody holds the exclusive one: the file is stale.
  if (::flock(fd, LOCK_SH | LOCK_NB) != 0) {
    char buf[32] = {};
    const ssize_t n = ::pread(fd, buf, sizeof(buf) - 1, 0);
    // std::from_chars, not atoi: a number beyond int would be undefined behaviour there.
    if (n <= 0 || std::from_chars(buf, buf + n, pid).ec != std::errc() || pid <= 0) {
      pid = -1;  // held, pid not yet written (or not a pid)
    }
  }
  ::close(fd);
  return pid;
}

DaemonLock& DaemonLock::operator=(DaemonLock&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

DaemonLock::~DaemonLock() {
  if (fd_ >= 0) ::close(fd_);  // closing releases the flock
}

// --- JobQueue ---------------------------------------------------------------------------------

namespace {

bool is_temp(const fs::path& p) { return p.filename().string().starts_with("."); }

std::vector<fs::path> files_with_suffix(const fs::path& dir, std::string_view suffix) {
  std::vector<std::pair<fs::file_time_type, fs::path>> found;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    if (!e.is_regular_file(ec) || is_temp(e.path()) || e.path().extension() != suffix) continue;
    found.emplace_back(e.last_write_time(ec), e.path());
  }
  std::sort(found.begin(), found.end());
  std::vector<fs::path> out;
  for (auto& [t, p] : found) out.push_back(std::move(p));
  return out;
}

}  // namespace

absl::StatusOr<std::string> JobQueue::submit(JobSpec spec) const {
  if (spec.id.empty()) spec.id = generate_job_id();
  if (absl::Status s = validate_job_id(spec.id); !s.ok()) return s;
  const fs::path path = dir_ / (spec.id + ".toml");
  // Created with link(): of two submits of one id at the same moment, one is refused.
  absl::Status s = create_file_atomic(path, job_spec_to_toml(spec), 0600);
  if (absl::IsAlreadyExists(s)) {
    return absl::AlreadyExistsError(fmt::format("job '{}' is already queued", spec.id));
  }
  if (!s.ok()) return s;
  return spec.id;
}

absl::Status JobQueue::request_cancel(std::string_view id) const {
  if (absl::Status s = validate_job_id(id); !s.ok()) return s;
  return write_file_atomic(dir_ / fmt::format("{}.cancel", id), "", 0600);
}

std::vector<QueuedSubmission> JobQueue::submissions() const {
  std::vector<QueuedSubmission> out;
  for (fs::path& p : files_with_suffix(dir_, ".toml")) {
    QueuedSubmission q{p.stem().string(), p, absl::UnknownError("")};
    q.spec = read_job_spec(p);
    // The file name is the id: a spec whose id disagrees was not written by `elastic submit`.
    if (q.spec.ok() && q.spec->id.empty()) q.spec->id = q.id;
    if (q.spec.ok() && q.spec->id != q.id) {
      q.spec = absl::InvalidArgumentError(
          fmt::format("{}: field 'id': '{}' does not match the file name", p.string(), q.spec->id));
    }
    out.push_back(std::move(q));
  }
  return out;
}

std::vector<std::string> JobQueue::cancel_requests() const {
  std::vector<std::string> out;
  for (const fs::path& p : files_with_suffix(dir_, ".cancel")) out.push_back(p.stem().string());
  return out;
}

absl::Status JobQueue::remove_submission(std::string_view id) const {
  std::error_code ec;
  fs::remove(dir_ / fmt::format("{}.toml", id), ec);
  if (ec) {
    return absl::InternalError(fmt::format("cannot remove queued job {}: {}", id, ec.message()));
  }
  return absl::OkStatus();
}

absl::Status JobQueue::remove_cancel(std::string_view id) const {
  std::error_code ec;
  fs::remove(dir_ / fmt::format("{}.cancel", id), ec);
  if (ec) {
    return absl::InternalError(
        fmt::format("cannot remove cancel request {}: {}", id, ec.message()));
  }
  return absl::OkStatus();
}

}  // namespace elastic::rt
