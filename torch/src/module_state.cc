// StateRegistration::add_module: CPU contiguous tensors by address, everything else through a
// host copy (TensorMirror).
#include <cstdint>
#include <span>
#include <string>

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
  absl::Status check(std::span<const std::byte> bytes) const override {
    return parse(bytes).status();
  }
  absl::Status load(std::span<const std::byte> bytes) override {
    absl::StatusOr<SavedTensor> src = parse(bytes);
    if (!src.ok()) return src.status();
    return copy_into(*src, t_, name_);
  }

 private:
  // Everything load() refuses, found before anything is copied: malformed bytes, and a tensor of
  // another dtype or element count (another model).
  absl::StatusOr<SavedTensor> parse(std::span<const std::byte> bytes) const {
    rt::Reader in(bytes);
    absl::StatusOr<SavedTensor> src = read_tensor(in, name_);
    if (!src.ok()) return src.status();
    if (!src->defined || in.left() != 0)
      return absl::DataLossError(absl::StrCat(name_, ": malformed tensor bytes"));
    if (absl::Status st = check_fits(*src, t_, name_); !st.ok()) return st;
    return src;
  }

  std::string name_;
  ::torch::Tensor t_;
};

// The State records the element type of float32 and float64 buffers (their kinds differ) but keeps
// 16-bit floats, integers and bools as bits of a size: their names carry the dtype, so that a
// checkpoint of bf16 weights is refused by an fp16 model (the layouts differ), not read as fp16.
std::string with_dtype(const std::string& name, const ::torch::Tensor& t) {
  return absl::StrCat(name, ":", c10::toString(t.scalar_type()));
}

absl::Status add_tensor(rt::State& state, std::string name, const ::torch::Tensor& t,
                        std::vector<std::unique_ptr<rt::Checkpointable>>& objects) {
  if (!t.defined())
    return absl::OkStatus();  // an optional parameter that is absent (e.g. bias=false)
  // A mirror saves the elements of a dense tensor (put_tensor): a sparse tensor's indices, or a
  // quantized one's scale, would be lost (torch threw at the first commit or restore).
  if (t.layout() != ::torch::kStrided) {
    return absl::InvalidArgumentError(
        absl::StrCat("StateRegistration: '", name, "' is not a dense (strided) tensor"));
  }
  if (!t.is_cpu() || !t.is_contiguous()) {
    if (t.is_quantized()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "StateRegistration: '", name, "' is quantized and not a contiguous CPU tensor"));
    }
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
          with_dtype(name, t),
          std::span<std::uint16_t>(static_cast<std::uint16_t*>(t.data_ptr()), n));
    default:  // integer buffers (BatchNorm's num_batches_tracked), bool masks ...
      return state.add_bytes(
          with_dtype(name, t),
          std::span<std::byte>(static_cast<std::byte*>(t.data_ptr()), t.nbytes()));
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
