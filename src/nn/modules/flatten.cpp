// nn::Flatten: Tensor::flatten with the module's dims.
#include "ember/nn/modules/flatten.h"

#include "module_util.h"

namespace ember::nn {

Tensor Flatten::forward(const Tensor& input) { return input.flatten(start_dim, end_dim); }

Value Flatten::forward(const std::vector<Value>& inputs) {
  detail::check_forward_inputs(type_name(), inputs, {"input"});
  return forward(inputs[0].to_tensor());
}

std::string Flatten::extra_repr() const {
  return "start_dim=" + std::to_string(start_dim) + ", end_dim=" + std::to_string(end_dim);
}

}  // namespace ember::nn
