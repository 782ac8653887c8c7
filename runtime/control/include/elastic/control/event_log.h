// events.jsonl: the daemon's decision log, one JSON object per line (plan inputs, solver time,
// the plan; node and job events). Not fsynced per line — it is for people and tools, the
// journal is what must survive a crash.
#pragma once

#include <cstdio>
#include <filesystem>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"

namespace elastic::rt {

class EventLog {
 public:
  static absl::StatusOr<EventLog> open(const std::filesystem::path& path);
  EventLog(EventLog&& other) noexcept;
  EventLog& operator=(EventLog&& other) noexcept;
  EventLog(const EventLog&) = delete;
  EventLog& operator=(const EventLog&) = delete;
  ~EventLog();

  // Writes {"t": now, "event": event, ...fields} and flushes. `fields` must be an object.
  absl::Status write(std::string_view event,
                     const nlohmann::json& fields = nlohmann::json::object());

 private:
  explicit EventLog(std::FILE* f) : file_(f) {}
  std::FILE* file_ = nullptr;
};

// Seconds since the Unix epoch, with sub-second precision: the timestamp every log line carries.
double unix_now();

}  // namespace elastic::rt
