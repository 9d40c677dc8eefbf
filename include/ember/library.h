// Operators registered at run time, as libtorch's TORCH_LIBRARY (torch/library.h):
//
//   ember::Tensor muladd(const ember::Tensor& a, const ember::Tensor& b, double c) { ... }
//
//   EMBER_LIBRARY(myops, m) {
//     m.def("muladd(Tensor a, Tensor b, float c=1) -> Tensor");   // a schema ...
//     m.def("twice", &twice);                        // ... or one inferred from a C++ function,
//   }                                                // which becomes its CompositeImplicitAutograd kernel
//   EMBER_LIBRARY_IMPL(myops, CPU, m) { m.impl("muladd", &muladd); }
//
//   auto op = ember::Dispatcher::singleton().findSchemaOrThrow("myops::muladd", "")
//                 .typed<ember::Tensor(const ember::Tensor&, const ember::Tensor&, double)>();
//   ember::Tensor r = op.call(a, b, 2.0);
//
// A run-time op joins the op table after the rows of ops.def (ids from kNumOps on) and passes the
// same layers as a built-in one: __torch_function__, its Autograd kernel, __torch_dispatch__ and
// the backend kernel (CPU / Meta / QuantizedCPU, else CompositeExplicitAutograd). Its kernels are
// boxed: typed C++ functions are boxed here from their signature. Python's ember.library
// registers into the same table. See docs/custom-ops.md and Note [Run-time operators] in
// src/dispatch/library.cpp.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "ember/dispatch.h"
#include "ember/error.h"
#include "ember/value.h"

