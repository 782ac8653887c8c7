#include "elastic/traces/gz_line_reader.h"

#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <utility>

#include "elastic/allocator/input_limits.h"
#include "fmt/format.h"

namespace elastic::traces {

void GzLineReader::Closer::operator()(gzFile_s* file) const noexcept {
  if (file != nullptr) gzclose(file);
}

absl::StatusOr<GzLineReader> GzLineReader::open(const std::string& path) {
  // gzopen takes a directory, and its first read fails like an I/O error (exit 1): it is the
  // user's mistake (bad input), said as such.
  if (std::error_code ec; std::filesystem::is_directory(path, ec)) {
    return absl::InvalidArgumentError(fmt::format("{}: is a directory, not a file", path));
  }
  gzFile file = gzopen(path.c_str(), "rb");
  if (file == nullptr) {
    return absl::NotFoundError(fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
  }
  return GzLineReader(path, file);
}

absl::StatusOr<bool> GzLineReader::next(std::string& line) {
  line.clear();
  // Refused as soon as it is known, before the rest of the line costs memory.
  auto too_long = [&] {
    line.clear();
    return absl::InvalidArgumentError(fmt::format("{}:{}: line longer than {} bytes", path_,
                                                  line_number_ + 1, alloc::kMaxLineBytes));
  };
  // gzread, not gzgets: gzgets ends its copy with a NUL, so a NUL byte in the file ended the line
  // there for strlen and two lines were read as one.
  constexpr std::size_t kChunk = 1 << 16;
  bool got_any = false;
  while (true) {
    const char* begin = buffer_.data() + next_;
    const std::size_t left = buffer_.size() - next_;
    const char* newline = static_cast<const char*>(std::memchr(begin, '\n', left));
    const std::size_t take = newline != nullptr ? static_cast<std::size_t>(newline - begin) : left;
    line.append(begin, take);
    next_ += take + (newline != nullptr ? 1 : 0);
    got_any = got_any || take > 0 || newline != nullptr;
    if (line.size() > alloc::kMaxLineBytes + 1) return too_long();  // (+1: a '\r' may follow)
    if (newline != nullptr) break;
    buffer_.resize(kChunk);
    next_ = 0;
    const int n = gzread(file_.get(), buffer_.data(), static_cast<unsigned>(kChunk));
    buffer_.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
    if (n < 0) {
      int code = Z_OK;
      const char* message = gzerror(file_.get(), &code);
      // A damaged or truncated stream is bad input; an I/O error is a failure of the run.
      const std::string what = fmt::format("{}:{}: cannot read: {}", path_, line_number_ + 1,
                                           message ? message : "zlib error");
      const bool damaged = code == Z_DATA_ERROR || code == Z_BUF_ERROR;
      return damaged ? absl::InvalidArgumentError(what) : absl::DataLossError(what);
    }
    if (n == 0) break;  // end of file
  }
  if (!got_any) return false;
  if (!line.empty() && line.back() == '\r') line.pop_back();
  if (line.size() > alloc::kMaxLineBytes) return too_long();
  ++line_number_;
  // A UTF-8 byte order mark (spreadsheet exports) is not part of the first field's name.
  if (line_number_ == 1 && line.starts_with("\xEF\xBB\xBF")) line.erase(0, 3);
  if (const std::size_t nul = line.find('\0'); nul != std::string::npos) {
    line.clear();
    return absl::InvalidArgumentError(fmt::format(
        "{}:{}:{}: a NUL byte: not a text file, or a damaged one", path_, line_number_, nul + 1));
  }
  return true;
}

}  // namespace elastic::traces
