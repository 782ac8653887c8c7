#include "elastic/control/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <random>

#include "fmt/format.h"

namespace elastic::rt {
namespace {

absl::Status errno_status(std::string_view what, const std::filesystem::path& path) {
  return absl::InternalError(fmt::format("{} {}: {}", what, path.string(), std::strerror(errno)));
}

// How the finished temp file takes `path`'s name.
enum class Publish {
  kReplace,    // rename(): over whatever is there
  kKeepOpen,   // rename(), and the descriptor stays open for the caller
  kExclusive,  // link(): AlreadyExists when `path` exists, even if it appeared a moment ago
};

absl::Status sync_directory_of(const std::filesystem::path& path) {
  const std::filesystem::path dir = path.parent_path().empty() ? "." : path.parent_path();
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0) return errno_status("cannot open directory", dir);
  const bool synced = ::fsync(dfd) == 0;
  const int err = errno;
  ::close(dfd);
  errno = err;
  return synced ? absl::OkStatus() : errno_status("cannot sync directory", dir);
}

absl::StatusOr<int> publish_file(const std::filesystem::path& path, std::string_view contents,
                                 unsigned mode, Publish how) {
  // The temp name is unique per writer so concurrent writers never share a temp file; a leading
  // '.' and a ".tmp" suffix let directory scanners (queue/, the hostfile watcher) skip it.
  std::random_device rd;
  const std::filesystem::path tmp =
      path.parent_path() /
      fmt::format(".{}.{}.{}.tmp", path.filename().string(), getpid(), rd() % 1000000);
  const int fd =
      ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, static_cast<mode_t>(mode));
  if (fd < 0) return errno_status("cannot create", tmp);
  auto fail = [&](absl::Status s) {
    ::close(fd);
    ::unlink(tmp.c_str());
    return s;
  };
  std::size_t done = 0;
  while (done < contents.size()) {
    const ssize_t n = ::write(fd, contents.data() + done, contents.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return fail(errno_status("cannot write", tmp));
    }
    done += static_cast<std::size_t>(n);
  }
  if (::fchmod(fd, static_cast<mode_t>(mode)) != 0 || ::fsync(fd) != 0) {
    return fail(errno_status("cannot sync", tmp));
  }
  if (how == Publish::kExclusive) {
    if (::link(tmp.c_str(), path.c_str()) != 0) {
      if (errno == EEXIST) {
        return fail(absl::AlreadyExistsError(fmt::format("{}: already exists", path.string())));
      }
      return fail(errno_status("cannot create", path));
    }
    ::unlink(tmp.c_str());
  } else if (::rename(tmp.c_str(), path.c_str()) != 0) {
    return fail(errno_status("cannot rename into", path));
  }
  if (how != Publish::kKeepOpen) ::close(fd);
  // The new name is only durable once the directory entry is.
  if (absl::Status s = sync_directory_of(path); !s.ok()) {
    if (how == Publish::kKeepOpen) ::close(fd);
    return s;
  }
  return how == Publish::kKeepOpen ? fd : -1;
}

}  // namespace

absl::Status write_file_atomic(const std::filesystem::path& path, std::string_view contents,
                               unsigned mode) {
  return publish_file(path, contents, mode, Publish::kReplace).status();
}

absl::StatusOr<int> write_file_atomic_open(const std::filesystem::path& path,
                                           std::string_view contents, unsigned mode) {
  return publish_file(path, contents, mode, Publish::kKeepOpen);
}

absl::Status create_file_atomic(const std::filesystem::path& path, std::string_view contents,
                                unsigned mode) {
  return publish_file(path, contents, mode, Publish::kExclusive).status();
}

absl::Status sync_directory(const std::filesystem::path& path) { return sync_directory_of(path); }

absl::StatusOr<std::string> read_file(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return absl::NotFoundError(fmt::format("{}: no such file", path.string()));
    return errno_status("cannot read", path);
  }
  // read() until it returns 0: a directory (EISDIR) or an I/O error part way is an error, never a
  // short text.
  std::string text;
  std::array<char, 1 << 16> buffer;
  while (true) {
    const ssize_t n = ::read(fd, buffer.data(), buffer.size());
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      // A directory is the user's mistake (bad input, exit 2), an I/O error is not.
      absl::Status s = errno == EISDIR
                           ? absl::InvalidArgumentError(fmt::format(
                                 "cannot read {}: {}", path.string(), std::strerror(errno)))
                           : errno_status("cannot read", path);
      ::close(fd);
      return s;
    }
    text.append(buffer.data(), static_cast<std::size_t>(n));
  }
  ::close(fd);
  return text;
}

}  // namespace elastic::rt
