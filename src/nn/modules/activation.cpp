// nn activation layers: options, repr, and a call into nn::functional.
#include "ember/nn/modules/activation.h"

#include "ember/nn/functional.h"
#include "ember/warning.h"
#include "module_util.h"

namespace ember::nn {

namespace F = functional;

// The boxed forward of a one-input layer: Python's arity errors, then the typed forward.
#define EMBER_BOXED_UNARY_FORWARD(Cls)                                  \
  Value Cls::forward(const std::vector<Value>& inputs) {               \
    detail::check_forward_inputs(type_name(), inputs, {"input"});      \
    return forward(inputs[0].to_tensor());                             \
  }

Tensor ReLU::forward(const Tensor& input) { return F::relu(input, inplace); }
EMBER_BOXED_UNARY_FORWARD(ReLU)

Hardtanh::Hardtanh(std::string type_name, double min_val_, double max_val_, bool inplace_)
    : Module(std::move(type_name)), min_val(min_val_), max_val(max_val_), inplace(inplace_) {
  // Python's `assert self.max_val > self.min_val`.
  EMBER_CHECK(max_val > min_val, this->type_name(), ": max_val (", detail::py_float(max_val),
              ") must be greater than min_val (", detail::py_float(min_val), ")");
}
Tensor Hardtanh::forward(const Tensor& input) {
  return F::hardtanh(input, min_val, max_val, inplace);
}
EMBER_BOXED_UNARY_FORWARD(Hardtanh)
std::string Hardtanh::extra_repr() const {
  return "min_val=" + detail::py_float(min_val) + ", max_val=" + detail::py_float(max_val) +
         (inplace ? ", inplace=True" : "");
}

Tensor Hardswish::forward(const Tensor& input) { return F::hardswish(input, inplace); }
EMBER_BOXED_UNARY_FORWARD(Hardswish)

Tensor Sigmoid::forward(const Tensor& input) { return F::sigmoid(input); }
EMBER_BOXED_UNARY_FORWARD(Sigmoid)

Tensor Tanh::forward(const Tensor& input) { return F::tanh(input); }
EMBER_BOXED_UNARY_FORWARD(Tanh)

Tensor GELU::forward(const Tensor& input) { return F::gelu(input, approximate); }
EMBER_BOXED_UNARY_FORWARD(GELU)

Tensor SiLU::forward(const Tensor& input) { return F::silu(input, inplace); }
EMBER_BOXED_UNARY_FORWARD(SiLU)

namespace {
// F._get_softmax_dim: the legacy choice when no dim is given, with its deprecation warning.
int64_t softmax_dim(const char* name, std::optional<int64_t> dim, const Tensor& input) {
  if (dim) return *dim;
  EMBER_WARN("Implicit dimension choice for ", name,
             " has been deprecated. Change the call to include dim=X as an argument.");
  const int64_t ndim = input.dim();
  return (ndim == 0 || ndim == 1 || ndim == 3) ? 0 : 1;
}
std::string dim_repr(std::optional<int64_t> dim) {
  return "dim=" + (dim ? std::to_string(*dim) : std::string("None"));
}
}  // namespace

Tensor Softmax::forward(const Tensor& input) {
  return F::softmax(input, softmax_dim("softmax", dim, input));
}
EMBER_BOXED_UNARY_FORWARD(Softmax)
std::string Softmax::extra_repr() const { return dim_repr(dim); }

Tensor LogSoftmax::forward(const Tensor& input) {
  return F::log_softmax(input, softmax_dim("log_softmax", dim, input));
}
EMBER_BOXED_UNARY_FORWARD(LogSoftmax)
std::string LogSoftmax::extra_repr() const { return dim_repr(dim); }

}  // namespace ember::nn
