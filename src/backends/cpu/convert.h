// Element conversion between ember's C++ element types, as PyTorch's static_cast-based copy:
// 16-bit floats go through float, anything to bool is "!= 0"; complex to real keeps the real
// part (the cast warns in the frontend, not here), real to complex has imaginary part 0.
#pragma once

#include <type_traits>

#include "ember/dtype.h"

namespace ember::cpu {

template <class To, class From>
inline To convert(From v) {
  if constexpr (std::is_same_v<To, From>) {
    return v;
  } else if constexpr (is_complex_v<From>) {
    if constexpr (std::is_same_v<To, bool>) return v.real() != 0 || v.imag() != 0;
    else if constexpr (is_complex_v<To>) return To(static_cast<typename To::value_type>(v.real()),
                                                   static_cast<typename To::value_type>(v.imag()));
    else return convert<To>(v.real());
  } else if constexpr (is_complex_v<To>) {
    return To(convert<typename To::value_type>(v), typename To::value_type(0));
  } else if constexpr (std::is_same_v<To, bool>) {
    return static_cast<opmath_t<From>>(v) != static_cast<opmath_t<From>>(0);
  } else if constexpr (is_reduced_float_v<To>) {
    return To(static_cast<float>(static_cast<opmath_t<From>>(v)));
  } else {
    return static_cast<To>(static_cast<opmath_t<From>>(v));
  }
}

}  // namespace ember::cpu
