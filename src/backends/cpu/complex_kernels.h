// Kernels that read or write complex tensors across the real / complex boundary (docs/complex.md):
// |z|, arg z, conj z, re + i*im. Same-type arithmetic on complex (add, mul, exp, ...) runs in the
// ordinary kernels, whose type lists include the complex types (dtype_lists.h).
#pragma once

#include "ember/tensor.h"

namespace ember::cpu {

/// out (float32 / float64) = |in| for in complex64 / complex128 (std::abs: hypot, no overflow).
void complex_abs_kernel(const Tensor& out, const Tensor& in);
/// out = arg(in): atan2(imag, real) for complex in (out real); for real in (out of the same
/// floating dtype) 0 for x >= 0, pi for x < 0, nan for nan, as PyTorch's angle.
void angle_kernel(const Tensor& out, const Tensor& in);
/// out = conj(in), out and in of the same complex dtype.
void conj_kernel(const Tensor& out, const Tensor& in);
/// out = re + i*im; re and im of out's real value type, broadcast to out's shape.
void make_complex_kernel(const Tensor& out, const Tensor& re, const Tensor& im);

}  // namespace ember::cpu
