// Collectives over real MPI ranks (run by ctest under mpirun with 1..8 ranks): allreduce for every
// dtype and op against an exact oracle, sizes 0, 1, primes (and 64 MiB in the *Large* test),
// fusion bit-equal to unfused, broadcast from every root, spread (its plan, and the data from
// several holder patterns), barrier, timeouts that break the communicator, and (FaultTest,
// SpreadFault, under ULFM with one rank per host of the cluster in a box) a killed rank.
#include <mpi.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "elastic/collectives/bounded_wait.h"
#include "elastic/collectives/comm.h"
#include "elastic/collectives/factory.h"
#include "elastic/collectives/fusion.h"
#include "elastic/collectives/half.h"
#include "elastic/collectives/spread_plan.h"
#include "mpi_gtest_main.h"
#include "typed_values.h"

namespace elastic::coll {
namespace {

using std::chrono::milliseconds;

std::unique_ptr<Communicator> make_comm(MPI_Comm base = MPI_COMM_WORLD) {
  auto c = create_communicator(base, Backend::kMpi, CreateOptions{std::chrono::seconds(60)});
  EXPECT_TRUE(c.ok()) << c.status();
  return c.ok() ? std::move(*c) : nullptr;
}

double rel_eps(DataType t) {
  switch (t) {
    case DataType::kFloat32:
      return 1e-6;
    case DataType::kFloat64:
      return 1e-14;
    case DataType::kBFloat16:
      return 1.0 / 128;
    case DataType::kFloat16:
      return 1.0 / 1024;
  }
  return 0;
}

void check_allreduce(Communicator& comm, DataType t, ReduceOp op, std::size_t n) {
  std::vector<double> mine(n);
  for (std::size_t i = 0; i < n; ++i) mine[i] = value(comm.rank(), i);
  std::vector<std::byte> buf = encode(mine, t);
  ASSERT_TRUE(comm.allreduce(Tensor{buf.data(), n, t}, op).ok());
  std::size_t bad = 0;
  for (std::size_t i = 0; i < n; ++i) {
    double sum = 0;
    for (int r = 0; r < comm.size(); ++r) sum += value(r, i);
    const double got = decode(buf, t, i);
    if (op == ReduceOp::kSum) {
      if (got != sum) ++bad;
    } else {
      const double want = sum / comm.size();
      if (std::abs(got - want) > rel_eps(t) * std::abs(want)) ++bad;
    }
    if (bad == 1 && (op == ReduceOp::kSum ? got != sum : true)) {
      ADD_FAILURE() << dtype_name(t) << " n=" << n << " i=" << i << " got " << got << " sum "
                    << sum;
      return;
    }
  }
  EXPECT_EQ(bad, 0u);
}

class AllreduceTest : public ::testing::TestWithParam<std::tuple<DataType, ReduceOp>> {};

TEST_P(AllreduceTest, SizesZeroOnePrimes) {
  auto comm = make_comm();
  ASSERT_NE(comm, nullptr);
  const auto [t, op] = GetParam();
  for (std::size_t n : {0ul, 1ul, 2ul, 3ul, 7ul, 13ul, 127ul, 1021ul, 65537ul, 1000003ul}) {
    SCOPED_TRACE(n);
    check_allreduce(*comm, t, op, n);
  }
}

INSTANTIATE_TEST_SUITE_P(
    AllTypes, AllreduceTest,
    ::testing::Combine(::testing::Values(DataType::kFloat32, DataType::kFloat64,
                                         DataType::kBFloat16, DataType::kFloat16),
                       ::testing::Values(ReduceOp::kSum, ReduceOp::kAverage)),
    [](const ::testing::TestParamInfo<AllreduceTest::ParamType>& p) {
      return std::string(dtype_name(std::get<0>(p.param))) +
             (std::get<1>(p.param) == ReduceOp::kSum ? "_sum" : "_average");
    });

TEST(AllreduceLarge, SixtyFourMiBEveryDtype) {
  auto comm = make_comm();
  ASSERT_NE(comm, nullptr);
  for (DataType t :
       {DataType::kFloat32, DataType::kFloat64, DataType::kBFloat16, DataType::kFloat16}) {
    SCOPED_TRACE(std::string(dtype_name(t)));
    const std::size_t n = (std::size_t{64} << 20) / dtype_size(t);
    check_allreduce(*comm, t, ReduceOp::kSum, n);
    check_allreduce(*comm, t, ReduceOp::kAverage, n);
  }
}

// Noise-like values in [-3, 3) that any rank can compute for any rank: sums of them round.
double noisy(int rank, std::size_t i) {
  std::uint64_t z = (static_cast<std::uint64_t>(rank) << 40) + i + 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) * 0x1p-53 * 6.0 - 3.0;
}

// a + b in the arithmetic of `t`, on encoded elements (bf16/fp16 through float32, rounded once).
void add_encoded(std::byte* a, const std::byte* b, DataType t) {
  switch (t) {
    case DataType::kFloat32: {
      float x, y;
      std::memcpy(&x, a, 4);
      std::memcpy(&y, b, 4);
      x += y;
      std::memcpy(a, &x, 4);
      break;
    }
    case DataType::kFloat64: {
      double x, y;
      std::memcpy(&x, a, 8);
      std::memcpy(&y, b, 8);
      x += y;
      std::memcpy(a, &x, 8);
      break;
    }
    case DataType::kBFloat16: {
      std::uint16_t x, y;
      std::memcpy(&x, a, 2);
      std::memcpy(&y, b, 2);
      x = float_to_bf16(bf16_to_float(x) + bf16_to_float(y));
      std::memcpy(a, &x, 2);
      break;
    }
    case DataType::kFloat16: {
      std::uint16_t x, y;
      std::memcpy(&x, a, 2);
      std::memcpy(&y, b, 2);
      x = float_to_fp16(fp16_to_float(x) + fp16_to_float(y));
      std::memcpy(a, &x, 2);
      break;
    }
  }
}

// The MPI backend sums every element in rank order, ((x0 + x1) + x2) + ..., wherever the element
// sits (collectives/mpi/allreduce_ordered.h); the oracle does the same additions one by one, so
// the result must match bit for bit, for counts that leave blocks empty (n < ranks), that split
// blocks into several pipelined segments, on both paths (every rank folds whole buffers up to
// 2 KiB, else reduce-scatter + allgather), and for every dtype.
TEST(AllreduceOrdered, RankOrderBitExact) {
  auto comm = make_comm();
  ASSERT_NE(comm, nullptr);
  for (DataType t :
       {DataType::kFloat32, DataType::kFloat64, DataType::kBFloat16, DataType::kFloat16}) {
    for (std::size_t n :
         {0ul, 1ul, 2ul, 5ul, 13ul, 257ul, 8191ul, 262147ul, 1000003ul, 3000017ul}) {
      SCOPED_TRACE(std::string(dtype_name(t)) + " n=" + std::to_string(n));
      auto values = [&](int r) {
        std::vector<double> v(n);
        for (std::size_t i = 0; i < n; ++i) v[i] = noisy(r, i);
        return encode(v, t);
      };
      std::vector<std::byte> want = values(0);
      for (int r = 1; r < comm->size(); ++r) {
        const std::vector<std::byte> x = values(r);
        for (std::size_t i = 0; i < n; ++i)
          add_encoded(&want[i * dtype_size(t)], &x[i * dtype_size(t)], t);
      }
      std::vector<std::byte> got = values(comm->rank());
      ASSERT_TRUE(comm->allreduce(Tensor{got.data(), n, t}, ReduceOp::kSum).ok());
      std::size_t first_bad = n;
      for (std::size_t i = 0; i < n && first_bad == n; ++i) {
        if (std::memcmp(&got[i * dtype_size(t)], &want[i * dtype_size(t)], dtype_size(t)) != 0)
          first_bad = i;
      }
      EXPECT_EQ(first_bad, n) << "first differing element";
    }
  }
}

// Fused buffers of several MiB cross block and segment boundaries at other offsets than the
// tensors alone do: the result must still equal the unfused one bit for bit, at any rank count.
TEST(Fusion, LargeTensorsEqualUnfusedBitwise) {
  auto comm = make_comm();
  ASSERT_NE(comm, nullptr);
  const DataType types[] = {DataType::kFloat32, DataType::kFloat64, DataType::kBFloat16,
                            DataType::kFloat16};
  const std::size_t sizes[] = {100003, 7, 262147, 65521, 1};
  std::vector<std::vector<std::byte>> a, b;
  std::vector<Tensor> ta, tb;
  for (DataType t : types) {
    for (std::size_t k = 0; k < std::size(sizes); ++k) {
      std::vector<double> v(sizes[k]);
      for (std::size_t i = 0; i < v.size(); ++i) v[i] = noisy(comm->rank(), i + 1000 * k);
      a.push_back(encode(v, t));
      b.push_back(a.back());
    }
  }
  std::size_t k = 0;
  for (DataType t : types) {
    for (std::size_t n : sizes) {
      ta.push_back(Tensor{a[k].data(), n, t});
      tb.push_back(Tensor{b[k].data(), n, t});
      ++k;
    }
  }
  for (ReduceOp op : {ReduceOp::kSum, ReduceOp::kAverage}) {
    for (const Tensor& t : ta) ASSERT_TRUE(comm->allreduce(t, op).ok());
    ASSERT_TRUE(allreduce_fused(*comm, tb, op).ok());
    for (std::size_t j = 0; j < a.size(); ++j) EXPECT_EQ(a[j], b[j]) << "tensor " << j;
  }
}

TEST(Fusion, EqualsUnfusedBitwise) {
  auto comm = make_comm();
  ASSERT_NE(comm, nullptr);
  std::mt19937_64 rng(1234 + static_cast<unsigned>(comm->rank()));
  std::uniform_real_distribution<double> dist(-3, 3);
  const DataType types[] = {DataType::kFloat32, DataType::kFloat64, DataType::kBFloat16,
                            DataType::kFloat16};
  const std::size_t sizes[] = {0, 1, 3, 17, 101, 257, 1031, 4099};
  std::vector<std::vector<std::byte>> a, b;
  std::vector<Tensor> ta, tb;
  for (int k = 0; k < 40; ++k) {
    const DataType t = types[k % 4];
    const std::size_t n = sizes[(k * 5) % 8];
    std::vector<double> v(n);
    for (double& x : v) x = dist(rng);
    a.push_back(encode(v, t));
    b.push_back(a.back());
  }
  for (int k = 0; k < 40; ++k) {
    const DataType t = types[k % 4];
    const std::size_t n = sizes[(k * 5) % 8];
    ta.push_back(Tensor{a[static_cast<std::size_t>(k)].data(), n, t});
    tb.push_back(Tensor{b[static_cast<std::size_t>(k)].data(), n, t});
  }
  for (ReduceOp op : {ReduceOp::kSum, ReduceOp::kAverage}) {
    for (const Tensor& t : ta) ASSERT_TRUE(comm->allreduce(t, op).ok());
    // A threshold smaller than the largest tensors exercises both the packed and the alone path.
    FusionOptions fo;
    fo.threshold_bytes = 6000;
    ASSERT_TRUE(allreduce_fused(*comm, tb, op, fo).ok());
    for (std::size_t k = 0; k < a.size(); ++k) EXPECT_EQ(a[k], b[k]) << "tensor " << k;
  }
}

TEST(Broadcast, FromEveryRootBitExact) {
  auto comm = make_comm();
  ASSERT_NE(comm, nullptr);
  for (int root = 0; root < comm->size(); ++root) {
    for (std::size_t n : {0ul, 1ul, 13ul, 100003ul}) {
      std::vector<unsigned char> buf(n);
      for (std::size_t i = 0; i < n; ++i) {
        buf[i] = static_cast<unsigned char>(
            comm->rank() == root ? (i * 31 + static_cast<std::size_t>(root)) : 0xAA);
      }
      ASSERT_TRUE(comm->broadcast(buf.data(), n, root).ok());
      for (std::size_t i = 0; i < n; ++i) {
        ASSERT_EQ(buf[i], static_cast<unsigned char>(i * 31 + static_cast<std::size_t>(root)));
      }
    }
  }
  std::byte x{};
  EXPECT_TRUE(absl::IsInvalidArgument(comm->broadcast(&x, 1, comm->size())));
  EXPECT_TRUE(comm->barrier().ok());
}

// The holds patterns of the spread tests: one holder (first, last), all but one, every other rank,
// the first half, everybody.
std::vector<std::vector<std::uint8_t>> holds_patterns(int size) {
  const auto n = static_cast<std::size_t>(size);
  std::vector<std::vector<std::uint8_t>> out(6, std::vector<std::uint8_t>(n, 0));
  out[0][0] = 1;
  out[1][n - 1] = 1;
  for (std::size_t r = 0; r < n; ++r) {
    out[2][r] = r != n / 2 || n == 1 ? 1 : 0;
    out[3][r] = r % 2 == 0 ? 1 : 0;
    out[4][r] = r < (n + 1) / 2 ? 1 : 0;
    out[5][r] = 1;
  }
  return out;
}

TEST(SpreadPlan, EveryLackingRankReceivesOnceFromAHolderInLogRounds) {
  for (int size = 1; size <= 33; ++size) {
    for (const std::vector<std::uint8_t>& holds : holds_patterns(size)) {
      absl::StatusOr<std::vector<std::vector<Transfer>>> plan = spread_plan(holds, size);
      ASSERT_TRUE(plan.ok()) << plan.status();
      std::vector<std::uint8_t> has = holds;
      std::vector<int> received(holds.size(), 0);
      for (const std::vector<Transfer>& round : *plan) {
        std::vector<int> busy(holds.size(), 0);
        std::vector<std::uint8_t> next = has;
        for (const Transfer& t : round) {
          ASSERT_TRUE(has[static_cast<std::size_t>(t.from)]) << "sender lacks the data";
          ASSERT_FALSE(has[static_cast<std::size_t>(t.to)]) << "receiver holds it already";
          ASSERT_EQ(++busy[static_cast<std::size_t>(t.from)], 1) << "two transfers in a round";
          ASSERT_EQ(++busy[static_cast<std::size_t>(t.to)], 1) << "two transfers in a round";
          ++received[static_cast<std::size_t>(t.to)];
          next[static_cast<std::size_t>(t.to)] = 1;
        }
        has = next;
      }
      int holders = 0;
      for (std::size_t r = 0; r < holds.size(); ++r) {
        EXPECT_EQ(received[r], holds[r] ? 0 : 1) << "rank " << r << " of " << size;
        holders += holds[r] ? 1 : 0;
      }
      // Every round doubles the holders (or serves everybody left).
      const auto rounds = static_cast<std::size_t>(
          std::ceil(std::log2(static_cast<double>(size) / holders) - 1e-9));
      EXPECT_EQ(plan->size(), rounds) << holders << " holders of " << size;
    }
  }
  EXPECT_TRUE(absl::IsInvalidArgument(spread_plan(std::vector<std::uint8_t>{0, 0}, 2).status()));
  EXPECT_TRUE(absl::IsInvalidArgument(spread_plan(std::vector<std::uint8_t>{1}, 2).status()));
}

TEST(Spread, LackingRanksReceiveBitExactHoldersUntouched) {
  auto comm = make_comm();
  ASSERT_NE(comm, nullptr);
  const int rank = comm->rank();
  for (const std::vector<std::uint8_t>& holds : holds_patterns(comm->size())) {
    for (std::size_t n : {0ul, 1ul, 100003ul}) {
      const bool holder = holds[static_cast<std::size_t>(rank)] != 0;
      std::vector<unsigned char> buf(n);
      for (std::size_t i = 0; i < n; ++i) {
        buf[i] = static_cast<unsigned char>(holder ? i * 31 + 7 : 0xAA);
      }
      ASSERT_TRUE(comm->spread(buf.data(), n, holds).ok());
      for (std::size_t i = 0; i < n; ++i) {
        ASSERT_EQ(buf[i], static_cast<unsigned char>(i * 31 + 7)) << "byte " << i;
      }
    }
  }
  std::byte x{};
  const std::vector<std::uint8_t> nobody(static_cast<std::size_t>(comm->size()), 0);
  EXPECT_TRUE(absl::IsInvalidArgument(comm->spread(&x, 1, nobody)));
  EXPECT_TRUE(absl::IsInvalidArgument(comm->spread(&x, 1, std::vector<std::uint8_t>{})));
  EXPECT_TRUE(comm->barrier().ok());
}

// Ranks other than 0 give up after 300 ms and revoke; rank 0 arrives once they all told it so (over
// MPI_COMM_WORLD, which nobody revokes) and must see the revoke. `count` 1 travels eagerly (rank 0
// finds the others' data already there); 4 Mi floats stop the others mid-pipeline with many
// requests active, which they must revoke and drain.
void missing_peer_then_sticky(std::size_t count) {
  constexpr int kGaveUpTag = 91;
  auto comm = make_comm();
  ASSERT_NE(comm, nullptr);
  if (comm->size() < 2) GTEST_SKIP() << "needs 2 ranks";
  std::vector<float> x(count, 1.0f);
  const Tensor t{x.data(), count, DataType::kFloat32};
  if (comm->rank() != 0) {
    const absl::Status st = comm->allreduce(t, ReduceOp::kSum, CallOptions{milliseconds(300)});
    EXPECT_TRUE(absl::IsDeadlineExceeded(st) || absl::IsAborted(st)) << st;
    int gave_up = 1;
    MPI_Send(&gave_up, 1, MPI_INT, 0, kGaveUpTag, MPI_COMM_WORLD);
  } else {
    std::vector<int> gave_up(static_cast<std::size_t>(comm->size()), 0);
    std::vector<MPI_Request> reqs(gave_up.size(), MPI_REQUEST_NULL);
    for (int r = 1; r < comm->size(); ++r) {
      MPI_Irecv(&gave_up[static_cast<std::size_t>(r)], 1, MPI_INT, r, kGaveUpTag, MPI_COMM_WORLD,
                &reqs[static_cast<std::size_t>(r)]);
    }
    ASSERT_TRUE(wait_all(reqs, Clock::now() + std::chrono::seconds(60), "gave-up notes").ok());
    const absl::Status st = comm->allreduce(t, ReduceOp::kSum, CallOptions{milliseconds(5000)});
    EXPECT_TRUE(absl::IsAborted(st)) << "the late rank must see the revoke, got " << st;
  }
  // Sticky: every later call fails at once on every rank.
  EXPECT_TRUE(absl::IsAborted(comm->barrier(CallOptions{milliseconds(5000)})));
  EXPECT_TRUE(absl::IsAborted(comm->health()));
  // The base communicator is untouched: a new membership works.
  auto fresh = make_comm();
  ASSERT_NE(fresh, nullptr);
  EXPECT_TRUE(fresh->barrier().ok());
}

TEST(Timeout, MissingPeerGivesDeadlineExceededThenSticky) { missing_peer_then_sticky(1); }

TEST(Timeout, MissingPeerMidPipelineGivesDeadlineExceededThenSticky) {
  missing_peer_then_sticky(std::size_t{4} << 20);
}

TEST(Factory, HostMemoryPicksMpi) {
  std::vector<float> v(4);
  EXPECT_EQ(memory_kind(v.data()), MemoryKind::kHost);
  EXPECT_TRUE(backend_available(Backend::kMpi));
  auto comm = make_comm();
  ASSERT_NE(comm, nullptr);
  EXPECT_EQ(comm->backend_name(), "mpi");
  EXPECT_EQ(comm->memory(), MemoryKind::kHost);
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  EXPECT_EQ(comm->size(), size);
}

// create_communicator over an owned duplicate (the run loop's, made by a grow before the switch):
// the MPI backend works on that communicator itself, with its rank order, and reduces over it.
TEST(Factory, MpiTakesOverAnOwnedDuplicate) {
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm reversed = MPI_COMM_NULL;  // rank order differs from the world's
  ASSERT_EQ(MPI_Comm_split(MPI_COMM_WORLD, 0, size - 1 - rank, &reversed), MPI_SUCCESS);
  absl::StatusOr<Comm> own = dup(reversed, Clock::now() + std::chrono::seconds(60));
  ASSERT_TRUE(own.ok()) << own.status();
  MPI_Comm_free(&reversed);  // the duplicate lives on its own
  auto comm = create_communicator(*std::move(own), Backend::kMpi);
  ASSERT_TRUE(comm.ok()) << comm.status();
  EXPECT_EQ((*comm)->backend_name(), "mpi");
  EXPECT_EQ((*comm)->rank(), size - 1 - rank);
  EXPECT_EQ((*comm)->size(), size);
  float v = static_cast<float>(rank + 1);
  ASSERT_TRUE((*comm)->allreduce(Tensor{&v, 1, DataType::kFloat32}, ReduceOp::kSum).ok());
  EXPECT_EQ(v, static_cast<float>(size * (size + 1) / 2));
}

// shrink_communicator on host memory: the MPI backend builds the survivors' communicator (here
// without the first rank) and aborts the old one; the survivors then reduce over themselves alone.
TEST(Factory, ShrinkOnHostMemoryWithoutTheFirstRank) {
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 2) GTEST_SKIP() << "needs 2 ranks";
  auto old_comm = make_comm();
  ASSERT_NE(old_comm, nullptr);
  MPI_Comm survivors = MPI_COMM_NULL;
  ASSERT_EQ(MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? MPI_UNDEFINED : 0, rank, &survivors),
            MPI_SUCCESS);
  if (rank != 0) {
    auto shrunk = shrink_communicator(*old_comm, survivors);
    ASSERT_TRUE(shrunk.ok()) << shrunk.status();
    EXPECT_EQ((*shrunk)->backend_name(), "mpi");
    EXPECT_EQ((*shrunk)->size(), size - 1);
    EXPECT_EQ((*shrunk)->rank(), rank - 1);
    float v = static_cast<float>(rank);
    ASSERT_TRUE((*shrunk)->allreduce(Tensor{&v, 1, DataType::kFloat32}, ReduceOp::kSum).ok());
    EXPECT_EQ(v, static_cast<float>(size * (size - 1) / 2));  // 1 + ... + (size - 1)
    EXPECT_EQ(old_comm->health().code(), absl::StatusCode::kAborted);
    MPI_Comm_free(&survivors);
  }
  old_comm.reset();
  MPI_Barrier(MPI_COMM_WORLD);
}

