// What the elastic::torch tests share: a small model with parameters and buffers (BatchNorm's
// running statistics and its int64 batch counter), deterministic data, and the model's and the
// optimizer's state as raw bytes, gathered independently of elastic::torch so that tests can
// compare ranks or snapshots bit for bit.
#pragma once

#include <c10/util/string_utils.h>
#include <torch/torch.h>

#include <cstddef>
#include <cstring>
#include <vector>

namespace elastic::torch_test {

struct NetImpl : ::torch::nn::Module {
  NetImpl()
      : conv(register_module("conv", ::torch::nn::Conv2d(::torch::nn::Conv2dOptions(1, 4, 3)))),
        bn(register_module("bn", ::torch::nn::BatchNorm2d(4))),
        fc(register_module("fc", ::torch::nn::Linear(4 * 6 * 6, 10))) {}
  ::torch::Tensor forward(const ::torch::Tensor& x) {
    return fc(::torch::relu(bn(conv(x))).flatten(1));
  }
  ::torch::nn::Conv2d conv;
  ::torch::nn::BatchNorm2d bn;
  ::torch::nn::Linear fc;
};
TORCH_MODULE(Net);

// `n` images of 1x8x8 and labels in [0, 10), the same for equal seeds on every rank.
inline std::pair<::torch::Tensor, ::torch::Tensor> data(std::int64_t n, std::uint64_t seed) {
  ::torch::Generator g = ::torch::make_generator<at::CPUGeneratorImpl>(seed);
  return {::torch::randn({n, 1, 8, 8}, g), ::torch::randint(0, 10, {n}, g)};
}

inline void append(std::vector<std::byte>& out, const ::torch::Tensor& t) {
  const ::torch::Tensor c = t.contiguous();
  const auto* p = static_cast<const std::byte*>(c.data_ptr());
  out.insert(out.end(), p, p + c.nbytes());
}

// Parameters, buffers and Adam's per-parameter state (step, both moments) as bytes. `adam_params`
// counts the parameters that have Adam state (all of them once a step was taken).
inline std::vector<std::byte> state_bytes(const ::torch::nn::Module& m, ::torch::optim::Adam& opt,
                                          int* adam_params = nullptr) {
  std::vector<std::byte> out;
  for (const auto& p : m.parameters()) append(out, p);
  for (const auto& b : m.buffers()) append(out, b);
  int with_state = 0;
  for (const auto& p : opt.param_groups()[0].params()) {
    auto it = opt.state().find(c10::guts::to_string(p.unsafeGetTensorImpl()));
    if (it == opt.state().end()) continue;
    auto& s = static_cast<::torch::optim::AdamParamState&>(*it->second);
    const std::int64_t step = s.step();
    const auto* sp = reinterpret_cast<const std::byte*>(&step);
    out.insert(out.end(), sp, sp + sizeof(step));
    append(out, s.exp_avg());
    append(out, s.exp_avg_sq());
    ++with_state;
  }
  if (adam_params != nullptr) *adam_params = with_state;
  return out;
}

}  // namespace elastic::torch_test
