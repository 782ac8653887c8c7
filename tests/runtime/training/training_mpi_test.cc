// State and Sampler over real MPI ranks: a rank that joins after 100 steps holds bit-identical
// parameters after State::sync, and (ElasticFault, under `mpirun --with-ft ulfm`) a job that
// grows, loses a rank to SIGKILL and shrinks processes every sample of the epoch exactly once in
// its committed state. Memberships are built with plain MPI (split / ULFM shrink), as the run
// loop in runtime/worker does.
#include <mpi.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "../../collectives/mpi_gtest_main.h"
#include "elastic/collectives/factory.h"
#include "elastic/worker/sampler.h"
#include "elastic/worker/state.h"
#include "grow_kill_shrink.h"

namespace elastic::rt {
namespace {

using coll::DataType;
using coll::ReduceOp;
using coll::Tensor;

std::unique_ptr<coll::Communicator> comm_of(MPI_Comm c) {
  auto r = coll::create_communicator(c, coll::Backend::kMpi);
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? std::move(*r) : nullptr;
}

TEST(LateJoiner, BitIdenticalAfterHundredSteps) {
  int wrank = 0, wsize = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  MPI_Comm_size(MPI_COMM_WORLD, &wsize);
  if (wsize < 2) GTEST_SKIP() << "needs 2 ranks";
  const bool joiner = wrank == wsize - 1;

  // Every rank starts from different garbage: only sync can make them equal.
  std::vector<float> w(10007);
  std::vector<double> momentum(w.size());
  for (std::size_t i = 0; i < w.size(); ++i)
    w[i] = static_cast<float>(wrank * 1000 + static_cast<int>(i % 97));
  std::int64_t step = 0;
  Sampler sampler(5000, 16, 11, 0, 1);
  State state;
  ASSERT_TRUE(state.add_buffer("w", std::span<float>(w)).ok());
  ASSERT_TRUE(state.add_buffer("momentum", std::span<double>(momentum)).ok());
  ASSERT_TRUE(state.add_scalar("step", &step).ok());
  ASSERT_TRUE(state.add_object("sampler", &sampler).ok());
  const std::vector<float> initial = w;

  MPI_Comm job = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, joiner ? 1 : 0, wrank, &job);
  if (!joiner) {
    auto comm = comm_of(job);
    ASSERT_NE(comm, nullptr);
    sampler.repartition(comm->rank(), comm->size());
    ASSERT_TRUE(state.commit().ok());
    ASSERT_TRUE(state.sync(*comm, 0).ok());  // the job's initial agreement
    std::vector<float> grad(w.size());
    for (; step < 100;) {
      const auto ids = sampler.batch();
      for (std::size_t i = 0; i < grad.size(); ++i) {
        grad[i] = std::sin(0.37f * static_cast<float>(step) + 0.01f * static_cast<float>(i) +
                           static_cast<float>(comm->rank())) +
                  static_cast<float>(ids.empty() ? 0 : ids[0] % 5);
      }
      ASSERT_TRUE(
          comm->allreduce(Tensor{grad.data(), grad.size(), DataType::kFloat32}, ReduceOp::kAverage)
              .ok());
      for (std::size_t i = 0; i < w.size(); ++i) {
        momentum[i] = 0.9 * momentum[i] + grad[i];
        w[i] -= static_cast<float>(0.01 * momentum[i]);
      }
      sampler.advance();
      ++step;
      ASSERT_TRUE(state.commit().ok());
    }
  }
  MPI_Comm_free(&job);

  // The joiner arrives: one new membership over everyone; the run loop syncs before any step.
  auto comm = comm_of(MPI_COMM_WORLD);
  ASSERT_NE(comm, nullptr);
  if (joiner) {
    ASSERT_FALSE(state.has_commit());
  }
  ASSERT_TRUE(state.sync(*comm, 0).ok());
  sampler.repartition(comm->rank(), comm->size());

