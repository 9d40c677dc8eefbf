// nn::Dropout, Dropout2d: F.dropout / F.dropout2d with the module's training flag.
#include "ember/nn/modules/dropout.h"

#include "ember/nn/functional.h"
#include "module_util.h"

namespace ember::nn {

Dropout::Dropout(double p_, bool inplace_) : Module("Dropout"), p(p_), inplace(inplace_) {
  EMBER_CHECK_VALUE(p >= 0.0 && p <= 1.0, "dropout probability has to be between 0 and 1, but got ",
                    detail::py_float(p));
}

Tensor Dropout::forward(const Tensor& input) {
  return functional::dropout(input, p, is_training(), inplace);
}

Value Dropout::forward(const std::vector<Value>& inputs) {
  detail::check_forward_inputs(type_name(), inputs, {"input"});
  return forward(inputs[0].to_tensor());
}

std::string Dropout::extra_repr() const {
  return "p=" + detail::py_float(p) + ", inplace=" + detail::py_bool(inplace);
}

Dropout2d::Dropout2d(double p_, bool inplace_) : Module("Dropout2d"), p(p_), inplace(inplace_) {
  EMBER_CHECK_VALUE(p >= 0.0 && p <= 1.0, "dropout probability has to be between 0 and 1, but got ",
                    detail::py_float(p));
}

Tensor Dropout2d::forward(const Tensor& input) {
  return functional::dropout2d(input, p, is_training(), inplace);
}

Value Dropout2d::forward(const std::vector<Value>& inputs) {
  detail::check_forward_inputs(type_name(), inputs, {"input"});
  return forward(inputs[0].to_tensor());
}

std::string Dropout2d::extra_repr() const {
  return "p=" + detail::py_float(p) + ", inplace=" + detail::py_bool(inplace);
}

}  // namespace ember::nn
