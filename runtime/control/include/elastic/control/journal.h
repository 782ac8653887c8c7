// The durable job history: journal.jsonl, one JSON object per line, appended and fsynced before
// the daemon acts on it. Replaying it after a crash rebuilds every job's state: queued jobs stay
// queued, running ones come back as "to restart" (from their checkpoint when they have one).
// A job the daemon took off its nodes without ending it (e.g. all of them were taken back) is
// "requeued": it waits for nodes again, to restart from its checkpoint, as after a crash.
// A torn last line (crash mid-write) is dropped and truncated away; a bad line elsewhere is
// data loss and refuses to replay, naming the line: the operator's way forward is
// check_journal / salvage_journal (journal_salvage.h; `elastic journal check|salvage`).
//
// Line format: {"t": <unix seconds>, "event": "<type>", "job": "<id>", ...details}
//   submitted {"spec": JobSpec JSON}        started   {"nodes": [...], "ranks": N}
//   rescaled  {"nodes": [...], "ranks": N, "reason": "..."}
//   checkpoint {"path": "...", "samples_done": N}
//   finished  {"samples_done": N}           failed    {"reason": "..."}
//   cancelled {"reason": "..."}
//   requeued  {"reason": "...", "samples_done": N}   (N: the samples of every run so far)
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "elastic/control/job_spec.h"
#include "nlohmann/json.hpp"

namespace elastic::rt {

enum class JobState { kQueued, kRunning, kToRestart, kFinished, kFailed, kCancelled };
std::string_view to_string(JobState state);  // "queued", "running", "to_restart", ...
bool is_terminal(JobState state);            // finished, failed, cancelled

// A job as the journal knows it.
struct JobRecord {
  JobSpec spec;
  JobState state = JobState::kQueued;
  double submitted_at = 0;         // unix seconds
  double started_at = 0;           // last start; 0 = never
  double ended_at = 0;             // terminal states only
  std::vector<std::string> nodes;  // last known (running / to restart)
  int ranks = 0;
  int rescales = 0;
  int starts = 0;          // how many times it was started (restarts = starts - 1)
  std::string checkpoint;  // last durable checkpoint ("" = none; falls back to spec.checkpoint)
  std::int64_t samples_done = 0;  // processed by its runs so far: at the last requeue / finish
  std::string reason;  // failed/cancelled: why; to_restart: why it was taken off its nodes
};

struct JournalReplay {
  std::vector<JobRecord> jobs;        // submission order
  std::size_t records = 0;            // good lines applied
  bool torn_tail = false;             // a partial last line was dropped
  std::uintmax_t valid_bytes = 0;     // file length up to the last good line
  std::vector<std::string> warnings;  // e.g. an event for an unknown job (ignored)
};

// Replays a journal file (a missing file is an empty journal). DataLoss names "<path>:<line>"
// for a malformed line that is not the last one.
absl::StatusOr<JournalReplay> replay_journal(const std::filesystem::path& path);

// A line replay cannot use: malformed, torn, or a second `submitted` for a job already known.
struct BadJournalLine {
  std::size_t line = 0;  // 1-based
  std::string reason;
  std::string text;  // the line as found, without its newline
};

// Every line checked, none refused: `replay` is what the good lines give (replay_journal of a
// journal holding only them), `bad` lists every other line in order, `good_text` is the good
// lines, each with its newline. A missing file is an empty, clean journal.
struct JournalCheck {
  JournalReplay replay;
  std::vector<BadJournalLine> bad;
  std::string good_text;
};
absl::StatusOr<JournalCheck> check_journal(const std::filesystem::path& path);

// Applies one record to `jobs` (exposed for the daemon's in-memory view and for tests). A record
// that fails leaves `jobs` unchanged.
absl::Status apply_journal_record(const nlohmann::json& record, std::vector<JobRecord>& jobs,
                                  std::vector<std::string>* warnings = nullptr);

// The writer. Single writer per state dir (hold a DaemonLock). Move-only.
class Journal {
 public:
  // Replays `path` into `*replay` (if non-null), truncates a torn tail so new records start on a
  // fresh line, and opens it for appending (0600).
  static absl::StatusOr<Journal> open(const std::filesystem::path& path,
                                      JournalReplay* replay = nullptr);
  Journal(Journal&& other) noexcept;
  Journal& operator=(Journal&& other) noexcept;
  Journal(const Journal&) = delete;
  Journal& operator=(const Journal&) = delete;
  ~Journal();

  // Appends {"t": now, "event": event, "job": job, ...details} as one line and fdatasyncs before
  // returning. `details` must be an object (or null).
  absl::Status append(std::string_view event, std::string_view job,
                      const nlohmann::json& details = nlohmann::json::object());

  absl::Status submitted(const JobSpec& spec);
  absl::Status started(std::string_view job, const std::vector<std::string>& nodes, int ranks);
  absl::Status rescaled(std::string_view job, const std::vector<std::string>& nodes, int ranks,
                        std::string_view reason);
  absl::Status checkpoint(std::string_view job, std::string_view path, std::int64_t samples_done);
  absl::Status finished(std::string_view job, std::int64_t samples_done);
  absl::Status failed(std::string_view job, std::string_view reason);
  absl::Status cancelled(std::string_view job, std::string_view reason);
  absl::Status requeued(std::string_view job, std::string_view reason, std::int64_t samples_done);

 private:
  Journal(std::filesystem::path path, int fd) : path_(std::move(path)), fd_(fd) {}
  std::filesystem::path path_;
  int fd_ = -1;
};

}  // namespace elastic::rt