// The bounded wait at the worker's pace, on a communicator owned by Comm (bounded_wait.h,
// comm.h). Under ULFM only (collectives_ulfm_np*): a revoke must reach the other ranks.
TEST(ControlWait, DeadlineLeavesTheRequestActiveForRevokeAndDrain) {
  absl::StatusOr<Comm> c = dup(MPI_COMM_WORLD, Clock::now() + std::chrono::seconds(60));
  ASSERT_TRUE(c.ok()) << c.status();
  int never = 0;
  MPI_Request req = MPI_REQUEST_NULL;
  // Nobody sends tag 99.
  ASSERT_EQ(MPI_Irecv(&never, 1, MPI_INT, (c->rank() + 1) % c->size(), 99, c->get(), &req),
            MPI_SUCCESS);
  const absl::Status st = wait(req, Clock::now() + milliseconds(100), "tag 99", kControlPace);
  EXPECT_TRUE(absl::IsDeadlineExceeded(st)) << st;
  EXPECT_EQ(st.message(), "tag 99: timed out");
  EXPECT_NE(req, MPI_REQUEST_NULL) << "a request that timed out is still active";
  // No rank revokes before every rank's wait has timed out: a peer's revoke ended a slow rank's
  // wait with Aborted instead (under the sanitizers, ranks 2 and 4 of 5).
  ASSERT_EQ(MPI_Barrier(MPI_COMM_WORLD), MPI_SUCCESS);
  c->revoke();
  drain(req);
  c->reset();  // a revoked communicator is freed without waiting for any peer
  EXPECT_FALSE(*c);
}

