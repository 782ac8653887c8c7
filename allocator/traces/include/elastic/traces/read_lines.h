// All lines of a plain or gzip-compressed text file at once (GzLineReader, line by line): what the
// trace readers parse.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace elastic::traces {

// Without line terminators. Errors: GzLineReader's (NotFound, InvalidArgument naming path:line,
// DataLoss).
absl::StatusOr<std::vector<std::string>> read_lines(const std::string& path);

}  // namespace elastic::traces
