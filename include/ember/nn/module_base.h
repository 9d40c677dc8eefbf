// nn::ModuleBase<Derived>: a module written as libtorch's are, with a typed forward.
//
//   struct Block : ember::nn::ModuleBase<Block> {
//     Block() { fc = register_module("fc", std::make_shared<ember::nn::Linear>(4, 4)); }
//     ember::Tensor forward(const ember::Tensor& x, std::optional<ember::Tensor> skip = {}) {
//       ember::Tensor y = (*fc)(x).relu();
//       return skip ? y + *skip : y;
//     }
//     std::shared_ptr<ember::nn::Linear> fc;
//   };
//   auto b = std::make_shared<Block>();
//   ember::Tensor y = (*b)(x);        // hooks, then forward; typed result
//   ember::Tensor z = b->forward(x);  // the plain function: no hooks (as libtorch's)
//   seq->append(b);                   // Sequential, hooks and Python call the boxed forward
//   std::cout << *b;                  // "Block(\n  (fc): Linear(...)\n)": its C++ name
//
// Note [Typed forwards]
// Sequential, hooks and the Python front end call modules through one boxed virtual,
// `Value forward(const std::vector<Value>&)`. ModuleBase<Derived> (a CRTP base) implements it
// from Derived's one typed `forward`: it finds the member by name (&Derived::forward), unboxes
// each argument by its declared type (Tensor, std::optional<T>, int64_t / int, double / float,
// bool, std::string, Scalar, ScalarType, Device, std::vector of Tensor / int64_t / double,
// std::tuple of Tensors, or Value itself), calls it, and boxes the result (void is None, a
// tuple of Tensors a Tensor list). Trailing std::optional parameters may be left out. The wrong
// number or type of inputs is a TypeError naming the module and the signature
// ("Block.forward() takes from 2 to 3 positional arguments but 4 were given (signature:
// forward(Tensor, Tensor?) -> Tensor)"). A Derived without a forward, or with several overloads
// of it, fails to compile (a static_assert in ~ModuleBase); the boxed forward is final, so a
// ModuleBase cannot also override it. A plain Module subclass instead overrides the boxed
// forward itself, and one that overrides nothing raises NotImplementedError ("Module [Net] is
// missing the required \"forward\" function") when called. `m->forward(x)` is a plain call;
// `(*m)(x)` goes through `call` (pre-hooks, forward, hooks, C++ and Python ones) and unboxes
// the result back to forward's return type.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "ember/nn/module.h"

