// The ULFM repair's other paths (repair_comm, elastic/worker/internal/repair.h), one rank on each of
// 4 hosts of the cluster in a box; rank 3 SIGKILLs itself to start each repair. Faults inside the
// repair come from this program's own MPIX_Comm_shrink (shrink_fault.h), so that they happen at a
// fixed step and not at a time:
//   CommRepair.RetriesAFailedShrink      rank 1's first shrink fails (the others' succeeds): the
//                                        survivors retry and all get the 3 survivors.
//   CommRepair.ASecondFailureAtEntry     rank 2 dies as soon as it has entered the repair
//                                        (revoked, first agreement posted): the survivors end
//                                        without ranks 2 and 3, in one attempt or more.
//   CommRepair.ASecondFailureAfterShrink rank 2 dies right after its first shrink (the others hold
//                                        a communicator with a dead member): one retry, the
//                                        survivors end without ranks 2 and 3.
//   CommRepair.GivesUpAfterMaxAttempts   the same with max_attempts = 1: Aborted.
//   CommRepair.TimesOutWithoutAMember    rank 2 is alive but never enters the repair (it waits
//                                        until ranks 0 and 1 have given up): DeadlineExceeded.
// Each survivor then sends rank 0 whether its part passed (a side communicator that is never
// revoked); rank 0 prints "<test> PASSED by all N survivors" only when all did. A survivor's own
// failures also show as "[  FAILED  ]".
#include <mpi.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "elastic/collectives/bounded_wait.h"
#include "elastic/worker/internal/repair.h"
#include "shrink_fault.h"

