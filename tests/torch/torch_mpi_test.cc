// elastic::torch over real MPI ranks:
//  - LateJoiner: a rank that joins after 50 Adam steps of the others holds, after State::sync and
//    before its first step, parameters, buffers and Adam state (step count, both moments)
//    bit-identical to rank 0's; after one more step together all ranks are still identical.
//  - GradientReducer: the averaged gradient over K ranks, each on its slice of a batch, equals the
//    gradient of one process on the whole batch (fp32 and fp64; tolerance below); bf16/fp16
//    buckets; a rank that skips backward (empty batch) still takes part, in bucket order; a second
//    backward in one step and a sparse gradient are refused at finish().
#include <mpi.h>
#include <gtest/gtest.h>

#include <cstring>

#include "../collectives/mpi_gtest_main.h"
#include "elastic/collectives/factory.h"
#include "elastic/torch/gradient_reducer.h"
#include "elastic/torch/state_registration.h"
#include "torch_fixtures.h"

namespace elastic::torch_test {
namespace {

namespace et = elastic::libtorch;

std::unique_ptr<coll::Communicator> comm_of(MPI_Comm c) {
  auto r = coll::create_communicator(c, coll::Backend::kMpi);
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? std::move(*r) : nullptr;
}

et::GradientReducerOptions options(std::size_t bucket_bytes,
                                   et::GradientOp op = et::GradientOp::kAverage) {
  et::GradientReducerOptions o;
  o.bucket_bytes = bucket_bytes;
  o.op = op;
  return o;
}

// Rank 0's bytes, broadcast over `c`.
std::vector<std::byte> root_bytes(std::vector<std::byte> mine, MPI_Comm c) {
  std::uint64_t n = mine.size();
  MPI_Bcast(&n, 1, MPI_UINT64_T, 0, c);
  mine.resize(n);
  MPI_Bcast(mine.data(), static_cast<int>(n), MPI_BYTE, 0, c);
  return mine;
}

// One data-parallel Adam step over `comm`: this rank's 8 samples depend on (step, rank).
void dp_step(Net& net, ::torch::optim::Adam& opt, et::GradientReducer& reducer,
             coll::Communicator& comm, std::int64_t step) {
  auto [x, y] = data(8, static_cast<std::uint64_t>(step * 1000 + comm.rank()));
  ASSERT_TRUE(reducer.begin(comm).ok());
  ::torch::nn::functional::cross_entropy(net->forward(x), y).backward();
  absl::Status st = reducer.finish();
  ASSERT_TRUE(st.ok()) << st;
  opt.step();
}

TEST(LateJoiner, AfterFiftyAdamStepsBitIdentical) {
  int wrank = 0, wsize = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  MPI_Comm_size(MPI_COMM_WORLD, &wsize);
  if (wsize < 2) GTEST_SKIP() << "needs 2 ranks";
  const bool joiner = wrank == wsize - 1;

  ::torch::manual_seed(static_cast<std::uint64_t>(100 + wrank));  // every rank starts different
  Net net;
  ::torch::optim::Adam opt(net->parameters(), ::torch::optim::AdamOptions(1e-3));
  std::int64_t step = 0;
  rt::State state;
  et::StateRegistration reg;
  ASSERT_TRUE(reg.add_module(state, *net).ok());
  ASSERT_TRUE(reg.add_optimizer(state, opt).ok());
  ASSERT_TRUE(state.add_scalar("step", &step).ok());
  auto reducer = et::GradientReducer::create(net->parameters(), options(512));
  ASSERT_TRUE(reducer.ok()) << reducer.status();
  const std::vector<std::byte> initial = state_bytes(*net, opt);

  MPI_Comm job = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, joiner ? 1 : 0, wrank, &job);
  if (!joiner) {
    auto comm = comm_of(job);
    ASSERT_NE(comm, nullptr);
    ASSERT_TRUE(state.commit().ok());
    ASSERT_TRUE(state.sync(*comm, 0).ok());  // the job's start: rank 0's initialisation everywhere
    for (; step < 50;) {
      dp_step(net, opt, **reducer, *comm, step);
      ++step;
      ASSERT_TRUE(state.commit().ok());
    }
    EXPECT_GT((*reducer)->buckets_reduced_in_backward(), 0u);  // the hooks started allreduces
  }
  MPI_Comm_free(&job);

