// CPU kernels of src/ops/blas_more.cpp and src/ops/math_more.cpp. The op layer validates, casts
// the operands to the compute dtype and allocates; these compute (each a scalar functor run by
// ElementwiseLoop: no separate fast path, so no *_ref twin).
#pragma once

#include "ember/tensor.h"

namespace ember::cpu {

/// out = beta * self + alpha * v1 * v2 (v1 a column [n, 1], v2 a row [m]: broadcast to out);
/// beta == 0 ignores self. Bool: (beta && self) || (alpha && v1 && v2), as PyTorch's addr.
void addr_kernel(const Tensor& out, const Tensor& self, const Tensor& v1, const Tensor& v2,
                 const Scalar& beta, const Scalar& alpha);
/// out *= s (s converted to out's dtype first).
void scale_kernel(const Tensor& out, const Scalar& s);
/// out = fmax(a, b) or fmin(a, b): the non-NaN operand where one is NaN (std::fmax / fmin).
void fmax_fmin_kernel(const Tensor& out, const Tensor& a, const Tensor& b, bool is_max);
/// mantissa (self's floating dtype) and exponent (int32) with self = mantissa * 2^exponent.
void frexp_kernel(const Tensor& mantissa, const Tensor& exponent, const Tensor& self);
/// out = P(a, x) (regularized lower incomplete gamma) or Q(a, x) = 1 - P(a, x) (`upper`).
void igamma_kernel(const Tensor& out, const Tensor& a, const Tensor& x, bool upper);

/// The regularized incomplete gamma functions in double (exposed for tests).
double igamma_ref(double a, double x);
double igammac_ref(double a, double x);

}  // namespace ember::cpu
