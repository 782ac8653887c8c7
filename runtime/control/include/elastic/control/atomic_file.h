// Crash-safe file replacement, the one primitive the state dir is built on: readers (the CLI, the
// daemon, Prometheus) see either the old or the new file, never a half-written one.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace elastic::rt {

// Writes `contents` to a temp file beside `path`, fsyncs it, renames it over `path` and fsyncs
// the directory. `mode` is the new file's permission bits. Errors name the path and errno text;
// an error syncing the directory is one too (the file may be back to the old one after a crash).
absl::Status write_file_atomic(const std::filesystem::path& path, std::string_view contents,
                               unsigned mode = 0600);
// The same, and returns the new file's descriptor (write-only, at its end, close-on-exec) instead
// of closing it: a writer that appends to the file goes on in the new one with no window in which
// it has none (the journal's compaction).
absl::StatusOr<int> write_file_atomic_open(const std::filesystem::path& path,
                                           std::string_view contents, unsigned mode = 0600);
// The same as write_file_atomic but never replaces: AlreadyExists when `path` exists, also when
// another writer creates it at the same moment (the temp file is link()ed into place).
absl::Status create_file_atomic(const std::filesystem::path& path, std::string_view contents,
                                unsigned mode = 0600);
// fsyncs the directory holding `path`, so that a file just created there is still named after a
// crash.
absl::Status sync_directory(const std::filesystem::path& path);
// Reads a whole file: NotFound when missing, InvalidArgument for a directory, Internal for a read
// error part way (never a short text).
absl::StatusOr<std::string> read_file(const std::filesystem::path& path);

}  // namespace elastic::rt
