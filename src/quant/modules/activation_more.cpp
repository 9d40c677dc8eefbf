// nnq.LeakyReLU, ELU, Sigmoid, Softmax.
#include "ember/nn/quantized/activation_more.h"

#include "ember/ops/factory.h"
#include "ember/quantized/activation.h"
#include "ember/quantized/elementwise.h"
#include "ember/warning.h"
#include "../../nn/modules/module_util.h"

namespace ember::nn::quantized {

namespace q = ember::quantized;

#define EMBER_QACT_BOXED_FORWARD(Cls)                              \
  Value Cls::forward(const std::vector<Value>& inputs) {          \
    detail::check_forward_inputs(type_name(), inputs, {"input"}); \
    return forward(inputs[0].to_tensor());                        \
  }

LeakyReLU::LeakyReLU(double scale, int64_t zero_point, double slope, bool inplace_,
                     TensorOptions options)
    : Module("QuantizedLeakyReLU"), negative_slope(slope), inplace(inplace_) {
  // torch.tensor(scale) / torch.tensor(zero_point): 0-dim float32 and int64 buffers.
  register_buffer("scale", scalar_tensor(scale, options.dtype(options.dtype_or_default())));
  register_buffer("zero_point", scalar_tensor(zero_point, options.dtype(kInt64)));
}
Tensor LeakyReLU::forward(const Tensor& input) {
  return q::leaky_relu(input, negative_slope, inplace, buffer("scale").item().to<double>(),
                       buffer("zero_point").item().to<int64_t>());
}
EMBER_QACT_BOXED_FORWARD(LeakyReLU)
std::string LeakyReLU::extra_repr() const {
  return "negative_slope=" + detail::py_float(negative_slope) + (inplace ? ", inplace=True" : "");
}

ELU::ELU(double scale_, int64_t zero_point_, double alpha_)
    : Module("QuantizedELU"), alpha(alpha_), scale(scale_), zero_point(zero_point_) {}
Tensor ELU::forward(const Tensor& input) {
  // torch.ao.nn.quantized.functional.elu
  EMBER_CHECK_VALUE(input.is_quantized(), "Input to 'quantized.elu' must be quantized!");
  return q::elu(input, scale, zero_point, alpha);
}
EMBER_QACT_BOXED_FORWARD(ELU)
std::string ELU::extra_repr() const {
  return "alpha=" + detail::py_float(alpha) + (inplace ? ", inplace=True" : "");
}

Sigmoid::Sigmoid(double s, int64_t z) : Module("Sigmoid"), output_scale(s), output_zero_point(z) {}
Tensor Sigmoid::forward(const Tensor& input) {
  return q::sigmoid(input, output_scale, output_zero_point);
}
EMBER_QACT_BOXED_FORWARD(Sigmoid)

Softmax::Softmax(std::optional<int64_t> dim_, double scale_, int64_t zero_point_)
    : Module("QuantizedSoftmax"), dim(dim_), scale(scale_), zero_point(zero_point_) {}
Tensor Softmax::forward(const Tensor& input) {
  int64_t d = 0;
  if (dim) {
    d = *dim;
  } else {
    // torch.nn.functional._get_softmax_dim("softmax", ndim, stacklevel)
    EMBER_WARN("Implicit dimension choice for softmax has been deprecated. Change the call to "
               "include dim=X as an argument.");
    const int64_t n = input.dim();
    d = (n == 0 || n == 1 || n == 3) ? 0 : 1;
  }
  return q::softmax(input, d, scale, zero_point);
}
EMBER_QACT_BOXED_FORWARD(Softmax)
std::string Softmax::extra_repr() const {
  return "dim=" + (dim ? std::to_string(*dim) : std::string("None"));
}

}  // namespace ember::nn::quantized

#include "ember/nn/module_clone.h"

namespace ember::nn::quantized {
namespace {
const bool registered = [] {
  register_cloneable<LeakyReLU>();
  register_cloneable<ELU>();
  register_cloneable<Sigmoid>();
  register_cloneable<Softmax>();
  return true;
}();
}  // namespace
}  // namespace ember::nn::quantized
