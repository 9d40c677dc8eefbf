// The activation layers of issue 16: options, repr, and a call into nn::functional.
#include "ember/nn/modules/activation_more.h"

#include "ember/nn/functional.h"
#include "ember/nn/init.h"
#include "ember/nn/module_clone.h"
#include "ember/ops/factory.h"
#include "module_util.h"

namespace ember::nn {

namespace F = functional;

std::string Number::repr() const {
  return is_int_ ? std::to_string(static_cast<int64_t>(value_)) : detail::py_float(value_);
}

namespace {
const char* inplace_suffix(bool inplace) { return inplace ? ", inplace=True" : ""; }
}  // namespace

#define EMBER_BOXED_UNARY_FORWARD(Cls)                                  \
  Value Cls::forward(const std::vector<Value>& inputs) {               \
    detail::check_forward_inputs(type_name(), inputs, {"input"});      \
    return forward(inputs[0].to_tensor());                             \
  }

Tensor LeakyReLU::forward(const Tensor& input) { return F::leaky_relu(input, negative_slope, inplace); }
EMBER_BOXED_UNARY_FORWARD(LeakyReLU)
std::string LeakyReLU::extra_repr() const {
  return "negative_slope=" + negative_slope.repr() + inplace_suffix(inplace);
}

PReLU::PReLU(int64_t num_parameters_, double init_, TensorOptions options)
    : Module("PReLU"), num_parameters(num_parameters_), init(init_) {
  register_parameter("weight", empty({num_parameters}, options));
  reset_parameters();
}
void PReLU::reset_parameters() { init::constant_(weight(), init); }
Tensor PReLU::forward(const Tensor& input) { return F::prelu(input, weight()); }
EMBER_BOXED_UNARY_FORWARD(PReLU)
std::string PReLU::extra_repr() const { return "num_parameters=" + std::to_string(num_parameters); }

Tensor ELU::forward(const Tensor& input) { return F::elu(input, alpha, inplace); }
EMBER_BOXED_UNARY_FORWARD(ELU)
std::string ELU::extra_repr() const { return "alpha=" + alpha.repr() + inplace_suffix(inplace); }

Tensor SELU::forward(const Tensor& input) { return F::selu(input, inplace); }
EMBER_BOXED_UNARY_FORWARD(SELU)

Tensor CELU::forward(const Tensor& input) { return F::celu(input, alpha, inplace); }
EMBER_BOXED_UNARY_FORWARD(CELU)
std::string CELU::extra_repr() const { return "alpha=" + alpha.repr() + inplace_suffix(inplace); }

Tensor GLU::forward(const Tensor& input) { return F::glu(input, dim); }
EMBER_BOXED_UNARY_FORWARD(GLU)

Tensor Softplus::forward(const Tensor& input) { return F::softplus(input, beta, threshold); }
EMBER_BOXED_UNARY_FORWARD(Softplus)
std::string Softplus::extra_repr() const {
  return "beta=" + beta.repr() + ", threshold=" + threshold.repr();
}

Tensor Softsign::forward(const Tensor& input) { return F::softsign(input); }
EMBER_BOXED_UNARY_FORWARD(Softsign)

Tensor Softshrink::forward(const Tensor& input) { return F::softshrink(input, lambd); }
EMBER_BOXED_UNARY_FORWARD(Softshrink)

Tensor Hardshrink::forward(const Tensor& input) { return F::hardshrink(input, lambd); }
EMBER_BOXED_UNARY_FORWARD(Hardshrink)

Tensor Tanhshrink::forward(const Tensor& input) { return F::tanhshrink(input); }
EMBER_BOXED_UNARY_FORWARD(Tanhshrink)

Tensor Mish::forward(const Tensor& input) { return F::mish(input, inplace); }
EMBER_BOXED_UNARY_FORWARD(Mish)

Tensor LogSigmoid::forward(const Tensor& input) { return F::logsigmoid(input); }
EMBER_BOXED_UNARY_FORWARD(LogSigmoid)

Tensor Hardsigmoid::forward(const Tensor& input) { return F::hardsigmoid(input, inplace); }
EMBER_BOXED_UNARY_FORWARD(Hardsigmoid)

Tensor Threshold::forward(const Tensor& input) { return F::threshold(input, threshold, value, inplace); }
EMBER_BOXED_UNARY_FORWARD(Threshold)
std::string Threshold::extra_repr() const {
  return "threshold=" + threshold.repr() + ", value=" + value.repr() + inplace_suffix(inplace);
}

Tensor Softmin::forward(const Tensor& input) { return F::softmin(input, dim); }
EMBER_BOXED_UNARY_FORWARD(Softmin)
std::string Softmin::extra_repr() const {
  return "dim=" + (dim ? std::to_string(*dim) : std::string("None"));
}

Tensor Softmax2d::forward(const Tensor& input) {
  EMBER_CHECK_KIND(ErrorKind::Assertion, input.dim() == 4 || input.dim() == 3,
                   "Softmax2d requires a 3D or 4D tensor as input");
  return F::softmax(input, -3);
}
EMBER_BOXED_UNARY_FORWARD(Softmax2d)

Tensor RReLU::forward(const Tensor& input) {
  return F::rrelu(input, lower, upper, is_training(), inplace);
}
EMBER_BOXED_UNARY_FORWARD(RReLU)
std::string RReLU::extra_repr() const {
  return "lower=" + lower.repr() + ", upper=" + upper.repr() + inplace_suffix(inplace);
}

}  // namespace ember::nn

namespace ember::nn {
namespace {
// Note [Cloning modules]: each class copies through its copy constructor.
const bool registered = [] {
  register_cloneable<LeakyReLU>();
  register_cloneable<PReLU>();
  register_cloneable<ELU>();
  register_cloneable<SELU>();
  register_cloneable<CELU>();
  register_cloneable<GLU>();
  register_cloneable<Softplus>();
  register_cloneable<Softsign>();
  register_cloneable<Softshrink>();
  register_cloneable<Hardshrink>();
  register_cloneable<Tanhshrink>();
  register_cloneable<Mish>();
  register_cloneable<LogSigmoid>();
  register_cloneable<Hardsigmoid>();
  register_cloneable<Threshold>();
  register_cloneable<Softmin>();
  register_cloneable<Softmax2d>();
  register_cloneable<RReLU>();
  return true;
}();
}  // namespace
}  // namespace ember::nn
