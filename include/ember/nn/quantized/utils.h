// What the quantized modules' from_float share: PyTorch's _quantize_weight (with
// _clamp_weights), given the weight observer's results. The observer itself is read by the
// caller (Python's from_float reads any object with calculate_qparams / qscheme / ch_axis /
// quant_min / quant_max, as PyTorch does by duck typing).
//
//   Tensor qw = ember::nn::quantized::quantize_weight(conv.weight(), scale, zero_point,
//       ember::QScheme::PerTensorSymmetric, 0, -128, 127);
#pragma once

#include <string>

#include "ember/quantized/tensor.h"
#include "ember/tensor.h"

namespace ember::nn::quantized {

/// A qint8 weight: per-tensor schemes quantize_per_tensor(w, float(scale), int(zero_point)),
/// per-channel ones quantize_per_channel(w, scale.double(), zero_point.long(), ch_axis); codes
/// then clamped to [quant_min, quant_max] when that is narrower than int8's range.
/// ValueError "Unexpected qscheme ..." for the float-qparams scheme.
Tensor quantize_weight(const Tensor& float_weight, const Tensor& scale, const Tensor& zero_point,
                       QScheme qscheme, int64_t ch_axis, int64_t quant_min, int64_t quant_max);

/// "ember.per_tensor_affine", ... (how Python prints a qscheme).
std::string qscheme_repr(QScheme qscheme);

}  // namespace ember::nn::quantized
