// Durable checkpoints of a State: one file, written atomically (tmp + fsync + rename + fsync of
// the folder) and verified on load (size, magic, layout, CRC-32), so that a crash while writing
// leaves the previous checkpoint intact and a damaged file is reported, never half-loaded.
//
// File: "ELSTATE1" | u64 total file size | u64 commits | u64 layout size | layout |
//       u64 snapshot size | snapshot | u32 crc32 of everything before it.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>

#include "absl/strings/str_cat.h"
#include "elastic/worker/state.h"
#include "src/bytes.h"
#include "src/crc32.h"

namespace elastic::rt {
namespace {

constexpr char kMagic[8] = {'E', 'L', 'S', 'T', 'A', 'T', 'E', '1'};

absl::Status errno_error(const char* what, const std::filesystem::path& p) {
  return absl::InternalError(absl::StrCat(what, " '", p.string(), "': ", std::strerror(errno)));
}

absl::Status write_all(int fd, const std::vector<std::byte>& data, const std::filesystem::path& p) {
  std::size_t off = 0;
  while (off < data.size()) {
    const ssize_t n = ::write(fd, data.data() + off, data.size() - off);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno_error("write", p);
    }
    off += static_cast<std::size_t>(n);
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status State::save_checkpoint(const std::filesystem::path& path) const {
  if (!has_commit())
    return absl::FailedPreconditionError("State::save_checkpoint: nothing committed yet");
  const std::vector<std::byte> layout = layout_bytes();
  std::vector<std::byte> out;
  out.reserve(snapshot_.size() + layout.size() + 64);
  put_bytes(out, kMagic, sizeof(kMagic));
  const std::uint64_t total = sizeof(kMagic) + 8 * 4 + layout.size() + snapshot_.size() + 4;
  put(out, total);
  put(out, commits_);
  put(out, static_cast<std::uint64_t>(layout.size()));
  put_bytes(out, layout.data(), layout.size());
  put(out, static_cast<std::uint64_t>(snapshot_.size()));
  put_bytes(out, snapshot_.data(), snapshot_.size());
  put(out, crc32(out));

  const std::filesystem::path tmp = std::filesystem::path(path).concat(".tmp");
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return errno_error("cannot create checkpoint", tmp);
  absl::Status st = write_all(fd, out, tmp);
  if (st.ok() && ::fsync(fd) != 0) st = errno_error("fsync", tmp);
  if (::close(fd) != 0 && st.ok()) st = errno_error("close", tmp);
  if (!st.ok()) {
    ::unlink(tmp.c_str());
    return st;
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    st = errno_error("rename to checkpoint", path);
    ::unlink(tmp.c_str());
    return st;
  }
  // Make the rename itself durable: until the folder is synced, a crash may bring back the
  // previous checkpoint, so a failure here is an error too.
  const std::filesystem::path dir =
      path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0) return errno_error("cannot open the checkpoint's folder", dir);
  if (::fsync(dfd) != 0) st = errno_error("fsync", dir);
  ::close(dfd);
  return st;
}

absl::Status State::load_checkpoint(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    return absl::NotFoundError(absl::StrCat("checkpoint '", path.string(), "' does not exist"));
  }
  std::ifstream f(path, std::ios::binary);
  if (!f) return errno_error("cannot open checkpoint", path);
  std::vector<char> raw((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  const std::span<const std::byte> file(reinterpret_cast<const std::byte*>(raw.data()), raw.size());
  const std::string name = path.string();

  Reader in(file);
  const auto magic = in.take(sizeof(kMagic));
  if (!magic || std::memcmp(magic->data(), kMagic, sizeof(kMagic)) != 0) {
    return absl::DataLossError(
        absl::StrCat("checkpoint '", name, "': not a libelastic checkpoint (bad magic)"));
  }
  const auto total = in.get<std::uint64_t>();
  if (!total || *total != file.size()) {
    return absl::DataLossError(absl::StrCat("checkpoint '", name,
                                            "' is truncated or padded: header says ",
                                            total ? *total : 0, " bytes, file has ", file.size()));
  }
  const std::uint32_t stored_crc = [&] {
    std::uint32_t c;
    std::memcpy(&c, file.data() + file.size() - 4, 4);
    return c;
  }();
  if (crc32(file.first(file.size() - 4)) != stored_crc) {
    return absl::DataLossError(absl::StrCat("checkpoint '", name, "' is corrupt: CRC-32 mismatch"));
  }
  const auto commits = in.get<std::uint64_t>();
  const auto layout_len = in.get<std::uint64_t>();
  const auto layout = layout_len ? in.take(*layout_len) : std::nullopt;
  const auto snap_len = in.get<std::uint64_t>();
  const auto snap = snap_len ? in.take(*snap_len) : std::nullopt;
  if (!commits || !layout || !snap || in.left() != 4) {
    return absl::DataLossError(absl::StrCat("checkpoint '", name, "': inconsistent section sizes"));
  }
  const std::vector<std::byte> mine = layout_bytes();
  if (layout->size() != mine.size() || std::memcmp(layout->data(), mine.data(), mine.size()) != 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "checkpoint '", name, "' was written for a different set of registered buffers"));
  }
  if (absl::Status st = apply_snapshot(*snap); !st.ok()) {
    return absl::Status(st.code(), absl::StrCat("checkpoint '", name, "': ", st.message()));
  }
  snapshot_.assign(snap->begin(), snap->end());
  commits_ = *commits;
  return absl::OkStatus();
}

}  // namespace elastic::rt