namespace ember {

/// The keys a run-time op's kernels register at (PyTorch's DispatchKey names).
enum class LibraryKey : uint8_t {
  CPU,
  Meta,
  QuantizedCPU,
  Autograd,                   // records the graph; redispatches below autograd itself
  CompositeImplicitAutograd,  // decomposes into other ops (autograd comes from them)
  CompositeExplicitAutograd,  // one kernel for every backend; needs its own autograd
  CUDA,                       // kept, never selected: ember has no CUDA (or PrivateUse1) tensors
  PrivateUse1,
  NumKeys,
};
/// "CPU", "Meta", ...; "AutogradCPU" and "AutogradMeta" read as Autograd (ember's one autograd
/// key covers both of its devices).
/// An unknown name is a ValueError listing the accepted ones.
LibraryKey library_key_from_name(const std::string& name);
const char* library_key_name(LibraryKey key);

// ---- boxing of typed kernels and typed calls ----
namespace library_detail {

template <class T>
struct ArgTraits;  // schema type, unboxing (into a holder that converts to T) and boxing

template <>
struct ArgTraits<Tensor> {
  static std::string type() { return "Tensor"; }
  static const Tensor& get(const Value& v) { return v.to_tensor(); }
};
template <>
struct ArgTraits<int64_t> {
  static std::string type() { return "int"; }
  static int64_t get(const Value& v) { return v.to_int(); }
};
template <>
struct ArgTraits<double> {
  static std::string type() { return "float"; }
  static double get(const Value& v) { return v.to_double(); }
};
template <>
struct ArgTraits<bool> {
  static std::string type() { return "bool"; }
  static bool get(const Value& v) { return v.to_bool(); }
};
template <>
struct ArgTraits<Scalar> {
  static std::string type() { return "Scalar"; }
  static Scalar get(const Value& v) { return v.to_scalar(); }
};
template <>
struct ArgTraits<ScalarType> {
  static std::string type() { return "ScalarType"; }
  static ScalarType get(const Value& v) { return v.to_dtype(); }
};
template <>
struct ArgTraits<Device> {
  static std::string type() { return "Device"; }
  static Device get(const Value& v) { return v.to_device(); }
};
template <>
struct ArgTraits<std::string> {
  static std::string type() { return "str"; }
  static const std::string& get(const Value& v) { return v.to_string_value(); }
};
template <>
struct ArgTraits<std::vector<int64_t>> {
  static std::string type() { return "int[]"; }
  static std::vector<int64_t> get(const Value& v) {
    return v.is_int() ? std::vector<int64_t>{v.to_int()} : v.to_int_list();
  }
};
template <>
struct ArgTraits<IntArrayRef> : ArgTraits<std::vector<int64_t>> {};
template <>
struct ArgTraits<std::vector<double>> {
  static std::string type() { return "float[]"; }
  static const std::vector<double>& get(const Value& v) { return v.to_double_list(); }
};
template <>
struct ArgTraits<std::vector<Tensor>> {
  static std::string type() { return "Tensor[]"; }
  static const std::vector<Tensor>& get(const Value& v) { return v.to_tensor_list(); }
};
template <>
struct ArgTraits<ArrayRef<Tensor>> : ArgTraits<std::vector<Tensor>> {};
template <class T>
struct ArgTraits<std::optional<T>> {
  static std::string type() { return ArgTraits<T>::type() + "?"; }
  static auto get(const Value& v) {
    using Held = std::decay_t<decltype(ArgTraits<T>::get(v))>;
    return v.is_none() ? std::optional<Held>() : std::optional<Held>(ArgTraits<T>::get(v));
  }
};

template <class T>
using Bare = std::remove_cv_t<std::remove_reference_t<T>>;

template <class T>
Value to_value(const T& v) {
  if constexpr (std::is_same_v<T, ArrayRef<Tensor>>) {
    return Value(v.vec());
  } else if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    return Value(static_cast<int64_t>(v));
  } else {
    return Value(v);
  }
}

/// Results: a kernel's return value as a boxed stack, and back for typed calls.
template <class R>
struct RetTraits {
  static std::string type() { return ArgTraits<R>::type() + " _0"; }
  static Stack box(R r) { return {to_value(r)}; }
  static R unbox(Stack&& s, const std::string& op) {
    EMBER_CHECK(s.size() == 1, op, " returned ", s.size(), " values where one was expected");
    return R(ArgTraits<R>::get(s[0]));
  }
};
template <>
struct RetTraits<void> {
  static std::string type() { return "()"; }
  static void unbox(Stack&&, const std::string&) {}
};
template <class... Ts>
struct RetTraits<std::tuple<Ts...>> {
  static std::string type() {
    std::string r = "(";
    size_t i = 0;
    ((r += (i ? ", " : "") + ArgTraits<Ts>::type() + " _" + std::to_string(i), ++i), ...);
    return r + ")";
  }
  static Stack box(std::tuple<Ts...> t) {
    return std::apply([](const auto&... v) { return Stack{to_value(v)...}; }, t);
  }
  static std::tuple<Ts...> unbox(Stack&& s, const std::string& op) {
    EMBER_CHECK(s.size() == sizeof...(Ts), op, " returned ", s.size(), " values where ",
                sizeof...(Ts), " were expected");
    return [&]<size_t... I>(std::index_sequence<I...>) {
      return std::tuple<Ts...>(Ts(ArgTraits<Ts>::get(s[I]))...);
    }(std::index_sequence_for<Ts...>{});
  }
};

[[noreturn]] void boxed_arity_error(const OpHandle& op, size_t given, size_t expected);

template <class Sig>
struct FunctionTraits;
template <class Ret, class... Args>
struct FunctionTraits<Ret(Args...)> {
  using Result = Ret;
  static std::vector<std::string> arg_types() { return {ArgTraits<Bare<Args>>::type()...}; }
  /// PyTorch's inferred schema: arguments and returns named _0, _1, ...
  static std::string schema() {
    std::string r = "(";
    size_t i = 0;
    ((r += (i ? ", " : "") + ArgTraits<Bare<Args>>::type() + " _" + std::to_string(i), ++i), ...);
    return r + ") -> " + RetTraits<Ret>::type();
  }
  template <class F>
  static Stack call_boxed(const F& fn, const OpHandle& op, const Stack& s) {
    if (s.size() != sizeof...(Args)) boxed_arity_error(op, s.size(), sizeof...(Args));
    return [&]<size_t... I>(std::index_sequence<I...>) {
      // By value: a holder (the vector behind an IntArrayRef) lives for the call.
      auto holders = std::make_tuple(ArgTraits<Bare<Args>>::get(s[I])...);
      if constexpr (std::is_void_v<Ret>) {
        fn(Bare<Args>(std::get<I>(holders))...);
        return Stack{};
      } else {
        return RetTraits<Ret>::box(fn(Bare<Args>(std::get<I>(holders))...));
      }
    }(std::index_sequence_for<Args...>{});
  }
};
template <class Ret, class... Args>
struct FunctionTraits<Ret (*)(Args...)> : FunctionTraits<Ret(Args...)> {};
/// The signature type of a function pointer or of a function object's operator().
template <class F>
struct CallableSig {
  using type = decltype(&F::operator());
};
template <class Ret, class... Args>
struct CallableSig<Ret (*)(Args...)> {
  using type = Ret (*)(Args...);
};
template <class C, class Ret, class... Args>
struct FunctionTraits<Ret (C::*)(Args...) const> : FunctionTraits<Ret(Args...)> {};
template <class C, class Ret, class... Args>
struct FunctionTraits<Ret (C::*)(Args...)> : FunctionTraits<Ret(Args...)> {};

}  // namespace library_detail

