// StateRegistration::add_optimizer: the optimizer's lazily created per-parameter state as one
// Checkpointable, in a deterministic format of our own (parameter order, not torch's pointer-keyed
// hash map; no zip archive), so that equal states give equal bytes on every rank.
#include <c10/util/string_utils.h>
#include <torch/optim/adagrad.h>
#include <torch/optim/adam.h>
#include <torch/optim/adamw.h>
#include <torch/optim/rmsprop.h>
#include <torch/optim/sgd.h>

#include "absl/strings/str_cat.h"
#include "elastic/torch/state_registration.h"
#include "src/tensor_bytes.h"

namespace elastic::libtorch {
namespace {

namespace optim = ::torch::optim;

// The fields of each supported parameter state, in a fixed order. `f.scalar(int64&)` and
// `f.tensor(Tensor&)` are called for each; one list serves saving and loading.
template <typename F>
void fields(optim::AdamParamState& s, F& f) {
  f.scalar(s.step());
  f.tensor(s.exp_avg());
  f.tensor(s.exp_avg_sq());
  f.tensor(s.max_exp_avg_sq());
}
template <typename F>
void fields(optim::AdamWParamState& s, F& f) {
  f.scalar(s.step());
  f.tensor(s.exp_avg());
  f.tensor(s.exp_avg_sq());
  f.tensor(s.max_exp_avg_sq());
}
template <typename F>
void fields(optim::SGDParamState& s, F& f) {
  f.tensor(s.momentum_buffer());
}
template <typename F>
void fields(optim::RMSpropParamState& s, F& f) {
  f.scalar(s.step());
  f.tensor(s.square_avg());
  f.tensor(s.momentum_buffer());
  f.tensor(s.grad_avg());
}
template <typename F>
void fields(optim::AdagradParamState& s, F& f) {
  f.tensor(s.sum());
  f.scalar(s.step());
}

// The key torch::optim uses for a parameter's state (LibTorch 1.13, optim/serialize.h).
std::string state_key(const ::torch::Tensor& p) {
  return c10::guts::to_string(p.unsafeGetTensorImpl());
}

struct Writer {
  std::vector<std::byte>& out;
  void scalar(std::int64_t& v) { rt::put(out, v); }
  void tensor(::torch::Tensor& t) { put_tensor(out, t); }
};

// Reads one parameter's fields as Writer wrote them, refusing state that does not fit `param`; the
// first error is kept. With `copy` false (check()) no element is copied out of the bytes.
struct Loader {
  rt::Reader& in;
  const ::torch::Tensor& param;
  std::string what;
  bool copy;
  absl::Status status;
  void scalar(std::int64_t& v) {
    if (!status.ok()) return;
    std::optional<std::int64_t> x = in.get<std::int64_t>();
    if (!x) {
      status = absl::DataLossError(absl::StrCat(what, ": truncated"));
      return;
    }
    v = *x;
  }
  void tensor(::torch::Tensor& t) {
    if (!status.ok()) return;
    absl::StatusOr<SavedTensor> x = read_tensor(in, what);
    if (!x.ok()) {
      status = x.status();
      return;
    }
    if (!x->defined) {
      t = ::torch::Tensor();
      return;
    }
    // Every state tensor of the supported optimizers is shaped like its parameter.
    if (absl::Status st = check_fits(*x, param, what); !st.ok()) {
      status = st;
      return;
    }
    if (copy) t = to_tensor(*x).view(param.sizes()).to(param.device());  // same dtype: bit for bit
  }
};

template <typename ParamState>
class OptimizerStateOf final : public rt::Checkpointable {
 public:
  OptimizerStateOf(std::string name, optim::Optimizer& opt) : name_(std::move(name)), opt_(opt) {}

  std::vector<std::byte> save() const override {
    std::vector<std::byte> out;
    Writer w{out};
    rt::put(out, static_cast<std::uint64_t>(opt_.param_groups().size()));
    for (const optim::OptimizerParamGroup& g : opt_.param_groups()) {
      rt::put(out, g.options().get_lr());
      rt::put(out, static_cast<std::uint64_t>(g.params().size()));
      for (const ::torch::Tensor& p : g.params()) {
        auto it = opt_.state().find(state_key(p));
        rt::put(out, static_cast<std::uint8_t>(it == opt_.state().end() ? 0 : 1));
        if (it != opt_.state().end()) fields(static_cast<ParamState&>(*it->second), w);
      }
    }
    return out;
  }

  absl::Status check(std::span<const std::byte> bytes) const override {
    return parse(bytes, nullptr);
  }

