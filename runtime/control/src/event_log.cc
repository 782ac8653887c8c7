#include "elastic/control/event_log.h"

#include <sys/stat.h>

#include <chrono>
#include <cstdio>
#include <utility>

#include "fmt/format.h"
#include "spdlog/logger.h"
#include "spdlog/sinks/rotating_file_sink.h"

namespace elastic::rt {

double unix_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

struct EventLog::Sink {
  std::shared_ptr<spdlog::logger> logger;
  std::string error;  // set by the logger's error handler, read and cleared by write()
};

EventLog::EventLog(std::unique_ptr<Sink> sink) : sink_(std::move(sink)) {}
EventLog::EventLog(EventLog&& other) noexcept = default;
EventLog& EventLog::operator=(EventLog&& other) noexcept = default;
EventLog::~EventLog() = default;

std::filesystem::path EventLog::rotated_path(const std::filesystem::path& path, std::size_t n) {
  return spdlog::sinks::rotating_file_sink_st::calc_filename(path.string(), n);
}

absl::StatusOr<EventLog> EventLog::open(const std::filesystem::path& path,
                                        EventLogOptions options) {
  if (options.max_bytes == 0) return absl::InvalidArgumentError("event log: max_bytes must be > 0");
  spdlog::file_event_handlers handlers;
  // Owner-only like everything in the state dir (spdlog's fopen would create it 0666 & ~umask).
  handlers.after_open = [](const spdlog::filename_t&, std::FILE* f) { ::fchmod(fileno(f), 0600); };
  auto sink = std::make_unique<Sink>();
  try {
    auto file = std::make_shared<spdlog::sinks::rotating_file_sink_st>(
        path.string(), options.max_bytes, options.keep, /*rotate_on_open=*/false, handlers);
    sink->logger = std::make_shared<spdlog::logger>("events", std::move(file));
  } catch (const spdlog::spdlog_ex& e) {
    return absl::InternalError(fmt::format("cannot open {}: {}", path.string(), e.what()));
  }
  sink->logger->set_pattern("%v");
  sink->logger->flush_on(spdlog::level::trace);
  Sink* s = sink.get();  // stable: the Sink is heap-allocated and moves with the EventLog
  sink->logger->set_error_handler([s](const std::string& msg) { s->error = msg; });
  return EventLog(std::move(sink));
}

absl::Status EventLog::write(std::string_view event, const nlohmann::json& fields) {
  if (sink_ == nullptr) return absl::FailedPreconditionError("event log is closed");
  if (!fields.is_null() && !fields.is_object()) {
    return absl::InvalidArgumentError("event fields must be a JSON object");
  }
  nlohmann::json r = {{"t", unix_now()}, {"event", event}};
  if (fields.is_object()) {
    for (auto it = fields.begin(); it != fields.end(); ++it) r[it.key()] = it.value();
  }
  sink_->logger->info(r.dump());
  if (!sink_->error.empty()) {
    return absl::InternalError(
        fmt::format("event log write failed: {}", std::exchange(sink_->error, {})));
  }
  return absl::OkStatus();
}

}  // namespace elastic::rt
