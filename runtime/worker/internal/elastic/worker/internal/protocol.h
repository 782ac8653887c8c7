// The wire protocol between elasticd's controller and a job's ranks. Shared by both sides so that
// tags and layouts are defined once.
//
// Communicators (why they look like this: DESIGN.md pitfalls, docs/runtime.md "Known limitations"):
//   J  the job communicator: the controller (always rank 0) plus every rank of the job. Built by
//      spawn + merge only: the controller is the root of every MPI_Comm_spawn (never a spawned
//      rank), and each spawn call starts the ranks of ONE node, so that the loss of a node cannot
//      take ranks of other nodes with it (Open MPI kills the siblings of a dead rank's spawn call).
//   C  the compute communicator: J without the controller (MPI_Comm_split), renumbered in J order,
//      so rank 0 of C ("the leader") is the oldest surviving rank. Training traffic uses C only.
//
// Orders. The controller sends an int (kTagOrder, point to point on J) to the leader. The leader
// picks it up with MPI_Iprobe at its next step boundary and all ranks learn of it through the
// per-step boundary allreduce on C; then every rank of J enters follow(): a loop in which the
// controller sends a Header to all of J (exchange_ints below) and all members of J carry out that
// directive together:
//   kLeave   `count` J ranks (sent next, also with exchange_ints) leave: MPI_Comm_split;
//            leavers drop out of follow(), free their communicators and MPI_Finalize (never
//            disconnect: pitfall 3).
//   kResume  the ranks form C with MPI_Comm_create_group (the controller takes no part, so it
//            never waits on a compute communicator); back to training (state sync from C rank 0).
//   kStop    the job is over (done or cancelled): ranks return from follow() and exit.
// Grow (and start), without stopping the training for the new processes' start-up:
//   1. The controller sends K, the number of spawns of the grow (kTagSpawns: 1, the new nodes
//      together, or one per node after a spawn of several was refused), to the leader, which takes
//      it at its next step boundary and spreads it with the boundary allreduce. Every rank then
//      starts its part in K spawns (background_spawn.h: a helper thread, with
//      MPI_THREAD_MULTIPLE) and goes on training on C; the leader confirms with K (kTagSpawns).
//      If the job finishes at that boundary, the leader sends kTagDone instead and nothing is
//      spawned.
//   2. For each spawn: MPI_Comm_spawn_multiple on J, root = controller (a command per node), merge
//      (new ranks last), connect_all; the controller then sends the new ranks the number of spawns
//      of this series still to come (kTagSpawns), which they take part in from Session::init. A
//      start spawns from the controller alone and goes on the same way.
//      After the last spawn of the series every rank (not the controller) builds the newest J's C
//      and a duplicate of it (make_compute below: the first operation on a new C is slow, and the
//      run loop takes the duplicate), then warms the connections the state sync will use
//      (warm_up below), old ranks still in the helper thread, new ones from Session::init.
//   3. The ranks count, in the boundary allreduce, those whose part is over; when all are, they
//      switch to the newest J and enter follow(), where the controller's kResume awaits them and
//      they take the C prepared in step 2 instead of building one.
// Every directive is an MPI_Iallreduce(SUM) over J in which only the controller contributes
// non-zero ints, waited for with a deadline: it completes on the controller only once every rank
// of J has entered it, so the blocking call that may follow (split, spawn) starts with everybody
// present. A header carries a magic number and a checksum and is validated by decode(): a rank
// that gets an invalid one (a communication failure that MPI did not report: seen once as an
// all-zero header after libnbc printed "error 75" while MPI_Test said success) revokes J and
// takes the ULFM repair path; it never exits on it.
// Failure. A rank that sees a process failure revokes C and J; the controller sees the revoke (or
// the failure) on J. Everybody then runs repair_comm(J) (ULFM agree + shrink + agree) and enters
// follow().
//
// Progress. The leader sends a Progress record (kTagProgress) at most every progress period, and
// kTagDone with an exit code when the job's loop has finished; the controller answers with kStop.
// A rank that ends with a non-zero code outside that flow (Session::exit(code != 0)) first sends
// kTagExit {code, J rank} (the controller marks the job failed with that reason: a rank that
// finalized is not a "failed process" to ULFM, so nothing else would tell it) and revokes C, so
// that its peers do not wait for it; the controller revokes J when it receives kTagExit.
//
// Spawn environment (set by the controller, read by Session::init): ELASTIC_JOB_ID,
// ELASTIC_FAKE_NODE (one-machine harness: the node label), ELASTIC_STDOUT / ELASTIC_STDERR (files
// the rank appends its output to: jobs/<id>/stdout, stderr in the state dir).
#pragma once

#include <mpi.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "elastic/collectives/comm.h"

