#include "elastic/torch/learning_rate.h"

#include <cmath>

#include "absl/strings/str_cat.h"

namespace elastic::libtorch {

absl::Status set_learning_rate(::torch::optim::Optimizer& optimizer, double lr) {
  if (!std::isfinite(lr) || lr < 0)
    return absl::InvalidArgumentError(absl::StrCat("learning rate ", lr, " is not >= 0"));
  for (::torch::optim::OptimizerParamGroup& g : optimizer.param_groups()) g.options().set_lr(lr);
  return absl::OkStatus();
}

std::function<absl::Status(const rt::ResetInfo&)> linear_lr_scaling(
    ::torch::optim::Optimizer& optimizer, double lr, int lr_ranks) {
  return [&optimizer, lr, lr_ranks](const rt::ResetInfo& info) -> absl::Status {
    if (lr_ranks <= 0)
      return absl::InvalidArgumentError(
          absl::StrCat("linear_lr_scaling: lr_ranks ", lr_ranks, " <= 0"));
    return set_learning_rate(optimizer,
                             lr * static_cast<double>(info.size) / static_cast<double>(lr_ranks));
  };
}

}  // namespace elastic::libtorch
