// A grow's warm-up of the state sync's connections (proto::warm_up), with one rank on each of 5
// hosts of the cluster in a box (ULFM), one test per mpirun (--gtest_filter). Ranks 0 and 1 play
// the old ranks (holders), 2..4 the new ones.
//   WarmUp.PairsMatchAcrossRanks      holders that disagree on the size (3 MB and 1 MB) and new
//                                     ranks that know none: every rank returns OK and no warm-up
//                                     message is left unmatched anywhere; with no size known
//                                     nothing moves.
//   WarmUp.ALostPeerIsReported        rank 3 SIGKILLs itself as the warm-up starts; every survivor
//                                     returns Aborted (and revokes, as a grow does), none hangs.
#include <mpi.h>
#include <gtest/gtest.h>
#include <mpi-ext.h>
#include <signal.h>

#include <chrono>
#include <cstdio>
#include <vector>

#include "elastic/worker/internal/protocol.h"

namespace elastic::rt::proto {
namespace {

using Clock = std::chrono::steady_clock;

MPI_Comm world() {
  static MPI_Comm w = [] {
    MPI_Comm c = MPI_COMM_NULL;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    return c;
  }();
  return w;
}

int rank_of(MPI_Comm c) {
  int r = 0;
  MPI_Comm_rank(c, &r);
  return r;
}

// Every rank sends each other rank a marker and then looks at the first message from each: a
// warm-up message that no warm-up received comes before the marker (MPI does not let a message
// overtake an earlier one from the same sender when a probe matches both: any tag), where a probe
// after a barrier could miss one still in flight.
void expect_no_stray_message(int me, int size) {
  constexpr int kMarkerTag = 4242;
  std::vector<MPI_Request> sends;
  for (int r = 0; r < size; ++r) {
    if (r == me) continue;
    MPI_Isend(nullptr, 0, MPI_BYTE, r, kMarkerTag, world(), &sends.emplace_back(MPI_REQUEST_NULL));
  }
  for (int r = 0; r < size; ++r) {
    if (r == me) continue;
    MPI_Status st;
    ASSERT_EQ(MPI_SUCCESS, MPI_Probe(r, MPI_ANY_TAG, world(), &st));
    EXPECT_EQ(kMarkerTag, st.MPI_TAG)
        << "an unmatched warm-up message from rank " << r << " reached rank " << me;
    if (st.MPI_TAG == kMarkerTag) {
      MPI_Recv(nullptr, 0, MPI_BYTE, r, kMarkerTag, world(), MPI_STATUS_IGNORE);
    }
  }
  MPI_Waitall(static_cast<int>(sends.size()), sends.data(), MPI_STATUSES_IGNORE);
}

TEST(WarmUp, PairsMatchAcrossRanks) {
  const int me = rank_of(world());
  ASSERT_EQ(5, [] {
    int n = 0;
    MPI_Comm_size(world(), &n);
    return n;
  }());
  WarmUp mine;
  mine.holds = me < 2;
  mine.bytes = me == 0 ? 3u << 20 : me == 1 ? 1u << 20 : 0;
  EXPECT_TRUE(warm_up(world(), mine, Clock::now() + std::chrono::seconds(60)).ok());
  expect_no_stray_message(me, 5);
  // Holders that know no size: nothing moves, and nobody waits for anybody.
  mine.bytes = 0;
  EXPECT_TRUE(warm_up(world(), mine, Clock::now() + std::chrono::seconds(60)).ok());
  expect_no_stray_message(me, 5);
  MPI_Barrier(world());
  if (me == 0) std::printf("WARM-UP PAIRS PASSED\n");
}

TEST(WarmUp, ALostPeerIsReported) {
  const int me = rank_of(world());
  WarmUp mine;
  mine.holds = me < 2;
  mine.bytes = mine.holds ? 4u << 20 : 0;
  if (me == 3) raise(SIGKILL);
  const absl::Status st = warm_up(world(), mine, Clock::now() + std::chrono::seconds(60));
  if (!st.ok()) MPIX_Comm_revoke(world());  // what take_part_in_spawns does with C
  EXPECT_TRUE(absl::IsAborted(st)) << "rank " << me << ": " << st;
  std::printf("rank %d after the loss: %s\n", me, st.ToString().c_str());
  std::fflush(stdout);
}

}  // namespace
}  // namespace elastic::rt::proto