/// A kernel: a typed C++ function (boxed from its signature), a boxed function, or a fallthrough.
class CppFunction {
 public:
  using Boxed = std::function<Stack(const OpHandle& op, const Stack& args)>;

  template <class Ret, class... Args>
  CppFunction(Ret (*fn)(Args...))  // NOLINT: implicit, as libtorch's
      : CppFunction(Tag{}, fn, library_detail::FunctionTraits<Ret(Args...)>::schema()) {}
  /// A lambda or other function object with one operator().
  template <class F, class = std::enable_if_t<std::is_class_v<std::decay_t<F>> &&
                                              !std::is_same_v<std::decay_t<F>, CppFunction>>,
            class = decltype(&std::decay_t<F>::operator())>
  CppFunction(F&& f)  // NOLINT
      : CppFunction(Tag{}, std::forward<F>(f),
                    library_detail::FunctionTraits<decltype(&std::decay_t<F>::operator())>::schema()) {}

  /// Skips the key: at Autograd, the op runs below autograd with no graph and no warning.
  static CppFunction makeFallthrough();
  /// A kernel on boxed arguments (the schema's, defaults filled) returning boxed results.
  static CppFunction makeFromBoxedFunction(Boxed fn);
  /// libtorch's form: `void fn(const OpHandle&, Stack* stack)` replaces the arguments on the
  /// stack by the results.
  template <void (*Fn)(const OpHandle&, Stack*)>
  static CppFunction makeFromBoxedFunction() {
    return makeFromBoxedFunction([](const OpHandle& op, const Stack& args) {
      Stack stack = args;
      Fn(op, &stack);
      return stack;
    });
  }

  const Boxed& boxed() const { return boxed_; }
  bool is_fallthrough() const { return fallthrough_; }
  /// "(Tensor _0, int _1) -> Tensor _0" for a typed function; empty for boxed ones.
  const std::string& inferred_schema() const { return schema_; }

 private:
  struct Tag {};
  template <class F>
  CppFunction(Tag, F f, std::string schema) : schema_(std::move(schema)) {
    using Traits = library_detail::FunctionTraits<typename library_detail::CallableSig<F>::type>;
    boxed_ = [f = std::move(f)](const OpHandle& op, const Stack& s) {
      return Traits::call_boxed(f, op, s);
    };
  }
  CppFunction() = default;
  Boxed boxed_;
  bool fallthrough_ = false;
  std::string schema_;
};

