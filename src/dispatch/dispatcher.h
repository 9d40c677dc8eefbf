// The typed call path every op frontend uses (internal; see Note [Dispatch layers] in
// dispatcher.cpp). An op family file writes, once per op:
//
//   Tensor add(const Tensor& self, const Tensor& other, const Scalar& alpha) {
//     return dispatch::call<add_impl>(OpId::add_Tensor, self, other, alpha);
//   }
//   EMBER_REGISTER_OP(add_Tensor, static_cast<Tensor (*)(const Tensor&, const Tensor&, const Scalar&)>(&add));
//
// where add_impl is the backend implementation (shape inference, output allocation, and the CPU
// kernel; meta tensors stop after allocation). Plain CPU tensors take the first branch of call():
// a few bit operations and a direct call, no boxing.
#pragma once

#include <tuple>
#include <type_traits>
#include <typeinfo>
#include <vector>

#include "ember/dispatch.h"
#include "ember/generator.h"
#include "ember/tensor.h"
#include "ember/value.h"

namespace ember::dispatch {

enum class OpId : uint16_t {
#define EMBER_OP(id, kind, schema) id,
#include "ops.def"
  NumOps,
};
constexpr int kNumOps = static_cast<int>(OpId::NumOps);

const OpHandle& op_handle(OpId id);

// ---- thread-local dispatch state ----
struct LocalState {
  KeySet included;  // keys added to every call (modes push FunctionOverride / DispatchOverride)
  KeySet excluded;  // keys removed from every call (below-autograd, inside handlers, no_grad)
  bool skip_subclass_function = false;  // DisableTorchFunctionSubclass
};
LocalState& local_state();

/// Excludes `keys` for the guard's lifetime (restoring the previous set after).
class ExcludeKeysGuard {
 public:
  explicit ExcludeKeysGuard(KeySet keys) : prev_(local_state().excluded) {
    local_state().excluded |= keys;
  }
  ~ExcludeKeysGuard() { local_state().excluded = prev_; }
  ExcludeKeysGuard(const ExcludeKeysGuard&) = delete;
  ExcludeKeysGuard& operator=(const ExcludeKeysGuard&) = delete;

