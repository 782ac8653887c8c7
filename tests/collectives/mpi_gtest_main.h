// A GoogleTest main for tests launched with mpirun (the MPI suite and the NCCL suite share it):
// every rank runs every test, only rank 0 prints the progress (the other ranks print their failed
// assertions, prefixed with their rank), and the exit code is the worst over all ranks:
// 1 when any rank failed, 77 (ctest SKIP_RETURN_CODE) when every test was skipped on every rank,
// else 0.
#pragma once

#include <mpi.h>
#include <gtest/gtest.h>

#include <array>
#include <cstdio>

// On ranks other than 0: each failed assertion with the test's name and the rank. The test is
// taken in OnTestStart: GoogleTest calls OnTestPartResult holding the mutex that
// UnitTest::current_test_info() takes, and asking there deadlocked the rank (its peers then waited
// in their next collective until a deadline).
class RankFailurePrinter : public ::testing::EmptyTestEventListener {
 public:
  explicit RankFailurePrinter(int rank) : rank_(rank) {}
  void OnTestStart(const ::testing::TestInfo& test) override { test_ = &test; }
  void OnTestEnd(const ::testing::TestInfo&) override { test_ = nullptr; }
  void OnTestPartResult(const ::testing::TestPartResult& r) override {
    if (!r.failed()) return;
    std::fprintf(stderr, "[rank %d] FAILED %s.%s at %s:%d\n%s\n", rank_,
                 test_ != nullptr ? test_->test_suite_name() : "?",
                 test_ != nullptr ? test_->name() : "?",
                 r.file_name() != nullptr ? r.file_name() : "?", r.line_number(), r.message());
  }

 private:
  int rank_;
  const ::testing::TestInfo* test_ = nullptr;
};

// `before_finalize` runs on every rank after the tests, before MPI_Finalize (e.g. to release
// communicators that the tests shared).
template <typename F>
int run_mpi_gtest(int argc, char** argv, F&& before_finalize) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &provided);
  ::testing::InitGoogleTest(&argc, argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new RankFailurePrinter(rank));
  }
  const int rc = RUN_ALL_TESTS();
  before_finalize();
  const auto* u = ::testing::UnitTest::GetInstance();
  std::array<int, 2> v{rc != 0 ? 1 : 0, u->successful_test_count() > 0 ? 1 : 0};
  MPI_Allreduce(MPI_IN_PLACE, v.data(), 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  if (v[0] != 0) return 1;
  return v[1] == 0 && u->skipped_test_count() > 0 ? 77 : 0;
}

inline int run_mpi_gtest(int argc, char** argv) {
  return run_mpi_gtest(argc, argv, [] {});
}
