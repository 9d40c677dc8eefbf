// Convolutions: the aten::convolution primitive (any 1-d/2-d/3-d spatial rank, groups, dilation,
// transposed) with aten::convolution_backward as its own op, and PyTorch's composites.
//
//   auto y = ember::conv2d(x, w, b, {2, 2}, {1, 1});            // stride 2, padding 1
//   auto z = ember::conv2d(x, w, std::nullopt, {1, 1}, "same");  // output keeps H, W
//
// fp32 runs through oneDNN (NCHW and channels_last natively); other floating dtypes through a
// direct loop (src/backends/cpu/conv_kernels.cpp).
#pragma once

#include <array>
#include <optional>
#include <string>
#include <tuple>

#include "ember/tensor.h"

namespace ember {

Tensor convolution(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                   IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, bool transposed,
                   IntArrayRef output_padding, int64_t groups);

/// Gradients of convolution w.r.t. (input, weight, bias), each computed only where output_mask
/// says (undefined otherwise). bias_sizes: the bias's shape, or nullopt for no bias.
std::tuple<Tensor, Tensor, Tensor> convolution_backward(
    const Tensor& grad_output, const Tensor& input, const Tensor& weight,
    std::optional<IntArrayRef> bias_sizes, IntArrayRef stride, IntArrayRef padding,
    IntArrayRef dilation, bool transposed, IntArrayRef output_padding, int64_t groups,
    std::array<bool, 3> output_mask);

Tensor conv1d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias = std::nullopt,
              IntArrayRef stride = {1}, IntArrayRef padding = {0}, IntArrayRef dilation = {1},
              int64_t groups = 1);
/// padding "same" (output length = input length; stride 1 only) or "valid" (no padding).
Tensor conv1d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
              IntArrayRef stride, const std::string& padding, IntArrayRef dilation = {1},
              int64_t groups = 1);

Tensor conv2d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias = std::nullopt,
              IntArrayRef stride = {1, 1}, IntArrayRef padding = {0, 0}, IntArrayRef dilation = {1, 1},
              int64_t groups = 1);
Tensor conv2d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
              IntArrayRef stride, const std::string& padding, IntArrayRef dilation = {1, 1},
              int64_t groups = 1);

/// weight: (in_channels, out_channels / groups, kH, kW).
Tensor conv_transpose2d(const Tensor& input, const Tensor& weight,
                        const std::optional<Tensor>& bias = std::nullopt, IntArrayRef stride = {1, 1},
                        IntArrayRef padding = {0, 0}, IntArrayRef output_padding = {0, 0},
                        int64_t groups = 1, IntArrayRef dilation = {1, 1});

}  // namespace ember
