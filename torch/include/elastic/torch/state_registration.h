// Puts a LibTorch model and optimizer into the elastic State, so that commit, restore, sync to a
// joining rank and durable checkpoints cover them without the user listing tensors:
//
//   elastic::rt::State state;
//   elastic::libtorch::StateRegistration reg;
//   reg.add_module(state, *model);           // every parameter and buffer, recursively
//   reg.add_optimizer(state, optimizer);     // per-parameter state (Adam moments, momentum ...) +
//   lr elastic::rt::run(session, state, sampler, step, ...);
//
// All calls are LOCAL and must be made in the same order with the same model on every rank (the
// State checks the layout at every sync and checkpoint load). Register after the model is on its
// final device and dtype (module->to(...)): CPU parameters are registered by address (one memcpy
// per tensor at commit), so moving the model afterwards would leave the State pointing at freed
// memory. Tensors on a GPU, or not contiguous, are copied through host memory at commit and back
// at restore.
//
// Optimizer state: torch creates it lazily at the first optimizer.step(), so it cannot be
// registered by address; it is saved as one object (per parameter, in the optimizer's parameter
// order: the int64 step count and every state tensor bit for bit, plus each group's learning
// rate). Restoring or syncing REPLACES the optimizer's state with the committed one: a joining
// rank, which has none, then holds the same moments as the others; a parameter without state in
// the commit (not yet stepped) has none after the restore either. Supported: Adam, AdamW, SGD,
// RMSprop, Adagrad (torch::optim of LibTorch 1.13); LBFGS and custom optimizers are refused with
// FailedPrecondition (register their state with State::add_object).
#pragma once

#include <torch/nn/module.h>
#include <torch/optim/optimizer.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "elastic/worker/checkpointable.h"
#include "elastic/worker/state.h"

namespace elastic::libtorch {

class StateRegistration {
 public:
  StateRegistration() = default;
  StateRegistration(const StateRegistration&) = delete;
  StateRegistration& operator=(const StateRegistration&) = delete;
  StateRegistration(StateRegistration&&) noexcept = default;
  StateRegistration& operator=(StateRegistration&&) noexcept = default;
  ~StateRegistration();

  // LOCAL. Registers every parameter and buffer of `module` and its children, named
  // "<prefix>.<parameter name>" (e.g. "model.conv1.weight"); CPU tensors of a dtype the State
  // does not tell apart by itself (16-bit floats, integers, bool) get ":<dtype>" appended
  // ("model.bn.num_batches_tracked:Long"), so that a checkpoint of a bf16 model is refused by an
  // fp16 one rather than read as fp16 bits. Must outlive nothing: the tensors
  // stay alive as long as the module does, and the module must outlive `state`.
  // Errors: InvalidArgument for a sparse tensor, or a quantized one that is not a contiguous CPU
  // tensor (their indices or scales would not be saved); whatever State::add_* returns (e.g.
  // FailedPrecondition after the first commit).
  absl::Status add_module(rt::State& state, const ::torch::nn::Module& module,
                          std::string prefix = "model");

  // LOCAL. Registers the optimizer's state as the object "<name>". The optimizer must outlive
  // `state` and keep its parameter list (add no parameter groups afterwards).
  // Errors: FailedPrecondition for an unsupported optimizer type; State::add_object's errors.
  absl::Status add_optimizer(rt::State& state, ::torch::optim::Optimizer& optimizer,
                             std::string name = "optimizer");

 private:
  // The adapters State refers to by pointer: owned here, so this object must outlive `state`.
  std::vector<std::unique_ptr<rt::Checkpointable>> objects_;
};

}  // namespace elastic::libtorch
