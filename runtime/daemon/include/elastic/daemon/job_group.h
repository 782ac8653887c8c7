// The controller's side of one running job (protocol.h): the job communicator J (controller =
// rank 0, then the job's ranks in spawn order), which node each rank lives on, and the verbs
// that carry out a plan — start, grow, shrink, stop — plus poll(), which reads progress/done/exit
// messages and notices process failures, repairing J with the survivors (repair.h).
//
// A repair that poll() starts goes on across polls (CommRepair): each poll takes the steps whose
// agreements have completed and returns, so that the controller serves its other jobs while this
// one's survivors reach the repair (a rank in a long step enters it only at its next MPI call).
// A verb called meanwhile first waits for the repair to end. All verbs are blocking and COLLECTIVE with the job's ranks, who join at their next step
// boundary; every wait for them is bounded by `directive_timeout` (each directive is an exchange
// that completes only once all ranks are in it, protocol.h), and J is revoked whenever the
// controller gives up on it, so that no rank waits for it either. MPI_Comm_spawn is bounded by
// `spawn_timeout` in a helper thread (bounded_spawn.h: a command that exits before MPI_Init would
// hang it); commands are also resolved before spawning, so a missing one fails at once. Left
// unbounded: the blocking calls that follow a completed exchange (MPI_Comm_split on kLeave,
// MPI_Intercomm_merge after a spawn), which return on a rank's failure (ULFM) or a revoke, and
// the ULFM shrink, which starts only after a bounded agreement (repair.h).
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "elastic/collectives/comm.h"
#include "elastic/daemon/bounded_spawn.h"
#include "elastic/worker/internal/protocol.h"
#include "elastic/worker/internal/repair.h"

namespace elastic::rt {

// What to start on each node of a job.
struct LaunchSpec {
  std::string job_id;
  std::string command;  // resolved path
  std::vector<std::string> args;
  std::map<std::string, std::string> env;
  std::string workdir;  // "" = elasticd's
  std::filesystem::path stdout_path;
  std::filesystem::path stderr_path;
  std::filesystem::path checkpoint_path;  // the job's durable checkpoint (ELASTIC_CHECKPOINT)
  int ranks_per_node = 1;
};

// Where spawned ranks go. Fake mode (one machine): every spawn lands on `head_host`, and the node
// is a label (ELASTIC_FAKE_NODE) — fake nodes as separate PRRTE daemons only work for the first
// spawn (Known limitations). Real mode: the `host` info key names the node.
struct Placement {
  bool fake_nodes = false;
  std::string head_host;
  bool ranks_ignore_sigterm = false;  // ELASTIC_IGNORE_SIGTERM=1 (ranks inside Slurm holder jobs)
};

// A process that left J (shrink, stop, abort, failure): the node it ran on and its pid (from
// connect_all). A node is vacated only once these processes have exited.
struct Departed {
  std::string node;
  int pid = 0;
};

// What poll() found.
struct PollResult {
  bool progressed = false;
  bool done = false;                    // the job's ranks said they are finished (then call stop())
  std::optional<std::string> error;     // the job cannot go on (a rank exited non-zero, ...)
  std::vector<std::string> lost_nodes;  // nodes whose ranks died (J repaired without them)
  bool repair_started = false;          // a process failed: J's repair began (see repairing())
  bool repair_ended = false;            // J's repair ended (lost nodes or not): plan again
};

class JobGroup {
 public:
  // `spawn_timeout` bounds each spawn (bounded_spawn.h); a spawn that times out fails
  // the job (reported by start() or by the next poll()).
  JobGroup(LaunchSpec spec, Placement placement,
           std::chrono::milliseconds directive_timeout = std::chrono::seconds(60),
           std::chrono::milliseconds spawn_timeout = std::chrono::seconds(60));
  ~JobGroup();
  JobGroup(const JobGroup&) = delete;
  JobGroup& operator=(const JobGroup&) = delete;

  // Spawns the ranks of all nodes (one MPI_Comm_spawn_multiple; node by node if that is refused)
  // and lets them start.
  // Errors: the job could not start (spawn failed: e.g. the command is not executable).
  absl::Status start(const std::vector<std::string>& nodes);
  // Adds nodes / releases nodes at the ranks' next step boundary. A grow's spawns run while the
  // ranks keep training (protocol.h, "Grow"); it returns Cancelled, adding nothing, when the job
  // said it is finished instead (the next poll() reports done). A process failure in the middle
  // is repaired (lost nodes are reported by the next poll()); other errors are returned.
  absl::Status grow(const std::vector<std::string>& nodes);
  absl::Status shrink(const std::vector<std::string>& nodes);
  // Tells the ranks to exit (they have finished, or the plan/cancel stops them) and frees J.
  // `wait_boundary`: the ranks are still computing, so send them an order first.
  absl::Status stop(bool wait_boundary);
  // Abandons the job: revokes J (its ranks see errors and exit) and frees it. LOCAL.
  void abort();

  // LOCAL, never blocks but in the shrink of a repair (collective with the survivors, who are
  // all in it by then).
  PollResult poll();
  // Whether J's repair is under way (begun by a poll, ended by a later one or by a verb).
  bool repairing() const { return repair_.has_value(); }
  // How long the last repair took, from the poll that found the failure to the repaired J (ms).
  double repair_ms() const { return repair_ms_; }