namespace elastic::rt::proto {

inline constexpr int kTagOrder = 0x4501;
inline constexpr int kTagProgress = 0x4502;
inline constexpr int kTagDone = 0x4503;
inline constexpr int kTagExit = 0x4504;     // 2 ints: exit code, J rank
inline constexpr int kTagCompute = 0x4505;  // MPI_Comm_create_group of C (ranks only)
inline constexpr int kTagConnect = 0x4506;  // connect_all()
inline constexpr int kTagSpawns = 0x4507;   // one int: spawns of a grow (see "Grow" above)
inline constexpr int kTagWarmUp = 0x4508;   // warm_up() transfers, on the new C
inline constexpr int kMaxSpawns = 1024;     // nodes one grow may add (spawns of a series)

// Orders the controller sends to the leader (one int).
inline constexpr int kOrderFollow = 1;

enum class Directive : int { kLeave = 2, kResume = 3, kStop = 4 };
// Why the membership changes (a kResume after a grow or shrink, a repair, or the start).
enum class Reason : int { kPlan = 0, kRepair = 1, kStart = 2 };

// Sent to all of J by the controller as kHeaderInts ints: {kMagic, directive, count, generation,
// reason, list_sum, checksum}, every value >= 0 (the SUM exchange adds the ranks' zeros).
struct Header {
  Directive directive = Directive::kResume;
  int count = 0;       // kLeave: number of J ranks listed in the following exchange
  int generation = 0;  // membership generation after this directive (for logs and tests)
  Reason reason = Reason::kPlan;
  int list_sum = 0;  // kLeave: list_checksum() of the list that follows
};
inline constexpr int kMagic = 0x454c4153;  // "ELAS"
inline constexpr int kHeaderInts = 7;
using RawHeader = std::array<int, kHeaderInts>;

// LOCAL. Non-negative 31-bit checksum of `values`, never 0 for a header (the magic is included).
int checksum(std::span<const int> values);
inline int list_checksum(std::span<const int> ranks) { return checksum(ranks); }

RawHeader encode(const Header& h);
// LOCAL. Validates magic, checksum and ranges against the size of J (controller included).
// Aborted (a communication failure: repair J) when anything is off, naming what.
absl::StatusOr<Header> decode(const RawHeader& raw, int job_size);
// LOCAL. A kLeave list: `count` ascending J ranks in [1, job_size), matching the header's list_sum.
absl::Status validate_leaving(std::span<const int> ranks, const Header& h, int job_size);

// COLLECTIVE over J, bounded. The controller (`root`) sends `data`; every other member receives it
// (MPI_Iallreduce SUM; receivers' input is zeroed here). Completes on the root only once every
// member has entered. Checks MPI_Test's return code and the status's MPI_ERROR. On a failure or
// timeout the request may still be pending: the caller must revoke `comm` (that completes it).
// Errors: Aborted (process failure / revoked), DeadlineExceeded, Internal (other MPI errors).
absl::Status exchange_ints(std::span<int> data, bool root, MPI_Comm comm,
                           std::chrono::steady_clock::time_point deadline, const char* what);

// COLLECTIVE over J, bounded: one int to and from every other member (kTagConnect), so that every
// pair of members has a transport endpoint. Called by everybody right after a spawn + merge. Why:
// Open MPI creates endpoints lazily, and ULFM's revoke (a reliable broadcast over a binomial
// graph) that needs a new endpoint after a failure blocked forever in PMIx_Get for the peer's
// connection data (bench/runtime, 8 ranks, 4 of them SIGKILLed). What each member sends is its
// process id and host name: the result holds every member's by rank (the caller's own included).
// The controller uses the pid to see a leaving rank's process exit before it reports the node
// released, and the host to check (and report) that each rank runs on the node it was placed on.
// Errors as for exchange_ints.
struct Peer {
  int pid = 0;
  std::string host;  // gethostname(), at most kPeerHostChars characters
};
inline constexpr std::size_t kPeerHostChars = 63;
absl::StatusOr<std::vector<Peer>> connect_all(MPI_Comm comm,
                                              std::chrono::steady_clock::time_point deadline);

// COLLECTIVE over the ranks of J (not the controller), blocking: C = J without the controller
// (J rank 0), in J order, by MPI_Comm_create_group. With `duplicate`, also MPI_Comm_idup of C
// into it, bounded by `deadline`: a grow does this in its helper thread before the switch
// (session.h, prepared C), because the first operation on a new C cost 90-110 ms at 8 hosts on
// the box whatever it was, and the run loop's private communicator (Session::take_duplicate)
// then needs no dup at the switch (10-18 ms there). Errors: Aborted (a process failed),
// DeadlineExceeded, Internal.
absl::Status make_compute(MPI_Comm job, coll::Comm& compute, coll::Comm* duplicate,
                          std::chrono::steady_clock::time_point deadline);

// What a rank brings to a grow's warm-up (warm_up below).
struct WarmUp {
  bool holds = false;       // an old rank: it holds the state that the new ranks will receive
  std::uint64_t bytes = 0;  // how much to send (Session: the state's size, capped); 0: nothing
};
// At most this much goes over each connection in a warm-up (one MPI message).
inline constexpr std::uint64_t kWarmUpMaxBytes = std::uint64_t{1} << 30;

// COLLECTIVE over C, blocking, bounded by `deadline`: a grow's last step before the switch. The
// ranks learn who holds the state and its size (the largest `bytes` of a holder, at most
// kWarmUpMaxBytes), then every transfer of the state sync that will follow the switch
// (State::sync: Communicator::spread with the old ranks as holders, coll::spread_plan) is made
// once with that many bytes of zeros. The sync then finds its connections warm: over a
// connection that had carried only connect_all's records, the first 4 MB took 44 ms at 8 hosts on
// the box, on a warm one 6-18 ms (TCP slow start). Nothing moves when no holder knows its size
// or every rank holds the state. Errors: Aborted (a process failed), DeadlineExceeded, Internal.
absl::Status warm_up(MPI_Comm compute, WarmUp me, std::chrono::steady_clock::time_point deadline);

// kTagProgress payload, kProgressDoubles doubles.
struct Progress {
  double samples_total = 0;  // samples processed by the whole job since it started (this run)
  double samples_per_s = 0;  // over the last period
  double steps = 0;          // steps since start
  double ranks = 0;          // size of C
  double step_s = 0;  // mean seconds per step since the last report or directive (0: none yet)
};
inline constexpr int kProgressDoubles = 5;

}  // namespace elastic::rt::proto
