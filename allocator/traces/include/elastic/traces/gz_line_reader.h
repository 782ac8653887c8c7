// Reads a text file line by line whether or not it is gzip-compressed (zlib reads plain files
// transparently), so every loader of real traces (workload CSVs, SWF logs, node-state CSVs) takes
// `.gz` and plain files alike and reports errors with the same file:line prefix.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "absl/status/statusor.h"

struct gzFile_s;  // zlib's handle; zlib.h stays out of our headers

namespace elastic::traces {

class GzLineReader {
 public:
  // NotFound when the file cannot be opened.
  static absl::StatusOr<GzLineReader> open(const std::string& path);

  GzLineReader(GzLineReader&&) noexcept = default;
  GzLineReader& operator=(GzLineReader&&) noexcept = default;
  GzLineReader(const GzLineReader&) = delete;
  GzLineReader& operator=(const GzLineReader&) = delete;
  ~GzLineReader() = default;

  // Reads the next line into `line` without its "\n" or "\r\n" (and line 1 without a UTF-8 byte
  // order mark). Returns false at the end of the file. A corrupt or truncated gzip stream is an
  // error naming path:line, and so are a line longer than alloc::kMaxLineBytes (input_limits.h)
  // and a NUL byte: InvalidArgument; a failed read (I/O) is DataLoss.
  absl::StatusOr<bool> next(std::string& line);

  // 1-based number of the line last returned by next() (0 before the first).
  std::size_t line_number() const { return line_number_; }
  const std::string& path() const { return path_; }

 private:
  struct Closer {
    void operator()(gzFile_s* file) const noexcept;
  };
  GzLineReader(std::string path, gzFile_s* file) : path_(std::move(path)), file_(file) {}

  std::string path_;
  std::unique_ptr<gzFile_s, Closer> file_;
  std::string buffer_;  // what gzread gave and next() has not returned yet, from next_
  std::size_t next_ = 0;
  std::size_t line_number_ = 0;
};

}  // namespace elastic::traces