/// A block of registrations (TORCH_LIBRARY's torch::Library). Everything it registered is
/// removed again when it is destroyed.
class Library {
 public:
  enum Kind { DEF, IMPL, FRAGMENT };
  /// `key`: the key impl() registers at (IMPL blocks); none means CompositeImplicitAutograd.
  Library(Kind kind, std::string ns, std::optional<LibraryKey> key, const char* file,
          uint32_t line);
  ~Library();
  Library(const Library&) = delete;
  Library& operator=(const Library&) = delete;

  /// Defines an op: "foo(Tensor self, int k=1) -> Tensor" (the namespace may be spelled out).
  Library& def(const std::string& schema);
  /// Defines an op with a kernel at CompositeImplicitAutograd; `name_or_schema` without a
  /// parenthesis takes the schema inferred from the C++ signature.
  Library& def(const std::string& name_or_schema, CppFunction fn);
  /// Registers a kernel for op "foo" / "foo.overload" / "ns::foo" at the block's key.
  Library& impl(const std::string& name, CppFunction fn);
  Library& impl(const std::string& name, LibraryKey key, CppFunction fn);
  /// For every run-time op (EMBER_LIBRARY_IMPL(_, Autograd, m)): only a fallthrough at Autograd.
  Library& fallback(CppFunction fn);

  /// The op name def() gave ("foo" / "foo.overload"), for Python's Library.define.
  const std::string& last_defined() const { return last_defined_; }
  const std::string& ns() const { return ns_; }
  Kind kind() const { return kind_; }
  /// "file:line" of the block.
  std::string where() const;

 private:
  Kind kind_;
  std::string ns_;
  std::optional<LibraryKey> key_;
  std::string file_;
  uint32_t line_;
  uint64_t owner_;
  std::string last_defined_;
};

class OperatorHandle;
template <class Sig>
class TypedOperatorHandle;

/// An op of the table (built-in or run-time), as c10::OperatorHandle.
class OperatorHandle {
 public:
  explicit OperatorHandle(const OpHandle& op) : op_(&op) {}
  const OpHandle& op() const { return *op_; }
  const std::string& schema() const { return op_->schema(); }
  /// The typed form; the signature must match the schema's argument types (RuntimeError "Tried
  /// to access or call an operator with a wrong signature" otherwise).
  template <class Sig>
  TypedOperatorHandle<Sig> typed() const {
    check_signature(library_detail::FunctionTraits<Sig>::arg_types());
    return TypedOperatorHandle<Sig>(*op_);
  }
  /// libtorch's callBoxed: the arguments on `stack` are replaced by the results.
  void callBoxed(Stack* stack) const { *stack = op_->call(*stack); }
  Stack callBoxed(const Stack& args) const { return op_->call(args); }

 private:
  void check_signature(const std::vector<std::string>& types) const;
  const OpHandle* op_;
};

template <class Ret, class... Args>
class TypedOperatorHandle<Ret(Args...)> : public OperatorHandle {
 public:
  explicit TypedOperatorHandle(const OpHandle& op) : OperatorHandle(op) {}
  Ret call(Args... args) const {
    Stack out = op().call(Stack{library_detail::to_value(library_detail::Bare<Args>(args))...});
    return library_detail::RetTraits<Ret>::unbox(std::move(out), op().full_name());
  }
};

/// The op table by name (c10::Dispatcher).
class Dispatcher {
 public:
  static Dispatcher& singleton();
  /// "myns::foo" and an overload ("" for the default one).
  std::optional<OperatorHandle> findSchema(const std::string& name,
                                           const std::string& overload) const;
  /// As findSchema; RuntimeError "Could not find schema for myns::foo.bar" when absent.
  OperatorHandle findSchemaOrThrow(const std::string& name, const std::string& overload) const;
};

/// Runs the ops it calls below the autograd layer (at::AutoDispatchBelowAutograd): what an
/// Autograd kernel holds while it calls the op it records.
class AutoDispatchBelowAutograd {
 public:
  AutoDispatchBelowAutograd();
  ~AutoDispatchBelowAutograd();
  AutoDispatchBelowAutograd(const AutoDispatchBelowAutograd&) = delete;
  AutoDispatchBelowAutograd& operator=(const AutoDispatchBelowAutograd&) = delete;

