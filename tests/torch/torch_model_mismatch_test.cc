// A durable checkpoint of another model is refused by State::load_checkpoint before it changes any
// tensor. Parameters that are not contiguous are mirrored (one Checkpointable each, loaded one
// after another), so the State relies on each mirror's and the optimizer's check() to refuse the
// snapshot before the first load: a refusal in load() alone would leave the earlier parameters
// overwritten with the other model's values. And a bf16 model's checkpoint is not read as fp16.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "elastic/torch/state_registration.h"
#include "torch_fixtures.h"

namespace elastic::torch_test {
namespace {

namespace et = elastic::libtorch;

// Two parameters, each the transpose of a fresh tensor (not contiguous: mirrored). `second` and
// `second_type` give the second one's shape before the transpose and its dtype.
struct TwoParams : ::torch::nn::Module {
  TwoParams(double value, std::vector<std::int64_t> second, ::torch::Dtype second_type) {
    a = register_parameter("a", ::torch::full({4, 3}, value).t());
    b = register_parameter("b", ::torch::full(second, value, second_type).t());
  }
  void step(::torch::optim::Optimizer& opt) {
    opt.zero_grad();
    ((a * a).sum() + (b * b).sum().to(::torch::kFloat32)).backward();
    opt.step();
  }
  ::torch::Tensor a, b;
};

class ModelMismatchTest : public ::testing::Test {
 protected:
  void TearDown() override { std::filesystem::remove(path_); }

  // Registers `m` (and `opt`) with a State, takes one step, commits and writes the checkpoint.
  void save(TwoParams& m, ::torch::optim::Optimizer& opt) {
    rt::State state;
    et::StateRegistration reg;
    ASSERT_TRUE(reg.add_module(state, m).ok());
    ASSERT_TRUE(reg.add_optimizer(state, opt).ok());
    m.step(opt);
    ASSERT_TRUE(state.commit().ok());
    ASSERT_TRUE(state.save_checkpoint(path_).ok());
  }

  // Registers `m` and `opt` with a fresh State and loads the checkpoint into them.
  absl::Status load(TwoParams& m, ::torch::optim::Optimizer& opt) {
    rt::State state;
    et::StateRegistration reg;
    if (absl::Status st = reg.add_module(state, m); !st.ok()) return st;
    if (absl::Status st = reg.add_optimizer(state, opt); !st.ok()) return st;
    return state.load_checkpoint(path_);
  }

