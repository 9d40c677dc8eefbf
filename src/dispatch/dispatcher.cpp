// Note [Dispatch layers]
// A call to an ember op passes through at most five layers, chosen by the key set of its
// arguments (the union of their TensorImpls' keys, plus the thread's included keys, minus the
// excluded ones):
//   1. FunctionOverride — a tensor whose subclass has torch_function, or a FunctionMode on the
//      stack: the handler gets the public op (composites such as linear included), boxed.
//   1b. Autocast — CPU autocast is on and the op is on its lists: its arguments are cast and the
//      op runs again without autocast (Note [Autocast layer] in autocast.cpp).
//   2. Autograd — a tensor requires grad and grad mode is on: the op's autograd kernel records
//      the graph node and redispatches with Autograd excluded.
//   3. DispatchOverride — a tensor whose subclass has torch_dispatch, or a DispatchMode: the
//      handler gets the primitive op, boxed, below autograd.
//   4. Backend — the op's implementation for CPU / Meta (one function: meta stops after shape
//      inference), or its QuantizedCPU kernel.
// Composite ops stop after layer 1 and run their body, whose calls are internal: below the
// function layer, like C++ code inside PyTorch, which torch_function never sees. Their primitive
// ops then pass layers 2–4 one by one, so a torch_dispatch handler sees `aten::_to_copy` where a
// torch_function handler saw `aten::to.dtype`.
// Within a layer, modes come first (innermost first; each is popped while its own handler runs,
// so what the handler calls reaches the next mode, then the subclasses), then the subclasses:
// the first tensor of each distinct subclass type, in argument order. The first handler that
// returns a result wins; if all return nullopt (NotImplemented) the call is a TypeError.
//
// Note [The unboxed fast path]
// Plain CPU tensors have none of the upper keys, so dispatch::call goes straight to the backend
// without boxing. Its test must be cheap (the per-op overhead benchmark measures it): the OR of
// the arguments' key sets, which live in their TensorImpls, with this thread's included keys
// (set while a mode is active). The thread's state is a constinit thread_local declared in
// dispatcher.h, so the test reads it inline — one __tls_get_addr — instead of calling an
// accessor in libember, and needs no lazy-initialisation guard. The excluded keys only remove
// keys, so the fast path never needs them. Measured with callgrind on `add` of two 1-element
// tensors (two dispatched calls: add and the empty it allocates): 4155 instructions with an
// out-of-line accessor, 4139 inline. The initial-exec TLS model would save ~20 more per call,
// but can fail to load when Python dlopens libember late ("cannot allocate memory in static TLS
// block"); the rest of the op's ~4100 is shape inference, allocation and the kernel.
//
// Note [Redispatch]
// OpHandle::redispatch runs "the op below the running handler's layer". Each handler runs with
// LocalState::redispatch_excluded set to its layer's keys: FunctionOverride for torch_function
// (so autograd and torch_dispatch still apply, as `func(*args)` under
// DisableTorchFunctionSubclass does in PyTorch), FunctionOverride | Autograd | DispatchOverride
// for torch_dispatch (the backend). A wrapper tensor cannot go to the backend
// (Note [Wrapper tensors] in subclass.cpp); its handler unwraps it and calls the op on the inner
// tensors.
#include "layers.h"

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <vector>

#include "ember/grad_mode.h"

