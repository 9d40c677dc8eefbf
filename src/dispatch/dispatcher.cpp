// Note [Dispatch layers]
// A call to an ember op passes through at most four layers, chosen by the key set of its
// arguments (the union of their TensorImpls' keys, plus the thread's included keys, minus the
// excluded ones):
//   1. FunctionOverride — a tensor whose subclass has torch_function, or a FunctionMode on the
//      stack: the handler gets the public op (composites such as linear included), boxed.
//   2. Autograd — a tensor requires grad and grad mode is on: the op's autograd kernel records
//      the graph node and redispatches with Autograd excluded.
//   3. DispatchOverride — a tensor whose subclass has torch_dispatch, or a DispatchMode: the
//      handler gets the primitive op, boxed, below autograd.
//   4. Backend — the op's implementation for CPU / Meta (one function: meta stops after shape
//      inference), or its QuantizedCPU kernel.
// Composite ops stop after layer 1 and run their body, whose calls are internal: below the
// function layer, like C++ code inside PyTorch, which torch_function never sees.
// Plain CPU tensors have none of the upper keys, so dispatch::call goes straight to the backend
// without boxing (the unboxed fast path).
#include "dispatcher.h"

#include <algorithm>
#include <vector>

#include "ember/grad_mode.h"

namespace ember {

namespace dispatch {

LocalState& local_state() {
  thread_local LocalState s;
  return s;
}

namespace {
thread_local bool t_grad_enabled = true;
thread_local std::vector<intrusive_ptr<FunctionMode>> t_function_modes;
thread_local std::vector<intrusive_ptr<DispatchMode>> t_dispatch_modes;

void refresh_mode_keys() {
  auto& s = local_state();
  s.included = KeySet::from_bits(
      (s.included - (KeySet(DispatchKey::FunctionOverride) | DispatchKey::DispatchOverride)).raw());
  if (!t_function_modes.empty()) s.included |= DispatchKey::FunctionOverride;
  if (!t_dispatch_modes.empty()) s.included |= DispatchKey::DispatchOverride;
}

// Tensors (also inside lists) of the arguments, in argument order.
template <class F>
void for_each_tensor(const Stack& args, F&& f) {
  for (const auto& v : args) {
    if (v.is_tensor()) {
      f(v.to_tensor());
    } else if (v.is_tensor_list()) {
      for (const auto& t : v.to_tensor_list()) f(t);
    } else if (v.is_optional_tensor_list()) {
      for (const auto& t : v.to_optional_tensor_list())
        if (t) f(*t);
    }
  }
}

// The overloaded arguments: the first tensor of each distinct subclass type with the hook, in
// argument order (C++ subclasses carry no inheritance order to sort by).
std::vector<TensorSubclass*> overloaded(const Stack& args, bool (TensorSubclass::*has)() const) {
  std::vector<TensorSubclass*> out;
  for_each_tensor(args, [&](const Tensor& t) {
    TensorSubclass* s = t.defined() ? t.impl()->subclass() : nullptr;
    if (!s || !(s->*has)()) return;
    bool seen = std::any_of(out.begin(), out.end(),
                            [&](TensorSubclass* o) { return o->type_key() == s->type_key(); });
    if (!seen) out.push_back(s);
  });
  return out;
}

std::string type_list(const std::vector<TensorSubclass*>& subs) {
  std::string r = "[";
  for (size_t i = 0; i < subs.size(); ++i) r += (i ? ", " : "") + subs[i]->name();
  return r + "]";
}

// Pops the top mode for the duration of its own handler, as PyTorch does.
template <class Mode>
class PopMode {
 public:
  explicit PopMode(std::vector<intrusive_ptr<Mode>>& stack) : stack_(stack) {
    mode_ = stack_.back();
    stack_.pop_back();
    refresh_mode_keys();
  }
  ~PopMode() {
    stack_.push_back(mode_);
    refresh_mode_keys();
  }
  Mode* get() const { return mode_.get(); }

