// The one ULFM repair of libelastic, used by the controller and by every rank of a job after a
// process failure. Canonical order (ulfm-testing tutorial/10.respawn.c), with a bounded agreement
// first so that the blocking shrink only starts once every live member is there:
// revoke -> agree -> shrink -> agree -> [spawn + merge are done afterwards by the controller
// through the follow() protocol, see protocol.h] -> agree -> restore the error handler, inside a
// bounded retry loop: a failure during the repair itself makes the agreement fail and the loop
// shrinks again. "Did every survivor get the shrunken communicator?" is asked over the
// communicator that was shrunk (the one they all hold, its known failures acknowledged first), so
// that a survivor whose shrink failed takes part; then all shrink that one again. CommRepair takes
// these steps one at a time, for a caller that must not wait in them (elasticd repairs one job
// while it goes on serving the others); repair_comm waits.
#pragma once

#include <mpi.h>

#include <memory>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "elastic/collectives/bounded_wait.h"
#include "elastic/collectives/comm.h"
#include "elastic/worker/repair_options.h"

namespace elastic::rt {

// One repair of `broken` under way. COLLECTIVE over the survivors, as repair_comm; the agreements
// are non-blocking, so between two calls of test() the caller may do other work. `broken` must
// outlive the repair.
class CommRepair {
 public:
  // Revokes `broken` (idempotent) and starts the first agreement. LOCAL.
  CommRepair(const coll::Comm& broken, const RepairOptions& options);
  ~CommRepair();
  CommRepair(const CommRepair&) = delete;
  CommRepair& operator=(const CommRepair&) = delete;

  // Takes every step whose agreement has completed. Blocks only in MPIX_Comm_shrink, which has no
  // non-blocking form in Open MPI 5.0.7 and starts once the agreement before it says that every
  // live member has entered the repair. nullopt while under way, then what repair_comm returns.
  std::optional<absl::StatusOr<coll::Comm>> test();
  // test() until the repair ends (the pace of the protocol's waits, coll::kControlPace).
  absl::StatusOr<coll::Comm> wait();

 private:
  enum class Step { kPresent, kShrunk, kUsable };
  // Starts the agreement of `step` over `comm` on `flag`.
  void agree(Step step, MPI_Comm comm, int flag);
  // This attempt's communicator did not form or failed again (`why`): shrink again (nullopt), or
  // give up after max_attempts. Again current_ when not every survivor got next_ (uniform: the
  // agreement said so), else next_.
  std::optional<absl::StatusOr<coll::Comm>> retry(absl::Status why, bool everybody_has_next);

  RepairOptions options_;
  MPI_Comm current_;   // the communicator being repaired: `broken`, or shrunk_
  coll::Comm shrunk_;  // the last shrink that failed again (retries repair it)
  coll::Comm next_;    // this attempt's shrink
  Step step_ = Step::kPresent;
  int attempt_ = 0;
  absl::Status last_;  // why the last attempt failed
  MPI_Request req_ = MPI_REQUEST_NULL;
  absl::Status posted_;  // an error starting the agreement: its outcome
  std::unique_ptr<int> flag_ = std::make_unique<int>(1);  // the agreement's; MPI writes it
  coll::Clock::time_point deadline_;
};

// COLLECTIVE over the survivors of `broken`, blocking. Revokes `broken` (idempotent), and returns
// a new communicator of the survivors, ranks renumbered in the old order, with MPI_ERRORS_RETURN.
// `broken` is left to the caller (it is still needed to tell who died: see failed_ranks()).
// Errors: Aborted when max_attempts shrinks all saw new failures, DeadlineExceeded on an
// agreement that timed out (the caller should give up on the job: its last durable checkpoint).
absl::StatusOr<coll::Comm> repair_comm(const coll::Comm& broken, const RepairOptions& options = {});

// LOCAL. The ranks of `before` that are not in `after` (ascending).
std::vector<int> missing_ranks(MPI_Comm before, MPI_Comm after);

}  // namespace elastic::rt
