// nn::LayerNorm, GroupNorm: PyTorch 1.13's parameters (None without affine), init and repr.
#include "ember/nn/modules/normalization.h"

#include "ember/nn/functional.h"
#include "ember/nn/init.h"
#include "ember/ops/factory.h"
#include "module_util.h"

namespace ember::nn {

LayerNorm::LayerNorm(std::vector<int64_t> normalized_shape_, double eps_, bool elementwise_affine_,
                     TensorOptions options)
    : Module("LayerNorm"),
      normalized_shape(std::move(normalized_shape_)),
      eps(eps_),
      elementwise_affine(elementwise_affine_) {
  const bool affine = elementwise_affine;
  register_parameter("weight", affine ? empty(normalized_shape, options) : Tensor());
  register_parameter("bias", affine ? empty(normalized_shape, options) : Tensor());
  reset_parameters();
}

void LayerNorm::reset_parameters() {
  if (!elementwise_affine) return;
  init::ones_(weight());
  init::zeros_(bias());
}

Tensor LayerNorm::forward(const Tensor& input) {
  return functional::layer_norm(input, normalized_shape, detail::optional_tensor(weight()),
                                detail::optional_tensor(bias()), eps);
}

Value LayerNorm::forward(const std::vector<Value>& inputs) {
  detail::check_forward_inputs(type_name(), inputs, {"input"});
  return forward(inputs[0].to_tensor());
}

std::string LayerNorm::extra_repr() const {
  return detail::py_int_tuple(normalized_shape) + ", eps=" + detail::py_float(eps) +
         ", elementwise_affine=" + detail::py_bool(elementwise_affine);
}

GroupNorm::GroupNorm(int64_t num_groups_, int64_t num_channels_, double eps_, bool affine_,
                     TensorOptions options)
    : Module("GroupNorm"),
      num_groups(num_groups_),
      num_channels(num_channels_),
      eps(eps_),
      affine(affine_) {
  // Python's `num_channels % num_groups` (a ZeroDivisionError for 0 groups there).
  EMBER_CHECK_VALUE(num_groups != 0 && num_channels % num_groups == 0,
                    "num_channels must be divisible by num_groups");
  register_parameter("weight", affine ? empty({num_channels}, options) : Tensor());
  register_parameter("bias", affine ? empty({num_channels}, options) : Tensor());
  reset_parameters();
}

void GroupNorm::reset_parameters() {
  if (!affine) return;
  init::ones_(weight());
  init::zeros_(bias());
}

Tensor GroupNorm::forward(const Tensor& input) {
  return functional::group_norm(input, num_groups, detail::optional_tensor(weight()),
                                detail::optional_tensor(bias()), eps);
}

Value GroupNorm::forward(const std::vector<Value>& inputs) {
  detail::check_forward_inputs(type_name(), inputs, {"input"});
  return forward(inputs[0].to_tensor());
}

std::string GroupNorm::extra_repr() const {
  return std::to_string(num_groups) + ", " + std::to_string(num_channels) +
         ", eps=" + detail::py_float(eps) + ", affine=" + detail::py_bool(affine);
}

}  // namespace ember::nn