namespace ember::nn {

namespace detail {

template <class T>
struct IsOptional : std::false_type {};
template <class T>
struct IsOptional<std::optional<T>> : std::true_type {};

/// How a forward parameter (or result) of type T crosses the boxed boundary: its name in
/// signatures, whether a Value holds one, and the conversions.
template <class T, class = void>
struct Boxing {
  static constexpr bool supported = false;
};

#define EMBER_FORWARD_BOXING(T, NAME, ACCEPTS, FROM)                         \
  template <>                                                                \
  struct Boxing<T> {                                                         \
    static constexpr bool supported = true;                                  \
    static std::string name() { return NAME; }                               \
    static bool accepts(const Value& v) { return ACCEPTS; }                  \
    static T from(const Value& v) { return FROM; }                           \
    static Value to(const T& x) { return Value(x); }                         \
  };
EMBER_FORWARD_BOXING(Tensor, "Tensor", v.is_tensor(), v.to_tensor())
EMBER_FORWARD_BOXING(int64_t, "int", v.is_int() || v.is_bool(), v.to_int())
EMBER_FORWARD_BOXING(int, "int", v.is_int() || v.is_bool(), static_cast<int>(v.to_int()))
EMBER_FORWARD_BOXING(double, "float", v.is_double() || v.is_int(), v.to_double())
EMBER_FORWARD_BOXING(float, "float", v.is_double() || v.is_int(), static_cast<float>(v.to_double()))
EMBER_FORWARD_BOXING(bool, "bool", v.is_bool(), v.to_bool())
EMBER_FORWARD_BOXING(std::string, "str", v.is_string(), v.to_string_value())
EMBER_FORWARD_BOXING(Scalar, "Scalar", v.is_scalar(), v.to_scalar())
EMBER_FORWARD_BOXING(ScalarType, "ScalarType", v.is_dtype(), v.to_dtype())
EMBER_FORWARD_BOXING(Device, "Device", v.is_device(), v.to_device())
EMBER_FORWARD_BOXING(std::vector<Tensor>, "Tensor[]", v.is_tensor_list(), v.to_tensor_list())
EMBER_FORWARD_BOXING(std::vector<int64_t>, "int[]", v.is_int_list(), v.to_int_list())
EMBER_FORWARD_BOXING(std::vector<double>, "float[]", v.is_double_list(), v.to_double_list())
#undef EMBER_FORWARD_BOXING

template <>
struct Boxing<Value> {
  static constexpr bool supported = true;
  static std::string name() { return "Any"; }
  static bool accepts(const Value&) { return true; }
  static Value from(const Value& v) { return v; }
  static Value to(const Value& x) { return x; }
};

template <class T>
struct Boxing<std::optional<T>, std::enable_if_t<Boxing<T>::supported>> {
  static constexpr bool supported = true;
  static std::string name() { return Boxing<T>::name() + "?"; }
  static bool accepts(const Value& v) { return v.is_none() || Boxing<T>::accepts(v); }
  static std::optional<T> from(const Value& v) {
    return v.is_none() ? std::nullopt : std::optional<T>(Boxing<T>::from(v));
  }
  static Value to(const std::optional<T>& x) { return x ? Boxing<T>::to(*x) : Value(); }
};

/// A tuple of tensors (LSTM's state, several outputs) boxes as a Tensor list of its length.
template <class... Ts>
struct Boxing<std::tuple<Ts...>, std::enable_if_t<(std::is_same_v<Ts, Tensor> && ...)>> {
  static constexpr bool supported = true;
  static std::string name() {
    std::string s = "(";
    for (size_t i = 0; i < sizeof...(Ts); ++i) s += i ? ", Tensor" : "Tensor";
    return s + ")";
  }
  static bool accepts(const Value& v) {
    return v.is_tensor_list() && v.to_tensor_list().size() == sizeof...(Ts);
  }
  static std::tuple<Ts...> from(const Value& v) {
    return from_list(v.to_tensor_list(), std::index_sequence_for<Ts...>{});
  }
  static Value to(const std::tuple<Ts...>& x) {
    return std::apply([](const auto&... t) { return Value(std::vector<Tensor>{t...}); }, x);
  }

 private:
  template <size_t... I>
  static std::tuple<Ts...> from_list(const std::vector<Tensor>& l, std::index_sequence<I...>) {
    return std::tuple<Ts...>(l[I]...);
  }
};

/// "forward(Tensor, Tensor?) -> Tensor".
std::string forward_signature(const std::vector<std::string>& params, const std::string& result);
/// The TypeErrors of a boxed call of a typed forward.
[[noreturn]] void forward_arity_error(const std::string& module, const std::string& signature,
                                      size_t got, size_t min, size_t max);
[[noreturn]] void forward_type_error(const std::string& module, const std::string& signature,
                                     size_t index, const std::string& expected, const char* got);
[[noreturn]] void forward_result_error(const std::string& module, const std::string& signature,
                                       const char* got);

/// The parts of a member function pointer type.
template <class F>
struct MemberFn;
#define EMBER_MEMBER_FN(QUALS)                            \
  template <class R, class C, class... Ps>                \
  struct MemberFn<R (C::*)(Ps...) QUALS> {                \
    using Result = R;                                     \
    using Params = std::tuple<Ps...>;                     \
  };
EMBER_MEMBER_FN()
EMBER_MEMBER_FN(const)
EMBER_MEMBER_FN(noexcept)
EMBER_MEMBER_FN(const noexcept)
#undef EMBER_MEMBER_FN

template <class D>
concept HasOneForward = requires { &D::forward; };

template <class T>
using Bare = std::remove_cvref_t<T>;

template <class R>
std::string result_name() {
  if constexpr (std::is_void_v<R>) {
    return "None";
  } else {
    return Boxing<Bare<R>>::name();
  }
}

/// Derived's typed forward, seen from the boxed side.
template <class D>
struct TypedForward {
  using Ptr = decltype(&D::forward);
  using Result = typename MemberFn<Ptr>::Result;
  using Params = typename MemberFn<Ptr>::Params;
  static constexpr size_t kMax = std::tuple_size_v<Params>;

