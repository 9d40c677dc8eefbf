// CPU kernels of 3-d pooling, 3-d padding and im2col / col2im (internal; src/ops/nn_pool3d.cpp
// and nn_pad3d.cpp validate, allocate and pass contiguous tensors). Pooling tensors are
// [P, D, H, W] with P = N * C planes; indices are flat positions d * H * W + h * W + w within a
// plane, as PyTorch's. These are plain scalar loops (each is its own reference); work is split
// over the planes.
#pragma once

#include <optional>
#include <vector>

#include "ember/tensor.h"

namespace ember::cpu {

struct Pool3dParams {
  int64_t k[3], s[3], p[3], d[3];
};

/// out / indices [P, OD, OH, OW] from input [P, D, H, W]; NaN wins, as in PyTorch.
void max_pool3d_kernel(const Tensor& out, const Tensor& indices, const Tensor& input,
                       const Pool3dParams& p);
/// grad_input [P, D, H, W] (zeroed here) += grad_output scattered to the flat indices.
void max_pool3d_backward_kernel(const Tensor& grad_input, const Tensor& grad_output,
                                const Tensor& indices);
void avg_pool3d_kernel(const Tensor& out, const Tensor& input, const Pool3dParams& p,
                       bool count_include_pad, std::optional<int64_t> divisor_override);
void avg_pool3d_backward_kernel(const Tensor& grad_input, const Tensor& grad_output,
                                const Pool3dParams& p, bool count_include_pad,
                                std::optional<int64_t> divisor_override);
/// Adaptive pooling: output cell o covers [floor(o * in / out), ceil((o + 1) * in / out)).
void adaptive_avg_pool3d_kernel(const Tensor& out, const Tensor& input);
void adaptive_avg_pool3d_backward_kernel(const Tensor& grad_input, const Tensor& grad_output);
void adaptive_max_pool3d_kernel(const Tensor& out, const Tensor& indices, const Tensor& input);

/// out [P, OD, OH, OW] = in [P, D, H, W] at (map_d[od], map_h[oh], map_w[ow]).
void gather3d_kernel(const Tensor& out, const Tensor& in, const std::vector<int64_t>& map_d,
                     const std::vector<int64_t>& map_h, const std::vector<int64_t>& map_w);
/// grad_in (zeroed here) += grad_out through the same maps.
void scatter_add3d_kernel(const Tensor& grad_in, const Tensor& grad_out,
                          const std::vector<int64_t>& map_d, const std::vector<int64_t>& map_h,
                          const std::vector<int64_t>& map_w);

struct Im2ColParams {
  int64_t kh, kw, dh, dw, ph, pw, sh, sw;
  int64_t h, w;    // image size
  int64_t oh, ow;  // number of block positions
};
/// cols [N, C * kh * kw, oh * ow] from image [N, C, h, w] (zero outside).
void im2col_kernel(const Tensor& cols, const Tensor& image, const Im2ColParams& p);
/// image [N, C, h, w] (zeroed here) += cols [N, C * kh * kw, oh * ow] (overlaps sum).
void col2im_kernel(const Tensor& image, const Tensor& cols, const Im2ColParams& p);

}  // namespace ember::cpu
