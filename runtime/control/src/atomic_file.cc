#include "elastic/control/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>

#include "fmt/format.h"

namespace elastic::rt {
namespace {

absl::Status errno_status(std::string_view what, const std::filesystem::path& path) {
  return absl::InternalError(fmt::format("{} {}: {}", what, path.string(), std::strerror(errno)));
}

absl::StatusOr<int> replace_file(const std::filesystem::path& path, std::string_view contents,
                                 unsigned mode, bool keep_open) {
  // The temp name is unique per writer so concurrent writers never share a temp file; a leading
  // '.' and a ".tmp" suffix let directory scanners (queue/, the hostfile watcher) skip it.
  std::random_device rd;
  const std::filesystem::path tmp =
      path.parent_path() /
      fmt::format(".{}.{}.{}.tmp", path.filename().string(), getpid(), rd() % 1000000);
  const int fd =
      ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, static_cast<mode_t>(mode));
  if (fd < 0) return errno_status("cannot create", tmp);
  std::size_t done = 0;
  while (done < contents.size()) {
    const ssize_t n = ::write(fd, contents.data() + done, contents.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      absl::Status s = errno_status("cannot write", tmp);
      ::close(fd);
      ::unlink(tmp.c_str());
      return s;
    }
    done += static_cast<std::size_t>(n);
  }
  if (::fchmod(fd, static_cast<mode_t>(mode)) != 0 || ::fsync(fd) != 0) {
    absl::Status s = errno_status("cannot sync", tmp);
    ::close(fd);
    ::unlink(tmp.c_str());
    return s;
  }
  if (!keep_open) ::close(fd);
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    absl::Status s = errno_status("cannot rename into", path);
    if (keep_open) ::close(fd);
    ::unlink(tmp.c_str());
    return s;
  }
  // The rename is only durable once the directory entry is.
  const std::filesystem::path dir = path.parent_path().empty() ? "." : path.parent_path();
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
  return keep_open ? fd : -1;
}

}  // namespace

absl::Status write_file_atomic(const std::filesystem::path& path, std::string_view contents,
                               unsigned mode) {
  return replace_file(path, contents, mode, /*keep_open=*/false).status();
}

absl::StatusOr<int> write_file_atomic_open(const std::filesystem::path& path,
                                           std::string_view contents, unsigned mode) {
  return replace_file(path, contents, mode, /*keep_open=*/true);
}

absl::StatusOr<std::string> read_file(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    return absl::NotFoundError(fmt::format("{}: no such file", path.string()));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return errno_status("cannot read", path);
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return errno_status("cannot read", path);
  return ss.str();
}

}  // namespace elastic::rt
