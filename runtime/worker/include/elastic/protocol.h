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
// controller broadcasts a Header on J and all members of J carry out that directive together:
//   kSpawn   MPI_Comm_spawn on J, root = controller (one node's ranks), then merge (new ranks
//            last). The new ranks merge with their parent intercommunicator and enter follow().
//   kLeave   `count` J ranks (broadcast next) leave: MPI_Comm_split; leavers drop out of follow(),
//            free their communicators and MPI_Finalize (never disconnect: pitfall 3).
//   kResume  split J into C; back to training (state sync from C rank 0).
//   kStop    the job is over (done or cancelled): ranks return from follow() and exit.
// Failure. A rank that sees a process failure revokes C and J; the controller sees the revoke (or
// the failure) on J. Everybody then runs repair_comm(J) (ULFM shrink + agree) and enters follow().
//
// Progress. The leader sends a Progress record (kTagProgress) at most every progress period, and
// kTagDone with an exit code when the job's loop has finished; the controller answers with kStop.
// A rank that ends with a non-zero code outside that flow (Session::exit(code != 0)) first sends
// kTagExit {code, J rank}: the controller marks the job failed with that reason (a rank that
// finalized is not a "failed process" to ULFM, so nothing else would tell it).
//
// Spawn environment (set by the controller, read by Session::init): ELASTIC_JOB_ID,
// ELASTIC_FAKE_NODE (one-machine harness: the node label), ELASTIC_STDOUT / ELASTIC_STDERR (files
// the rank appends its output to: jobs/<id>/stdout, stderr in the state dir).
#pragma once

#include <array>
#include <cstdint>

namespace elastic::rt::proto {

inline constexpr int kTagOrder = 0x4501;
inline constexpr int kTagProgress = 0x4502;
inline constexpr int kTagDone = 0x4503;
inline constexpr int kTagExit = 0x4504;  // 2 ints: exit code, J rank

// Orders the controller sends to the leader (one int).
inline constexpr int kOrderFollow = 1;

enum class Directive : int { kSpawn = 1, kLeave = 2, kResume = 3, kStop = 4 };

// Broadcast on J by the controller as kHeaderInts ints.
struct Header {
  Directive directive = Directive::kResume;
  int count = 0;       // kLeave: number of J ranks listed in the following broadcast
  int generation = 0;  // membership generation after this directive (for logs and tests)
  int reason = 0;      // 0 = plan, 1 = repair after failure, 2 = start
};
inline constexpr int kHeaderInts = 4;
inline std::array<int, kHeaderInts> encode(const Header& h) {
  return {static_cast<int>(h.directive), h.count, h.generation, h.reason};
}
inline Header decode(const std::array<int, kHeaderInts>& a) {
  return Header{static_cast<Directive>(a[0]), a[1], a[2], a[3]};
}

// kTagProgress payload, kProgressDoubles doubles.
struct Progress {
  double samples_total = 0;  // samples processed by the whole job since it started (this run)
  double samples_per_s = 0;  // over the last period
  double steps = 0;          // steps since start
  double ranks = 0;          // size of C
};
inline constexpr int kProgressDoubles = 4;

}  // namespace elastic::rt::proto
