// The volumetric grid sampler (torch.grid_sampler_3d; F.grid_sample on 5-d input): input
// [N, C, D, H, W], grid [N, Do, Ho, Wo, 3] of (x, y, z) in [-1, 1]; trilinear (mode 0) or nearest
// (mode 1) with zeros / border / reflection padding (0 / 1 / 2).
//
//   auto out = ember::grid_sampler_3d(volume, grid, 0, 0, /*align_corners=*/false);
#pragma once

#include <tuple>

#include "ember/tensor.h"

namespace ember {

Tensor grid_sampler_3d(const Tensor& input, const Tensor& grid, int64_t interpolation_mode,
                       int64_t padding_mode, bool align_corners);
/// The gradients of input and grid (each where output_mask says; undefined otherwise).
std::tuple<Tensor, Tensor> grid_sampler_3d_backward(const Tensor& grad_output, const Tensor& input, const Tensor& grid,
                                                    int64_t interpolation_mode, int64_t padding_mode,
                                                    bool align_corners, IntArrayRef output_mask);

}  // namespace ember
