// The learning rate across rescales. With a fixed per-rank batch, a membership of N ranks trains
// with a global batch N times the per-rank one; the linear scaling rule (Goyal et al., 2017) keeps
// the distance the weights move per epoch about the same by scaling the rate with N. As a reset
// hook of the run loop it is applied before the first step of every membership, after the State
// was synced (so it overrides the rate that came with the optimizer state):
//
//   elastic::rt::RunCallbacks cb;
//   cb.on_reset = elastic::libtorch::linear_lr_scaling(optimizer, /*lr=*/0.01, /*lr_ranks=*/1);
#pragma once

#include <torch/optim/optimizer.h>

#include <functional>

#include "absl/status/status.h"
#include "elastic/worker/run.h"

namespace elastic::libtorch {

// LOCAL. Sets every parameter group's learning rate. InvalidArgument when lr is not finite or < 0.
absl::Status set_learning_rate(::torch::optim::Optimizer& optimizer, double lr);

// A reset hook (RunCallbacks::on_reset) that sets the rate to lr * size / lr_ranks, `lr` being
// meant for `lr_ranks` ranks. LOCAL. lr_ranks must be > 0 (else the hook returns InvalidArgument).
// The optimizer must outlive the hook.
std::function<absl::Status(const rt::ResetInfo&)> linear_lr_scaling(
    ::torch::optim::Optimizer& optimizer, double lr, int lr_ranks);

}  // namespace elastic::libtorch
