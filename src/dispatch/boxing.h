// make_boxed<fn>(): the boxed form of a typed op frontend, derived from its C++ signature.
// Used by EMBER_REGISTER_OP; see dispatcher.h. The stack must hold every argument of the schema
// (OpHandle::call fills defaults before it gets here).
#pragma once

#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "dispatcher.h"

namespace ember::dispatch {

// Unboxer<T>::get(value) returns a holder that converts to the parameter type T.
template <class T, class = void>
struct Unboxer;

template <>
struct Unboxer<Tensor> {
  static Tensor get(const Value& v) { return v.to_tensor(); }
};
template <>
struct Unboxer<Scalar> {
  static Scalar get(const Value& v) { return v.to_scalar(); }
};
template <>
struct Unboxer<int64_t> {
  static int64_t get(const Value& v) { return v.to_int(); }
};
template <>
struct Unboxer<double> {
  static double get(const Value& v) { return v.to_double(); }
};
template <>
struct Unboxer<bool> {
  static bool get(const Value& v) { return v.to_bool(); }
};
template <>
struct Unboxer<ScalarType> {
  static ScalarType get(const Value& v) { return v.to_dtype(); }
};
template <>
struct Unboxer<Device> {
  static Device get(const Value& v) { return v.to_device(); }
};
template <>
struct Unboxer<std::string> {
  static std::string get(const Value& v) { return v.to_string_value(); }
};
template <>
struct Unboxer<IntArrayRef> {
  // `int[1]` arguments accept a single int, as PyTorch's do.
  static std::vector<int64_t> get(const Value& v) {
    if (v.is_int()) return {v.to_int()};
    return v.to_int_list();
  }
};
template <>
struct Unboxer<std::vector<int64_t>> : Unboxer<IntArrayRef> {};
template <>
struct Unboxer<std::vector<double>> {
  static std::vector<double> get(const Value& v) { return v.to_double_list(); }
};
template <>
struct Unboxer<ArrayRef<Tensor>> {
  static std::vector<Tensor> get(const Value& v) { return v.to_tensor_list(); }
};
template <>
struct Unboxer<std::vector<Tensor>> : Unboxer<ArrayRef<Tensor>> {};
template <>
struct Unboxer<Value::OptionalTensorList> {
  static Value::OptionalTensorList get(const Value& v) {
    if (v.is_tensor_list()) {
      Value::OptionalTensorList r;
      for (const auto& t : v.to_tensor_list()) r.emplace_back(t);
      return r;
    }
    return v.to_optional_tensor_list();
  }
};
template <>
struct Unboxer<Generator*> {
  static Generator* get(const Value& v) { return v.to_generator(); }
};
template <class T>
struct Unboxer<intrusive_ptr<T>, std::enable_if_t<std::is_base_of_v<CustomClassHolder, T>>> {
  static intrusive_ptr<T> get(const Value& v) { return v.to_object<T>(); }
};
template <class T>
struct Unboxer<std::optional<T>> {
  static auto get(const Value& v) {
    using Held = decltype(Unboxer<T>::get(v));
    return v.is_none() ? std::optional<Held>() : std::optional<Held>(Unboxer<T>::get(v));
  }
};

// Holders convert to parameters: vector -> IntArrayRef, optional<vector> -> optional<...>.
template <class P, class H>
decltype(auto) as_param(H& holder) {
  using D = std::decay_t<P>;
  if constexpr (std::is_same_v<std::decay_t<H>, D>) {
    return (holder);
  } else if constexpr (std::is_same_v<D, std::optional<IntArrayRef>>) {
    return holder ? std::optional<IntArrayRef>(IntArrayRef(*holder)) : std::nullopt;
  } else {
    return D(holder);
  }
}

inline Stack box_result(Tensor t) { return {Value(std::move(t))}; }
inline Stack box_result(bool b) { return {Value(b)}; }
inline Stack box_result(double d) { return {Value(d)}; }
inline Stack box_result(int64_t i) { return {Value(i)}; }
inline Stack box_result(std::vector<int64_t> l) { return {Value(std::move(l))}; }
template <class T, class = std::enable_if_t<std::is_base_of_v<CustomClassHolder, T>>>
Stack box_result(intrusive_ptr<T> obj) {
  return {Value(std::move(obj))};
}
/// Four or more Tensors (_embedding_bag, the fused GRU cell's backward).
template <class... Ts, class = std::enable_if_t<(sizeof...(Ts) > 3) && (std::is_same_v<Ts, Tensor> && ...)>>
Stack box_result(std::tuple<Ts...> ts) {
  return std::apply([](auto&&... t) { return Stack{Value(std::move(t))...}; }, std::move(ts));
}
inline Stack box_result(std::tuple<Tensor, std::optional<Tensor>> ts) {
  return {Value(std::move(std::get<0>(ts))), Value(std::get<1>(ts))};
}
inline Stack box_result(std::vector<Tensor> ts) { return {Value(std::move(ts))}; }
inline Stack box_result(std::tuple<Tensor, Tensor> ts) {
  return {Value(std::move(std::get<0>(ts))), Value(std::move(std::get<1>(ts)))};
}
inline Stack box_result(std::tuple<Tensor, Tensor, Tensor> ts) {
  return {Value(std::move(std::get<0>(ts))), Value(std::move(std::get<1>(ts))),
          Value(std::move(std::get<2>(ts)))};
}
/// fbgemm_linear_quantize_weight's (packed, col_offsets, scale, zero_point).
inline Stack box_result(std::tuple<Tensor, Tensor, double, int64_t> ts) {
  return {Value(std::move(std::get<0>(ts))), Value(std::move(std::get<1>(ts))), Value(std::get<2>(ts)),
          Value(std::get<3>(ts))};
}
inline Stack box_result(std::tuple<Tensor, Tensor, Tensor, Tensor> ts) {
  return {Value(std::move(std::get<0>(ts))), Value(std::move(std::get<1>(ts))),
          Value(std::move(std::get<2>(ts))), Value(std::move(std::get<3>(ts)))};
}

template <class Sig>
struct FnTraits;
template <class Ret, class... Params>
struct FnTraits<Ret (*)(Params...)> {
  using Result = Ret;
  using ParamTuple = std::tuple<Params...>;
  static constexpr size_t arity = sizeof...(Params);
};

void check_boxed_arity(const Stack& args, size_t arity);

template <auto Fn>
Stack boxed_call(const Stack& args) {
  using Traits = FnTraits<decltype(Fn)>;
  check_boxed_arity(args, Traits::arity);
  return [&]<size_t... I>(std::index_sequence<I...>) {
    auto holders = std::make_tuple(
        Unboxer<std::decay_t<std::tuple_element_t<I, typename Traits::ParamTuple>>>::get(args[I])...);
    return box_result(Fn(as_param<std::tuple_element_t<I, typename Traits::ParamTuple>>(
        std::get<I>(holders))...));
  }(std::make_index_sequence<Traits::arity>());
}

template <auto Fn>
BoxedFn make_boxed() {
  return &boxed_call<Fn>;
}

}  // namespace ember::dispatch

#define EMBER_CONCAT_INNER(a, b) a##b
#define EMBER_CONCAT(a, b) EMBER_CONCAT_INNER(a, b)
/// Registers the typed frontend `fn` (a function pointer, cast to pick an overload) as the boxed
/// entry of op `id`. One line per op, next to the op's frontend.
#define EMBER_REGISTER_OP(id, fn)                                                       \
  [[maybe_unused]] static const bool EMBER_CONCAT(ember_boxed_, id) =                 \
      ::ember::dispatch::register_boxed(                                              \
          ::ember::dispatch::OpId::id, ::ember::dispatch::make_boxed<fn>(),           \
          static_cast<int>(::ember::dispatch::FnTraits<decltype(fn)>::arity))