namespace ember {

namespace dispatch {

namespace detail {
constinit thread_local LocalState t_local_state;
}  // namespace detail

namespace {
thread_local bool t_grad_enabled = true;
thread_local std::vector<intrusive_ptr<FunctionMode>> t_function_modes;
thread_local std::vector<intrusive_ptr<DispatchMode>> t_dispatch_modes;

// The included keys follow the mode stacks: a key while its layer has a mode. The Autocast key
// is autocast's own switch (Note [Autocast layer] in autocast.cpp) and stays as it is.
void refresh_mode_keys() {
  KeySet included = local_state().included & KeySet(kAutocastKey);
  if (!t_function_modes.empty()) included |= DispatchKey::FunctionOverride;
  if (!t_dispatch_modes.empty()) included |= DispatchKey::DispatchOverride;
  local_state().included = included;
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

std::string type_name(const std::type_info& t) {
  int status = 0;
  char* demangled = abi::__cxa_demangle(t.name(), nullptr, nullptr, &status);
  std::string r = status == 0 && demangled ? demangled : t.name();
  std::free(demangled);
  return r;
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
  PopMode(const PopMode&) = delete;
  PopMode& operator=(const PopMode&) = delete;
  Mode* get() const { return mode_.get(); }

 private:
  std::vector<intrusive_ptr<Mode>>& stack_;
  intrusive_ptr<Mode> mode_;
};

// Sets what OpHandle::redispatch excludes while a handler of one layer runs (Note [Redispatch]).
class HandlerLayer {
 public:
  explicit HandlerLayer(KeySet redispatch_excluded) : prev_(local_state().redispatch_excluded) {
    local_state().redispatch_excluded = redispatch_excluded;
  }
  ~HandlerLayer() { local_state().redispatch_excluded = prev_; }
  HandlerLayer(const HandlerLayer&) = delete;
  HandlerLayer& operator=(const HandlerLayer&) = delete;

 private:
  KeySet prev_;
};

template <class Mode, class Call>
std::optional<Stack> run_layer(std::vector<intrusive_ptr<Mode>>& modes, bool skip_subclasses,
                               const Stack& args, bool (TensorSubclass::*has)() const,
                               KeySet redispatch_excluded, Call&& call_handler, bool& mode_ran,
                               std::vector<TensorSubclass*>& subs) {
  HandlerLayer layer(redispatch_excluded);
  if (!modes.empty()) {
    PopMode<Mode> pop(modes);
    mode_ran = true;
    if (auto out = call_handler(*pop.get())) return out;
  }
  if (!skip_subclasses) subs = overloaded(args, has);
  for (TensorSubclass* s : subs) {
    if (auto out = call_handler(*s)) return out;
  }
  return std::nullopt;
}

}  // namespace

bool grad_mode_enabled() { return t_grad_enabled; }

std::optional<Stack> run_function_overrides(OpId op, const Stack& args) {
  const OpHandle& h = op_handle(op);
  bool mode_ran = false;
  std::vector<TensorSubclass*> subs;
  auto out = run_layer(
      t_function_modes, local_state().skip_subclass_function, args,
      &TensorSubclass::has_torch_function, KeySet(DispatchKey::FunctionOverride),
      [&](auto& handler) { return handler.torch_function(h, args); }, mode_ran, subs);
  if (out || (subs.empty() && !mode_ran)) return out;  // nothing to ask (subclasses disabled)
  EMBER_FAIL_KIND(ErrorKind::Type, "no implementation found for '", h.full_name(),
                  "' on types that implement __torch_function__: ", type_list(subs),
                  mode_ran ? " nor was it found on the currently active mode" : "");
}

// Autocast off for the handlers' duration: PyTorch runs a torch_dispatch handler with every key
// above Python excluded (Note [Autocast layer] in autocast.cpp).
class AutocastOffForHandler {
 public:
  AutocastOffForHandler() : prev_(local_state().included) {
    local_state().included = prev_ - kAutocastKey;
  }
  ~AutocastOffForHandler() {
    KeySet& included = local_state().included;
    included = prev_.has(kAutocastKey) ? included | kAutocastKey
                                                : included - kAutocastKey;
  }
  AutocastOffForHandler(const AutocastOffForHandler&) = delete;
  AutocastOffForHandler& operator=(const AutocastOffForHandler&) = delete;

