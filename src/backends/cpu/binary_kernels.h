// CPU kernels of the elementwise binary ops. Operands arrive broadcast to the output's shape and
// converted to the compute dtype, which is also the output's; the op frontends in
// src/ops/binary.cpp do that. Each kernel is one scalar functor per op run by ElementwiseLoop;
// dtypes an op does not support fail with PyTorch's "<kernel>" not implemented for '<dtype>'.
#pragma once

#include "ember/tensor.h"

namespace ember::cpu {

/// out = a + alpha * b (integers wrap around).
void add_kernel(const Tensor& out, const Tensor& a, const Tensor& b, const Scalar& alpha);
void mul_kernel(const Tensor& out, const Tensor& a, const Tensor& b);
/// True division; floating dtypes only (integer inputs are promoted before).
void div_true_kernel(const Tensor& out, const Tensor& a, const Tensor& b);
/// Rounding divisions and Python's remainder (result has the divisor's sign). Integer divisors
/// must hold no zero: the caller checks (see has_zero) so that a kernel never throws midway.
void div_trunc_kernel(const Tensor& out, const Tensor& a, const Tensor& b);
void div_floor_kernel(const Tensor& out, const Tensor& a, const Tensor& b);
void remainder_kernel(const Tensor& out, const Tensor& a, const Tensor& b);
/// a ** b; integers by repeated squaring, wrapping (negative exponents give 0, or ±1 for ±1).
void pow_kernel(const Tensor& out, const Tensor& a, const Tensor& b);
/// a ** exponent for a Scalar exponent (PyTorch's pow.Tensor_Scalar arithmetic: float32 and
/// float64 raise in double, 16-bit floats round the exponent to their own type first).
void pow_scalar_kernel(const Tensor& out, const Tensor& a, const Scalar& exponent);
/// NaN-propagating maximum / minimum.
void maximum_kernel(const Tensor& out, const Tensor& a, const Tensor& b);
void minimum_kernel(const Tensor& out, const Tensor& a, const Tensor& b);

enum class BitwiseOp { And, Or, Xor };
/// Integral and bool dtypes only.
void bitwise_kernel(BitwiseOp op, const Tensor& out, const Tensor& a, const Tensor& b);

/// Whether an integral or bool tensor holds a zero (the ZeroDivisionError check).
bool has_zero(const Tensor& t);

}  // namespace ember::cpu