  std::vector<float> ref = w;
  std::vector<double> ref_m = momentum;
  MPI_Bcast(ref.data(), static_cast<int>(ref.size()), MPI_FLOAT, 0, MPI_COMM_WORLD);
  MPI_Bcast(ref_m.data(), static_cast<int>(ref_m.size()), MPI_DOUBLE, 0, MPI_COMM_WORLD);
  EXPECT_EQ(std::memcmp(ref.data(), w.data(), w.size() * sizeof(float)), 0)
      << "parameters differ bitwise";
  EXPECT_EQ(std::memcmp(ref_m.data(), momentum.data(), momentum.size() * sizeof(double)), 0);
  EXPECT_EQ(step, 100);
  EXPECT_EQ(sampler.world_size(), wsize);
  if (joiner) {
    EXPECT_NE(w, initial);
  }
  EXPECT_EQ(state.commits(), 101u);  // the root's commit count travels too
  if (joiner) {
    EXPECT_EQ(state.last_sync_bytes(), state.snapshot_bytes());
  }
}

// sync() sends the snapshot only when a rank lacks root's commit, and still restores everywhere.
TEST(StateSync, SendsOnlyToRanksThatLackRootsCommit) {
  int wrank = 0, wsize = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  MPI_Comm_size(MPI_COMM_WORLD, &wsize);
  if (wsize < 2) GTEST_SKIP() << "needs 2 ranks";
  auto comm = comm_of(MPI_COMM_WORLD);
  ASSERT_NE(comm, nullptr);
  std::vector<float> w(4099);
  for (std::size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(i) * 0.5f;
  const std::vector<float> committed = w;
  State state;
  ASSERT_TRUE(state.add_buffer("w", std::span<float>(w)).ok());
  ASSERT_TRUE(state.commit().ok());

  // Every rank holds root's commit; live values that moved past it are rolled back, locally.
  w[7] = static_cast<float>(100 + wrank);
  ASSERT_TRUE(state.sync(*comm, 0).ok());
  EXPECT_EQ(state.last_sync_bytes(), 0u);
  EXPECT_EQ(w, committed);

  // The last rank commits other values under the same commit count: the CRC tells, and it
  // alone needed the copy, which it receives bit for bit.
  const bool odd = wrank == wsize - 1;
  if (odd) w[4000] = -1.0f;
  ASSERT_TRUE(state.commit().ok());
  ASSERT_TRUE(state.sync(*comm, 0).ok());
  EXPECT_EQ(std::memcmp(w.data(), committed.data(), w.size() * sizeof(float)), 0);
  EXPECT_EQ(state.commits(), 2u);
  EXPECT_EQ(state.last_sync_bytes(), odd ? state.snapshot_bytes() : 0u);  // nobody else receives
  ASSERT_TRUE(state.sync(*comm, 0).ok());
  EXPECT_EQ(state.last_sync_bytes(), 0u);
}

// The job: counts[i] (in the State, hence rolled back with it) = how often sample i was processed.
TEST(ElasticFault, GrowKillShrinkExactlyOnce) {
  constexpr std::uint64_t kN = 701;
  std::vector<double> counts(kN, 0.0);
  std::int64_t step = 0;
  Sampler sampler(kN, 6, 99, 0, 1);
  State state;
  ASSERT_TRUE(state.add_buffer("counts", std::span<double>(counts)).ok());
  ASSERT_TRUE(state.add_scalar("step", &step).ok());
  ASSERT_TRUE(state.add_object("sampler", &sampler).ok());
  std::unique_ptr<coll::Communicator> comm = fault_script::grow_kill_shrink(
      state, sampler, step, [&](coll::Communicator& c) -> absl::Status {
        std::vector<double> local(kN, 0.0);
        for (std::uint64_t id : sampler.batch()) local[id] += 1.0;
        absl::Status st = c.allreduce(Tensor{local.data(), kN, DataType::kFloat64}, ReduceOp::kSum,
                                      coll::CallOptions{std::chrono::seconds(20)});
        if (st.ok()) {
          for (std::uint64_t i = 0; i < kN; ++i) counts[i] += local[i];
        }
        return st;
      });
  std::uint64_t wrong = 0;
  for (double c : counts) wrong += c == 1.0 ? 0 : 1;
  EXPECT_EQ(wrong, 0u);
  fault_script::report_exactly_once(comm.get(), step, wrong, kN);
}

}  // namespace
}  // namespace elastic::rt

int main(int argc, char** argv) { return run_mpi_gtest(argc, argv); }
