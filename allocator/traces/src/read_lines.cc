#include "elastic/traces/read_lines.h"

#include "elastic/traces/gz_line_reader.h"

namespace elastic::traces {

absl::StatusOr<std::vector<std::string>> read_lines(const std::string& path) {
  absl::StatusOr<GzLineReader> reader = GzLineReader::open(path);
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

}  // namespace elastic::traces
