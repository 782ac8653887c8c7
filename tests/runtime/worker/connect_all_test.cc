// proto::connect_all (every member's pid and host name, exchanged with every other member), with
// one rank on each of 3 hosts of the cluster in a box (ULFM):
//   ConnectAll.AMissingMemberIsNamed   rank 2 never takes part; ranks 0 and 1 time out after 1 s
//                                      and the error names rank 2 as the member whose record
//                                      never came, not each other.
#include <mpi.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>

#include "elastic/collectives/bounded_wait.h"
#include "elastic/worker/internal/protocol.h"

namespace elastic::rt::proto {
namespace {

TEST(ConnectAll, AMissingMemberIsNamed) {
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  int me = 0;
  MPI_Comm_rank(comm, &me);
  constexpr int kGaveUpTag = 92;
  if (me == 2) {
    // Stays out until ranks 0 and 1 have given up and said so (over MPI_COMM_WORLD: connect_all
    // uses its own duplicate); its exit before that would be a failure to them, not a silence.
    int gave_up[2] = {0, 0};
    MPI_Request reqs[2];
    for (int r = 0; r < 2; ++r) {
      MPI_Irecv(&gave_up[r], 1, MPI_INT, r, kGaveUpTag, MPI_COMM_WORLD, &reqs[r]);
    }
    ASSERT_TRUE(
        coll::wait_all(reqs, coll::Clock::now() + std::chrono::seconds(60), "gave-up notes").ok());
    return;
  }
  const absl::StatusOr<std::vector<Peer>> peers =
      connect_all(comm, std::chrono::steady_clock::now() + std::chrono::seconds(1));
  int gave_up = 1;
  MPI_Send(&gave_up, 1, MPI_INT, 2, kGaveUpTag, MPI_COMM_WORLD);
  ASSERT_TRUE(absl::IsDeadlineExceeded(peers.status())) << peers.status();
  const std::string message(peers.status().message());
  EXPECT_NE(message.find("at member " + std::to_string(me) + " of 3"), std::string::npos)
      << message;
  EXPECT_NE(message.find("no record from members 2"), std::string::npos) << message;
  EXPECT_EQ(message.find("members 1"), std::string::npos) << message;
  EXPECT_EQ(message.find("members 0"), std::string::npos) << message;
  std::printf("rank %d: %s\n", me, message.c_str());
  std::fflush(stdout);
}

}  // namespace
}  // namespace elastic::rt::proto

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  ::testing::InitGoogleTest(&argc, argv);
  const int rc = RUN_ALL_TESTS();
  std::_Exit(rc);  // the records sent to rank 2 are never received
}