 private:
  KeySet prev_;
};

std::optional<Stack> run_dispatch_overrides(OpId op, const Stack& args) {
  const OpHandle& h = op_handle(op);
  AutocastOffForHandler autocast_off;
  bool mode_ran = false;
  std::vector<TensorSubclass*> subs;
  auto out = run_layer(
      t_dispatch_modes, false, args, &TensorSubclass::has_torch_dispatch, kOverrideKeys,
      [&](auto& handler) { return handler.torch_dispatch(h, args); }, mode_ran, subs);
  if (out || (subs.empty() && !mode_ran)) return out;
  EMBER_FAIL_KIND(ErrorKind::Type, "Multiple dispatch failed for '", h.full_name(),
                  "'; all __torch_dispatch__ handlers returned NotImplemented: ", type_list(subs),
                  mode_ran ? " nor was it found on the currently active mode" : "");
}

// Note [Detach through the dispatch layer]
// PyTorch copies a tensor's impl without history (shallow_copy_and_detach) in a few places that
// are not ops: a non-differentiable view's result (so aten::detach shows up twice), a node
// saving one of its own outputs, and the unpacking of that saved output in backward. For a
// tensor with the Python key, or while a TorchDispatchMode is on, that copy is an aten::detach
// call into Python, so handlers see it and a wrapper subclass stays a wrapper (its detach
// returns a new wrapper). ember does the same at the same places: the detach op's frontend,
// SavedVariable (src/autograd/saved_variable.cpp).
std::optional<Stack> call_dispatch_layer(OpId op, const Stack& args) {
  LocalState& state = local_state();
  KeySet arg_keys;
  for_each_tensor(args, [&](const Tensor& t) { arg_keys |= keys_of(t); });
  const KeySet ks = (arg_keys | state.included) - state.excluded;
  if (!ks.has(DispatchKey::DispatchOverride)) return std::nullopt;
  ExcludeKeysGuard below(KeySet(DispatchKey::FunctionOverride) | DispatchKey::Autograd);
  return run_dispatch_overrides(op, args);
}

Tensor detach_through_dispatch_layer(const Tensor& t) {
  // The common case (no handler) without building a Stack: every detach and saved output asks.
  const LocalState& state = local_state();
  if (!((keys_of(t) | state.included) - state.excluded).has(DispatchKey::DispatchOverride)) {
    return Tensor();
  }
  auto out = call_dispatch_layer(OpId::detach, Stack{Value(t)});
  if (!out) return Tensor();
  return unbox_result<Tensor>(std::move(*out), op_handle(OpId::detach));
}

namespace {
std::vector<std::string>& quantized_error_names() {
  static std::vector<std::string> names(kNumOps);
  return names;
}
}  // namespace

void set_quantized_error_name(OpId op, std::string name) {
  quantized_error_names().at(static_cast<size_t>(op)) = std::move(name);
}

void no_kernel_error(OpId op, const char* backend) {
  const auto i = static_cast<size_t>(op);
  const bool renamed = std::string_view(backend) == "QuantizedCPU" &&
                       i < quantized_error_names().size() && !quantized_error_names()[i].empty();
  EMBER_FAIL_KIND(ErrorKind::NotImplemented, "Could not run '",
                  renamed ? quantized_error_names()[i] : op_handle(op).full_name(),
                  "' with arguments from the '", backend,
                  "' backend. This could be because the operator doesn't exist for this backend.");
}

void slot_signature_error(OpId op, const char* layer, const std::type_info& registered,
                          const std::type_info& expected) {
  // A programming error in the registration (see register_autograd): abort with both types.
  ::ember::detail::assert_fail(
      "slot signature matches the call", __FILE__, __LINE__,
      ::ember::detail::str_cat("the ", layer, " kernel registered for ",
                               op_handle(op).full_name(), " has signature ",
                               type_name(registered), " but the op's frontend calls it as ",
                               type_name(expected)));
}

void wrapper_at_backend_error(OpId op, const Tensor& wrapper) {
  EMBER_FAIL_KIND(ErrorKind::NotImplemented, "Could not run '", op_handle(op).full_name(),
                  "' on a wrapper tensor of type ", wrapper.impl()->subclass()->name(),
                  ": it has no data of its own. Its __torch_dispatch__ must unwrap it and call the "
                  "op on the inner tensors instead of redispatching it.");
}

}  // namespace dispatch

bool GradMode::is_enabled() { return dispatch::t_grad_enabled; }
void GradMode::set_enabled(bool enabled) { dispatch::t_grad_enabled = enabled; }

namespace dispatch {
size_t function_mode_count() { return t_function_modes.size(); }
FunctionMode* function_mode_at(size_t i) {
  EMBER_CHECK_INDEX(i < t_function_modes.size(), "function mode stack index ", i,
                    " out of range (", t_function_modes.size(), " modes)");
  return t_function_modes[i].get();
}
void push_function_mode(intrusive_ptr<FunctionMode> mode) {
  EMBER_CHECK(mode != nullptr, "push_function_mode: the mode is null");
  t_function_modes.push_back(std::move(mode));
  refresh_mode_keys();
}
intrusive_ptr<FunctionMode> pop_function_mode() {
  EMBER_CHECK(!t_function_modes.empty(), "trying to pop from an empty torch function mode stack");
  intrusive_ptr<FunctionMode> top = std::move(t_function_modes.back());
  t_function_modes.pop_back();
  refresh_mode_keys();
  return top;
}
size_t dispatch_mode_count() { return t_dispatch_modes.size(); }
DispatchMode* dispatch_mode_at(size_t i) {
  EMBER_CHECK_INDEX(i < t_dispatch_modes.size(), "torch dispatch mode stack index ", i,
                    " out of range (", t_dispatch_modes.size(), " modes)");
  return t_dispatch_modes[i].get();
}
}  // namespace dispatch

FunctionModeGuard::FunctionModeGuard(intrusive_ptr<FunctionMode> m) : mode_(m.get()) {
  EMBER_CHECK(mode_ != nullptr, "FunctionModeGuard: the mode is null");
  dispatch::push_function_mode(std::move(m));
}
FunctionModeGuard::~FunctionModeGuard() {
  EMBER_ASSERT(!dispatch::t_function_modes.empty() &&
                   dispatch::t_function_modes.back().get() == mode_,
               "FunctionModeGuards must end in the reverse order of their creation");
  dispatch::t_function_modes.pop_back();
  dispatch::refresh_mode_keys();
}
DispatchModeGuard::DispatchModeGuard(intrusive_ptr<DispatchMode> m) : mode_(m.get()) {
  EMBER_CHECK(mode_ != nullptr, "DispatchModeGuard: the mode is null");
  dispatch::t_dispatch_modes.push_back(std::move(m));
  dispatch::refresh_mode_keys();
}
DispatchModeGuard::~DispatchModeGuard() {
  EMBER_ASSERT(!dispatch::t_dispatch_modes.empty() &&
                   dispatch::t_dispatch_modes.back().get() == mode_,
               "DispatchModeGuards must end in the reverse order of their creation");
  dispatch::t_dispatch_modes.pop_back();
  dispatch::refresh_mode_keys();
}

DisableTorchFunctionSubclass::DisableTorchFunctionSubclass()
    : prev_(dispatch::local_state().skip_subclass_function) {
  dispatch::local_state().skip_subclass_function = true;
}
DisableTorchFunctionSubclass::~DisableTorchFunctionSubclass() {
  dispatch::local_state().skip_subclass_function = prev_;
}

DisableTorchFunction::DisableTorchFunction() : prev_(dispatch::local_state().excluded.raw()) {
  dispatch::local_state().excluded |= DispatchKey::FunctionOverride;
}
DisableTorchFunction::~DisableTorchFunction() {
  dispatch::local_state().excluded = KeySet::from_bits(prev_);
}

}  // namespace ember