  const std::filesystem::path path_ = std::filesystem::temp_directory_path() /
                                      ("elastic_torch_mismatch_" + std::to_string(::getpid()));
};

TEST_F(ModelMismatchTest, MirroredParametersOfTheSameModelLoad) {
  TwoParams saved(1.0, {4, 3}, ::torch::kFloat32);
  ASSERT_FALSE(saved.a.is_contiguous());
  ::torch::optim::SGD opt_saved(saved.parameters(), ::torch::optim::SGDOptions(0.1).momentum(0.9));
  save(saved, opt_saved);
  TwoParams loaded(5.0, {4, 3}, ::torch::kFloat32);
  ::torch::optim::SGD opt_loaded(loaded.parameters(), ::torch::optim::SGDOptions(0.1));
  absl::Status st = load(loaded, opt_loaded);
  ASSERT_TRUE(st.ok()) << st;
  EXPECT_TRUE(::torch::equal(loaded.a, saved.a));
  EXPECT_TRUE(::torch::equal(loaded.b, saved.b));
  EXPECT_EQ(opt_loaded.state().size(), 2u);
}

struct SecondParam {
  const char* name;
  std::vector<std::int64_t> shape;
  ::torch::Dtype type;
};
void PrintTo(const SecondParam& p, std::ostream* os) { *os << p.name; }

class MirrorMismatchTest : public ModelMismatchTest,
                           public ::testing::WithParamInterface<SecondParam> {};

TEST_P(MirrorMismatchTest, RefusedBeforeTheFirstParameterChanges) {
  TwoParams saved(1.0, {4, 3}, ::torch::kFloat32);
  ::torch::optim::SGD opt_saved(saved.parameters(), ::torch::optim::SGDOptions(0.1));
  save(saved, opt_saved);

  TwoParams loaded(5.0, GetParam().shape, GetParam().type);
  ::torch::optim::SGD opt_loaded(loaded.parameters(), ::torch::optim::SGDOptions(0.1));
  const ::torch::Tensor a_before = loaded.a.clone();
  absl::Status st = load(loaded, opt_loaded);
  EXPECT_TRUE(absl::IsFailedPrecondition(st)) << st;
  EXPECT_NE(st.message().find("model.b"), std::string::npos) << st;
  EXPECT_TRUE(::torch::equal(loaded.a, a_before)) << "the first parameter was overwritten";
}

INSTANTIATE_TEST_SUITE_P(SecondParameter, MirrorMismatchTest,
                         ::testing::Values(SecondParam{"OtherShape", {5, 3}, ::torch::kFloat32},
                                           SecondParam{"OtherDtype", {4, 3}, ::torch::kFloat64}),
                         [](const auto& p) { return std::string(p.param.name); });

// The optimizer is registered after the model, so its object loads after the model's mirrors.
TEST_F(ModelMismatchTest, AdamStateIntoSgdLeavesTheModelUnchanged) {
  TwoParams saved(1.0, {4, 3}, ::torch::kFloat32);
  ::torch::optim::Adam opt_saved(saved.parameters());
  save(saved, opt_saved);

  TwoParams loaded(5.0, {4, 3}, ::torch::kFloat32);
  ::torch::optim::SGD opt_loaded(loaded.parameters(), ::torch::optim::SGDOptions(0.1));
  const ::torch::Tensor a_before = loaded.a.clone(), b_before = loaded.b.clone();
  absl::Status st = load(loaded, opt_loaded);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("optimizer"), std::string::npos) << st;
  EXPECT_TRUE(::torch::equal(loaded.a, a_before));
  EXPECT_TRUE(::torch::equal(loaded.b, b_before));
  EXPECT_TRUE(opt_loaded.state().empty());
}

TEST_F(ModelMismatchTest, OptimizerOverAnotherParameterCountLeavesTheModelUnchanged) {
  TwoParams saved(1.0, {4, 3}, ::torch::kFloat32);
  ::torch::optim::Adam opt_saved(saved.parameters());
  save(saved, opt_saved);

  TwoParams loaded(5.0, {4, 3}, ::torch::kFloat32);
  std::vector<::torch::Tensor> params = loaded.parameters();
  params.push_back(::torch::zeros({2}, ::torch::requires_grad()));
  ::torch::optim::Adam opt_loaded(params);
  const ::torch::Tensor a_before = loaded.a.clone(), b_before = loaded.b.clone();
  absl::Status st = load(loaded, opt_loaded);
  EXPECT_TRUE(absl::IsFailedPrecondition(st)) << st;
  EXPECT_NE(st.message().find("parameters"), std::string::npos) << st;
  EXPECT_TRUE(::torch::equal(loaded.a, a_before));
  EXPECT_TRUE(::torch::equal(loaded.b, b_before));
  EXPECT_TRUE(opt_loaded.state().empty());
}

// CPU parameters are registered by address; the State keeps 16-bit floats as bits of a size, so
// only the dtype in their names tells bf16 from fp16 apart.
TEST_F(ModelMismatchTest, Bf16CheckpointIsRefusedByAnFp16Model) {
  ::torch::nn::Linear saved(::torch::nn::LinearOptions(3, 2));
  saved->to(::torch::kBFloat16);
  ::torch::optim::SGD opt_saved(saved->parameters(), ::torch::optim::SGDOptions(0.1));
  {
    rt::State state;
    et::StateRegistration reg;
    ASSERT_TRUE(reg.add_module(state, *saved).ok());
    ASSERT_TRUE(reg.add_optimizer(state, opt_saved).ok());
    ASSERT_TRUE(state.commit().ok());
    ASSERT_TRUE(state.save_checkpoint(path_).ok());
  }
  for (const ::torch::Dtype type : {::torch::kFloat16, ::torch::kBFloat16}) {
    ::torch::nn::Linear loaded(::torch::nn::LinearOptions(3, 2));
    loaded->to(type);
    ::torch::optim::SGD opt_loaded(loaded->parameters(), ::torch::optim::SGDOptions(0.1));
    const ::torch::Tensor before = loaded->weight.clone();
    rt::State state;
    et::StateRegistration reg;
    ASSERT_TRUE(reg.add_module(state, *loaded).ok());
    ASSERT_TRUE(reg.add_optimizer(state, opt_loaded).ok());
    absl::Status st = state.load_checkpoint(path_);
    if (type == ::torch::kBFloat16) {
      EXPECT_TRUE(st.ok()) << st;
      EXPECT_TRUE(::torch::equal(loaded->weight, saved->weight));
    } else {
      EXPECT_TRUE(absl::IsFailedPrecondition(st)) << st;
      EXPECT_TRUE(::torch::equal(loaded->weight, before));
    }
  }
}

}  // namespace
}  // namespace elastic::torch_test
