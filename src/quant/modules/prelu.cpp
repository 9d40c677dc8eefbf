// nnq.PReLU (ember/nn/quantized/prelu.h).
#include "ember/nn/quantized/prelu.h"

#include "ember/nn/modules/activation_more.h"
#include "ember/ops/random.h"
#include "ember/quantization/observer.h"
#include "ember/quantization/qconfig.h"
#include "ember/quantized/prelu.h"
#include "ember/quantized/tensor.h"
#include "../../nn/modules/module_util.h"
#include "ember/nn/module_clone.h"

namespace ember::nn::quantized {

namespace quant = ember::quantization;

PReLU::PReLU(double output_scale, int64_t output_zero_point, int64_t num_parameters_)
    : Module("QuantizedPReLU"),
      num_parameters(num_parameters_),
      scale(output_scale),
      zero_point(output_zero_point) {
  weight = quantize_per_tensor(randn({num_parameters}), 1.0, 0, kQUInt8);
}

Tensor PReLU::forward(const Tensor& input) {
  return ember::quantized::prelu(input, weight, scale, zero_point);
}

Value PReLU::forward(const std::vector<Value>& inputs) {
  nn::detail::check_forward_inputs(type_name(), inputs, {"input"});
  return Value(forward(inputs[0].to_tensor()));
}

std::shared_ptr<PReLU> PReLU::from_float(Module& mod) {
  std::shared_ptr<Module> app;
  for (const auto& [n, c] : mod.named_children())
    if (n == "activation_post_process") app = c;
  if (!app) throw quant::AssertionError("'PReLU' object has no attribute 'activation_post_process'");
  const auto out = quant::observed_qparams(*app);
  auto& f = dynamic_cast<nn::PReLU&>(mod);
  auto q = std::make_shared<PReLU>(out.scale.item().to<double>(), out.zero_point.item().to<int64_t>(),
                                   f.num_parameters);
  if (!mod.qconfig() || !mod.qconfig()->weight)
    throw quant::AssertionError("'NoneType' object has no attribute 'weight'");
  auto observer = mod.qconfig()->weight();  // not run on the weight, as PyTorch 1.13
  const auto w = quant::observed_qparams(*observer);
  q->set_weight(quantize_per_tensor(f.weight().detach().to(kFloat32),
                                    w.scale.item().to<double>(), w.zero_point.item().to<int64_t>(),
                                    kQUInt8));
  return q;
}

namespace {
void copy_weight(Module& copy, CloneMemo& /*memo*/) {
  auto& m = static_cast<PReLU&>(copy);
  m.weight = m.weight.clone();
}
const bool registered = [] {
  register_cloneable<PReLU>();
  detail::register_fixup(typeid(PReLU), copy_weight);
  return true;
}();
}  // namespace

}  // namespace ember::nn::quantized