  auto comm = comm_of(MPI_COMM_WORLD);
  ASSERT_NE(comm, nullptr);
  if (joiner) {
    ASSERT_TRUE(opt.state().empty());
  }
  absl::Status st = state.sync(*comm, 0);
  ASSERT_TRUE(st.ok()) << st;

  int with_state = 0;
  const std::vector<std::byte> mine = state_bytes(*net, opt, &with_state);
  const std::vector<std::byte> ref = root_bytes(mine, MPI_COMM_WORLD);
  EXPECT_EQ(step, 50);
  EXPECT_EQ(with_state, static_cast<int>(net->parameters().size()))
      << "Adam state missing on rank " << wrank;
  ASSERT_EQ(mine.size(), ref.size());
  EXPECT_EQ(std::memcmp(mine.data(), ref.data(), mine.size()), 0)
      << "rank " << wrank << " differs from rank 0";
  if (joiner) {
    EXPECT_NE(mine, initial);
  }
  for (const auto& p : opt.param_groups()[0].params()) {
    auto& s = static_cast<::torch::optim::AdamParamState&>(
        *opt.state().at(c10::guts::to_string(p.unsafeGetTensorImpl())));
    EXPECT_EQ(s.step(), 50);
  }

  // One step of the new membership keeps every rank identical (in eval mode: in training mode each
  // rank's BatchNorm would update its running statistics with its own batch, as in any
  // data-parallel job without synchronised BatchNorm).
  net->eval();
  dp_step(net, opt, **reducer, *comm, step);
  const std::vector<std::byte> after = state_bytes(*net, opt);
  const std::vector<std::byte> after_ref = root_bytes(after, MPI_COMM_WORLD);
  EXPECT_EQ(after, after_ref);
}

// Tolerance. Both sides sum the same per-sample products, in a different order and grouping
// (per rank, then over ranks, versus all at once), so they differ by rounding only. Summing n
// terms in floating point has an error of at most about n*u*sum|x| (u = 2^-24 for fp32, 2^-53 for
// fp64); the biggest sums here (the conv weight: 8 samples x 36 positions per rank) give n*u about
// 2e-5 (fp32) and 4e-14 (fp64) relative. The tolerance is 5e-5 and 1e-12 of the tensor's largest
// magnitude: tight enough that a missing or doubled rank (a change of order 1/K) or a wrong scale
// (a factor K) fails by orders of magnitude.
struct Equivalence : ::testing::TestWithParam<std::tuple<::torch::Dtype, std::size_t>> {};

TEST_P(Equivalence, AveragedGradientEqualsSingleProcessGradient) {
  const auto [dtype, bucket_bytes] = GetParam();
  const double tol = dtype == ::torch::kFloat64 ? 1e-12 : 5e-5;
  auto comm = comm_of(MPI_COMM_WORLD);
  ASSERT_NE(comm, nullptr);
  const int k = comm->size();
  constexpr std::int64_t kB = 8;
  ::torch::manual_seed(42);  // the same model on every rank
  Net net;
  net->to(dtype);
  net->eval();  // BatchNorm with running statistics: each sample's loss is independent of the
                // others
  auto [x, y] = data(kB * k, 7);
  x = x.to(dtype);

  // The reference: one process, the concatenated batch, mean loss.
  net->zero_grad();
  ::torch::nn::functional::cross_entropy(net->forward(x), y).backward();
  std::vector<::torch::Tensor> reference;
  for (const auto& p : net->parameters()) reference.push_back(p.grad().clone());

  auto reducer = et::GradientReducer::create(net->parameters(), options(bucket_bytes));
  ASSERT_TRUE(reducer.ok()) << reducer.status();
  net->zero_grad();
  ASSERT_TRUE((*reducer)->begin(*comm).ok());
  const auto mine = ::torch::indexing::Slice(comm->rank() * kB, (comm->rank() + 1) * kB);
  ::torch::nn::functional::cross_entropy(net->forward(x.index({mine})), y.index({mine})).backward();
  absl::Status st = (*reducer)->finish();
  ASSERT_TRUE(st.ok()) << st;
  if (bucket_bytes < 1024) {
    EXPECT_GT((*reducer)->bucket_count(), 2u);
    EXPECT_GT((*reducer)->buckets_reduced_in_backward(), 0u);
  }
  const auto params = net->parameters();
  for (std::size_t i = 0; i < params.size(); ++i) {
    const double scale = std::max(reference[i].abs().max().item<double>(), 1e-30);
    const double err = (params[i].grad() - reference[i]).abs().max().item<double>();
    EXPECT_LE(err / scale, tol) << "parameter " << i << " on " << k << " ranks";
  }
}

INSTANTIATE_TEST_SUITE_P(DtypesAndBuckets, Equivalence,
                         ::testing::Combine(::testing::Values(::torch::kFloat32, ::torch::kFloat64),
                                            ::testing::Values(std::size_t{256},
                                                              std::size_t{4} << 20)));

// Half-precision buckets: loss = sum(p * w_r) gives rank r the gradient w_r exactly; the reduced
// gradient is the mean of the w_r, rounded once or more to the dtype (bf16: 8 bits of mantissa,
// fp16: 11), hence the tolerance of a few units in the last place.
TEST(GradientReducer, HalfPrecisionBuckets) {
  auto comm = comm_of(MPI_COMM_WORLD);
  ASSERT_NE(comm, nullptr);
  for (::torch::Dtype dtype : {::torch::kBFloat16, ::torch::kFloat16}) {
    auto p = ::torch::zeros({1000}, ::torch::TensorOptions().dtype(dtype).requires_grad(true));
    auto reducer = et::GradientReducer::create({p}, options(256));
    ASSERT_TRUE(reducer.ok()) << reducer.status();
    auto w_of = [&](int r) { return ::torch::linspace(-1, 1, 1000, ::torch::kFloat64) * (r + 1); };
    ASSERT_TRUE((*reducer)->begin(*comm).ok());
    (p * w_of(comm->rank()).to(dtype)).sum().backward();
    ASSERT_TRUE((*reducer)->finish().ok());
    ::torch::Tensor expect = ::torch::zeros({1000}, ::torch::kFloat64);
    for (int r = 0; r < comm->size(); ++r) expect += w_of(r).to(dtype).to(::torch::kFloat64);
    expect /= comm->size();
    const double ulp = dtype == ::torch::kBFloat16 ? 1.0 / 128 : 1.0 / 1024;
    const double err =
        ((p.grad().to(::torch::kFloat64) - expect).abs() / expect.abs().clamp_min(1e-3))
            .max()
            .item<double>();
    EXPECT_LE(err, 4 * ulp) << c10::toString(dtype);
  }
}

// Rank 0 has an empty batch and skips backward; the others' hooks reduce buckets during backward,
// rank 0's finish() reduces the same buckets in the same order with zeros: the sum is the others'.
TEST(GradientReducer, RankWithoutBackwardStillTakesPart) {
  auto comm = comm_of(MPI_COMM_WORLD);
  ASSERT_NE(comm, nullptr);
  ::torch::manual_seed(5);
  Net net;
  net->eval();
  auto reducer = et::GradientReducer::create(net->parameters(), options(256, et::GradientOp::kSum));
  ASSERT_TRUE(reducer.ok()) << reducer.status();
  ::torch::Tensor expected_fc;
  for (int r = 1; r < comm->size(); ++r) {  // the reference, on every rank
    net->zero_grad();
    auto [x, y] = data(4, static_cast<std::uint64_t>(r));
    ::torch::nn::functional::cross_entropy(net->forward(x), y).backward();
    expected_fc = r == 1 ? net->fc->weight.grad().clone() : expected_fc + net->fc->weight.grad();
  }
  ASSERT_TRUE((*reducer)->begin(*comm).ok());
  if (comm->rank() != 0) {
    auto [x, y] = data(4, static_cast<std::uint64_t>(comm->rank()));
    ::torch::nn::functional::cross_entropy(net->forward(x), y).backward();
  }
  absl::Status st = (*reducer)->finish();
  ASSERT_TRUE(st.ok()) << st;
  if (comm->size() == 1) {
    EXPECT_EQ(net->fc->weight.grad().abs().max().item<double>(), 0.0);
  } else {
    EXPECT_LE((net->fc->weight.grad() - expected_fc).abs().max().item<double>(),
              5e-5 * expected_fc.abs().max().item<double>());
  }
}

// A second backward in one step: the bucket (one parameter) was reduced in the first one's hook,
// so the second gradient would be added to the reduced sum. Refused at finish() (before, finish()
// succeeded with the reduced gradient plus this rank's own).
TEST(GradientReducer, SecondBackwardAfterItsBucketIsRefused) {
  auto comm = comm_of(MPI_COMM_WORLD);
  ASSERT_NE(comm, nullptr);
  auto p =
      ::torch::ones({16}, ::torch::TensorOptions().dtype(::torch::kFloat32).requires_grad(true));
  auto reducer = et::GradientReducer::create({p}, options(1024));
  ASSERT_TRUE(reducer.ok()) << reducer.status();
  ASSERT_TRUE((*reducer)->begin(*comm).ok());
  (p * 2).sum().backward();
  EXPECT_EQ((*reducer)->buckets_reduced_in_backward(), 1u);
  (p * 3).sum().backward();
  const absl::Status st = (*reducer)->finish();
  EXPECT_TRUE(absl::IsFailedPrecondition(st)) << st;
  EXPECT_NE(st.message().find("second gradient for parameter 0"), std::string::npos) << st;
}

// A sparse gradient (an embedding with sparse=true): refused at finish(), not thrown in backward.
TEST(GradientReducer, SparseGradientIsRefused) {
  auto comm = comm_of(MPI_COMM_WORLD);
  ASSERT_NE(comm, nullptr);
  auto dense = ::torch::ones({4}, ::torch::TensorOptions().requires_grad(true));
  auto table = ::torch::ones({10, 3}, ::torch::TensorOptions().requires_grad(true));
  auto reducer = et::GradientReducer::create({dense, table}, options(1024));
  ASSERT_TRUE(reducer.ok()) << reducer.status();
  ASSERT_TRUE((*reducer)->begin(*comm).ok());
  const auto ids = ::torch::tensor({1, 4, 4}, ::torch::kLong);
  EXPECT_NO_THROW(((::torch::embedding(table, ids, -1, false, /*sparse=*/true)).sum() + dense.sum())
                      .backward());
  const absl::Status st = (*reducer)->finish();
  EXPECT_TRUE(absl::IsInvalidArgument(st)) << st;
  EXPECT_NE(st.message().find("parameter 1"), std::string::npos) << st;
}

TEST(GradientReducer, FinishWithoutBeginIsRefused) {
  Net net;
  auto reducer = et::GradientReducer::create(net->parameters());
  ASSERT_TRUE(reducer.ok());
  EXPECT_TRUE(absl::IsFailedPrecondition((*reducer)->finish()));
  auto bad = et::GradientReducer::create(
      {::torch::zeros({3}, ::torch::TensorOptions().dtype(::torch::kInt32))}, {});
  EXPECT_TRUE(bad.ok());  // int tensors cannot require grad: ignored, not an error
  auto no_room = et::GradientReducer::create(net->parameters(), options(0));
  EXPECT_TRUE(absl::IsInvalidArgument(no_room.status()));
}

}  // namespace
}  // namespace elastic::torch_test

int main(int argc, char** argv) {
  ::torch::set_num_threads(1);  // one LibTorch thread per rank: ranks share few cores
  return run_mpi_gtest(argc, argv);
}
