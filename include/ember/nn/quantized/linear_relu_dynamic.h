// torch.nn.intrinsic.quantized.dynamic.LinearReLU ("DynamicQuantizedLinearReLU"): the dynamic
// quantized Linear followed by ReLU in one op (quantized::linear_relu_dynamic, reduce_range=True
// as PyTorch 1.13's forward; the qnnpack formula ignores reduce_range). Converted from
// nn.intrinsic.LinearReLU by quantize_dynamic, as in torch 1.13's dynamic mapping.
#pragma once

#include <memory>

#include "ember/nn/quantized/linear.h"

namespace ember::nn::quantized::dynamic {

class LinearReLU : public Linear {
 public:
  /// torch's from_float (nnqd.Linear.from_float with this class): an nni::LinearReLU (or a
  /// Linear) with a qconfig.
  static std::shared_ptr<LinearReLU> from_float(Module& observed);
  LinearReLU(int64_t in_features, int64_t out_features, bool bias = true, ScalarType dtype = kQInt8);
  Tensor forward(const Tensor& input) override;
  using Linear::forward;
};

}  // namespace ember::nn::quantized::dynamic