  /// How many parameters must be given: all but the trailing std::optional ones.
  static constexpr size_t min_arity() {
    return []<size_t... I>(std::index_sequence<I...>) {
      constexpr bool optional[] = {IsOptional<Bare<std::tuple_element_t<I, Params>>>::value...,
                                   false};
      size_t n = kMax;
      while (n > 0 && optional[n - 1]) --n;
      return n;
    }(std::make_index_sequence<kMax>{});
  }

  static std::string signature() {
    return [&]<size_t... I>(std::index_sequence<I...>) {
      return forward_signature({Boxing<Bare<std::tuple_element_t<I, Params>>>::name()...},
                               result_name<Result>());
    }(std::make_index_sequence<kMax>{});
  }

  template <class P>
  static Bare<P> arg(const Module& m, const std::vector<Value>& in, size_t i) {
    using T = Bare<P>;
    if constexpr (IsOptional<T>::value) {
      if (i >= in.size()) return std::nullopt;  // a trailing optional left out
    }
    if (!Boxing<T>::accepts(in[i])) {
      forward_type_error(m.type_name(), signature(), i, Boxing<T>::name(), in[i].type_name());
    }
    return Boxing<T>::from(in[i]);
  }

  static Value call(D& self, const std::vector<Value>& in) {
    if (in.size() < min_arity() || in.size() > kMax) {
      forward_arity_error(self.type_name(), signature(), in.size(), min_arity(), kMax);
    }
    return [&]<size_t... I>(std::index_sequence<I...>) -> Value {
      // Braced initialisation: the arguments are unboxed (and checked) left to right.
      std::tuple<Bare<std::tuple_element_t<I, Params>>...> args{
          arg<std::tuple_element_t<I, Params>>(self, in, I)...};
      auto run = [&]() -> decltype(auto) {
        return std::invoke(&D::forward, self,
                           static_cast<std::tuple_element_t<I, Params>&&>(std::get<I>(args))...);
      };
      if constexpr (std::is_void_v<Result>) {
        run();
        return Value();
      } else {
        return Boxing<Bare<Result>>::to(run());
      }
    }(std::make_index_sequence<kMax>{});
  }

  /// A boxed result back as forward's type, by value (a forward hook may have replaced it).
  static auto unbox_result(const Module& m, const Value& out) {
    if constexpr (!std::is_void_v<Result>) {
      using T = Bare<Result>;
      if (!Boxing<T>::accepts(out)) forward_result_error(m.type_name(), signature(), out.type_name());
      return Boxing<T>::from(out);
    }
  }

