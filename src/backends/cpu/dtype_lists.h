// The dtype sets the elementwise kernels accept, and the dtype switch over one such set.
//
//   dispatch_types(kFloatTypes, t, "hardswish_cpu", [&]<class T>() { ... });
//
// A dtype outside the set fails with PyTorch's text, naming the kernel as PyTorch 1.13's CPU
// backend does: "hardswish_cpu" not implemented for 'Long'. Only the listed types are instantiated,
// so a functor need not compile for types the op refuses (bitwise ops on float, say).
#pragma once

#include <cstdint>
#include <type_traits>

#include "ember/dtype.h"

namespace ember::cpu {

template <class... Ts>
struct TypeList {};

/// Every non-quantized dtype.
inline constexpr TypeList<float, double, Half, BFloat16, int8_t, uint8_t, int16_t, int32_t, int64_t,
                          bool>
    kAllTypes{};
inline constexpr TypeList<float, double, Half, BFloat16, int8_t, uint8_t, int16_t, int32_t, int64_t>
    kAllTypesNoBool{};
/// Floating types. PyTorch 1.13's CPU transcendental kernels (exp, sigmoid, gelu, ...) lack
/// float16, later versions have it; ember supports float16 wherever it supports bfloat16, both
/// computed in float (opmath_t) and rounded back once.
inline constexpr TypeList<float, double, Half, BFloat16> kFloatTypes{};
/// Integers and floats, no bool (clamp, relu); float16 included as in kFloatTypes.
inline constexpr TypeList<float, double, Half, BFloat16, int8_t, uint8_t, int16_t, int32_t, int64_t>
    kRealTypes{};
inline constexpr TypeList<int8_t, uint8_t, int16_t, int32_t, int64_t, bool> kIntegralTypes{};
/// The complex types (Note [Complex dtypes]) and the lists with them, for the kernels whose
/// functor means the same on complex numbers (arithmetic, exp, log, ...).
inline constexpr TypeList<std::complex<float>, std::complex<double>> kComplexTypes{};
inline constexpr TypeList<float, double, Half, BFloat16, int8_t, uint8_t, int16_t, int32_t, int64_t,
                          bool, std::complex<float>, std::complex<double>>
    kAllTypesAndComplex{};
inline constexpr TypeList<float, double, Half, BFloat16, int8_t, uint8_t, int16_t, int32_t, int64_t,
                          std::complex<float>, std::complex<double>>
    kAllTypesNoBoolAndComplex{};
inline constexpr TypeList<float, double, Half, BFloat16, std::complex<float>, std::complex<double>>
    kFloatAndComplexTypes{};

[[noreturn]] void dtype_not_implemented(const char* kernel, ScalarType t);

template <class... Ts, class F>
void dispatch_types(TypeList<Ts...>, ScalarType t, const char* kernel, F&& f) {
  bool done = ((dtype_of_v<Ts> == t ? (f.template operator()<Ts>(), true) : false) || ...);
  if (!done) dtype_not_implemented(kernel, t);
}

// Integer arithmetic that wraps around as PyTorch's does (two's complement), without the
// undefined behaviour of signed overflow in C++. Unsigned arithmetic vectorizes just as well.
template <class T>
inline T wrap_add(T a, T b) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  } else {
    return a + b;
  }
}
template <class T>
inline T wrap_mul(T a, T b) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    using U = std::make_unsigned_t<T>;
    // uint16 * uint16 would promote to (signed) int and could overflow it; widen to unsigned.
    using W = std::conditional_t<(sizeof(U) < sizeof(unsigned)), unsigned, U>;
    return static_cast<T>(static_cast<U>(static_cast<W>(static_cast<U>(a)) * static_cast<W>(static_cast<U>(b))));
  } else {
    return a * b;
  }
}
template <class T>
inline T wrap_neg(T a) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(U(0) - static_cast<U>(a)));
  } else {
    return -a;
  }
}

}  // namespace ember::cpu
