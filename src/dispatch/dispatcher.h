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
// a few bit operations, one thread-local load and a direct call, no boxing (Note [The unboxed
// fast path] in dispatcher.cpp).
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

/// CPU autocast's key (Note [Autocast layer] in autocast.cpp): the bit after dispatch_key.h's
/// keys. It is only ever a thread-local key (LocalState::included while CPU autocast is on),
/// never a tensor's, so it has no place among the tensor keys there.
constexpr DispatchKey kAutocastKey = DispatchKey::NumKeys;
static_assert(static_cast<unsigned>(kAutocastKey) < 16, "KeySet has 16 bits");

/// Keys that send a call off the fast path.
constexpr KeySet kSlowPathKeys = kOverrideKeys | DispatchKey::QuantizedCPU | kAutocastKey;

const OpHandle& op_handle(OpId id);

// ---- thread-local dispatch state ----
struct LocalState {
  KeySet included;  // keys added to every call (modes push FunctionOverride / DispatchOverride)
  KeySet excluded;  // keys removed from every call (below autograd, inside handlers)
  bool skip_subclass_function = false;  // DisableTorchFunctionSubclass
  // What OpHandle::redispatch excludes: the layers from the running handler's down to above the
  // next one (outside handlers: every override layer). Note [Redispatch] in dispatcher.cpp.
  KeySet redispatch_excluded = kOverrideKeys;
  uint64_t slow_calls = 0;  // calls that took the slow path on this thread (tests' probe)
};

namespace detail {
// This thread's state. constinit, so every TU reads it inline: no call into libember and no
// lazy-initialisation guard on the fast path (Note [The unboxed fast path] in dispatcher.cpp).
extern constinit thread_local LocalState t_local_state;
}  // namespace detail
inline LocalState& local_state() { return detail::t_local_state; }

/// Excludes `keys` for the guard's lifetime (restoring the previous set after).
class ExcludeKeysGuard {
 public:
  explicit ExcludeKeysGuard(KeySet keys) : state_(local_state()), prev_(state_.excluded) {
    state_.excluded |= keys;
  }
  ~ExcludeKeysGuard() { state_.excluded = prev_; }
  ExcludeKeysGuard(const ExcludeKeysGuard&) = delete;
  ExcludeKeysGuard& operator=(const ExcludeKeysGuard&) = delete;

 private:
  LocalState& state_;
  KeySet prev_;
};

