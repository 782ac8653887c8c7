// A job's output files, bounded. Every rank appends to its job's stdout and stderr (O_APPEND,
// Session::init), so a rank caught in a loop that prints fills the state dir's file system: one
// printed libnbc's "NBC_Progress: an error 75" 20.9 million times (2.2 GB) on the box. elasticd
// therefore keeps each file under a bound: past it, the file is cut back to its first half (the
// start of a job's output usually says what went wrong) and a marker line says how much was
// dropped; the ranks go on appending after it.
#pragma once

#include <cstdint>
#include <filesystem>

#include "absl/status/statusor.h"

namespace elastic::rt {

// When `path` is larger than `max_bytes`, cuts it after the last whole line within its first
// max_bytes / 2 bytes and appends "[elasticd: N bytes of output dropped ...]". Returns the bytes
// dropped: 0 when the file is within the bound or does not exist. Safe while other processes
// append to the file with O_APPEND (their writes land after the cut). Errors name the path.
absl::StatusOr<std::uint64_t> bound_output(const std::filesystem::path& path,
                                           std::uint64_t max_bytes);

}  // namespace elastic::rt