TEST(ControlWait, PeersRevokeEndsTheWaitWithAborted) {
  absl::StatusOr<Comm> c = dup(MPI_COMM_WORLD, Clock::now() + std::chrono::seconds(60));
  ASSERT_TRUE(c.ok()) << c.status();
  int never = 0;
  MPI_Request req = MPI_REQUEST_NULL;
  ASSERT_EQ(MPI_Irecv(&never, 1, MPI_INT, (c->rank() + 1) % c->size(), 98, c->get(), &req),
            MPI_SUCCESS);
  ASSERT_EQ(MPI_Barrier(MPI_COMM_WORLD), MPI_SUCCESS);  // every rank waits before the revoke
  if (c->rank() == 0) c->revoke();
  const absl::Status st =
      wait(req, Clock::now() + std::chrono::seconds(30), "tag 98", kControlPace);
  EXPECT_TRUE(absl::IsAborted(st)) << st;
  drain(req);
  // Moving the owner moves the duty to free; the moved-from owner holds nothing.
  Comm owner = *std::move(c);
  EXPECT_FALSE(*c);
  EXPECT_TRUE(owner);
}

// Run only under `mpirun --with-ft ulfm` (ctest entry collectives_fault): the last rank SIGKILLs
// itself; the survivors' allreduce must return Aborted (not hang), and the error must be sticky.
TEST(FaultTest, KilledRankGivesAbortedOnSurvivors) {
  auto comm = make_comm();
  ASSERT_NE(comm, nullptr);
  ASSERT_GE(comm->size(), 2);
  ASSERT_TRUE(comm->barrier().ok());
  if (comm->rank() == comm->size() - 1) raise(SIGKILL);
  std::vector<float> v(1024, 1.0f);
  const auto t0 = std::chrono::steady_clock::now();
  const absl::Status st = comm->allreduce(Tensor{v.data(), v.size(), DataType::kFloat32},
                                          ReduceOp::kSum, CallOptions{std::chrono::seconds(30)});
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_TRUE(absl::IsAborted(st) || absl::IsDeadlineExceeded(st)) << st;
  EXPECT_TRUE(
      absl::IsAborted(comm->allreduce(Tensor{v.data(), 1, DataType::kFloat32}, ReduceOp::kSum)));
  if (comm->rank() == 0) {
    std::printf("survivor rank 0: allreduce returned after %.3f s: %s\n", secs,
                st.ToString().c_str());
    if (!::testing::Test::HasFailure()) std::printf("FAULT TEST PASSED\n");
  }
  std::fflush(stdout);
  _exit(::testing::Test::HasFailure() ? 1
                                      : 0);  // MPI_Finalize after a failure may hang (DESIGN.md)
}

