#include "elastic/allocator/gz_line_reader.h"
#include "elastic/replay/input_options.h"

namespace elastic::replay {

absl::StatusOr<std::vector<std::string>> read_lines(const std::string& path) {
  absl::StatusOr<alloc::GzLineReader> reader = alloc::GzLineReader::open(path);
  if (!reader.ok()) return reader.status();
  std::vector<std::string> lines;
  std::string line;
  while (true) {
    absl::StatusOr<bool> more = reader->next(line);
    if (!more.ok()) return more.status();
    if (!*more) break;
    lines.push_back(std::move(line));
  }
  return lines;
}

}  // namespace elastic::replay
