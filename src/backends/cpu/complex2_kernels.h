// Complex kernels of ops whose real kernels live elsewhere (cumsum in reduce_kernels.cpp, cumprod
// in math_kernels.cpp): those call these for complex64 / complex128.
#pragma once

#include "ember/tensor.h"

namespace ember::cpu {

/// out (contiguous, in's complex dtype) = the running sum / product of `in` along `dim`;
/// complex64 accumulates in complex128, as PyTorch's CPU scan (acc_type).
void cumsum_complex_kernel(const Tensor& out, const Tensor& in, int64_t dim);
void cumprod_complex_kernel(const Tensor& out, const Tensor& in, int64_t dim);

}  // namespace ember::cpu
