// StateRegistration::add_module: CPU contiguous tensors by address, everything else through a
// host copy (TensorMirror).
#include <cstdint>
#include <span>

#include "absl/strings/str_cat.h"
#include "elastic/torch/state_registration.h"
#include "src/tensor_bytes.h"

namespace elastic::libtorch {
namespace {

// One tensor that the State cannot reach by address (GPU memory, or not contiguous): saved by
// copying it to the host, loaded by copying back into the same tensor (same storage, so the model
// and the optimizer keep seeing it).
class TensorMirror final : public rt::Checkpointable {
 public:
  TensorMirror(std::string name, ::torch::Tensor t) : name_(std::move(name)), t_(std::move(t)) {}
  std::vector<std::byte> save() const override {
    std::vector<std::byte> out;
    put_tensor(out, t_);
    return out;
  }
  absl::Status load(std::span<const std::byte> bytes) override {
    rt::Reader in(bytes);
    absl::StatusOr<::torch::Tensor> src = get_tensor(in, name_);
    if (!src.ok()) return src.status();
    if (!src->defined() || in.left() != 0)
      return absl::DataLossError(absl::StrCat(name_, ": malformed tensor bytes"));
    return copy_into(*src, t_, name_);
  }

 private:
  std::string name_;
  ::torch::Tensor t_;
};

absl::Status add_tensor(rt::State& state, std::string name, const ::torch::Tensor& t,
                        std::vector<std::unique_ptr<rt::Checkpointable>>& objects) {
  if (!t.defined())
    return absl::OkStatus();  // an optional parameter that is absent (e.g. bias=false)
  if (!t.is_cpu() || !t.is_contiguous() || t.is_sparse()) {
    objects.push_back(std::make_unique<TensorMirror>(name, t));
    return state.add_object(std::move(name), objects.back().get());
  }
  const auto n = static_cast<std::size_t>(t.numel());
  switch (t.scalar_type()) {
    case ::torch::kFloat32:
      return state.add_buffer(std::move(name), std::span<float>(t.data_ptr<float>(), n));
    case ::torch::kFloat64:
      return state.add_buffer(std::move(name), std::span<double>(t.data_ptr<double>(), n));
    case ::torch::kBFloat16:
    case ::torch::kFloat16:
      return state.add_buffer(
          std::move(name), std::span<std::uint16_t>(static_cast<std::uint16_t*>(t.data_ptr()), n));
    default:  // integer buffers (BatchNorm's num_batches_tracked), bool masks ...
      return state.add_bytes(
          std::move(name), std::span<std::byte>(static_cast<std::byte*>(t.data_ptr()), t.nbytes()));
  }
}

}  // namespace

StateRegistration::~StateRegistration() = default;

absl::Status StateRegistration::add_module(rt::State& state, const ::torch::nn::Module& module,
                                           std::string prefix) {
  for (const auto& item : module.named_parameters(/*recurse=*/true)) {
    if (absl::Status st =
            add_tensor(state, absl::StrCat(prefix, ".", item.key()), item.value(), objects_);
        !st.ok()) {
      return st;
    }
  }
  for (const auto& item : module.named_buffers(/*recurse=*/true)) {
    if (absl::Status st =
            add_tensor(state, absl::StrCat(prefix, ".", item.key()), item.value(), objects_);
        !st.ok()) {
      return st;
    }
  }
  return absl::OkStatus();
}

}  // namespace elastic::libtorch