  bool active() const { return static_cast<bool>(job_); }
  int ranks() const { return static_cast<int>(rank_nodes_.size()); }
  std::vector<std::string> nodes() const;  // distinct, in first-rank order
  // The host each rank runs on (gethostname(), from connect_all), in rank order.
  std::vector<std::string> rank_hosts() const;
  // Ranks that do not run on the host of the node they were placed on (real mode only; with fake
  // nodes every rank runs on the head host), one "rank R: node N, host H" each.
  std::vector<std::string> misplaced() const;
  int generation() const { return generation_; }
  // The processes that left J since the last call (LOCAL): the caller watches them exit.
  std::vector<Departed> take_departed() { return std::exchange(departed_, {}); }
  // The nodes whose ranks died, found by repairs since the last poll() or take_lost().
  std::vector<std::string> take_lost() { return std::exchange(lost_, {}); }
  // Latest progress report.
  double samples_total() const { return samples_total_; }
  double samples_per_s() const { return samples_per_s_; }
  // Size of the compute communicator and step count in the latest progress report (0 before one).
  int progress_ranks() const { return progress_ranks_; }
  double progress_steps() const { return progress_steps_; }
  // Mean seconds per step over the latest report's period (0 before a second report).
  double step_s() const { return step_s_; }

 private:
  // What to spawn on `node`.
  SpawnRequest spawn_request(const std::string& node) const;
  // Spawns the ranks of `nodes` with one MPI_Comm_spawn_multiple (one new job): LOCAL for the
  // job's first nodes, else COLLECTIVE over J (the ranks take part from BackgroundSpawn or
  // Session::init); then merge and connect_all, and tells the new ranks `more`, the spawns of this
  // series still to come (protocol.h, "Grow").
  absl::Status spawn_nodes(const std::vector<std::string>& nodes, int more);
  // The spawns that add `nodes`: one for all of them, or one per node after a spawn of several
  // was refused (until a series of single-node spawns all succeed).
  std::vector<std::vector<std::string>> spawn_series(const std::vector<std::string>& nodes) const;
  // spawn_nodes for each batch of `series` (the first without J when there is none yet), then
  // kResume with `reason`. A refused spawn ends the series: the nodes spawned before it still
  // join.
  absl::Status add_nodes(const std::vector<std::vector<std::string>>& series, proto::Reason reason);
  // Waits (bounded) until the leader confirms a grow's spawn count, reading other messages into
  // stashed_ meanwhile. Cancelled when the job finished instead (stashed_.done).
  absl::Status await_spawn_confirmation();
  // Reads J's messages into `out` (poll() without handing over lost nodes).
  void poll_into(PollResult& out);
  // Bounded exchange of the controller's ints with all of J (protocol.h); revokes J on failure.
  absl::Status exchange(std::span<int> data, const char* what);
  absl::Status header(proto::Directive directive, int count, proto::Reason reason,
                      int list_sum = 0);
  // poll()'s checked receive of a probed message; false (and `out.error` or a repair) on failure.
  bool receive(void* buf, int count, MPI_Datatype type, const MPI_Status& probed, PollResult& out);
  absl::Status resume(proto::Reason reason);
  // One int to J rank `dest` (point to point, bounded); revokes J on failure.
  absl::Status send_int(int dest, int tag, int value);
  absl::Status send_order() { return send_int(1, proto::kTagOrder, proto::kOrderFollow); }
  // After an MPI error during a verb: repair if it was a process failure, else give up on J.
  absl::Status handle_error(const absl::Status& error);
  // Starts J's repair (false: one is under way already).
  bool begin_repair();
  // Takes the repair's next steps; nullopt while it is under way (never when `wait`), else
  // end_repair's status.
  std::optional<absl::Status> step_repair(bool wait);
  // Survivors' J: drops the lost ranks (lost_), resumes the job, releases partly lost nodes.
  // A failed repair abandons the job.
  absl::Status end_repair(absl::StatusOr<coll::Comm> fixed);
  // The whole repair, waited for (inside a verb).
  absl::Status repair();
  // Waits for a repair under way to end (OK when there is none).
  absl::Status settle_repair();
  // poll()'s: starts the repair (out.repair_started) and takes it as far as it goes without
  // waiting; a failed repair is out.error.
  void repair_in_poll(PollResult& out);
  void record(const std::array<double, proto::kProgressDoubles>& progress);
  // LOCAL: receives the progress reports already on J (the last one is the job's final count).
  void take_last_progress();
  // Moves J rank `index`+1's node and pid from the members to departed_.
  void depart(std::size_t index);
  void depart_all();

  LaunchSpec spec_;
  Placement placement_;
  std::chrono::milliseconds directive_timeout_;
  std::chrono::milliseconds spawn_timeout_;
  std::optional<std::string> fatal_;  // reported by the next poll(): the job cannot go on
  coll::Comm job_;
  std::optional<CommRepair> repair_;  // of job_, under way
  std::chrono::steady_clock::time_point repair_began_;
  double repair_ms_ = 0;
  std::vector<std::string> rank_nodes_;  // J rank i+1 was placed on node rank_nodes_[i]
  std::vector<proto::Peer> rank_peers_;  // ... and is process rank_peers_[i] (pid, host)
  std::vector<Departed> departed_;
  std::vector<std::string> lost_;  // reported by the next poll()
  PollResult stashed_;             // read while waiting in a verb, reported by poll()
  bool spawns_confirmed_ = false;
  bool one_by_one_ = false;  // spawn_series
  int generation_ = 0;
  double samples_total_ = 0;
  double samples_per_s_ = 0;
  int progress_ranks_ = 0;
  double progress_steps_ = 0;
  double step_s_ = 0;
};

}  // namespace elastic::rt