/// What an autograd kernel holds while it redispatches the op below autograd
/// (at::AutoDispatchBelowAutograd).
class AutoDispatchBelowAutograd : public ExcludeKeysGuard {
 public:
  AutoDispatchBelowAutograd() : ExcludeKeysGuard(DispatchKey::Autograd) {}
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
inline Value box(Generator* gen) { return Value(gen); }  // nullptr: None
inline Value box(const std::optional<std::string>& s) { return s ? Value(*s) : Value(); }

template <class T>
intrusive_ptr<T> unbox_object_result(Stack&& out, const OpHandle& op);

template <class T>
struct IsObjectPtr : std::false_type {};
template <class T>
struct IsObjectPtr<intrusive_ptr<T>> : std::is_base_of<CustomClassHolder, T> {
  using Class = T;
};

/// An override's boxed results as the op's C++ return type: specialised below per type; ops
/// returning an object (intrusive_ptr<T>, T a CustomClassHolder) take the primary template.
template <class T>
struct IsTensorTuple : std::false_type {};
template <class... Ts>
struct IsTensorTuple<std::tuple<Ts...>>
    : std::bool_constant<(sizeof...(Ts) > 3) && (std::is_same_v<Ts, Tensor> && ...)> {};

template <class Ret>
Ret unbox_result(Stack&& out, const OpHandle& op) {
  if constexpr (IsTensorTuple<Ret>::value) {
    // Four or more Tensors (_embedding_bag, the fused GRU cell's backward).
    constexpr size_t n = std::tuple_size_v<Ret>;
    bool ok = out.size() == n;
    for (size_t i = 0; ok && i < n; ++i) ok = out[i].is_tensor();
    EMBER_CHECK_TYPE(ok, op.full_name(), ": an override must return ", n, " Tensors, got ",
                     out.size(), " values");
    return [&]<size_t... I>(std::index_sequence<I...>) {
      return Ret{std::move(out[I].to_tensor())...};
    }(std::make_index_sequence<n>{});
  } else {
    static_assert(IsObjectPtr<Ret>::value, "no unbox_result for this return type");
    return unbox_object_result<typename IsObjectPtr<Ret>::Class>(std::move(out), op);
  }
}

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
inline std::tuple<Tensor, Tensor, Tensor> unbox_result<std::tuple<Tensor, Tensor, Tensor>>(
    Stack&& out, const OpHandle& op) {
  EMBER_CHECK_TYPE(out.size() == 3 && out[0].is_tensor() && out[1].is_tensor() &&
                       out[2].is_tensor(),
                   op.full_name(), ": an override must return three Tensors, got ", out.size(),
                   " values");
  return {std::move(out[0].to_tensor()), std::move(out[1].to_tensor()),
          std::move(out[2].to_tensor())};
}
template <>
inline std::tuple<Tensor, Tensor, Tensor, Tensor>
unbox_result<std::tuple<Tensor, Tensor, Tensor, Tensor>>(Stack&& out, const OpHandle& op) {
  EMBER_CHECK_TYPE(out.size() == 4 && out[0].is_tensor() && out[1].is_tensor() &&
                       out[2].is_tensor() && out[3].is_tensor(),
                   op.full_name(), ": an override must return four Tensors, got ", out.size(),
                   " values");
  return {std::move(out[0].to_tensor()), std::move(out[1].to_tensor()),
          std::move(out[2].to_tensor()), std::move(out[3].to_tensor())};
}
// Number results (q_scale -> float, q_per_channel_axis -> int).
template <>
inline double unbox_result<double>(Stack&& out, const OpHandle& op) {
  EMBER_CHECK_TYPE(out.size() == 1 && (out[0].is_double() || out[0].is_int()), op.full_name(),
                   ": an override must return a float");
  return out[0].to_double();
}
template <>
inline int64_t unbox_result<int64_t>(Stack&& out, const OpHandle& op) {
  EMBER_CHECK_TYPE(out.size() == 1 && out[0].is_int(), op.full_name(),
                   ": an override must return an int");
  return out[0].to_int();
}
template <>
inline std::tuple<Tensor, std::optional<Tensor>> unbox_result<std::tuple<Tensor, std::optional<Tensor>>>(
    Stack&& out, const OpHandle& op) {
  EMBER_CHECK_TYPE(out.size() == 2 && out[0].is_tensor() && (out[1].is_tensor() || out[1].is_none()),
                   op.full_name(), ": an override must return a Tensor and a Tensor or None, got ",
                   out.size(), " values");
  std::optional<Tensor> second;
  if (out[1].is_tensor() && out[1].to_tensor().defined()) second = std::move(out[1].to_tensor());
  return {std::move(out[0].to_tensor()), std::move(second)};
}
template <>
inline std::vector<int64_t> unbox_result<std::vector<int64_t>>(Stack&& out, const OpHandle& op) {
  EMBER_CHECK_TYPE(out.size() == 1 && out[0].is_int_list(), op.full_name(),
                   ": an override returned ", out.empty() ? "nothing" : out[0].type_name(),
                   " where a list of ints was expected");
  return out[0].to_int_list();
}
template <class T>
intrusive_ptr<T> unbox_object_result(Stack&& out, const OpHandle& op) {
  EMBER_CHECK_TYPE(out.size() == 1 && out[0].is_object(), op.full_name(), ": an override returned ",
                   out.empty() ? "nothing" : out[0].type_name(), " where a ", T::kClassName,
                   " was expected");
  return out[0].to_object<T>();
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

// A slot's kernel takes the arguments exactly as the op's frontend passes them to dispatch::call,
// each by const reference, and returns what the backend implementation returns; e.g. for add,
// `Tensor(const Tensor&, const Tensor&, const Scalar&)`, and for copy_ (whose frontend passes
// `Tensor& self`), `Tensor(const Tensor&, const Tensor&, const bool&)`.

/// Registers `fn` as the autograd kernel of `op`. It records the graph and redispatches the op
/// under AutoDispatchBelowAutograd. Assigning the slot back (autograd_slot(op) = saved) undoes it.
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
/// True if `op` is on one of CPU autocast's lists (Note [Autocast layer] in autocast.cpp).
bool has_autocast_kernel(OpId op);
/// The op run under its autocast policy: eligible arguments cast, then the op called again,
/// boxed, with autocast off for its duration.
Stack run_autocast(OpId op, Stack&& args);
std::optional<Stack> run_dispatch_overrides(OpId op, const Stack& args);
[[noreturn]] void no_kernel_error(OpId op, const char* backend);
/// The op name no_kernel_error reports for `op` on the QuantizedCPU backend, where PyTorch names
/// another overload (its structured kernels: 'aten::add.out' for add.Tensor). Set at start-up.
void set_quantized_error_name(OpId op, std::string name);
[[noreturn]] void slot_signature_error(OpId op, const char* layer, const std::type_info& registered,
                                       const std::type_info& expected);
[[noreturn]] void wrapper_at_backend_error(OpId op, const Tensor& wrapper);
bool grad_mode_enabled();

template <class Kernel>
Kernel slot_kernel(const TypedSlot& slot, OpId op, const char* layer) {
  if (slot.fn && *slot.sig != typeid(std::remove_pointer_t<Kernel>)) {
    slot_signature_error(op, layer, *slot.sig, typeid(std::remove_pointer_t<Kernel>));
  }
  return reinterpret_cast<Kernel>(slot.fn);
}

// A wrapper tensor has no data: no backend kernel may see it (Note [Wrapper tensors]).
inline void check_not_wrapper(OpId op, const Tensor& t) {
  if (t.defined() && t.impl()->subclass() && t.impl()->subclass()->is_wrapper()) {
    wrapper_at_backend_error(op, t);
  }
}
inline void check_not_wrapper(OpId op, const std::optional<Tensor>& t) {
  if (t) check_not_wrapper(op, *t);
}
inline void check_not_wrapper(OpId op, ArrayRef<Tensor> ts) {
  for (const auto& t : ts) check_not_wrapper(op, t);
}
inline void check_not_wrapper(OpId op, const std::vector<Tensor>& ts) {
  check_not_wrapper(op, ArrayRef<Tensor>(ts));
}
inline void check_not_wrapper(OpId op, const Value::OptionalTensorList& ts) {
  for (const auto& t : ts) check_not_wrapper(op, t);
}
template <class T>
void check_not_wrapper(OpId, const T&) {}

/// The keys the call's arguments carry (the union of their tensors' keys).
template <class... Args>
KeySet tensor_keys(const Args&... args) {
  return (keys_of(args) | ... | KeySet());
}

/// Everything but the fast path: the layers of Note [Dispatch layers], in order.
/// `arg_keys` are the arguments' own keys; the thread's included / excluded keys apply here.
/// Not inlined: it keeps the fast path's code small at every call site.
template <auto Backend, class... Args>
[[gnu::noinline]] auto call_slow(OpId op, KeySet arg_keys, const Args&... args) {
  using Ret = decltype(Backend(args...));
  using Kernel = Ret (*)(const Args&...);
  LocalState& state = local_state();
  ++state.slow_calls;
  const KeySet ks = (arg_keys | state.included) - state.excluded;
  const OpHandle& handle = op_handle(op);
  // 1. The public op, boxed, to torch_function modes and subclasses.
  if (ks.has(DispatchKey::FunctionOverride)) {
    if (auto out = run_function_overrides(op, Stack{box(args)...})) {
      return unbox_result<Ret>(std::move(*out), handle);
    }
  }
  // Below the function layer: a composite's body calls other ops as internal calls, which
  // torch_function never sees (as in PyTorch, where only the Python binding checks it).
  ExcludeKeysGuard no_function_layer(DispatchKey::FunctionOverride);
  // 1b. Autocast (above autograd, so the casts are recorded), for the ops on its lists, composite
  // ones included (linear, conv2d, matmul), as PyTorch's AutocastCPU kernels are.
  if (ks.has(kAutocastKey) && has_autocast_kernel(op)) {
    return unbox_result<Ret>(run_autocast(op, Stack{box(args)...}), handle);
  }
  if (handle.is_composite()) return Backend(args...);
  // 2. Autograd records the graph node and redispatches below itself.
  if (ks.has(DispatchKey::Autograd) && grad_mode_enabled()) {
    if (Kernel k = slot_kernel<Kernel>(autograd_slot(op), op, "autograd")) return k(args...);
  }
  ExcludeKeysGuard below_autograd(DispatchKey::Autograd);
  // 3. The primitive op, boxed, to torch_dispatch modes and subclasses.
  if (ks.has(DispatchKey::DispatchOverride)) {
    if (auto out = run_dispatch_overrides(op, Stack{box(args)...})) {
      return unbox_result<Ret>(std::move(*out), handle);
    }
  }
  // 4. A backend kernel. Only tensors with torch_dispatch can be wrappers; they get here when the
  // layer above was excluded (a redispatch), and must not.
  if (arg_keys.has(DispatchKey::DispatchOverride)) (check_not_wrapper(op, args), ...);
  if (ks.has(DispatchKey::QuantizedCPU)) {
    Kernel k = slot_kernel<Kernel>(quantized_slot(op), op, "QuantizedCPU");
    if (!k) no_kernel_error(op, "QuantizedCPU");
    return k(args...);
  }
  return Backend(args...);
}

/// Runs op `op` whose backend implementation is `Backend`, through the layers its arguments'
/// keys select. The fast path (no override, no autograd, no quantized tensor, no mode) calls
/// Backend directly with the typed arguments, unboxed.
template <auto Backend, class... Args>
inline auto call(OpId op, const Args&... args) {
  const KeySet arg_keys = tensor_keys(args...);
  if (__builtin_expect(((arg_keys | local_state().included) & kSlowPathKeys).empty(), 1)) {
    return Backend(args...);
  }
  return call_slow<Backend>(op, arg_keys, args...);
}

// ---- boxed entry points (for Python, overrides' redispatch, tests, the differential tool) ----
using BoxedFn = Stack (*)(const Stack& args);
/// Registers the boxed form of op `id`: a function that unboxes a full argument stack (defaults
/// already filled) and calls the typed frontend, which takes `arity` parameters.
bool register_boxed(OpId id, BoxedFn fn, int arity = -1);
BoxedFn boxed_fn(OpId id);
/// The parameter count of the frontend registered for `id` (-1: none registered, or unknown).
/// Equal to the schema's argument count for every op (tests check it).
int boxed_arity(OpId id);

}  // namespace ember::dispatch
