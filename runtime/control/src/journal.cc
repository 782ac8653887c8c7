#include "elastic/control/journal.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <functional>

#include "elastic/control/atomic_file.h"
#include "elastic/control/event_log.h"
#include "elastic/control/json_integer.h"
#include "fmt/format.h"

namespace elastic::rt {

std::string_view to_string(JobState state) {
  switch (state) {
    case JobState::kQueued:
      return "queued";
    case JobState::kRunning:
      return "running";
    case JobState::kToRestart:
      return "to_restart";
    case JobState::kFinished:
      return "finished";
    case JobState::kFailed:
      return "failed";
    case JobState::kCancelled:
      return "cancelled";
  }
  return "unknown";
}

std::optional<JobState> job_state_from_string(std::string_view s) {
  for (JobState state : {JobState::kQueued, JobState::kRunning, JobState::kToRestart,
                         JobState::kFinished, JobState::kFailed, JobState::kCancelled}) {
    if (to_string(state) == s) return state;
  }
  return std::nullopt;
}

bool is_terminal(JobState state) {
  return state == JobState::kFinished || state == JobState::kFailed ||
         state == JobState::kCancelled;
}

namespace {

// A snapshot record's details: every field of the job's record.
nlohmann::json snapshot_details(const JobRecord& j) {
  return {{"spec", job_spec_to_json(j.spec)},
          {"state", to_string(j.state)},
          {"submitted_at", j.submitted_at},
          {"started_at", j.started_at},
          {"ended_at", j.ended_at},
          {"nodes", j.nodes},
          {"ranks", j.ranks},
          {"rescales", j.rescales},
          {"starts", j.starts},
          {"checkpoint", j.checkpoint},
          {"samples_done", j.samples_done},
          {"reason", j.reason}};
}

// The job a `submitted` or `snapshot` record creates. Every field of a snapshot is required: a
// snapshot that lacks one is a bad line, not a job with defaults.
absl::StatusOr<JobRecord> created_job(const std::string& event, const nlohmann::json& r,
                                      const std::string& id) {
  if (absl::Status valid = validate_job_id(id); !valid.ok()) return valid;
  absl::StatusOr<JobSpec> spec = job_spec_from_json(r.at("spec"));
  if (!spec.ok()) return spec.status();
  JobRecord rec;
  rec.spec = *std::move(spec);
  rec.spec.id = id;
  if (event == "submitted") {
    rec.submitted_at = r.value("t", 0.0);
    return rec;
  }
  const std::string state = r.at("state").get<std::string>();
  std::optional<JobState> parsed = job_state_from_string(state);
  if (!parsed) return absl::InvalidArgumentError(fmt::format("unknown state '{}'", state));
  rec.state = *parsed;
  rec.submitted_at = r.at("submitted_at").get<double>();
  rec.started_at = r.at("started_at").get<double>();
  rec.ended_at = r.at("ended_at").get<double>();
  rec.nodes = r.at("nodes").get<std::vector<std::string>>();
  rec.ranks = json_integer_at<int>(r, "ranks");
  rec.rescales = json_integer_at<int>(r, "rescales");
  rec.starts = json_integer_at<int>(r, "starts");
  rec.checkpoint = r.at("checkpoint").get<std::string>();
  rec.samples_done = json_integer_at<std::int64_t>(r, "samples_done");
  rec.reason = r.at("reason").get<std::string>();
  return rec;
}

bool creates_job(const nlohmann::json& r) {
  return r.is_object() && r.contains("event") &&
         (r["event"] == "submitted" || r["event"] == "snapshot");
}

}  // namespace

absl::Status apply_journal_record(const nlohmann::json& r, std::vector<JobRecord>& jobs,
                                  std::vector<std::string>* warnings) {
  if (!r.is_object() || !r.contains("event") || !r["event"].is_string() || !r.contains("job") ||
      !r["job"].is_string()) {
    return absl::InvalidArgumentError("record needs string fields 'event' and 'job'");
  }
  const std::string event = r["event"].get<std::string>();
  const std::string id = r["job"].get<std::string>();
  try {
    const double t = r.value("t", 0.0);  // inside: a "t" of the wrong type throws
    if (creates_job(r)) {
      absl::StatusOr<JobRecord> rec = created_job(event, r, id);
      if (!rec.ok()) return rec.status();
      if (std::any_of(jobs.begin(), jobs.end(),
                      [&](const JobRecord& j) { return j.spec.id == id; })) {
        if (warnings) {
          warnings->push_back(fmt::format("job {} {} twice; kept the first", id,
                                          event == "submitted" ? "submitted" : "in a snapshot"));
        }
        return absl::OkStatus();
      }
      jobs.push_back(*std::move(rec));
      return absl::OkStatus();
    }
    auto it =
        std::find_if(jobs.begin(), jobs.end(), [&](const JobRecord& j) { return j.spec.id == id; });
    if (it == jobs.end()) {
      if (warnings) warnings->push_back(fmt::format("'{}' for unknown job {} ignored", event, id));
      return absl::OkStatus();
    }
    // Changed on a copy, so that a record that fails half-way (a field of the wrong type) leaves
    // the job as it was: check_journal sets such a line aside and goes on.
    JobRecord job = *it;
    if (event == "started") {
      job.state = JobState::kRunning;
      job.reason.clear();
      job.started_at = t;
      job.nodes = r.value("nodes", std::vector<std::string>{});
      job.ranks = json_integer_or(r, "ranks", 0);
      ++job.starts;
    } else if (event == "rescaled") {
      job.nodes = r.value("nodes", std::vector<std::string>{});
      job.ranks = json_integer_or(r, "ranks", 0);
      ++job.rescales;
    } else if (event == "checkpoint") {
      job.checkpoint = r.value("path", std::string());
      job.samples_done = json_integer_or(r, "samples_done", std::int64_t{0});
    } else if (event == "finished") {
      job.state = JobState::kFinished;
      job.ended_at = t;
      job.samples_done = json_integer_or(r, "samples_done", job.samples_done);
      job.nodes.clear();
    } else if (event == "requeued") {
      // Off its nodes but not over: waits to start again (the daemon's own view of it is the
      // same to_restart) and says why; its history (starts, rescales, checkpoint) is kept.
      job.state = JobState::kToRestart;
      job.nodes.clear();
      job.ranks = 0;
      job.reason = r.value("reason", std::string());
      job.samples_done = json_integer_or(r, "samples_done", job.samples_done);
    } else if (event == "failed" || event == "cancelled") {
      job.state = event == "failed" ? JobState::kFailed : JobState::kCancelled;
      job.ended_at = t;
      job.reason = r.value("reason", std::string());
      job.nodes.clear();
    } else {
      if (warnings) warnings->push_back(fmt::format("unknown event '{}' ignored", event));
    }
    *it = std::move(job);
  } catch (const nlohmann::json::exception& e) {
    return absl::InvalidArgumentError(fmt::format("'{}' record: {}", event, e.what()));
  }
  return absl::OkStatus();
}

namespace {

// What scan() does with a line it cannot apply: (line number, the line, whether it is torn: the
// last line, without its newline or not JSON, as a write cut short leaves it; why). An error stops
// the scan and is returned.
using BadLine =
    std::function<absl::Status(std::size_t, std::string_view, bool, const std::string&)>;

// Applies the journal `text` line by line to out.jobs; each good line is counted (and appended to
// `good`, when given, with its newline). With `duplicates_are_bad`, a second `submitted` for a job
// already known is a bad line (check/salvage); otherwise it is applied, which keeps the first.
absl::Status scan(std::string_view text, bool duplicates_are_bad, JournalReplay& out,
                  std::string* good, const BadLine& bad) {
  std::size_t pos = 0;
  std::size_t line_no = 0;
  while (pos < text.size()) {
    ++line_no;
    const std::size_t nl = text.find('\n', pos);
    const bool last = nl == std::string_view::npos || nl + 1 == text.size();
    const std::string_view line =
        text.substr(pos, (nl == std::string_view::npos ? text.size() : nl) - pos);
    const std::size_t next = nl == std::string_view::npos ? text.size() : nl + 1;
    // A line without its newline was never completely written (we fsync after the '\n').
    const bool complete = nl != std::string_view::npos;
    absl::Status applied;
    nlohmann::json record = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    const bool torn = last && (!complete || record.is_discarded());
    if (!complete || record.is_discarded()) {
      applied = absl::InvalidArgumentError(complete ? "not valid JSON" : "incomplete line");
    } else if (duplicates_are_bad && creates_job(record) && record.contains("job") &&
               record["job"].is_string() &&
               std::any_of(out.jobs.begin(), out.jobs.end(), [&](const JobRecord& j) {
                 return j.spec.id == record["job"].get<std::string>();
               })) {
      applied = absl::AlreadyExistsError(
          fmt::format("job {} submitted again; the first submission is kept",
                      record["job"].get<std::string>()));
    } else {
      applied = apply_journal_record(record, out.jobs, &out.warnings);
    }
    if (applied.ok()) {
      ++out.records;
      out.valid_bytes = next;
      if (good != nullptr) good->append(text.data() + pos, next - pos);
    } else if (absl::Status s = bad(line_no, line, torn, std::string(applied.message())); !s.ok()) {
      return s;
    }
    pos = next;
  }
  // Jobs that were running when the previous daemon died must run again.
  for (JobRecord& j : out.jobs) {
    if (j.state == JobState::kRunning) j.state = JobState::kToRestart;
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<JournalReplay> replay_journal(const std::filesystem::path& path) {
  JournalReplay out;
  absl::StatusOr<std::string> text = read_file(path);
  if (absl::IsNotFound(text.status())) return out;
  if (!text.ok()) return text.status();
  absl::Status s =
      scan(*text, /*duplicates_are_bad=*/false, out, nullptr,
           [&](std::size_t line_no, std::string_view line, bool torn, const std::string& why) {
             if (!torn) {
               return absl::DataLossError(
                   fmt::format("{}:{}: bad journal record ({}); refusing to guess (`elastic "
                               "journal check` lists every bad line, `elastic journal salvage` "
                               "sets them aside)",
                               path.string(), line_no, why));
             }
             out.torn_tail = true;
             out.torn = {line_no, why, std::string(line)};
             out.warnings.push_back(
                 fmt::format("{}:{}: torn last record dropped ({})", path.string(), line_no, why));
             return absl::OkStatus();
           });
  if (!s.ok()) return s;
  return out;
}

absl::StatusOr<JournalCheck> check_journal(const std::filesystem::path& path) {
  JournalCheck out;
  absl::StatusOr<std::string> text = read_file(path);
  if (absl::IsNotFound(text.status())) return out;
  if (!text.ok()) return text.status();
  absl::Status s =
      scan(*text, /*duplicates_are_bad=*/true, out.replay, &out.good_text,
           [&](std::size_t line_no, std::string_view line, bool, const std::string& why) {
             out.bad.push_back({line_no, why, std::string(line)});
             return absl::OkStatus();
           });
  if (!s.ok()) return s;
  return out;
}

std::filesystem::path bad_lines_path(const std::filesystem::path& journal) {
  return std::filesystem::path(journal.string() + ".bad");
}

absl::Status set_aside(const std::filesystem::path& journal,
                       const std::vector<BadJournalLine>& lines) {
  const std::filesystem::path side = bad_lines_path(journal);
  absl::StatusOr<std::string> kept = read_file(side);
  if (!kept.ok() && !absl::IsNotFound(kept.status())) return kept.status();
  std::string text = kept.ok() ? *std::move(kept) : std::string();
  for (const BadJournalLine& b : lines) {
    text += fmt::format("# {}:{}: {}\n{}\n", journal.string(), b.line, b.reason, b.text);
  }
  return write_file_atomic(side, text, 0600);
}

// --- Journal ----------------------------------------------------------------------------------

absl::StatusOr<Journal> Journal::open(const std::filesystem::path& path, JournalReplay* replay) {
  absl::StatusOr<JournalReplay> r = replay_journal(path);
  if (!r.ok()) return r.status();
  // The torn tail is kept beside the journal before it is cut off.
  if (r->torn_tail) {
    if (absl::Status s = set_aside(path, {r->torn}); !s.ok()) return s;
  }
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) {
    return absl::InternalError(
        fmt::format("cannot open journal {}: {}", path.string(), std::strerror(errno)));
  }
  // A journal just created is only there after a crash once its directory entry is.
  if (absl::Status s = sync_directory(path); !s.ok()) {
    ::close(fd);
    return s;
  }
  // Cut a torn tail so the next record starts on a line of its own.
  if (::ftruncate(fd, static_cast<off_t>(r->valid_bytes)) != 0 || ::fsync(fd) != 0 ||
      ::lseek(fd, 0, SEEK_END) < 0) {
    const int err = errno;
    ::close(fd);
    return absl::InternalError(
        fmt::format("cannot repair journal {}: {}", path.string(), std::strerror(err)));
  }
  Journal journal(path, fd, r->jobs, r->records);
  if (replay != nullptr) *replay = *std::move(r);
  return journal;
}

Journal::Journal(Journal&& other) noexcept
    : path_(std::move(other.path_)),
      fd_(std::exchange(other.fd_, -1)),
      jobs_(std::move(other.jobs_)),
      records_(std::exchange(other.records_, 0)) {}

Journal& Journal::operator=(Journal&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    path_ = std::move(other.path_);
    fd_ = std::exchange(other.fd_, -1);
    jobs_ = std::move(other.jobs_);
    records_ = std::exchange(other.records_, 0);
  }
  return *this;
}

Journal::~Journal() {
  if (fd_ >= 0) ::close(fd_);
}

absl::Status Journal::append(std::string_view event, std::string_view job,
                             const nlohmann::json& details) {
  if (fd_ < 0) return absl::FailedPreconditionError("journal is closed");
  if (!details.is_null() && !details.is_object()) {
    return absl::InvalidArgumentError("journal details must be a JSON object");
  }
  nlohmann::json r = {{"t", unix_now()}, {"event", event}, {"job", job}};
  if (details.is_object()) {
    for (auto it = details.begin(); it != details.end(); ++it) r[it.key()] = it.value();
  }
  // One write() for the whole line keeps records whole even if another writer slipped in.
  const std::string line = r.dump() + "\n";
  const off_t start = ::lseek(fd_, 0, SEEK_CUR);
  if (start < 0) {
    return absl::InternalError(
        fmt::format("journal {}: lseek: {}", path_.string(), std::strerror(errno)));
  }
  // A part of the line written before an error is cut off again: the next record must not be
  // glued onto it, and the file must not say what the in-memory view does not.
  auto undo = [&](std::string_view what) {
    const int err = errno;
    if (::ftruncate(fd_, start) != 0 || ::lseek(fd_, start, SEEK_SET) < 0) {
      return absl::InternalError(
          fmt::format("journal {}: {}: {}; cutting the partial record "
                      "off failed too: {}",
                      path_.string(), what, std::strerror(err), std::strerror(errno)));
    }
    return absl::InternalError(
        fmt::format("journal {}: {}: {}", path_.string(), what, std::strerror(err)));
  };
  std::size_t done = 0;
  while (done < line.size()) {
    const ssize_t n = ::write(fd_, line.data() + done, line.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return undo("write");
    }
    done += static_cast<std::size_t>(n);
  }
  if (::fdatasync(fd_) != 0) return undo("fdatasync");
  ++records_;
  (void)apply_journal_record(r, jobs_);  // as a replay would: a record that fails changes nothing
  return absl::OkStatus();
}

bool Journal::wants_compaction(std::size_t min_records) const {
  return records_ > jobs_.size() && records_ >= std::max(min_records, 2 * jobs_.size());
}

absl::Status Journal::compact() {
  if (fd_ < 0) return absl::FailedPreconditionError("journal is closed");
  const double now = unix_now();
  std::string text;
  for (const JobRecord& j : jobs_) {
    nlohmann::json r = snapshot_details(j);
    r["t"] = now;
    r["event"] = "snapshot";
    r["job"] = j.spec.id;
    text += r.dump() + "\n";
  }
  absl::StatusOr<int> fd = write_file_atomic_open(path_, text, 0600);
  if (!fd.ok()) return fd.status();
  ::close(fd_);
  fd_ = *fd;
  records_ = jobs_.size();
  return absl::OkStatus();
}

absl::Status Journal::submitted(const JobSpec& spec) {
  return append("submitted", spec.id, {{"spec", job_spec_to_json(spec)}});
}
absl::Status Journal::started(std::string_view job, const std::vector<std::string>& nodes,
                              int ranks) {
  return append("started", job, {{"nodes", nodes}, {"ranks", ranks}});
}
absl::Status Journal::rescaled(std::string_view job, const std::vector<std::string>& nodes,
                               int ranks, std::string_view reason) {
  return append("rescaled", job, {{"nodes", nodes}, {"ranks", ranks}, {"reason", reason}});
}
absl::Status Journal::checkpoint(std::string_view job, std::string_view path,
                                 std::int64_t samples_done) {
  return append("checkpoint", job, {{"path", path}, {"samples_done", samples_done}});
}
absl::Status Journal::finished(std::string_view job, std::int64_t samples_done) {
  return append("finished", job, {{"samples_done", samples_done}});
}
absl::Status Journal::failed(std::string_view job, std::string_view reason) {
  return append("failed", job, {{"reason", reason}});
}
absl::Status Journal::cancelled(std::string_view job, std::string_view reason) {
  return append("cancelled", job, {{"reason", reason}});
}
absl::Status Journal::requeued(std::string_view job, std::string_view reason,
                               std::int64_t samples_done) {
  return append("requeued", job, {{"reason", reason}, {"samples_done", samples_done}});
}

}  // namespace elastic::rt
