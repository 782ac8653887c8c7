#include "elastic/control/event_log.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <string>
#include <utility>

#include "fmt/format.h"

namespace elastic::rt {

double unix_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

absl::StatusOr<EventLog> EventLog::open(const std::filesystem::path& path) {
  // Owner-only like everything in the state dir (fopen would create it 0666 & ~umask).
  const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
  std::FILE* f = fd < 0 ? nullptr : ::fdopen(fd, "a");
  if (f == nullptr) {
    if (fd >= 0) ::close(fd);
    return absl::InternalError(
        fmt::format("cannot open {}: {}", path.string(), std::strerror(errno)));
  }
  return EventLog(f);
}

EventLog::EventLog(EventLog&& other) noexcept : file_(std::exchange(other.file_, nullptr)) {}

EventLog& EventLog::operator=(EventLog&& other) noexcept {
  if (this != &other) {
    if (file_ != nullptr) std::fclose(file_);
    file_ = std::exchange(other.file_, nullptr);
  }
  return *this;
}

EventLog::~EventLog() {
  if (file_ != nullptr) std::fclose(file_);
}

absl::Status EventLog::write(std::string_view event, const nlohmann::json& fields) {
  if (file_ == nullptr) return absl::FailedPreconditionError("event log is closed");
  if (!fields.is_null() && !fields.is_object()) {
    return absl::InvalidArgumentError("event fields must be a JSON object");
  }
  nlohmann::json r = {{"t", unix_now()}, {"event", event}};
  if (fields.is_object()) {
    for (auto it = fields.begin(); it != fields.end(); ++it) r[it.key()] = it.value();
  }
  const std::string line = r.dump() + "\n";
  if (std::fwrite(line.data(), 1, line.size(), file_) != line.size() || std::fflush(file_) != 0) {
    return absl::InternalError(fmt::format("event log write failed: {}", std::strerror(errno)));
  }
  return absl::OkStatus();
}

}  // namespace elastic::rt
