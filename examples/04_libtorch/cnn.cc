#include "cnn.h"

namespace elastic::examples {

namespace nn = ::torch::nn;

CnnImpl::CnnImpl(std::int64_t channels) {
  conv1 = register_module("conv1", nn::Conv2d(nn::Conv2dOptions(1, channels, 5).padding(2)));
  conv2 =
      register_module("conv2", nn::Conv2d(nn::Conv2dOptions(channels, 2 * channels, 5).padding(2)));
  fc1 = register_module("fc1", nn::Linear(2 * channels * 7 * 7, 128));
  fc2 = register_module("fc2", nn::Linear(128, 10));
}

::torch::Tensor CnnImpl::forward(::torch::Tensor x) {
  x = ::torch::max_pool2d(::torch::relu(conv1(x)), 2);  // 28 -> 14
  x = ::torch::max_pool2d(::torch::relu(conv2(x)), 2);  // 14 -> 7
  x = ::torch::relu(fc1(x.flatten(1)));
  return fc2(x);
}

}  // namespace elastic::examples