 private:
  uint16_t prev_;
};

namespace library_detail {
/// Runs a registration block at static initialisation; the Library lives until exit.
class LibraryInit {
 public:
  LibraryInit(Library::Kind kind, void (*fn)(Library&), const char* ns,
              std::optional<LibraryKey> key, const char* file, uint32_t line)
      : lib_(kind, ns, key, file, line) {
    fn(lib_);
  }

 private:
  Library lib_;
};
}  // namespace library_detail

}  // namespace ember

#define EMBER_LIBRARY_CONCAT_INNER(a, b) a##b
#define EMBER_LIBRARY_CONCAT(a, b) EMBER_LIBRARY_CONCAT_INNER(a, b)
#define EMBER_LIBRARY_UID(prefix) EMBER_LIBRARY_CONCAT(prefix, __COUNTER__)

/// Defines the ops of namespace `ns` (once per namespace; TORCH_LIBRARY).
#define EMBER_LIBRARY(ns, m)                                                                  \
  static void EMBER_LIBRARY_init_##ns(::ember::Library&);                                     \
  static const ::ember::library_detail::LibraryInit EMBER_LIBRARY_static_init_##ns(           \
      ::ember::Library::DEF, &EMBER_LIBRARY_init_##ns, #ns, std::nullopt, __FILE__, __LINE__); \
  void EMBER_LIBRARY_init_##ns(::ember::Library& m)

/// More definitions for namespace `ns`, in any number of blocks (TORCH_LIBRARY_FRAGMENT).
#define EMBER_LIBRARY_FRAGMENT(ns, m) EMBER_LIBRARY_FRAGMENT_UID(ns, m, __COUNTER__)
#define EMBER_LIBRARY_FRAGMENT_UID(ns, m, uid)                                                \
  static void EMBER_LIBRARY_CONCAT(EMBER_LIBRARY_frag_##ns##_, uid)(::ember::Library&);       \
  static const ::ember::library_detail::LibraryInit EMBER_LIBRARY_CONCAT(                     \
      EMBER_LIBRARY_frag_init_##ns##_, uid)(::ember::Library::FRAGMENT,                       \
                                            &EMBER_LIBRARY_CONCAT(EMBER_LIBRARY_frag_##ns##_, \
                                                                  uid),                       \
                                            #ns, std::nullopt, __FILE__, __LINE__);           \
  void EMBER_LIBRARY_CONCAT(EMBER_LIBRARY_frag_##ns##_, uid)(::ember::Library & m)

/// Kernels for namespace `ns` at key `k` (CPU, Meta, Autograd, ...; TORCH_LIBRARY_IMPL).
/// `_` as the namespace with m.fallback(...) sets the fallback of every run-time op.
#define EMBER_LIBRARY_IMPL(ns, k, m) EMBER_LIBRARY_IMPL_UID(ns, k, m, __COUNTER__)
#define EMBER_LIBRARY_IMPL_UID(ns, k, m, uid)                                                 \
  static void EMBER_LIBRARY_CONCAT(EMBER_LIBRARY_impl_##ns##_##k##_, uid)(::ember::Library&); \
  static const ::ember::library_detail::LibraryInit EMBER_LIBRARY_CONCAT(                     \
      EMBER_LIBRARY_impl_init_##ns##_##k##_, uid)(                                            \
      ::ember::Library::IMPL, &EMBER_LIBRARY_CONCAT(EMBER_LIBRARY_impl_##ns##_##k##_, uid),   \
      #ns, ::ember::LibraryKey::k, __FILE__, __LINE__);                                       \
  void EMBER_LIBRARY_CONCAT(EMBER_LIBRARY_impl_##ns##_##k##_, uid)(::ember::Library & m)
