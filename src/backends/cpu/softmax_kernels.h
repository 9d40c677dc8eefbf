// CPU kernels of softmax and log_softmax along one dim. The frontend (src/ops/softmax.cpp)
// passes a contiguous floating input and a contiguous output of the same shape whose dtype is
// the input's or, for 16-bit inputs with half_to_float, float32.
#pragma once

#include "ember/tensor.h"

namespace ember::cpu {

/// out = exp(x - max) / sum(exp(x - max)), or its log (x - max - log(sum)) when `log`.
/// 16-bit floats compute in float. A NaN, or +inf, in a line makes the whole line NaN.
void softmax_kernel(const Tensor& out, const Tensor& in, int64_t dim, bool log);

/// Scalar reference in long double (tests): a float64 tensor of in's shape.
Tensor softmax_ref(const Tensor& in, int64_t dim, bool log);

/// The gradients along the last dim, one pass per row over contiguous [rows, len] tensors of one
/// dtype, float or double (the frontend takes Tensor ops for the other cases):
///   softmax:     gi = y (g - sum(g y))        log_softmax: gi = g - exp(y) sum(g)
void softmax_backward_lastdim_kernel(const Tensor& gi, const Tensor& grad, const Tensor& output,
                                     bool log);
/// Scalar reference in double (tests): a float64 tensor of grad's shape.
Tensor softmax_backward_lastdim_ref(const Tensor& grad, const Tensor& output, bool log);

}  // namespace ember::cpu
