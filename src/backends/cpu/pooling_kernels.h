// CPU kernels of 2-d pooling (internal; src/ops/pooling.cpp validates, allocates and passes
// 4-d [N, C, H, W] views). Every tensor is read and written through its strides, so NCHW,
// channels_last and other strided layouts share the loops; work is split over the N * C planes.
// Indices are flat positions h * W + w within an input plane, as PyTorch's.
#pragma once

#include <optional>

#include "layout.h"

namespace ember::cpu {

struct Pool2dParams {
  int64_t kh, kw, sh, sw, ph, pw, dh, dw;
};

/// out / indices [N, C, OH, OW] from input [N, C, H, W]; NaN wins, as in PyTorch.
void max_pool2d_kernel(const Tensor& out, const Tensor& indices, const Tensor& input,
                       const Pool2dParams& p);
/// The per-window loop of max_pool2d_kernel, for any strides (tests compare the fast row loop
/// of unit-stride columns with it; Note [Fast max pooling] in pooling_kernels.cpp).
void max_pool2d_kernel_ref(const Tensor& out, const Tensor& indices, const Tensor& input,
                           const Pool2dParams& p);
/// grad_input (zeroed here) += grad_output scattered to indices.
void max_pool2d_backward_kernel(const Tensor& grad_input, const Tensor& grad_output,
                                const Tensor& indices);
/// The strided loop of max_pool2d_backward_kernel (row / column of each index by division).
void max_pool2d_backward_kernel_ref(const Tensor& grad_input, const Tensor& grad_output,
                                    const Tensor& indices);
void avg_pool2d_kernel(const Tensor& out, const Tensor& input, const Pool2dParams& p,
                       bool count_include_pad, std::optional<int64_t> divisor_override);
void avg_pool2d_backward_kernel(const Tensor& grad_input, const Tensor& grad_output,
                                const Pool2dParams& p, bool count_include_pad,
                                std::optional<int64_t> divisor_override);
/// Adaptive pooling: output cell o covers [floor(o * in / out), ceil((o + 1) * in / out)).
void adaptive_avg_pool2d_kernel(const Tensor& out, const Tensor& input);
void adaptive_avg_pool2d_backward_kernel(const Tensor& grad_input, const Tensor& grad_output);
void adaptive_max_pool2d_kernel(const Tensor& out, const Tensor& indices, const Tensor& input);

}  // namespace ember::cpu
