// The membership script of the exactly-once fault tests (training_mpi_test's ElasticFault and
// elastic::torch's TorchElasticFault), over 4 world ranks under `mpirun --with-ft ulfm`, with
// memberships built by plain MPI (split / ULFM shrink) as the run loop does:
//   start with world ranks 0..2 (rank 3 is an idle node); grow to 4 at step 5; world rank 1 is
//   SIGKILLed at step 9 (after commit 9): the survivors revoke, shrink, restore the last commit and
//   redo; shrink on notice at step 14 (the highest rank leaves); go on with 2 ranks to the end of
//   epoch 0.
// The test supplies the step: it processes sampler.batch() on this rank and reduces over `comm`,
// returning the collectives' status (Aborted/DeadlineExceeded trigger the repair; the step must
// then leave the registered state untouched). After a successful step the script advances the
// sampler, counts the step and commits the State (which must hold the sampler and `step`).
// Returns the last membership's Communicator on the ranks that reach the end of the epoch; the
// leaving rank exits (0) inside, the killed one dies.
#pragma once

#include <mpi.h>
#include <gtest/gtest.h>
#include <mpi-ext.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <functional>
#include <memory>

#include "elastic/collectives/factory.h"
#include "elastic/worker/sampler.h"
#include "elastic/worker/state.h"

namespace elastic::rt::fault_script {

using StepFn = std::function<absl::Status(coll::Communicator& comm)>;

inline std::unique_ptr<coll::Communicator> grow_kill_shrink(State& state, Sampler& sampler,
                                                            std::int64_t& step,
                                                            const StepFn& do_step) {
  int wrank = 0, wsize = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  MPI_Comm_size(MPI_COMM_WORLD, &wsize);
  EXPECT_EQ(wsize, 4) << "run with 4 ranks";
  if (wsize != 4) return nullptr;

  MPI_Comm job = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, wrank == 3 ? MPI_UNDEFINED : 0, wrank, &job);
  std::unique_ptr<coll::Communicator> comm;
  auto new_membership = [&](MPI_Comm c) -> bool {
    auto r = coll::create_communicator(c, coll::Backend::kMpi);
    EXPECT_TRUE(r.ok()) << r.status();
    if (!r.ok()) return false;
    comm = std::move(*r);
    absl::Status st = state.sync(*comm, 0);
    EXPECT_TRUE(st.ok()) << st;
    sampler.repartition(comm->rank(), comm->size());
    return st.ok();
  };
  if (wrank != 3) {
    MPI_Comm_set_errhandler(job, MPI_ERRORS_RETURN);
    if (!state.commit().ok() || !new_membership(job)) return nullptr;
  }
  bool grown = false;
  bool shrunk = false;
  while (sampler.epoch() == 0) {
    if (!grown && (wrank == 3 || step == 5)) {  // rank 3 waits here from the start
      grown = true;
      MPI_Comm merged = MPI_COMM_NULL;
      MPI_Comm_split(MPI_COMM_WORLD, 0, wrank, &merged);
      MPI_Comm_set_errhandler(merged, MPI_ERRORS_RETURN);
      if (job != MPI_COMM_NULL) MPI_Comm_free(&job);
      job = merged;
      if (!new_membership(job)) return nullptr;
      continue;
    }
    if (step == 9 && wrank == 1) raise(SIGKILL);  // a node vanishes mid-step, after commit 9
    if (step == 14 && !shrunk && comm->size() == 3) {
      shrunk = true;  // shrink on notice at a step boundary: the highest rank leaves
      const bool leaving = comm->rank() == comm->size() - 1;
      MPI_Comm rest = MPI_COMM_NULL;
      MPI_Comm_split(job, leaving ? MPI_UNDEFINED : 0, comm->rank(), &rest);
      if (leaving) {
        std::fflush(stdout);
        _exit(0);
      }
      MPI_Comm_set_errhandler(rest, MPI_ERRORS_RETURN);
      job = rest;
      if (!new_membership(job)) return nullptr;
      continue;
    }
    absl::Status st = do_step(*comm);
    if (!st.ok()) {
      // Failure: revoke, shrink (ULFM), roll back to the last commit, re-sync, re-shard.
      EXPECT_TRUE(absl::IsAborted(st) || absl::IsDeadlineExceeded(st)) << st;
      if (!absl::IsAborted(st) && !absl::IsDeadlineExceeded(st)) return nullptr;
      MPIX_Comm_revoke(job);
      MPI_Comm survivors = MPI_COMM_NULL;
      EXPECT_EQ(MPIX_Comm_shrink(job, &survivors), MPI_SUCCESS);
      MPI_Comm_set_errhandler(survivors, MPI_ERRORS_RETURN);
      job = survivors;
      if (!state.restore().ok() || !new_membership(job)) return nullptr;
      continue;
    }
    sampler.advance();
    ++step;
    if (!state.commit().ok()) return nullptr;
  }
  EXPECT_TRUE(shrunk);
  EXPECT_EQ(comm->size(), 2);
  return comm;
}

// The verdict line the ctest registration looks for, printed by the final rank 0; then _exit with
// this rank's result (MPI_Finalize after a failure may hang: docs/runtime.md, Known limitations).
[[noreturn]] inline void report_exactly_once(coll::Communicator* comm, std::int64_t step,
                                             std::uint64_t wrong, std::uint64_t n) {
  if (comm != nullptr && comm->rank() == 0) {
    std::printf(
        "final membership %d ranks after %lld steps; samples not processed exactly once: %llu of "
        "%llu\n",
        comm->size(), static_cast<long long>(step), static_cast<unsigned long long>(wrong),
        static_cast<unsigned long long>(n));
    if (!::testing::Test::HasFailure()) std::printf("EXACTLY ONCE PASSED\n");
  }
  std::fflush(stdout);
  _exit(::testing::Test::HasFailure() ? 1 : 0);
}

}  // namespace elastic::rt::fault_script
