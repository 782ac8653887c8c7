#include "elastic/traces/gz_line_reader.h"

#include <zlib.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <utility>

#include "elastic/allocator/input_limits.h"
#include "fmt/format.h"

namespace elastic::traces {

void GzLineReader::Closer::operator()(gzFile_s* file) const noexcept {
  if (file != nullptr) gzclose(file);
}

absl::StatusOr<GzLineReader> GzLineReader::open(const std::string& path) {
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
  std::array<char, 4096> buffer{};
  bool got_any = false;
  while (true) {
    const char* read = gzgets(file_.get(), buffer.data(), static_cast<int>(buffer.size()));
    if (read == nullptr) {
      int code = Z_OK;
      const char* message = gzerror(file_.get(), &code);
      if (code != Z_OK && code != Z_STREAM_END) {
        // A damaged or truncated stream is bad input; an I/O error is a failure of the run.
        const std::string what = fmt::format("{}:{}: cannot read: {}", path_, line_number_ + 1,
                                             message ? message : "zlib error");
        const bool damaged = code == Z_DATA_ERROR || code == Z_BUF_ERROR;
        return damaged ? absl::InvalidArgumentError(what) : absl::DataLossError(what);
      }
      break;  // end of file
    }
    got_any = true;
    const std::size_t n = std::strlen(buffer.data());
    line.append(buffer.data(), n);
    if (n > 0 && buffer[n - 1] == '\n') break;
    if (line.size() > alloc::kMaxLineBytes + 1) return too_long();  // (+1: a '\r' may follow)
  }
  if (!got_any) return false;
  if (!line.empty() && line.back() == '\n') line.pop_back();
  if (!line.empty() && line.back() == '\r') line.pop_back();
  if (line.size() > alloc::kMaxLineBytes) return too_long();
  ++line_number_;
  return true;
}

}  // namespace elastic::traces
