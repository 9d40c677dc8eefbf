// torch.ao.nn.quantized.PReLU ("QuantizedPReLU"): quantized::prelu with a quint8 weight of
// num_parameters values (a plain attribute, as in PyTorch: the state_dict is empty).
//
//   ember::nn::quantized::PReLU act(0.05, 128, /*num_parameters=*/3);
//   act.set_weight(ember::quantize_per_tensor(ember::full({3}, 0.25), 0.01, 0, ember::kQUInt8));
//   ember::Tensor y = act(qx);
#pragma once

#include <memory>

#include "ember/nn/module.h"

namespace ember::nn::quantized {

class PReLU : public Module {
 public:
  /// A random weight quantized with scale 1.0, zero point 0 (quint8), as PyTorch's constructor.
  PReLU(double output_scale, int64_t output_zero_point, int64_t num_parameters = 1);
  /// torch's from_float: the output qparams from activation_post_process; the weight quantized
  /// (quint8) with the qparams of a fresh `qconfig.weight()` observer, which PyTorch 1.13 does not
  /// run on the weight (so a MinMax observer gives scale 1.0, zero point 0, with its warning).
  static std::shared_ptr<PReLU> from_float(Module& observed);
  void set_weight(const Tensor& w) { weight = w; }
  Tensor forward(const Tensor& input);
  Value forward(const std::vector<Value>& inputs) override;

  int64_t num_parameters;
  double scale;
  int64_t zero_point;
  Tensor weight;
};

}  // namespace ember::nn::quantized
