#include "elastic/control/output_bound.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

#include "fmt/format.h"

namespace elastic::rt {

namespace {

absl::Status os_error(const std::filesystem::path& path, const char* what) {
  return absl::InternalError(fmt::format("{}: {}: {}", path.string(), what, std::strerror(errno)));
}

// The offset just after the last '\n' before `end` (searched back at most 64 KiB), else `end`.
off_t after_last_newline(int fd, off_t end) {
  constexpr off_t kLook = 64 * 1024;
  const off_t from = std::max<off_t>(0, end - kLook);
  std::string buf(static_cast<std::size_t>(end - from), '\0');
  const ssize_t n = ::pread(fd, buf.data(), buf.size(), from);
  if (n <= 0) return end;
  const std::size_t nl = buf.rfind('\n', static_cast<std::size_t>(n) - 1);
  return nl == std::string::npos ? end : from + static_cast<off_t>(nl) + 1;
}

}  // namespace

absl::StatusOr<std::uint64_t> bound_output(const std::filesystem::path& path,
                                           std::uint64_t max_bytes) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return 0;
    return os_error(path, "stat");
  }
  if (static_cast<std::uint64_t>(st.st_size) <= max_bytes) return 0;  // the usual case: no open
  const int fd = ::open(path.c_str(), O_RDWR | O_APPEND | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return 0;
    return os_error(path, "open");
  }
  if (::fstat(fd, &st) != 0) {
    absl::Status err = os_error(path, "fstat");
    ::close(fd);
    return err;
  }
  const auto size = static_cast<std::uint64_t>(st.st_size);
  if (size <= max_bytes) {
    ::close(fd);
    return 0;
  }
  const off_t cut = after_last_newline(fd, static_cast<off_t>(max_bytes / 2));
  if (::ftruncate(fd, cut) != 0) {
    absl::Status err = os_error(path, "ftruncate");
    ::close(fd);
    return err;
  }
  const std::uint64_t dropped = size - static_cast<std::uint64_t>(cut);
  const std::string marker = fmt::format(
      "[elasticd: {} bytes of output dropped here: the file is kept under {} bytes; its first "
      "half is kept, later output follows]\n",
      dropped, max_bytes);
  const ssize_t w = ::write(fd, marker.data(), marker.size());
  ::close(fd);
  if (w < 0) return os_error(path, "write");
  return dropped;
}

}  // namespace elastic::rt
