// elastic::torch without MPI peers: a model and an Adam/SGD optimizer registered with the State
// come back bit for bit from restore() and from a durable checkpoint; unsupported optimizers and
// tensors and mismatched models are refused with clear errors; the learning-rate hook and
// get_batch().
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "elastic/torch/batches.h"
#include "elastic/torch/learning_rate.h"
#include "elastic/torch/state_registration.h"
#include "torch_fixtures.h"

namespace elastic::torch_test {
namespace {

namespace et = elastic::libtorch;

void train(Net& net, ::torch::optim::Optimizer& opt, int steps, std::uint64_t seed) {
  net->train();
  for (int s = 0; s < steps; ++s) {
    auto [x, y] = data(16, seed + static_cast<std::uint64_t>(s));
    opt.zero_grad();
    ::torch::nn::functional::cross_entropy(net->forward(x), y).backward();
    opt.step();
  }
}

TEST(StateRegistration, AdamRestoresBitForBit) {
  ::torch::manual_seed(1);
  Net net;
  ::torch::optim::Adam opt(net->parameters(), ::torch::optim::AdamOptions(1e-2));
  rt::State state;
  et::StateRegistration reg;
  ASSERT_TRUE(reg.add_module(state, *net).ok());
  ASSERT_TRUE(reg.add_optimizer(state, opt).ok());
  train(net, opt, 3, 10);
  ASSERT_TRUE(state.commit().ok());
  int with_state = 0;
  const std::vector<std::byte> committed = state_bytes(*net, opt, &with_state);
  EXPECT_EQ(with_state, static_cast<int>(net->parameters().size()));
  train(net, opt, 2, 20);
  ASSERT_NE(state_bytes(*net, opt), committed);  // the later steps changed everything
  ASSERT_TRUE(state.restore().ok());
  EXPECT_EQ(state_bytes(*net, opt), committed);
}

TEST(StateRegistration, StateCreatedAfterCommitIsDroppedByRestore) {
  ::torch::manual_seed(2);
  Net net;
  ::torch::optim::Adam opt(net->parameters());
  rt::State state;
  et::StateRegistration reg;
  ASSERT_TRUE(reg.add_module(state, *net).ok());
  ASSERT_TRUE(reg.add_optimizer(state, opt).ok());
  ASSERT_TRUE(state.commit().ok());  // before any step: no optimizer state
  train(net, opt, 1, 30);
  EXPECT_FALSE(opt.state().empty());
  ASSERT_TRUE(state.restore().ok());
  EXPECT_TRUE(opt.state().empty());
}

TEST(StateRegistration, DurableCheckpointOfSgdWithMomentum) {
  const auto path =
      std::filesystem::temp_directory_path() / ("elastic_torch_ckpt_" + std::to_string(::getpid()));
  std::vector<std::byte> saved_params;
  std::vector<std::byte> saved_momentum;
  auto momentum_bytes = [](::torch::optim::SGD& opt) {
    std::vector<std::byte> out;
    for (const auto& p : opt.param_groups()[0].params()) {
      auto& s = static_cast<::torch::optim::SGDParamState&>(
          *opt.state().at(c10::guts::to_string(p.unsafeGetTensorImpl())));
      append(out, s.momentum_buffer());
    }
    return out;
  };
  auto params_bytes = [](Net& net) {
    std::vector<std::byte> out;
    for (const auto& p : net->parameters()) append(out, p);
    for (const auto& b : net->buffers()) append(out, b);
    return out;
  };
  {
    ::torch::manual_seed(3);
    Net net;
    ::torch::optim::SGD opt(net->parameters(), ::torch::optim::SGDOptions(0.05).momentum(0.9));
    rt::State state;
    et::StateRegistration reg;
    ASSERT_TRUE(reg.add_module(state, *net).ok());
    ASSERT_TRUE(reg.add_optimizer(state, opt).ok());
    train(net, opt, 4, 40);
    ASSERT_TRUE(state.commit().ok());
    ASSERT_TRUE(state.save_checkpoint(path).ok());
    saved_params = params_bytes(net);
    saved_momentum = momentum_bytes(opt);
  }
  ::torch::manual_seed(4);  // another initialisation, no optimizer state: a restarted job
  Net net;
  ::torch::optim::SGD opt(net->parameters(), ::torch::optim::SGDOptions(0.5).momentum(0.9));
  rt::State state;
  et::StateRegistration reg;
  ASSERT_TRUE(reg.add_module(state, *net).ok());
  ASSERT_TRUE(reg.add_optimizer(state, opt).ok());
  ASSERT_NE(params_bytes(net), saved_params);
  absl::Status st = state.load_checkpoint(path);
  ASSERT_TRUE(st.ok()) << st;
  EXPECT_EQ(params_bytes(net), saved_params);
  EXPECT_EQ(momentum_bytes(opt), saved_momentum);
  EXPECT_DOUBLE_EQ(opt.param_groups()[0].options().get_lr(),
                   0.05);  // the rate travels with the state
  std::filesystem::remove(path);
}

TEST(StateRegistration, UnsupportedOptimizerIsRefused) {
  Net net;
  ::torch::optim::LBFGS opt(net->parameters());
  rt::State state;
  et::StateRegistration reg;
  absl::Status st = reg.add_optimizer(state, opt);
  EXPECT_TRUE(absl::IsFailedPrecondition(st)) << st;
  EXPECT_NE(st.message().find("State::add_object"), std::string::npos) << st;
}

// Their mirrors would save only the elements: registered, torch threw at the first commit (nbytes
// of a sparse tensor) or at restore (a quantized tensor without its quantizer).
TEST(StateRegistration, SparseAndMirroredQuantizedTensorsAreRefused) {
  struct Holder : ::torch::nn::Module {
    explicit Holder(::torch::Tensor t) { register_buffer("t", std::move(t)); }
  };
  const ::torch::Tensor quantized =
      ::torch::quantize_per_tensor(::torch::rand({3, 4}), 0.1, 2, ::torch::kQInt8);
  for (const ::torch::Tensor& t : {::torch::eye(3).to_sparse(), quantized.t()}) {
    Holder m(t);
    rt::State state;
    et::StateRegistration reg;
    absl::Status st;
    EXPECT_NO_THROW(st = reg.add_module(state, m));
    EXPECT_TRUE(absl::IsInvalidArgument(st)) << st;
    EXPECT_NE(st.message().find("model.t"), std::string::npos) << st;
  }
  Holder contiguous(quantized);  // by address: its int8 elements, as any integer buffer
  rt::State state;
  et::StateRegistration reg;
  EXPECT_TRUE(reg.add_module(state, contiguous).ok());
}

TEST(StateRegistration, OptimizerStateOfAnotherModelIsRefused) {
  // Saved for 2 parameters, loaded into an optimizer over 3: FailedPrecondition, nothing changed.
  rt::State a;
  et::StateRegistration ra;
  auto w1 = ::torch::ones({3}, ::torch::requires_grad());
  auto w2 = ::torch::ones({2}, ::torch::requires_grad());
  ::torch::optim::Adam opt_a(std::vector<::torch::Tensor>{w1, w2});
  ASSERT_TRUE(ra.add_optimizer(a, opt_a).ok());
  ((w1 * w1).sum() + (w2 * w2).sum()).backward();
  opt_a.step();
  ASSERT_TRUE(a.commit().ok());
  const auto path = std::filesystem::temp_directory_path() /
                    ("elastic_torch_ckpt2_" + std::to_string(::getpid()));
  ASSERT_TRUE(a.save_checkpoint(path).ok());

  rt::State b;
  et::StateRegistration rb;
  ::torch::optim::Adam opt_b(std::vector<::torch::Tensor>{
      ::torch::ones({3}, ::torch::requires_grad()), ::torch::ones({2}, ::torch::requires_grad()),
      ::torch::ones({2}, ::torch::requires_grad())});
  ASSERT_TRUE(rb.add_optimizer(b, opt_b).ok());
  absl::Status st = b.load_checkpoint(path);
  EXPECT_FALSE(st.ok());
  EXPECT_TRUE(opt_b.state().empty());
  std::filesystem::remove(path);
}

TEST(LearningRate, LinearScalingFollowsTheMembership) {
  Net net;
  ::torch::optim::SGD opt(net->parameters(), ::torch::optim::SGDOptions(1.0));
  auto hook = et::linear_lr_scaling(opt, 0.01, 2);
  rt::ResetInfo info;
  info.size = 6;
  ASSERT_TRUE(hook(info).ok());
  EXPECT_DOUBLE_EQ(opt.param_groups()[0].options().get_lr(), 0.03);
  info.size = 1;
  ASSERT_TRUE(hook(info).ok());
  EXPECT_DOUBLE_EQ(opt.param_groups()[0].options().get_lr(), 0.005);
  EXPECT_TRUE(absl::IsInvalidArgument(et::linear_lr_scaling(opt, 0.01, 0)(info)));
  EXPECT_TRUE(absl::IsInvalidArgument(et::set_learning_rate(opt, -1)));
}

// A dataset whose sample i is the value i: get_batch must return exactly the sampler's ids.
struct Iota : ::torch::data::datasets::Dataset<Iota> {
  ::torch::data::Example<> get(std::size_t i) override {
    return {::torch::full({1}, static_cast<double>(i), ::torch::kFloat64),
            ::torch::tensor(static_cast<std::int64_t>(i))};
  }
  ::torch::optional<std::size_t> size() const override { return 1000; }
};

TEST(Batches, FollowTheSampler) {
  auto data = Iota().map(::torch::data::transforms::Stack<>());
  rt::Sampler sampler(1000, 7, 5, 1, 3);
  for (int s = 0; s < 3; ++s) {
    const std::vector<std::uint64_t> ids = sampler.batch();
    auto batch = et::get_batch(data, ids);
    ASSERT_EQ(batch.target.numel(), static_cast<std::int64_t>(ids.size()));
    for (std::size_t k = 0; k < ids.size(); ++k) {
      EXPECT_EQ(batch.target[static_cast<std::int64_t>(k)].item<std::int64_t>(),
                static_cast<std::int64_t>(ids[k]));
    }
    sampler.advance();
  }
}

}  // namespace
}  // namespace elastic::torch_test
