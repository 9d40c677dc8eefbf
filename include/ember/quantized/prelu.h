// quantized::prelu (PyTorch 1.13's integer kernel):
//
//   auto qx = ember::quantize_per_tensor(ember::randn({2, 3, 4, 4}), 0.07, 10, ember::kQUInt8);
//   auto qw = ember::quantize_per_tensor(ember::randn({3}), 0.01, 5, ember::kQUInt8);
//   auto y = ember::quantized::prelu(qx, qw, 0.05, 20);
#pragma once

#include "ember/tensor.h"

namespace ember::quantized {

/// y = x >= 0 ? x : w * x in integers: (max(qx, zx) - zx) * (q(1) - zw) + (min(qx, zx) - zx) *
/// (qw - zw), requantized with the float multiplier sx * sw / sy (q(1): 1.0 quantized with the
/// weight's qparams). The weight (per tensor, the input's dtype) has one value or one per
/// channel (dimension 1); the result keeps the input's memory format.
Tensor prelu(const Tensor& qx, const Tensor& weight, double output_scale, int64_t output_zero_point);

}  // namespace ember::quantized
