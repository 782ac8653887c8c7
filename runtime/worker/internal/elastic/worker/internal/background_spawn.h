// The rank side of a grow (protocol.h, "Grow"): a rank's part in the controller's spawns onto J,
// carried out by a helper thread while the rank keeps training on C, so that a grow stalls the job
// only for the switch to the new membership, not for the start of the new processes.
#pragma once

#include <chrono>
#include <future>
#include <mutex>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "elastic/collectives/comm.h"
#include "elastic/worker/internal/protocol.h"

namespace elastic::rt {

// What a rank's part in a series of spawns left: the newest J it belongs to (null when the first
// spawn failed), the first error (OK when every spawn succeeded) and, when all succeeded, that
// J's C and a duplicate of it (proto::make_compute), for the switch to take.
struct SpawnOutcome {
  coll::Comm job;
  absl::Status error;
  coll::Comm compute;
  coll::Comm duplicate;
};

// COLLECTIVE over `job` and, in turn, each J it yields: takes a non-root part in `count`
// consecutive MPI_Comm_spawn_multiple calls rooted at the controller (J rank 0), merging with each
// spawn's new ranks (new ranks last) and exchanging connect_all with them; then, when every spawn succeeded, builds the new J's C and its duplicate with
// the other ranks (the controller takes no part) and warms C's connections (proto::warm_up, with
// `warm`). Each step after a spawn returns is bounded by `timeout` from its start where MPI
// allows, as the controller bounds each spawn on its side: a series of slow spawns is not one
// budget. `current` (if not null) is set, under `mu`, to the communicator each step runs on, so
// that another thread can revoke it. Errors (membership_error.h): Unavailable (the spawn
// was refused: J is intact), Aborted (a process failed, J was revoked, the merge or connect_all
// failed), DeadlineExceeded.
SpawnOutcome take_part_in_spawns(MPI_Comm job, int count, proto::WarmUp warm,
                                 std::chrono::milliseconds timeout, MPI_Comm* current = nullptr,
                                 std::mutex* mu = nullptr);

// take_part_in_spawns in a helper thread (MPI_THREAD_MULTIPLE), or inline at start() otherwise.
class BackgroundSpawn {
 public:
  BackgroundSpawn() = default;
  BackgroundSpawn(const BackgroundSpawn&) = delete;
  BackgroundSpawn& operator=(const BackgroundSpawn&) = delete;
  ~BackgroundSpawn();

  // Starts a part in `count` spawns onto `job`, which must stay valid until take() returns.
  void start(MPI_Comm job, int count, proto::WarmUp warm, bool threaded,
             std::chrono::milliseconds timeout);
  bool active() const { return result_.valid(); }
  // LOCAL, never blocks: whether take() would return at once.
  bool finished() const;
  // Waits for the outcome (blocks while the controller's spawns go on) and resets to inactive.
  SpawnOutcome take();
  // LOCAL: revokes the communicator the helper is spawning on, so that it returns soon.
  void revoke();

 private:
  std::future<SpawnOutcome> result_;
  std::mutex mu_;
  MPI_Comm current_ = MPI_COMM_NULL;
};

}  // namespace elastic::rt
