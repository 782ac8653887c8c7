// The ULFM repair taken step by step (CommRepair, elastic/worker/internal/repair.h), with
// one rank on each of 4 hosts of the cluster in a box (ULFM):
//   CommRepair.GoesOnWhileASurvivorIsAway   rank 3 SIGKILLs itself; rank 1 enters the repair 1 s
//                                           late (a rank in a long step), rank 2 at once with
//                                           repair_comm; rank 0 tests its CommRepair in a loop.
//                                           Rank 0's test() returns "under way" while rank 1 is
//                                           away, then all three hold the same communicator of
//                                           the survivors, without rank 3, and it works.
#include <mpi.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <cstdio>
#include <optional>
#include <thread>
#include <vector>

#include "elastic/worker/internal/repair.h"

namespace elastic::rt {
namespace {

TEST(CommRepair, GoesOnWhileASurvivorIsAway) {
  coll::Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, comm.out());
  MPI_Comm_set_errhandler(comm.get(), MPI_ERRORS_RETURN);
  const int me = comm.rank();
  ASSERT_EQ(4, comm.size());
  if (me == 3) raise(SIGKILL);
  coll::Comm fixed;
  if (me == 0) {
    CommRepair repair(comm, RepairOptions{});
    int under_way = 0;
    std::optional<absl::StatusOr<coll::Comm>> done;
    while (!(done = repair.test())) {
      ++under_way;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    ASSERT_TRUE(done->ok()) << done->status();
    fixed = **std::move(done);
    EXPECT_GT(under_way, 0) << "test() waited for rank 1 instead of returning";
    std::printf("rank 0: under way at %d tests\n", under_way);
    std::fflush(stdout);
  } else {
    if (me == 1) std::this_thread::sleep_for(std::chrono::seconds(1));
    absl::StatusOr<coll::Comm> r = repair_comm(comm);
    ASSERT_TRUE(r.ok()) << r.status();
    fixed = *std::move(r);
  }
  EXPECT_EQ(3, fixed.size());
  EXPECT_EQ(std::vector<int>{3}, missing_ranks(comm.get(), fixed.get()));
  int sum = me + 1;
  ASSERT_EQ(MPI_SUCCESS, MPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPI_INT, MPI_SUM, fixed.get()));
  EXPECT_EQ(6, sum);  // 1 + 2 + 3: ranks 0, 1 and 2
  std::printf("rank %d: repaired, %d members, allreduce %d\n", me, fixed.size(), sum);
  std::fflush(stdout);
}

}  // namespace
}  // namespace elastic::rt
