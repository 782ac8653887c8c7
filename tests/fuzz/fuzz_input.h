// What the fuzz targets share: the fuzzer's bytes as text, as the lines a reader would give the
// trace parsers, and as a file for the readers that only take a path. A target's property checks
// use FUZZ_CHECK, which aborts (a finding) with the condition and file:line.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace elastic::fuzz {

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// Split at '\n', without the terminators (read_lines() gives the parsers the same).
std::vector<std::string> as_lines(std::string_view text);

// The bytes in an anonymous in-memory file (memfd), named by path() ("/proc/self/fd/N") for as
// long as this object lives. Copy deleted.
class MemFile {
 public:
  explicit MemFile(std::string_view bytes);
  ~MemFile();
  MemFile(const MemFile&) = delete;
  MemFile& operator=(const MemFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  int fd_ = -1;
  std::string path_;
};

[[noreturn]] void check_failed(const char* condition, const char* file, int line);

}  // namespace elastic::fuzz

#define FUZZ_CHECK(condition)         \
  ((condition) ? static_cast<void>(0) \
               : ::elastic::fuzz::check_failed(#condition, __FILE__, __LINE__))

// The entry point libFuzzer calls (and corpus_main.cc, in builds without libFuzzer).
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);
