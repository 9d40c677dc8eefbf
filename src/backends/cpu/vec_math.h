// Float exp, sigmoid and silu computed several lanes at a time (std::exp is one libm call per
// element, about three times slower). The same template body serves a scalar float and a
// GCC/Clang vector of floats (vec_math.cpp), so vector lanes and scalar tails agree bit for bit;
// the *_ref functions are the plain std:: formulas the tests compare against
// (tests/cpp/backends/test_vec_math.cpp).
//
//   exp_fast_array(out, in, n);   // out[i] = e^in[i], within 2 ulp; inf, 0 and NaN as std::exp
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "ember/tensor.h"

namespace ember::cpu {

inline float exp_ref(float x) { return std::exp(x); }
inline float sigmoid_ref(float x) { return 1.0f / (1.0f + std::exp(-x)); }
inline float silu_ref(float x) { return x / (1.0f + std::exp(-x)); }

namespace vec {

/// e^x for F = float (with I = int32_t) or a vector of floats (with I the matching int vector):
/// x = n ln2 + r with |r| <= ln2 / 2, e^r by Cephes' degree-6 polynomial, scaled by 2^n in two
/// halves so that subnormal results round once and 2^128 never forms. Inputs above 89 are
/// clamped there (the scaling then overflows to inf by itself); inputs below -104 give 0 by a
/// select, computed meanwhile from x = 0 so that no lane spends time on subnormal arithmetic
/// (only true subnormal results, x in [-104, -87.3], do). n's integer value is read from the
/// bits of the rounding sum, so no float-to-int conversion ever meets a NaN.
template <class F, class I>
inline F exp_impl(F x) {
  constexpr float kMax = 89.0f, kMin = -104.0f;
  constexpr float kLog2e = 1.44269504088896341f;
  constexpr float kLn2Hi = 0.693359375f, kLn2Lo = -2.12194440e-4f;
  constexpr float kRound = 12582912.0f;  // 1.5 * 2^23: adding it rounds to an integer
  const auto tiny = x < kMin;
  const auto nan = x != x;
  F xc = x > kMax ? kMax : x;
  xc = tiny ? 0.0f : xc;
  xc = nan ? 0.0f : xc;
  const F t = xc * kLog2e + kRound;
  const I ni = std::bit_cast<I>(t) - std::bit_cast<int32_t>(kRound);
  const F n = t - kRound;
  const F r = (xc - n * kLn2Hi) - n * kLn2Lo;
  F p = r * 1.9875691500e-4f + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  const F y = p * r * r + r + 1.0f;
  // 2^n = 2^h * 2^(n-h): both factors are normal floats for n in [-150, 129].
  const I h = ni >> 1;
  const F s1 = std::bit_cast<F>((h + 127) << 23);
  const F s2 = std::bit_cast<F>((ni - h + 127) << 23);
  F result = (y * s1) * s2;
  result = tiny ? 0.0f : result;
  return nan ? x : result;
}

template <class F, class I>
inline F sigmoid_impl(F x) {
  return 1.0f / (1.0f + exp_impl<F, I>(-x));
}

template <class F, class I>
inline F silu_impl(F x) {
  return x / (1.0f + exp_impl<F, I>(-x));
}

}  // namespace vec

inline float exp_fast(float x) { return vec::exp_impl<float, int32_t>(x); }
inline float sigmoid_fast(float x) { return vec::sigmoid_impl<float, int32_t>(x); }
inline float silu_fast(float x) { return vec::silu_impl<float, int32_t>(x); }

/// out[i] = f(in[i]) over contiguous float arrays (vectorized; vec_math.cpp).
void exp_fast_array(float* out, const float* in, int64_t n);
void sigmoid_fast_array(float* out, const float* in, int64_t n);
void silu_fast_array(float* out, const float* in, int64_t n);

enum class FastFloatOp { Exp, Sigmoid, Silu };
/// out = f(in) for float32 tensors (in broadcast to out's shape), as an ElementwiseLoop kernel:
/// contiguous runs take the array functions, strided ones the scalar form (same results).
void fast_float_kernel(FastFloatOp op, const Tensor& out, const Tensor& in);

}  // namespace ember::cpu
