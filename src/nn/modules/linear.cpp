// nn::Identity, Linear, Bilinear: PyTorch 1.13's parameters, initialisation and repr.
#include "ember/nn/modules/linear.h"

#include <cmath>
#include <optional>

#include "ember/nn/functional.h"
#include "ember/nn/init.h"
#include "ember/ops/factory.h"
#include "backends/cpu/gemm.h"
#include "module_util.h"

namespace ember::nn {

namespace F = functional;

Value Identity::forward(const std::vector<Value>& inputs) {
  detail::check_forward_inputs(type_name(), inputs, {"input"});
  return inputs[0];  // any value passes through, as in Python
}

// ---- Linear ----

Linear::Linear(int64_t in_features_, int64_t out_features_, bool bias, TensorOptions options)
    : Module("Linear"), in_features(in_features_), out_features(out_features_) {
  register_parameter("weight", empty({out_features, in_features}, options));
  register_parameter("bias", bias ? empty({out_features}, options) : Tensor());
  reset_parameters();
}

void Linear::reset_parameters() {
  // a = sqrt(5) makes kaiming_uniform_ draw from U(-1/sqrt(fan_in), 1/sqrt(fan_in))
  // (pytorch/pytorch#57109); nn::init leaves meta tensors untouched.
  init::kaiming_uniform_(weight(), std::sqrt(5.0));
  if (bias().defined()) {
    const int64_t fan_in = init::_calculate_fan_in_and_fan_out(weight()).first;
    const double bound = fan_in > 0 ? 1.0 / std::sqrt(static_cast<double>(fan_in)) : 0.0;
    init::uniform_(bias(), -bound, bound);
  }
}

Tensor Linear::forward(const Tensor& input) {
  std::optional<cpu::TorchGemmScope> torch_gemm;
  if (has_forward_hooks()) torch_gemm.emplace();  // Note [Observed layers take torch's path]
  return F::linear(input, weight(), detail::optional_tensor(bias()));
}

Value Linear::forward(const std::vector<Value>& inputs) {
  detail::check_forward_inputs(type_name(), inputs, {"input"});
  return forward(inputs[0].to_tensor());
}

std::string Linear::extra_repr() const {
  return "in_features=" + std::to_string(in_features) +
         ", out_features=" + std::to_string(out_features) +
         ", bias=" + detail::py_bool(detail::has_defined_parameter(*this, "bias"));
}

// ---- Bilinear ----

Bilinear::Bilinear(int64_t in1, int64_t in2, int64_t out, bool bias, TensorOptions options)
    : Module("Bilinear"), in1_features(in1), in2_features(in2), out_features(out) {
  register_parameter("weight", empty({out, in1, in2}, options));
  register_parameter("bias", bias ? empty({out}, options) : Tensor());
  reset_parameters();
}

void Bilinear::reset_parameters() {
  const int64_t in1 = weight().size(1);
  // Python computes 1 / math.sqrt(0) here and raises ZeroDivisionError.
  EMBER_CHECK(in1 > 0, "float division by zero (Bilinear.reset_parameters: the bound is "
              "1 / sqrt(in1_features) and in1_features is 0)");
  const double bound = 1.0 / std::sqrt(static_cast<double>(in1));
  init::uniform_(weight(), -bound, bound);
  if (bias().defined()) init::uniform_(bias(), -bound, bound);
}

Tensor Bilinear::forward(const Tensor& input1, const Tensor& input2) {
  return F::bilinear(input1, input2, weight(), detail::optional_tensor(bias()));
}

Value Bilinear::forward(const std::vector<Value>& inputs) {
  detail::check_forward_inputs(type_name(), inputs, {"input1", "input2"});
  return forward(inputs[0].to_tensor(), inputs[1].to_tensor());
}

std::string Bilinear::extra_repr() const {
  return "in1_features=" + std::to_string(in1_features) +
         ", in2_features=" + std::to_string(in2_features) +
         ", out_features=" + std::to_string(out_features) +
         ", bias=" + detail::py_bool(detail::has_defined_parameter(*this, "bias"));
}

}  // namespace ember::nn
