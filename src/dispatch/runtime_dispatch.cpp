// The call path of a run-time op (Note [Run-time operators] in library.cpp): the four layers of
// Note [Dispatch layers] in dispatcher.cpp, boxed, with the op's kernels chosen per key as
// PyTorch's dispatch table computation chooses them:
//   backend    its kernel at CPU / Meta / QuantizedCPU, else CompositeExplicitAutograd, else
//              CompositeImplicitAutograd;
//   autograd   its Autograd kernel, else CompositeImplicitAutograd when there is no backend
//              kernel (the op decomposes before autograd and torch_dispatch see it, as a Composite
//              row of ops.def does), else the autograd fallback (Note [Autograd fallback]).
#include "../autograd/autograd_meta.h"
#include "ember/warning.h"
#include "layers.h"
#include "runtime_ops.h"

namespace ember::dispatch {

namespace {

bool meta_device_arg(const Stack& args) {
  for (const auto& v : args)
    if (v.is_device() && v.to_device().is_meta()) return true;
  return false;
}

// Note [Autograd fallback]
// A run-time op with kernels but no Autograd kernel, called on inputs that require grad, runs
// below autograd and its outputs get a WarnNotImplemented node (PyTorch 2's "warn" autograd
// fallback mode): backward through it warns and gives its inputs no gradient. A fallthrough at
// Autograd (for the op, or the `_` fallback) skips the node and the warning.
class WarnNotImplemented final : public autograd::Node {
 public:
  explicit WarnNotImplemented(std::string op) : op_(std::move(op)) {}
  std::string name() const override { return "WarnNotImplemented"; }
  autograd::tensor_list apply(autograd::tensor_list&&) override {
    warn(op_ + ": an autograd kernel was not registered to the Autograd key(s) but we are trying "
         "to backprop through it. This may lead to silently incorrect behavior. This behavior is "
         "deprecated and will be removed in a future version of PyTorch. If your operator is "
         "differentiable, please ensure you have registered an autograd kernel to the correct "
         "Autograd key (e.g. DispatchKey::Autograd, DispatchKey::CompositeImplicitAutograd). If "
         "your operator is not differentiable, or to squash this warning and use the previous "
         "behavior, please register ember::CppFunction::makeFallthrough() to "
         "DispatchKey::Autograd.");
    return autograd::tensor_list(num_outputs());
  }

 private:
  std::string op_;
};

template <class Below>
Stack autograd_fallback(const OpHandle& op, const Stack& args, Below&& below) {
  std::vector<Tensor> needing;
  for_each_tensor(args, [&](const Tensor& t) {
    if (t.requires_grad()) needing.push_back(t);
  });
  if (needing.empty()) return below();
  const auto& params = op.arguments();
  for (size_t i = 0; i < args.size() && i < params.size(); ++i)
    if (params[i].is_mutable && args[i].is_tensor() && args[i].to_tensor().defined())
      autograd::check_inplace(args[i].to_tensor());
  Stack out = below();
  auto node = std::make_shared<WarnNotImplemented>(op.name());
  node->set_next_edges(autograd::collect_next_edges(needing));
  auto is_input = [&](const Tensor& t) {
    bool found = false;
    for_each_tensor(args, [&](const Tensor& a) { found = found || a.impl() == t.impl(); });
    return found;
  };
  const auto& rets = op.returns();
  for (size_t i = 0; i < out.size(); ++i) {
    auto attach = [&](const Tensor& t) {
      if (!t.defined() || !(is_floating(t.dtype()) || is_complex(t.dtype()))) return;
      const bool inplace = i < rets.size() && rets[i].is_mutable;
      if (inplace) {
        node->add_input_metadata(t);
        autograd::rebase_history(t, node);
      } else if (!is_input(t)) {
        autograd::set_history(t, node, node->add_input_metadata(t));
      }
    };
    if (out[i].is_tensor()) attach(out[i].to_tensor());
    else if (out[i].is_tensor_list())
      for (const auto& t : out[i].to_tensor_list()) attach(t);
  }
  return out;
}

}  // namespace

Stack call_runtime_op(const OpHandle& op, const Stack& args) {
  const OpId id = static_cast<OpId>(op.id());
  KernelSnapshot k = runtime_kernels(op.id());
  EMBER_CHECK(k.defined, "operator ", op.full_name(),
              " is not defined: the Library that defined it was destroyed");
  LocalState& state = local_state();
  ++state.slow_calls;
  KeySet arg_keys;
  for_each_tensor(args, [&](const Tensor& t) { arg_keys |= keys_of(t); });
  const KeySet ks = (arg_keys | state.included) - state.excluded;
  // 1. The op, boxed, to torch_function modes and subclasses.
  if (ks.has(DispatchKey::FunctionOverride)) {
    if (auto out = run_function_overrides(id, args)) return std::move(*out);
  }
  ExcludeKeysGuard no_function_layer(DispatchKey::FunctionOverride);

  const LibraryKey backend = ks.has(DispatchKey::QuantizedCPU) ? LibraryKey::QuantizedCPU
                             : ks.has(DispatchKey::Meta) || meta_device_arg(args)
                                 ? LibraryKey::Meta
                                 : LibraryKey::CPU;
  auto usable = [](const KernelPtr& p) { return p && !p->fallthrough ? p : KernelPtr(); };
  KernelPtr backend_kernel = usable(k[backend]);
  if (!backend_kernel) backend_kernel = usable(k[LibraryKey::CompositeExplicitAutograd]);
  const KernelPtr composite = usable(k[LibraryKey::CompositeImplicitAutograd]);
  const KernelPtr& autograd_kernel = k[LibraryKey::Autograd];
  if (composite && !autograd_kernel && !backend_kernel) return composite->fn(op, args);

  // 3 and 4, below autograd: torch_dispatch, then the backend kernel; then the version bump of
  // custom_op's ADInplaceOrView kernel (between autograd and torch_dispatch in PyTorch).
  auto below = [&]() -> Stack {
    ExcludeKeysGuard below_autograd(DispatchKey::Autograd);
    Stack out;
    std::optional<Stack> handled;
    if (ks.has(DispatchKey::DispatchOverride)) handled = run_dispatch_overrides(id, args);
    if (handled) {
      out = std::move(*handled);
    } else {
      if (arg_keys.has(DispatchKey::DispatchOverride)) {
        for_each_tensor(args, [&](const Tensor& t) { check_not_wrapper(id, t); });
      }
      if (backend_kernel) out = backend_kernel->fn(op, args);
      else if (composite) out = composite->fn(op, args);
      else no_kernel_error(id, library_key_name(backend));
    }
    if (k.bump_mutated_versions) {
      const auto& params = op.arguments();
      for (size_t i = 0; i < args.size() && i < params.size(); ++i)
        if (params[i].is_mutable && args[i].is_tensor() && args[i].to_tensor().defined())
          args[i].to_tensor().impl()->bump_version();
    }
    return out;
  };
  // 2. Autograd.
  if (ks.has(DispatchKey::Autograd) && grad_mode_enabled()) {
    if (autograd_kernel && !autograd_kernel->fallthrough) return autograd_kernel->fn(op, args);
    if (!autograd_kernel && !k.autograd_fallthrough_fallback) return autograd_fallback(op, args, below);
  }
  return below();
}

}  // namespace ember::dispatch
