// Checked conversion of a Scalar to an element type, as c10's checked_convert: factories that
// take Scalars (arange, linspace, tensor literals) refuse values their dtype cannot hold, with
// PyTorch's message "value cannot be converted to type int8_t without overflow".
#pragma once

#include <cmath>
#include <limits>
#include <type_traits>

#include "ember/scalar.h"

namespace ember::ops {

/// The name c10's Scalar::to<T>() reports for T in its overflow error.
template <class T>
constexpr const char* c10_type_name() {
  if constexpr (std::is_same_v<T, float>) return "float";
  else if constexpr (std::is_same_v<T, double>) return "double";
  else if constexpr (std::is_same_v<T, Half>) return "at::Half";
  else if constexpr (std::is_same_v<T, BFloat16>) return "at::BFloat16";
  else if constexpr (std::is_same_v<T, uint8_t>) return "uint8_t";
  else if constexpr (std::is_same_v<T, int8_t>) return "int8_t";
  else if constexpr (std::is_same_v<T, int16_t>) return "int16_t";
  else if constexpr (std::is_same_v<T, int32_t>) return "int";
  else if constexpr (std::is_same_v<T, int64_t>) return "int64_t";
  else return "bool";
}

/// Whether `s` overflows T, as c10::overflows: negative integers wrap into unsigned types
/// (-1 → 255) but negative floats do not; infinities and NaN fit any floating type, NaN fits no
/// integer; bools fit everything. `check_floating` false skips the range check for floating
/// targets (Python's tensor literals turn 1e300 into inf for float32 rather than refusing).
template <class T>
bool overflows(const Scalar& s, bool check_floating = true) {
  if (s.is_bool() || std::is_same_v<T, bool>) return false;
  if constexpr (std::is_floating_point_v<T> || is_reduced_float_v<T>) {
    if (s.is_integral() || !check_floating) return false;
    const double v = s.to_double();
    if (std::isinf(v) || std::isnan(v)) return false;
    const double hi = static_cast<double>(static_cast<opmath_t<T>>(std::numeric_limits<T>::max()));
    return v < -hi || v > hi;
  } else {
    using L = std::numeric_limits<T>;
    if (s.is_integral()) {
      const int64_t v = s.to_int();
      if constexpr (std::is_unsigned_v<T>) {
        return v > static_cast<int64_t>(L::max()) ||
               (v < 0 && -static_cast<uint64_t>(v) > static_cast<uint64_t>(L::max()));
      } else {
        return v < static_cast<int64_t>(L::lowest()) || v > static_cast<int64_t>(L::max());
      }
    }
    const double v = s.to_double();
    if (std::isnan(v)) return true;
    // max() of int64 rounds up to 2^63 as a double, which itself does not fit.
    if (std::is_same_v<T, int64_t> && v >= 0x1p63) return true;
    return v < static_cast<double>(L::lowest()) || v > static_cast<double>(L::max());
  }
}

/// s.to<T>() after the overflow check; `name` is the type as the error should spell it.
template <class T>
T checked_to(const Scalar& s, const char* name = c10_type_name<T>(), bool check_floating = true) {
  EMBER_CHECK(!overflows<T>(s, check_floating), "value cannot be converted to type ", name,
              " without overflow");
  return s.to<T>();
}

}  // namespace ember::ops
