// events.jsonl: the daemon's decision log, one JSON object per line (plan inputs, solver time,
// the plan; node and job events). Not fsynced per line — it is for people and tools, the
// journal is what must survive a crash.
//
// Bounded: a resident daemon writes a plan record per event, each listing the pool, so on a large
// machine the log would grow by gigabytes a week. Once a line would take the file past
// `max_bytes`, the file is rotated (spdlog's rotating sink): events.jsonl becomes events.1.jsonl,
// events.1.jsonl becomes events.2.jsonl, and so on up to `keep` files, the oldest dropped. Lines
// are never split across files.
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"

namespace spdlog {
class logger;
}

namespace elastic::rt {

struct EventLogOptions {
  std::size_t max_bytes = std::size_t{256} << 20;  // one file
  std::size_t keep = 2;                            // rotated files kept beside it
};

class EventLog {
 public:
  // Appends to `path` (created 0600).
  static absl::StatusOr<EventLog> open(const std::filesystem::path& path,
                                       EventLogOptions options = {});
  EventLog(EventLog&& other) noexcept;
  EventLog& operator=(EventLog&& other) noexcept;
  EventLog(const EventLog&) = delete;
  EventLog& operator=(const EventLog&) = delete;
  ~EventLog();

  // Writes {"t": now, "event": event, ...fields} and flushes. `fields` must be an object.
  absl::Status write(std::string_view event,
                     const nlohmann::json& fields = nlohmann::json::object());

  // The file the n-th rotation moved `path` to (n >= 1): events.jsonl -> events.n.jsonl.
  static std::filesystem::path rotated_path(const std::filesystem::path& path, std::size_t n);

 private:
  struct Sink;  // the spdlog logger and the last error its handler saw
  explicit EventLog(std::unique_ptr<Sink> sink);
  std::unique_ptr<Sink> sink_;
};

// Seconds since the Unix epoch, with sub-second precision: the timestamp every log line carries.
double unix_now();

}  // namespace elastic::rt
