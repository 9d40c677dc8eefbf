// CPU kernels of the pointwise math ops of src/ops/unary_math.cpp, rounding.cpp and
// binary_math.cpp, and of the scans of cumulative.cpp. Operands arrive broadcast to the output's
// shape and converted to its dtype (except the predicates, which read any dtype and write bool);
// dtypes an op does not support fail with PyTorch 1.13's "<kernel>" not implemented for '<dtype>'.
// Floating functions compute float16 / bfloat16 in float; the special functions of
// math_functions.h compute in double and round once.
#pragma once

#include "ember/tensor.h"

namespace ember::cpu {

enum class MathUnaryOp {
  Acos, Asin, Atan, Acosh, Asinh, Atanh, Cosh, Sinh, Tan,
  Erf, Erfc, Erfinv, Log10, Log2, Exp2, Reciprocal, Lgamma, Digamma, I0, Sinc,
  Entr, Erfcx, I0e, I1, I1e, Ndtr, Ndtri, LogNdtr,
  // rounding (floating types; the ops pass integers through without a kernel)
  Ceil, Floor, Round, Trunc, Frac,
};
/// The name of the kernel PyTorch 1.13 reports for a dtype it refuses ("acos_vml_cpu").
const char* math_unary_kernel_name(MathUnaryOp op);
void math_unary_kernel(MathUnaryOp op, const Tensor& out, const Tensor& in);

/// round(x * 10^d) / 10^d (negative d: / 10^-d then *), half to even, as PyTorch.
void round_decimals_kernel(const Tensor& out, const Tensor& in, int64_t decimals);
/// polygamma(n, x) (n >= 1; n = 0 is digamma).
void polygamma_kernel(const Tensor& out, const Tensor& in, int64_t n);

enum class PredicateOp { IsNan, IsInf, IsFinite, IsPosInf, IsNegInf, SignBit };
/// out (bool) = predicate(in), for any dtype of `in`.
void predicate_kernel(PredicateOp op, const Tensor& out, const Tensor& in);

enum class MathBinaryOp {
  Atan2, Hypot, Copysign, Nextafter, Logaddexp, Logaddexp2, Xlogy, Xlog1py, Zeta,
  Fmod, Heaviside, Gcd, Lcm, LeftShift, RightShift,
};
const char* math_binary_kernel_name(MathBinaryOp op);
void math_binary_kernel(MathBinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b);

/// Scans along `dim` of `in` into the contiguous `out` of the same shape and dtype.
void cumprod_kernel(const Tensor& out, const Tensor& in, int64_t dim);
void logcumsumexp_kernel(const Tensor& out, const Tensor& in, int64_t dim);
/// Running max (is_max) or min with the index of the last extremum seen (NaN wins and sticks).
void cummax_cummin_kernel(const Tensor& values, const Tensor& indices, const Tensor& in,
                          int64_t dim, bool is_max);

/// Scalar references of the kernels above (tests compare each kernel with its reference).
double math_unary_ref(MathUnaryOp op, double x);
double math_binary_ref(MathBinaryOp op, double a, double b);

}  // namespace ember::cpu
