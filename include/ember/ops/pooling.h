// 2-d pooling, padding and resampling over [N, C, H, W] (or unbatched [C, H, W]) inputs, with
// PyTorch's aten ops and argument orders. Every op keeps the input's memory format (NCHW or
// channels_last strides) and has its dedicated backward op as in PyTorch.
//
//   auto [y, idx] = ember::max_pool2d_with_indices(x, {3, 3}, {2, 2}, {1, 1});
//   auto p = ember::adaptive_avg_pool2d(x, {1, 1});
//   auto q = ember::pad(x, {1, 1, 2, 2}, "reflect");
//   auto u = ember::interpolate(x, std::nullopt, std::vector<double>{2.0, 2.0}, "bilinear", false);
#pragma once

#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "ember/tensor.h"

namespace ember {

// ---- src/ops/pooling.cpp ----
/// Max over each window; indices are flat positions h * W + w in the input plane (int64).
/// stride {} means stride = kernel_size; single-element lists stand for both dims.
std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input, IntArrayRef kernel_size,
                                                   IntArrayRef stride = {},
                                                   IntArrayRef padding = {0},
                                                   IntArrayRef dilation = {1},
                                                   bool ceil_mode = false);
Tensor max_pool2d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride = {},
                  IntArrayRef padding = {0}, IntArrayRef dilation = {1}, bool ceil_mode = false);
Tensor max_pool2d_with_indices_backward(const Tensor& grad_output, const Tensor& input,
                                        IntArrayRef kernel_size, IntArrayRef stride,
                                        IntArrayRef padding, IntArrayRef dilation, bool ceil_mode,
                                        const Tensor& indices);
/// Mean over each window; the divisor is divisor_override, else the window's size clipped to
/// the padded input (count_include_pad) or to the input itself.
Tensor avg_pool2d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride = {},
                  IntArrayRef padding = {0}, bool ceil_mode = false, bool count_include_pad = true,
                  std::optional<int64_t> divisor_override = std::nullopt);
Tensor avg_pool2d_backward(const Tensor& grad_output, const Tensor& input, IntArrayRef kernel_size,
                           IntArrayRef stride, IntArrayRef padding, bool ceil_mode,
                           bool count_include_pad, std::optional<int64_t> divisor_override);
/// Output cell (i, j) averages rows [floor(i*H/oh), ceil((i+1)*H/oh)) and likewise columns.
Tensor adaptive_avg_pool2d(const Tensor& input, IntArrayRef output_size);
Tensor _adaptive_avg_pool2d(const Tensor& input, IntArrayRef output_size);
Tensor _adaptive_avg_pool2d_backward(const Tensor& grad_output, const Tensor& input);
std::tuple<Tensor, Tensor> adaptive_max_pool2d(const Tensor& input, IntArrayRef output_size);
Tensor adaptive_max_pool2d_backward(const Tensor& grad_output, const Tensor& input,
                                    const Tensor& indices);

// ---- src/ops/pad.cpp ----
/// F.pad: pad lists (left, right) pairs from the last dim backwards. mode "constant" (value,
/// default 0; negative pads crop), "reflect", "replicate" (the last 1 or 2 dims of a 2-4 d input).
Tensor pad(const Tensor& input, IntArrayRef pad, const std::string& mode = "constant",
           std::optional<double> value = std::nullopt);
Tensor constant_pad_nd(const Tensor& input, IntArrayRef pad, const Scalar& value = 0);
Tensor reflection_pad1d(const Tensor& input, IntArrayRef padding);
Tensor reflection_pad1d_backward(const Tensor& grad_output, const Tensor& input,
                                 IntArrayRef padding);
Tensor reflection_pad2d(const Tensor& input, IntArrayRef padding);
Tensor reflection_pad2d_backward(const Tensor& grad_output, const Tensor& input,
                                 IntArrayRef padding);
Tensor replication_pad1d(const Tensor& input, IntArrayRef padding);
Tensor replication_pad1d_backward(const Tensor& grad_output, const Tensor& input,
                                  IntArrayRef padding);
Tensor replication_pad2d(const Tensor& input, IntArrayRef padding);
Tensor replication_pad2d_backward(const Tensor& grad_output, const Tensor& input,
                                  IntArrayRef padding);

// ---- src/ops/upsample.cpp ----
/// dst (i, j) <- src (floor(i * sh), floor(j * sw)), s = 1 / scale when a scale is given, else
/// in / out (PyTorch's "nearest", not "nearest-exact").
Tensor upsample_nearest2d(const Tensor& input, IntArrayRef output_size,
                          std::optional<double> scales_h = std::nullopt,
                          std::optional<double> scales_w = std::nullopt);
Tensor upsample_nearest2d_backward(const Tensor& grad_output, IntArrayRef output_size,
                                   IntArrayRef input_size,
                                   std::optional<double> scales_h = std::nullopt,
                                   std::optional<double> scales_w = std::nullopt);
Tensor upsample_bilinear2d(const Tensor& input, IntArrayRef output_size, bool align_corners,
                           std::optional<double> scales_h = std::nullopt,
                           std::optional<double> scales_w = std::nullopt);
Tensor upsample_bilinear2d_backward(const Tensor& grad_output, IntArrayRef output_size,
                                    IntArrayRef input_size, bool align_corners,
                                    std::optional<double> scales_h = std::nullopt,
                                    std::optional<double> scales_w = std::nullopt);
/// F.interpolate (src/ops/nn_sample.cpp) for 3-d, 4-d and 5-d input, modes nearest,
/// nearest-exact, linear, bilinear, bicubic, trilinear and area: exactly one of size and
/// scale_factor (one value for every dim, or one each). align_corners only with the
/// interpolating modes (default false); recompute_scale_factor as PyTorch's. antialias (bilinear
/// and bicubic on 4-d input only) resamples as PIL does (Note [Anti-aliased resampling]).
Tensor interpolate(const Tensor& input, std::optional<std::vector<int64_t>> size,
                   std::optional<std::vector<double>> scale_factor,
                   const std::string& mode = "nearest",
                   std::optional<bool> align_corners = std::nullopt,
                   std::optional<bool> recompute_scale_factor = std::nullopt,
                   bool antialias = false);
/// Anti-aliased bilinear / bicubic resampling of a 4-d float32 / float64 input (PIL's filters,
/// widened when downsampling), with PyTorch's `.vec` overloads (exactly one of output_size and
/// scale_factors).
Tensor _upsample_bilinear2d_aa(const Tensor& input, IntArrayRef output_size, bool align_corners,
                               std::optional<double> scales_h = std::nullopt,
                               std::optional<double> scales_w = std::nullopt);
Tensor _upsample_bicubic2d_aa(const Tensor& input, IntArrayRef output_size, bool align_corners,
                              std::optional<double> scales_h = std::nullopt,
                              std::optional<double> scales_w = std::nullopt);
Tensor _upsample_bilinear2d_aa(const Tensor& input, std::optional<IntArrayRef> output_size,
                               bool align_corners, std::optional<std::vector<double>> scale_factors);
Tensor _upsample_bicubic2d_aa(const Tensor& input, std::optional<IntArrayRef> output_size,
                              bool align_corners, std::optional<std::vector<double>> scale_factors);

}  // namespace ember
