// Exactly-once through elastic::torch across a grow, a SIGKILL and a shrink (the script of
// tests/runtime/training/grow_kill_shrink.h): the job's "model" is one parameter `counts` of
// dataset-size doubles; each step takes this rank's ids from the Sampler through get_batch() on a
// torch::data dataset, makes a loss whose gradient is minus the local count of each sample, lets
// the GradientReducer sum it over the ranks and SGD (lr 1) add it to `counts`. Parameters and
// optimizer are in the State through StateRegistration, so a failure rolls them back with the
// Sampler. At the end every sample must have been counted exactly once.
#include <mpi.h>
#include <gtest/gtest.h>

#include "../collectives/mpi_gtest_main.h"
#include "../runtime/training/grow_kill_shrink.h"
#include "elastic/torch/batches.h"
#include "elastic/torch/gradient_reducer.h"
#include "elastic/torch/state_registration.h"
#include "torch_fixtures.h"

namespace elastic::torch_test {
namespace {

namespace et = elastic::libtorch;

// Sample i is the id i (as the target), so a batch tells which samples it holds.
struct Ids : ::torch::data::datasets::BatchDataset<Ids, ::torch::data::Example<>,
                                                   c10::ArrayRef<std::size_t>> {
  explicit Ids(std::size_t n) : n_(n) {}
  ::torch::data::Example<> get_batch(c10::ArrayRef<std::size_t> ids) override {
    std::vector<std::int64_t> v(ids.begin(), ids.end());
    ::torch::Tensor t = ::torch::tensor(v, ::torch::kInt64);
    return {t.to(::torch::kFloat64), t};
  }
  ::torch::optional<std::size_t> size() const override { return n_; }
  std::size_t n_;
};

struct CounterImpl : ::torch::nn::Module {
  explicit CounterImpl(std::int64_t n)
      : counts(register_parameter("counts", ::torch::zeros({n}, ::torch::kFloat64))) {}
  ::torch::Tensor counts;
};
TORCH_MODULE(Counter);

TEST(TorchElasticFault, GrowKillShrinkExactlyOnce) {
  constexpr std::int64_t kN = 701;
  Counter counter(kN);
  ::torch::optim::SGD sgd(counter->parameters(), ::torch::optim::SGDOptions(1.0));
  Ids data(kN);
  std::int64_t step = 0;
  rt::Sampler sampler(kN, 6, 99, 0, 1);
  rt::State state;
  et::StateRegistration reg;
  ASSERT_TRUE(reg.add_module(state, *counter).ok());
  ASSERT_TRUE(reg.add_optimizer(state, sgd).ok());
  ASSERT_TRUE(state.add_scalar("step", &step).ok());
  ASSERT_TRUE(state.add_object("sampler", &sampler).ok());
  et::GradientReducerOptions opts;
  opts.op = et::GradientOp::kSum;
  opts.call.timeout = std::chrono::seconds(20);
  auto reducer = et::GradientReducer::create(counter->parameters(), opts);
  ASSERT_TRUE(reducer.ok()) << reducer.status();

  std::unique_ptr<coll::Communicator> comm = rt::fault_script::grow_kill_shrink(
      state, sampler, step, [&](coll::Communicator& c) -> absl::Status {
        if (absl::Status st = (*reducer)->begin(c); !st.ok()) return st;
        const std::vector<std::uint64_t> ids = sampler.batch();
        if (!ids.empty()) {
          auto batch = et::get_batch(data, ids);
          ::torch::Tensor local =
              ::torch::zeros({kN}, ::torch::kFloat64)
                  .index_add_(0, batch.target,
                              ::torch::ones({batch.target.size(0)}, ::torch::kFloat64));
          (-(counter->counts * local).sum()).backward();  // d/dcounts = -local
        }
        if (absl::Status st = (*reducer)->finish(); !st.ok()) return st;
        sgd.step();  // counts -= 1.0 * (-sum of the local counts)
        return absl::OkStatus();
      });
  const ::torch::Tensor c = counter->counts.detach();
  const auto wrong = static_cast<std::uint64_t>(c.ne(1.0).sum().item<std::int64_t>());
  EXPECT_EQ(wrong, 0u);
  rt::fault_script::report_exactly_once(comm.get(), step, wrong, static_cast<std::uint64_t>(kN));
}

}  // namespace
}  // namespace elastic::torch_test

int main(int argc, char** argv) {
  ::torch::set_num_threads(1);  // one LibTorch thread per rank: ranks share few cores
  return run_mpi_gtest(argc, argv);
}