// The only holder dies before serving anybody: every survivor's spread ends with Aborted (the
// first receiver sees the failure, revokes, and the ranks it was to serve see the revoke).
TEST(SpreadFault, KilledOnlyHolderGivesAbortedOnSurvivors) {
  auto comm = make_comm();
  ASSERT_NE(comm, nullptr);
  ASSERT_GE(comm->size(), 3);
  const int last = comm->size() - 1;
  std::vector<std::uint8_t> holds(static_cast<std::size_t>(comm->size()), 0);
  holds[static_cast<std::size_t>(last)] = 1;
  ASSERT_TRUE(comm->barrier().ok());
  if (comm->rank() == last) raise(SIGKILL);
  std::vector<unsigned char> buf(100003, 0);
  const absl::Status st =
      comm->spread(buf.data(), buf.size(), holds, CallOptions{std::chrono::seconds(30)});
  EXPECT_TRUE(absl::IsAborted(st) || absl::IsDeadlineExceeded(st)) << st;
  EXPECT_TRUE(absl::IsAborted(comm->barrier()));
  if (comm->rank() == 0) {
    std::printf("survivor rank 0: spread returned %s\n", st.ToString().c_str());
    if (!::testing::Test::HasFailure()) std::printf("FAULT TEST PASSED\n");
  }
  std::fflush(stdout);
  _exit(::testing::Test::HasFailure() ? 1
                                      : 0);  // MPI_Finalize after a failure may hang (DESIGN.md)
}

}  // namespace
}  // namespace elastic::coll

int main(int argc, char** argv) { return run_mpi_gtest(argc, argv); }
