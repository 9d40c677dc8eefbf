// Element conversion between ember's C++ element types, as PyTorch's static_cast-based copy:
// 16-bit floats go through float, anything to bool is "!= 0".
#pragma once

#include <type_traits>

#include "ember/dtype.h"

namespace ember::cpu {

template <class To, class From>
inline To convert(From v) {
  if constexpr (std::is_same_v<To, From>) {
    return v;
  } else if constexpr (std::is_same_v<To, bool>) {
    return static_cast<opmath_t<From>>(v) != static_cast<opmath_t<From>>(0);
  } else if constexpr (is_reduced_float_v<To>) {
    return To(static_cast<float>(static_cast<opmath_t<From>>(v)));
  } else {
    return static_cast<To>(static_cast<opmath_t<From>>(v));
  }
}

}  // namespace ember::cpu