 private:
  std::vector<intrusive_ptr<Mode>>& stack_;
  intrusive_ptr<Mode> mode_;
};

}  // namespace

bool grad_mode_enabled() { return t_grad_enabled; }

std::optional<Stack> run_function_overrides(OpId op, const Stack& args) {
  const OpHandle& h = op_handle(op);
  bool mode_ran = false;
  if (!t_function_modes.empty()) {
    PopMode<FunctionMode> pop(t_function_modes);
    mode_ran = true;
    if (auto out = pop.get()->torch_function(h, args)) return out;
  }
  if (local_state().skip_subclass_function) {
    return std::nullopt;
  }
  auto subs = overloaded(args, &TensorSubclass::has_torch_function);
  if (subs.empty() && !mode_ran) return std::nullopt;
  for (TensorSubclass* s : subs) {
    if (auto out = s->torch_function(h, args)) return out;
  }
  EMBER_FAIL_KIND(ErrorKind::Type, "no implementation found for '", h.full_name(),
                  "' on types that implement __torch_function__: ", type_list(subs),
                  mode_ran ? " nor in the active function mode" : "");
}

std::optional<Stack> run_dispatch_overrides(OpId op, const Stack& args) {
  const OpHandle& h = op_handle(op);
  bool mode_ran = false;
  if (!t_dispatch_modes.empty()) {
    PopMode<DispatchMode> pop(t_dispatch_modes);
    mode_ran = true;
    if (auto out = pop.get()->torch_dispatch(h, args)) return out;
  }
  auto subs = overloaded(args, &TensorSubclass::has_torch_dispatch);
  if (subs.empty() && !mode_ran) return std::nullopt;
  for (TensorSubclass* s : subs) {
    if (auto out = s->torch_dispatch(h, args)) return out;
  }
  EMBER_FAIL_KIND(ErrorKind::Type, "Multiple dispatch failed for '", h.full_name(),
                  "'; all __torch_dispatch__ handlers returned NotImplemented: ", type_list(subs),
                  mode_ran ? " and the active dispatch mode" : "");
}

void no_kernel_error(OpId op, const char* backend) {
  EMBER_FAIL_KIND(ErrorKind::NotImplemented, "Could not run '", op_handle(op).full_name(),
                  "' with arguments from the '", backend,
                  "' backend. This could be because the operator doesn't exist for this backend.");
}

}  // namespace dispatch

bool GradMode::is_enabled() { return dispatch::t_grad_enabled; }
void GradMode::set_enabled(bool enabled) { dispatch::t_grad_enabled = enabled; }

std::optional<Stack> TensorSubclass::torch_function(const OpHandle&, const Stack&) {
  return std::nullopt;
}
std::optional<Stack> TensorSubclass::torch_dispatch(const OpHandle&, const Stack&) {
  return std::nullopt;
}

void set_subclass(const Tensor& t, intrusive_ptr<TensorSubclass> s) {
  EMBER_CHECK(t.defined(), "set_subclass: the tensor is undefined");
  t.impl()->set_subclass(std::move(s));
}

FunctionModeGuard::FunctionModeGuard(intrusive_ptr<FunctionMode> m) {
  dispatch::t_function_modes.push_back(std::move(m));
  dispatch::refresh_mode_keys();
}
FunctionModeGuard::~FunctionModeGuard() {
  dispatch::t_function_modes.pop_back();
  dispatch::refresh_mode_keys();
}
DispatchModeGuard::DispatchModeGuard(intrusive_ptr<DispatchMode> m) {
  dispatch::t_dispatch_modes.push_back(std::move(m));
  dispatch::refresh_mode_keys();
}
DispatchModeGuard::~DispatchModeGuard() {
  dispatch::t_dispatch_modes.pop_back();
  dispatch::refresh_mode_keys();
}

DisableTorchFunctionSubclass::DisableTorchFunctionSubclass()
    : prev_(dispatch::local_state().skip_subclass_function) {
  dispatch::local_state().skip_subclass_function = true;
}
DisableTorchFunctionSubclass::~DisableTorchFunctionSubclass() {
  dispatch::local_state().skip_subclass_function = prev_ != 0;
}

DisableTorchFunction::DisableTorchFunction() : prev_(dispatch::local_state().excluded.raw()) {
  dispatch::local_state().excluded |= DispatchKey::FunctionOverride;
}
DisableTorchFunction::~DisableTorchFunction() {
  dispatch::local_state().excluded = KeySet::from_bits(prev_);
}

}  // namespace ember
