// The one bounded wait of libelastic. MPI has no timed wait, so a request is tested in a loop
// until it completes or its deadline passes. The collectives wait this way for their messages,
// and the worker and elasticd for the protocol's directives and the ULFM agreements; they differ
// only in the pace of the loop (WaitPace). LOCAL: the waits block the caller up to the deadline.
#pragma once

#include <mpi.h>

#include <chrono>
#include <span>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace elastic::coll {

// The clock of every deadline.
using Clock = std::chrono::steady_clock;

// How a wait spends the time between tests.
struct WaitPace {
  // First the request is tested back to back for this long (with a yield every `batch` tests
  // when Open MPI says the node is oversubscribed, so that the peer we wait for can run) ...
  std::chrono::microseconds spin;
  // ... then `batch` tests, a sleep of this long, and so on.
  std::chrono::microseconds sleep;
  unsigned batch;  // tests between two looks at the clock, >= 1
};

// Collectives: messages are expected within microseconds and libnbc and ob1 progress only inside
// MPI_Test*, so the first 50 ms spin; a longer wait is for a slow or missing peer, not for the
// network, and sleeps 50 us every 256 tests.
inline constexpr WaitPace kCollectivePace{std::chrono::milliseconds(50),
                                          std::chrono::microseconds(50), 256};
// The protocol with elasticd and the ULFM agreements: the peer may be seconds away (a spawn, the
// next step boundary) on cores shared with the training, so each test is followed by a 100 us
// sleep.
inline constexpr WaitPace kControlPace{std::chrono::microseconds(0), std::chrono::microseconds(100),
                                       1};

// Tests `req` until it completes or `deadline` passes. OK when it completed without error; its
// error otherwise, from MPI_Test's return code or the completed request's status
// (elastic/collectives/mpi_check.h: Aborted for a process failure or a revoke, else Internal);
// DeadlineExceeded "<what>: timed out" when the deadline passed: the request is then still
// active, and the caller must revoke the communicator and drain() it.
absl::Status wait(MPI_Request& req, Clock::time_point deadline, const char* what,
                  const WaitPace& pace = kCollectivePace);
// One test of `req`, for a caller that waits in its own loop: true when it completed without
// error, false while it is still active, its error (as wait's) when it failed.
absl::StatusOr<bool> test(MPI_Request& req, const char* what);
// The same for every request of `reqs` (MPI_REQUEST_NULL entries count as done).
absl::Status wait_all(std::span<MPI_Request> reqs, Clock::time_point deadline, const char* what,
                      const WaitPace& pace = kCollectivePace);

// After a revoke: gives an active request a short, bounded time to complete with an error, then
// forgets it (an active collective request cannot be freed; the communicator is dead anyway).
void drain(MPI_Request& req);
void drain(std::span<MPI_Request> reqs);  // one shared 500 ms budget for all of them

}  // namespace elastic::coll