namespace elastic::rt {
namespace {

constexpr int kVerdictTag = 71;
constexpr int kDoneTag = 72;
// Bounds the messages between the survivors (the repairs themselves are bounded by their options).
constexpr std::chrono::seconds kExchange{60};

// The communicator that is repaired, and a side one between the same ranks that is never revoked:
// point-to-point between live ranks works there after a failure.
struct Job {
  coll::Comm comm;
  coll::Comm side;
  int me = -1;
};

Job start() {
  Job job;
  MPI_Comm_dup(MPI_COMM_WORLD, job.comm.out());
  MPI_Comm_set_errhandler(job.comm.get(), MPI_ERRORS_RETURN);
  MPI_Comm_dup(MPI_COMM_WORLD, job.side.out());
  MPI_Comm_set_errhandler(job.side.get(), MPI_ERRORS_RETURN);
  job.me = job.comm.rank();
  return job;
}

coll::Clock::time_point exchange_deadline() { return coll::Clock::now() + kExchange; }

// Every survivor (`survivors`, rank 0 among them) tells rank 0 whether its part of the test
// passed; rank 0 prints "<test> PASSED by all N survivors" once all said so. Synchronous sends: a
// survivor exits only once it has been heard.
void report(const Job& job, const std::vector<int>& survivors) {
  int ok = ::testing::Test::HasFailure() ? 0 : 1;
  if (job.me != 0) {
    MPI_Request req = MPI_REQUEST_NULL;
    MPI_Issend(&ok, 1, MPI_INT, 0, kVerdictTag, job.side.get(), &req);
    const absl::Status st = coll::wait(req, exchange_deadline(), "verdict", coll::kControlPace);
    EXPECT_TRUE(st.ok()) << "rank " << job.me << ": " << st;
    return;
  }
  std::vector<int> verdicts(survivors.size(), 0);
  std::vector<MPI_Request> reqs(survivors.size(), MPI_REQUEST_NULL);
  for (std::size_t i = 0; i < survivors.size(); ++i) {
    if (survivors[i] == 0) {
      verdicts[i] = ok;
    } else {
      MPI_Irecv(&verdicts[i], 1, MPI_INT, survivors[i], kVerdictTag, job.side.get(), &reqs[i]);
    }
  }
  const absl::Status st = coll::wait_all(reqs, exchange_deadline(), "verdicts", coll::kControlPace);
  ASSERT_TRUE(st.ok()) << st;
  bool all = true;
  for (std::size_t i = 0; i < survivors.size(); ++i) {
    if (verdicts[i] == 0) {
      all = false;
      ADD_FAILURE() << "rank " << survivors[i] << " failed its part";
    }
  }
  if (all) {
    std::printf("%s PASSED by all %zu survivors\n",
                ::testing::UnitTest::GetInstance()->current_test_info()->name(), survivors.size());
  }
  std::fflush(stdout);
}

// The survivors of ranks `missing` repair the communicator and use what they get.
void expect_repaired(const Job& job, const RepairOptions& options,
                     const std::vector<int>& missing) {
  absl::StatusOr<coll::Comm> fixed = repair_comm(job.comm, options);
  ASSERT_TRUE(fixed.ok()) << "rank " << job.me << ": " << fixed.status();
  EXPECT_EQ(4 - static_cast<int>(missing.size()), fixed->size());
  EXPECT_EQ(missing, missing_ranks(job.comm.get(), fixed->get()));
  int expected = 0;
  for (int r = 0; r < 4; ++r) {
    if (std::find(missing.begin(), missing.end(), r) == missing.end()) expected += r + 1;
  }
  int sum = job.me + 1;
  ASSERT_EQ(MPI_SUCCESS, MPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPI_INT, MPI_SUM, fixed->get()));
  EXPECT_EQ(expected, sum);
  std::printf("rank %d: repaired after %d shrinks, %d members, allreduce %d\n", job.me,
              shrink_calls(), fixed->size(), sum);
  std::fflush(stdout);
}

RepairOptions with(int max_attempts, std::chrono::milliseconds agree_timeout) {
  RepairOptions options;
  options.max_attempts = max_attempts;
  options.agree_timeout = agree_timeout;
  return options;
}

TEST(CommRepair, RetriesAFailedShrink) {
  Job job = start();
  ASSERT_EQ(4, job.comm.size());
  shrink_fault().fail_first_on_rank = 1;
  if (job.me == 3) raise(SIGKILL);
  // Before the fix, rank 1 asked "did everybody get it?" over the old communicator and ranks 0
  // and 2 over the new one: all three waited out agree_timeout (DeadlineExceeded).
  expect_repaired(job, with(5, std::chrono::seconds(5)), {3});
  EXPECT_EQ(2, shrink_calls()) << "rank " << job.me << ": one failed shrink, one retry";
  report(job, {0, 1, 2});
}

TEST(CommRepair, ASecondFailureAtEntry) {
  Job job = start();
  ASSERT_EQ(4, job.comm.size());
  if (job.me == 3) raise(SIGKILL);
  const RepairOptions options = with(5, std::chrono::seconds(20));
  if (job.me == 2) {
    CommRepair repair(job.comm, options);  // revoked, its first agreement posted
    raise(SIGKILL);
  }
  expect_repaired(job, options, {2, 3});
  report(job, {0, 1});
}

TEST(CommRepair, ASecondFailureAfterShrink) {
  Job job = start();
  ASSERT_EQ(4, job.comm.size());
  shrink_fault().die_after_first_on_rank = 2;
  if (job.me == 3) raise(SIGKILL);
  expect_repaired(job, with(5, std::chrono::seconds(20)), {2, 3});
  EXPECT_EQ(2, shrink_calls()) << "rank " << job.me << ": the first shrink kept rank 2";
  report(job, {0, 1});
}

TEST(CommRepair, GivesUpAfterMaxAttempts) {
  Job job = start();
  ASSERT_EQ(4, job.comm.size());
  shrink_fault().die_after_first_on_rank = 2;
  if (job.me == 3) raise(SIGKILL);
  const absl::StatusOr<coll::Comm> fixed = repair_comm(job.comm, with(1, std::chrono::seconds(20)));
  EXPECT_TRUE(absl::IsAborted(fixed.status())) << "rank " << job.me << ": " << fixed.status();
  EXPECT_EQ(1, shrink_calls()) << "rank " << job.me;
  std::printf("rank %d: %s\n", job.me, fixed.status().ToString().c_str());
  std::fflush(stdout);
  report(job, {0, 1});
}

TEST(CommRepair, TimesOutWithoutAMember) {
  Job job = start();
  ASSERT_EQ(4, job.comm.size());
  if (job.me == 3) raise(SIGKILL);
  if (job.me == 2) {
    // Alive, but elsewhere: it never enters the repair, and stays alive (its exit would be a
    // failure, which completes the agreement) until ranks 0 and 1 have given up.
    int done[2] = {0, 0};
    MPI_Request reqs[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    for (int r = 0; r < 2; ++r) {
      MPI_Irecv(&done[r], 1, MPI_INT, r, kDoneTag, job.side.get(), &reqs[r]);
    }
    const absl::Status st = coll::wait_all(reqs, exchange_deadline(), "done", coll::kControlPace);
    EXPECT_TRUE(st.ok()) << st;
  } else {
    const absl::StatusOr<coll::Comm> fixed =
        repair_comm(job.comm, with(5, std::chrono::milliseconds(500)));
    EXPECT_TRUE(absl::IsDeadlineExceeded(fixed.status()))
        << "rank " << job.me << ": " << fixed.status();
    EXPECT_NE(std::string::npos,
              fixed.status().message().find("not every live member joined the repair"))
        << fixed.status();
    EXPECT_EQ(0, shrink_calls()) << "rank " << job.me << ": the shrink would wait for rank 2";
    std::printf("rank %d: %s\n", job.me, fixed.status().ToString().c_str());
    std::fflush(stdout);
    int done = 1;
    MPI_Request req = MPI_REQUEST_NULL;
    MPI_Issend(&done, 1, MPI_INT, 2, kDoneTag, job.side.get(), &req);
    const absl::Status st = coll::wait(req, exchange_deadline(), "done", coll::kControlPace);
    EXPECT_TRUE(st.ok()) << st;
  }
  report(job, {0, 1, 2});
}

}  // namespace
}  // namespace elastic::rt