  template <class A>
  static Value box_arg(A&& a) {
    using T = Bare<A>;
    if constexpr (Boxing<T>::supported) {
      return Boxing<T>::to(a);
    } else {
      return Value(std::forward<A>(a));  // a ParameterRef, a string literal, ...
    }
  }
};

/// Whether D has one typed forward that can be boxed.
template <class D, class Boxed>
constexpr bool typed_forward_ok() {
  if constexpr (!HasOneForward<D>) {
    return false;
  } else if constexpr (std::is_same_v<decltype(&D::forward), Boxed>) {
    return false;
  } else {
    using F = TypedForward<D>;
    constexpr bool params = []<size_t... I>(std::index_sequence<I...>) {
      return (Boxing<Bare<std::tuple_element_t<I, typename F::Params>>>::supported && ...);
    }(std::make_index_sequence<F::kMax>{});
    return params && (std::is_void_v<typename F::Result> ||
                      Boxing<Bare<typename F::Result>>::supported);
  }
}

/// The same, as compile errors that say what is wrong (see Note [Typed forwards]).
template <class D, class Boxed>
constexpr bool check_typed_forward() {
  if constexpr (!HasOneForward<D>) {
    static_assert(HasOneForward<D>,
                  "ember::nn::ModuleBase<D>: D declares several `forward` overloads; the boxed "
                  "forward is derived from exactly one (give the others other names)");
  } else if constexpr (std::is_same_v<decltype(&D::forward), Boxed>) {
    static_assert(!std::is_same_v<decltype(&D::forward), Boxed>,
                  "ember::nn::ModuleBase<D>: D declares no `forward`; declare one, e.g. "
                  "`ember::Tensor forward(const ember::Tensor& x)`");
  } else {
    using F = TypedForward<D>;
    [[maybe_unused]] auto check = []<size_t... I>(std::index_sequence<I...>) {
      static_assert((Boxing<Bare<std::tuple_element_t<I, typename F::Params>>>::supported && ...),
                    "ember::nn::ModuleBase<D>: a parameter type of D::forward cannot be boxed "
                    "(see Note [Typed forwards] for the supported types)");
    };
    check(std::make_index_sequence<F::kMax>{});
    static_assert(std::is_void_v<typename F::Result> ||
                      Boxing<Bare<typename F::Result>>::supported,
                  "ember::nn::ModuleBase<D>: the result type of D::forward cannot be boxed");
  }
  return true;
}

}  // namespace detail

/// A module with a typed forward (Note [Typed forwards]); Base is Module or a layer to extend.
/// It prints as its C++ class (Note [Module type names]) unless given a name: as
/// ModuleBase("Name") when Base is Module, by set_type_name in its constructor otherwise.
template <class Derived, class Base = Module>
class ModuleBase : public Base {
  using Boxed = Value (ModuleBase::*)(const std::vector<Value>&);

 public:
  using Base::Base;
  ~ModuleBase() override {
    static_assert(std::is_base_of_v<ModuleBase, Derived>,
                  "ember::nn::ModuleBase<Derived>: Derived must derive from it");
    static_assert(detail::check_typed_forward<Derived, Boxed>());
  }

  /// Whether Derived declares one typed forward that can be boxed (the destructor's check).
  static constexpr bool has_typed_forward() { return detail::typed_forward_ok<Derived, Boxed>(); }

  /// The boxed forward, from Derived's typed one.
  Value forward(const std::vector<Value>& inputs) final {
    if constexpr (detail::typed_forward_ok<Derived, Boxed>()) {
      return detail::TypedForward<Derived>::call(static_cast<Derived&>(*this), inputs);
    } else {
      return Module::forward(inputs);  // unreachable: ~ModuleBase does not compile
    }
  }

  /// Calls the module (hooks included) with typed arguments; returns forward's type (by value).
  template <class... Args>
  decltype(auto) operator()(Args&&... args) {
    using F = detail::TypedForward<Derived>;
    Value out = this->call(std::vector<Value>{F::box_arg(std::forward<Args>(args))...});
    return F::unbox_result(*this, out);
  }

 private:
  // A subclass of a layer (Base = Linear, which names itself) prints as itself, as a Python
  // subclass of nn.Linear does; its constructor may still set_type_name another.
  [[maybe_unused]] bool renamed_ = std::is_same_v<Base, Module> || (this->set_type_name(""), true);
};

}  // namespace ember::nn
