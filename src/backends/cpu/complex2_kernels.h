// Complex kernels of ops whose real kernels live elsewhere (cumsum in reduce_kernels.cpp, cumprod
// in math_kernels.cpp): those call these for complex64 / complex128.
#pragma once

#include "ember/tensor.h"

namespace ember::cpu {

/// out (contiguous, in's complex dtype) = the running sum / product of `in` along `dim`;
/// complex64 accumulates in complex128, as PyTorch's CPU scan (acc_type).
void cumsum_complex_kernel(const Tensor& out, const Tensor& in, int64_t dim);
void cumprod_complex_kernel(const Tensor& out, const Tensor& in, int64_t dim);

/// Whether op (a MathUnaryOp, math_kernels.h) has a complex form: the inverse and hyperbolic
/// trigonometric functions, tan, log10, log2 and sinc, as PyTorch 1.13's CPU kernels.
bool math_unary_has_complex(int op);
/// out = op(in) on complex64 / complex128 (std::complex's branch cuts, which are PyTorch's).
void math_unary_complex_kernel(int op, const Tensor& out, const Tensor& in);

}  // namespace ember::cpu
