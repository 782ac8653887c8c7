// Example 04's model: two convolutions (5x5, each followed by ReLU and 2x2 max pooling) and two
// linear layers, for 1 x 28 x 28 images and 10 classes.
#pragma once

#include <torch/torch.h>

namespace elastic::examples {

struct CnnImpl : ::torch::nn::Module {
  explicit CnnImpl(std::int64_t channels = 32);
  ::torch::Tensor forward(::torch::Tensor x);

  ::torch::nn::Conv2d conv1{nullptr}, conv2{nullptr};
  ::torch::nn::Linear fc1{nullptr}, fc2{nullptr};
};
TORCH_MODULE(Cnn);

}  // namespace elastic::examples
