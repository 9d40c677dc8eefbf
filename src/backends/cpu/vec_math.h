// Float exp, sigmoid and silu computed several lanes at a time (std::exp is one libm call per
// element, about three times slower). The same template body serves a scalar float and a
// GCC/Clang vector of floats (vec_math.cpp), so vector lanes and scalar tails agree bit for bit;
// the *_ref functions are the plain std:: formulas the tests compare against
// (tests/cpp/backends/test_vec_math.cpp).
//
//   exp_fast_array(out, in, n);   // out[i] = e^in[i], within 2 ulp; inf, 0 and NaN as std::exp
//   gelu_fast_array(out, in, n);  // GELU (erf form), within 3e-7 |x| + 1 ulp of gelu_ref
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
/// GELU (erf form) and its derivative times dy, as PyTorch's scalar formulas with std::erf.
inline float gelu_ref(float x) { return x * 0.5f * (1.0f + std::erf(x * static_cast<float>(M_SQRT1_2))); }
inline float gelu_backward_ref(float dy, float x) {
  const float kBeta = static_cast<float>(M_2_SQRTPI * M_SQRT1_2 * 0.5);
  const float cdf = 0.5f * (1.0f + std::erf(x * static_cast<float>(M_SQRT1_2)));
  const float pdf = kBeta * std::exp(x * x * -0.5f);
  return dy * (cdf + x * pdf);
}

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

// Note [GELU's erf]: erf by Abramowitz and Stegun 7.1.26, the formula PyTorch's vectorized GELU
// uses (Vectorized<float>::erf): erf|x| = 1 - t (p1 + t (p2 + ... + t p5)) e^(-x^2) with
// t = 1 / (1 + p|x|), the sign put back by a bit. Its absolute error is below 1.5e-7 (plus
// float rounding), which GELU's x / 2 (1 + erf(x / sqrt 2)) keeps relative to its result; it is
// NOT an erf for small arguments (1 - ... cancels), so only GELU and its backward use it.
// NaN stays NaN; +-inf give +-1.
template <class F, class I>
inline F erf_gelu_impl(F x) {
  const I sign = std::bit_cast<I>(x) & static_cast<int32_t>(0x80000000u);
  const F ax = std::bit_cast<F>(std::bit_cast<I>(x) ^ sign);
  const F t = 1.0f / (ax * 0.3275911f + 1.0f);
  F r = t * 1.061405429f - 1.453152027f;
  r = r * t + 1.421413741f;
  r = r * t - 0.284496736f;
  r = r * t + 0.254829592f;
  const F e = exp_impl<F, I>(-(x * x));
  const F y = 1.0f - (e * t) * r;
  return std::bit_cast<F>(std::bit_cast<I>(y) ^ sign);
}

template <class F, class I>
inline F gelu_impl(F x) {
  return x * 0.5f * (1.0f + erf_gelu_impl<F, I>(x * static_cast<float>(M_SQRT1_2)));
}

// dy (Phi(x) + x phi(x)): the normal cdf through erf_gelu_impl, the pdf through exp_impl.
template <class F, class I>
inline F gelu_backward_impl(F dy, F x) {
  const float kBeta = static_cast<float>(M_2_SQRTPI * M_SQRT1_2 * 0.5);
  const F cdf = 0.5f * (1.0f + erf_gelu_impl<F, I>(x * static_cast<float>(M_SQRT1_2)));
  const F pdf = kBeta * exp_impl<F, I>(x * x * -0.5f);
  return dy * (cdf + x * pdf);
}

}  // namespace vec

inline float exp_fast(float x) { return vec::exp_impl<float, int32_t>(x); }
inline float sigmoid_fast(float x) { return vec::sigmoid_impl<float, int32_t>(x); }
inline float silu_fast(float x) { return vec::silu_impl<float, int32_t>(x); }
inline float gelu_fast(float x) { return vec::gelu_impl<float, int32_t>(x); }
inline float gelu_backward_fast(float dy, float x) {
  return vec::gelu_backward_impl<float, int32_t>(dy, x);
}

/// out[i] = f(in[i]) over contiguous float arrays (vectorized; vec_math.cpp).
void exp_fast_array(float* out, const float* in, int64_t n);
void sigmoid_fast_array(float* out, const float* in, int64_t n);
void silu_fast_array(float* out, const float* in, int64_t n);
void gelu_fast_array(float* out, const float* in, int64_t n);
/// out[i] = gelu'(x[i]) * dy[i].
void gelu_backward_fast_array(float* out, const float* dy, const float* x, int64_t n);

enum class FastFloatOp { Exp, Sigmoid, Silu, Gelu };
/// out = f(in) for float32 tensors (in broadcast to out's shape), as an ElementwiseLoop kernel:
/// contiguous runs take the array functions, strided ones the scalar form (same results).
void fast_float_kernel(FastFloatOp op, const Tensor& out, const Tensor& in);
/// out = gelu_backward(grad, self) for float32 tensors (grad and self broadcast to out's shape).
void gelu_backward_fast_kernel(const Tensor& out, const Tensor& grad, const Tensor& self);

}  // namespace ember::cpu
