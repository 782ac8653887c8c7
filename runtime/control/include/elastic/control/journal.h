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
//   snapshot  {"spec": ..., "state": "...", "submitted_at": ..., ... every JobRecord field}
// A snapshot is a job's whole record, written by compaction: once the journal holds at least
// twice as many records as jobs (and at least a floor the daemon sets), it is rewritten
// atomically as one snapshot per job, in submission order, which replays to exactly the same
// jobs. A resident daemon's journal so grows with its jobs, not with their rescales.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
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
std::optional<JobState> job_state_from_string(std::string_view s);
bool is_terminal(JobState state);  // finished, failed, cancelled

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
  friend bool operator==(const JobRecord&, const JobRecord&) = default;
};

// A line replay cannot use: malformed, torn, or a second `submitted` for a job already known.
struct BadJournalLine {
  std::size_t line = 0;  // 1-based
  std::string reason;
  std::string text;  // the line as found, without its newline
};

struct JournalReplay {
  std::vector<JobRecord> jobs;        // submission order
  std::size_t records = 0;            // good lines applied
  bool torn_tail = false;             // a torn last line was dropped: `torn` holds it
  BadJournalLine torn;                //
  std::uintmax_t valid_bytes = 0;     // file length up to the last good line
  std::vector<std::string> warnings;  // e.g. an event for an unknown job (ignored)
};

// Replays a journal file (a missing file is an empty journal). A torn last line (no newline, or
// not JSON: a write the crash cut short) is dropped with a warning; any other bad line, the last
// one included, is DataLoss naming "<path>:<line>".
absl::StatusOr<JournalReplay> replay_journal(const std::filesystem::path& path);

// Every line checked, none refused: `replay` is what the good lines give (replay_journal of a
// journal holding only them), `bad` lists every other line in order, `good_text` is the good
// lines, each with its newline. A missing file is an empty, clean journal.
struct JournalCheck {
  JournalReplay replay;
  std::vector<BadJournalLine> bad;
  std::string good_text;
};
absl::StatusOr<JournalCheck> check_journal(const std::filesystem::path& path);

// `<journal>.bad`: the lines set aside (by salvage, or a torn tail cut off when the journal is
// opened), each as "# <journal>:<line>: <reason>" followed by the line exactly as it was.
std::filesystem::path bad_lines_path(const std::filesystem::path& journal);
// Appends `lines` to bad_lines_path(journal), atomically (0600).
absl::Status set_aside(const std::filesystem::path& journal,
                       const std::vector<BadJournalLine>& lines);

// Applies one record to `jobs` (exposed for the daemon's in-memory view and for tests). A record
// that fails leaves `jobs` unchanged.
absl::Status apply_journal_record(const nlohmann::json& record, std::vector<JobRecord>& jobs,
                                  std::vector<std::string>* warnings = nullptr);

// The writer. Single writer per state dir (hold a DaemonLock). Move-only.
class Journal {
 public:
  // Replays `path` into `*replay` (if non-null), moves a torn tail to bad_lines_path and cuts it
  // off so new records start on a fresh line, and opens it for appending (0600).
  static absl::StatusOr<Journal> open(const std::filesystem::path& path,
                                      JournalReplay* replay = nullptr);
  Journal(Journal&& other) noexcept;
  Journal& operator=(Journal&& other) noexcept;
  Journal(const Journal&) = delete;
  Journal& operator=(const Journal&) = delete;
  ~Journal();

  // Appends {"t": now, "event": event, "job": job, ...details} as one line and fdatasyncs before
  // returning. `details` must be an object (or null). A write that fails is cut off again, so
  // the next record starts on a line of its own.
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

  // Records in the file and jobs they describe (the writer keeps its own replay of every record
  // it wrote, so compaction needs no one else's view).
  std::size_t records() const { return records_; }
  std::size_t jobs() const { return jobs_.size(); }
  // True once the file holds at least max(min_records, 2 x jobs) records and more than one per
  // job: then compact() shrinks it at least by half, and its cost (one line per job) is paid back
  // by as many appends as there are jobs.
  bool wants_compaction(std::size_t min_records) const;
  // Rewrites the file atomically as one `snapshot` record per job (a crash leaves the old file or
  // the new one, whole) and appends to the new file from then on. On an error the old file and
  // descriptor stay in use.
  absl::Status compact();

 private:
  Journal(std::filesystem::path path, int fd, std::vector<JobRecord> jobs, std::size_t records)
      : path_(std::move(path)), fd_(fd), jobs_(std::move(jobs)), records_(records) {}
  std::filesystem::path path_;
  int fd_ = -1;
  std::vector<JobRecord> jobs_;  // what the file replays to
  std::size_t records_ = 0;
};

}  // namespace elastic::rt