 private:
  KeySet prev_;
};

// ---- boxing ----
inline KeySet keys_of(const Tensor& t) { return t.defined() ? t.impl()->keys() : KeySet(); }
inline KeySet keys_of(const std::optional<Tensor>& t) { return t ? keys_of(*t) : KeySet(); }
inline KeySet keys_of(ArrayRef<Tensor> ts) {
  KeySet k;
  for (const auto& t : ts) k |= keys_of(t);
  return k;
}
inline KeySet keys_of(const std::vector<Tensor>& ts) { return keys_of(ArrayRef<Tensor>(ts)); }
inline KeySet keys_of(const Value::OptionalTensorList& ts) {
  KeySet k;
  for (const auto& t : ts) k |= keys_of(t);
  return k;
}
template <class T>
KeySet keys_of(const T&) {
  return {};
}

template <class T>
Value box(const T& v) {
  return Value(v);
}
inline Value box(ArrayRef<Tensor> v) { return Value(v.vec()); }
inline Value box(Generator* /*gen*/) { return Value(); }  // generators do not cross the box
inline Value box(const std::optional<std::string>& s) { return s ? Value(*s) : Value(); }

template <class Ret>
Ret unbox_result(Stack&& out, const OpHandle& op);

template <>
inline Tensor unbox_result<Tensor>(Stack&& out, const OpHandle& op) {
  EMBER_CHECK_TYPE(!out.empty() && out[0].is_tensor(), op.full_name(),
                   ": an override returned ", out.empty() ? "nothing" : out[0].type_name(),
                   " where a Tensor was expected");
  return std::move(out[0].to_tensor());
}
template <>
inline std::tuple<Tensor, Tensor> unbox_result<std::tuple<Tensor, Tensor>>(Stack&& out,
                                                                           const OpHandle& op) {
  EMBER_CHECK_TYPE(out.size() == 2 && out[0].is_tensor() && out[1].is_tensor(), op.full_name(),
                   ": an override must return two Tensors, got ", out.size(), " values");
  return {std::move(out[0].to_tensor()), std::move(out[1].to_tensor())};
}
template <>
inline std::vector<Tensor> unbox_result<std::vector<Tensor>>(Stack&& out, const OpHandle& op) {
  if (out.size() == 1 && out[0].is_tensor_list()) return out[0].to_tensor_list();
  std::vector<Tensor> r;
  for (auto& v : out) {
    EMBER_CHECK_TYPE(v.is_tensor(), op.full_name(), ": an override returned ", v.type_name(),
                     " where a list of Tensors was expected");
    r.push_back(std::move(v.to_tensor()));
  }
  return r;
}

// ---- per-op kernel tables for the layers above and beside the backend ----
struct TypedSlot {
  void* fn = nullptr;
  const std::type_info* sig = nullptr;
};
TypedSlot& autograd_slot(OpId op);
TypedSlot& quantized_slot(OpId op);

/// Registers `fn` as the autograd kernel of `op` (it records the graph and redispatches with
/// the Autograd key excluded). The signature must equal the op frontend's.
template <class Ret, class... Args>
void register_autograd(OpId op, Ret (*fn)(Args...)) {
  autograd_slot(op) = {reinterpret_cast<void*>(fn), &typeid(Ret(Args...))};
}
/// Registers `fn` as the QuantizedCPU kernel of `op`.
template <class Ret, class... Args>
void register_quantized(OpId op, Ret (*fn)(Args...)) {
  quantized_slot(op) = {reinterpret_cast<void*>(fn), &typeid(Ret(Args...))};
}

// Out-of-line parts of the slow path.
std::optional<Stack> run_function_overrides(OpId op, const Stack& args);
std::optional<Stack> run_dispatch_overrides(OpId op, const Stack& args);
[[noreturn]] void no_kernel_error(OpId op, const char* backend);
bool grad_mode_enabled();

/// The effective key set of a call: its tensors' keys plus the thread's, minus the excluded.
template <class... Args>
KeySet call_keys(const Args&... args) {
  const LocalState& s = local_state();
  return ((keys_of(args) | ...) | s.included) - s.excluded;
}

template <auto Backend, class... Args>
auto call_slow(OpId op, KeySet ks, const Args&... args) {
  using Ret = decltype(Backend(args...));
  using Sig = Ret(const Args&...);
  const OpHandle& handle = op_handle(op);
  if (ks.has(DispatchKey::FunctionOverride)) {
    if (auto out = run_function_overrides(op, Stack{box(args)...})) {
      return unbox_result<Ret>(std::move(*out), handle);
    }
  }
  // Below the function layer: composite bodies call other ops as internal calls, which
  // torch_function never sees (as in PyTorch, where only the Python binding checks it).
  ExcludeKeysGuard no_function_layer(DispatchKey::FunctionOverride);
  if (handle.is_composite()) return Backend(args...);
  if (ks.has(DispatchKey::Autograd) && grad_mode_enabled()) {
    const TypedSlot& slot = autograd_slot(op);
    if (slot.fn) {
      EMBER_ASSERT(*slot.sig == typeid(Sig), "autograd kernel signature mismatch for ",
                   handle.full_name());
      return reinterpret_cast<Ret (*)(const Args&...)>(slot.fn)(args...);
    }
  }
  ExcludeKeysGuard below_autograd(DispatchKey::Autograd);
  if (ks.has(DispatchKey::DispatchOverride)) {
    if (auto out = run_dispatch_overrides(op, Stack{box(args)...})) {
      return unbox_result<Ret>(std::move(*out), handle);
    }
  }
  if (ks.has(DispatchKey::QuantizedCPU)) {
    const TypedSlot& slot = quantized_slot(op);
    if (!slot.fn) no_kernel_error(op, "QuantizedCPU");
    EMBER_ASSERT(*slot.sig == typeid(Sig), "quantized kernel signature mismatch for ",
                 handle.full_name());
    return reinterpret_cast<Ret (*)(const Args&...)>(slot.fn)(args...);
  }
  return Backend(args...);
}

/// Runs op `op` whose backend implementation is `Backend`, through the layers its arguments'
/// keys select. The fast path (no override, no autograd, no quantized tensor) calls Backend
/// directly with the typed arguments.
template <auto Backend, class... Args>
inline auto call(OpId op, const Args&... args) {
  KeySet ks = call_keys(args...);
  if (__builtin_expect((ks & (kOverrideKeys | DispatchKey::QuantizedCPU)).empty(), 1)) {
    return Backend(args...);
  }
  return call_slow<Backend>(op, ks, args...);
}

// ---- boxed entry points (for Python, overrides' redispatch, tests, the differential tool) ----
using BoxedFn = Stack (*)(const Stack& args);
/// Registers the boxed form of op `id`: a function that unboxes a full argument stack (defaults
/// already filled) and calls the typed frontend.
bool register_boxed(OpId id, BoxedFn fn);
BoxedFn boxed_fn(OpId id);

}  // namespace ember::dispatch
