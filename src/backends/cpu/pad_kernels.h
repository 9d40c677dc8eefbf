// CPU kernels of reflection / replication padding and nearest / bilinear resampling
// (internal). Padding and nearest resampling are index maps: output (oh, ow) of a plane reads
// input (map_h[oh], map_w[ow]); their backward scatter-adds through the same maps. Tensors are
// contiguous [P, H, W] (P = the leading dims flattened).
#pragma once

#include <vector>

#include "layout.h"

namespace ember::cpu {

void gather2d_kernel(const Tensor& out, const Tensor& in, const std::vector<int64_t>& map_h,
                     const std::vector<int64_t>& map_w);
/// grad_in (zeroed here) [P, H, W] += grad_out [P, OH, OW] at the mapped positions.
void scatter_add2d_kernel(const Tensor& grad_in, const Tensor& grad_out,
                          const std::vector<int64_t>& map_h, const std::vector<int64_t>& map_w);

/// Bilinear taps of one output coordinate: src indices i0 / i1 and weights l0 / l1.
struct LinearTap {
  int64_t i0, i1;
  double l0, l1;
};
void bilinear2d_kernel(const Tensor& out, const Tensor& in, const std::vector<LinearTap>& th,
                       const std::vector<LinearTap>& tw);
void bilinear2d_backward_kernel(const Tensor& grad_in, const Tensor& grad_out,
                                const std::vector<LinearTap>& th, const std::vector<LinearTap>& tw);

}  // namespace ember::cpu