  // Parses everything first, then replaces the optimizer's state: on error nothing changed.
  absl::Status load(std::span<const std::byte> bytes) override {
    Staged staged;
    if (absl::Status st = parse(bytes, &staged); !st.ok()) return st;
    auto& groups = opt_.param_groups();
    for (std::size_t gi = 0; gi < groups.size(); ++gi) groups[gi].options().set_lr(staged.lrs[gi]);
    for (auto& [key, ps] : staged.states) {
      if (ps) {
        opt_.state()[key] = std::move(ps);
      } else {
        opt_.state().erase(key);
      }
    }
    return absl::OkStatus();
  }

 private:
  struct Staged {
    std::vector<double> lrs;                                                  // per group
    std::vector<std::pair<std::string, std::unique_ptr<ParamState>>> states;  // null: none
  };

  // Everything load() refuses (malformed bytes; another number of groups or parameters; state of
  // another dtype or size), found before anything changes. With `staged` null (check()) nothing
  // is copied out of the bytes.
  absl::Status parse(std::span<const std::byte> bytes, Staged* staged) const {
    rt::Reader in(bytes);
    auto& groups = opt_.param_groups();
    const std::optional<std::uint64_t> ngroups = in.get<std::uint64_t>();
    if (!ngroups) return absl::DataLossError(absl::StrCat(name_, ": truncated"));
    if (*ngroups != groups.size()) {
      return absl::FailedPreconditionError(absl::StrCat(name_, ": saved with ", *ngroups,
                                                        " parameter groups, the optimizer has ",
                                                        groups.size()));
    }
    for (std::size_t gi = 0; gi < groups.size(); ++gi) {
      const std::optional<double> lr = in.get<double>();
      const std::optional<std::uint64_t> n = in.get<std::uint64_t>();
      if (!lr || !n) return absl::DataLossError(absl::StrCat(name_, ": truncated in group ", gi));
      if (*n != groups[gi].params().size()) {
        return absl::FailedPreconditionError(absl::StrCat(name_, ": group ", gi, " saved with ", *n,
                                                          " parameters, the optimizer has ",
                                                          groups[gi].params().size()));
      }
      if (staged != nullptr) staged->lrs.push_back(*lr);
      for (std::size_t pi = 0; pi < *n; ++pi) {
        const ::torch::Tensor& p = groups[gi].params()[pi];
        const std::optional<std::uint8_t> present = in.get<std::uint8_t>();
        if (!present || *present > 1)
          return absl::DataLossError(absl::StrCat(name_, ": malformed in group ", gi));
        std::unique_ptr<ParamState> ps;
        if (*present == 1) {
          ps = std::make_unique<ParamState>();
          Loader l{in, p, absl::StrCat(name_, " group ", gi, " parameter ", pi), staged != nullptr,
                   absl::OkStatus()};
          fields(*ps, l);
          if (!l.status.ok()) return l.status;
        }
        if (staged != nullptr) staged->states.emplace_back(state_key(p), std::move(ps));
      }
    }
    if (in.left() != 0)
      return absl::DataLossError(absl::StrCat(name_, ": ", in.left(), " trailing bytes"));
    return absl::OkStatus();
  }

  std::string name_;
  optim::Optimizer& opt_;
};

// The one table of supported optimizers: optimizer type -> its parameter state type.
template <typename Opt, typename ParamState>
std::unique_ptr<rt::Checkpointable> adapter_if(const std::string& name, optim::Optimizer& opt) {
  if (dynamic_cast<Opt*>(&opt) == nullptr) return nullptr;
  return std::make_unique<OptimizerStateOf<ParamState>>(name, opt);
}

std::unique_ptr<rt::Checkpointable> adapter_for(const std::string& name, optim::Optimizer& opt) {
  for (auto make : {&adapter_if<optim::Adam, optim::AdamParamState>,
                    &adapter_if<optim::AdamW, optim::AdamWParamState>,
                    &adapter_if<optim::SGD, optim::SGDParamState>,
                    &adapter_if<optim::RMSprop, optim::RMSpropParamState>,
                    &adapter_if<optim::Adagrad, optim::AdagradParamState>}) {
    if (auto a = make(name, opt)) return a;
  }
  return nullptr;
}

}  // namespace

absl::Status StateRegistration::add_optimizer(rt::State& state,
                                              ::torch::optim::Optimizer& optimizer,
                                              std::string name) {
  std::unique_ptr<rt::Checkpointable> a = adapter_for(name, optimizer);
  if (!a) {
    return absl::FailedPreconditionError(
        absl::StrCat("StateRegistration::add_optimizer('", name,
                     "'): unsupported optimizer type (supported: Adam, AdamW, SGD, RMSprop, "
                     "Adagrad); register its state yourself "
                     "with State::add_object"));
  }
  objects_.push_back(std::move(a));
  return state.add_object(std::move(name), objects_.back().get());
}

}  // namespace elastic::libtorch
