// nniqd.LinearReLU (ember/nn/quantized/linear_relu_dynamic.h).
#include "ember/nn/quantized/linear_relu_dynamic.h"

#include "ember/nn/module_clone.h"
#include "ember/quantized/conv_linear.h"
#include "quant/packed_params.h"

namespace ember::nn::quantized::dynamic {

namespace q = ember::quantized;

LinearReLU::LinearReLU(int64_t in_features, int64_t out_features, bool bias, ScalarType dtype)
    : Linear(in_features, out_features, bias, dtype) {
  set_type_name("DynamicQuantizedLinearReLU");
}

Tensor LinearReLU::forward(const Tensor& input) {
  Tensor y = q::linear_relu_dynamic(input, packed_module().packed_params(), /*reduce_range=*/true);
  return y.to(input.dtype());
}

std::shared_ptr<LinearReLU> LinearReLU::from_float(Module& mod) {
  // nnqd.Linear.from_float builds `cls`: the same checks, weights and observers.
  auto lin = Linear::from_float(mod);
  auto q = std::make_shared<LinearReLU>(lin->in_features, lin->out_features, true,
                                        lin->packed_module().dtype);
  auto [w, b] = lin->_weight_bias();
  q->set_weight_bias(w, b);
  return q;
}

namespace {
// The packed weight lives in the _packed_params child, which re-packs itself when copied.
const bool registered = [] {
  register_cloneable<LinearReLU>();
  return true;
}();
}  // namespace

}  // namespace ember::nn::quantized::dynamic
