// aten::layer_norm (a Composite row of ops.def) and its nn::functional form.
//
// PyTorch calls native_layer_norm, a fused kernel with its own backward; here the statistics
// are the mean and the biased variance over the normalised dims, so autograd (and double
// backward) come from mean, var and rsqrt. 16-bit inputs are normalised in float32 and rounded
// once at the end, as PyTorch's kernel computes them in float (PyTorch 1.13 has no float16
// kernel on CPU; ember has).
#include "../../dispatch/boxing.h"
#include "ember/nn/functional.h"
#include "ember/ops/copy.h"
#include "ember/ops/reduce.h"

namespace ember {

using dispatch::OpId;

namespace {

// PyTorch's _check_layer_norm_inputs, in its order and with its texts.
void check_layer_norm_inputs(const Tensor& input, IntArrayRef normalized_shape,
                             const Tensor& weight, const Tensor& bias) {
  const int64_t k = static_cast<int64_t>(normalized_shape.size());
  EMBER_CHECK(k >= 1,
              "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least "
              "one element, but got normalized_shape = ",
              normalized_shape);
  EMBER_CHECK(!weight.defined() || weight.sizes() == normalized_shape,
              "Expected weight to be of same shape as normalized_shape, but got weight of shape ",
              weight.defined() ? weight.sizes() : IntArrayRef(), " and normalized_shape = ",
              normalized_shape);
  EMBER_CHECK(!bias.defined() || bias.sizes() == normalized_shape,
              "Expected bias to be of same shape as normalized_shape, but got bias of shape ",
              bias.defined() ? bias.sizes() : IntArrayRef(), " and normalized_shape = ",
              normalized_shape);
  const int64_t nd = input.dim();
  if (nd < k || input.sizes().slice(static_cast<size_t>(nd - k)) != normalized_shape) {
    std::string expected = "[*";
    for (int64_t s : normalized_shape) expected += ", " + std::to_string(s);
    EMBER_FAIL("Given normalized_shape=", normalized_shape, ", expected input with shape ",
               expected, "], but got input of size", input.sizes());
  }
  EMBER_CHECK(is_floating(input.dtype()), "\"LayerNormKernelImpl\" not implemented for '",
              scalar_type_name(input.dtype()), "'");
  for (const Tensor* t : {&weight, &bias}) {
    EMBER_CHECK(!t->defined() || t->dtype() == input.dtype(), "expected scalar type ",
                scalar_type_name(input.dtype()), " but found ", scalar_type_name(t->dtype()));
  }
}

Tensor layer_norm_impl(const Tensor& input, IntArrayRef normalized_shape,
                       const std::optional<Tensor>& weight_opt,
                       const std::optional<Tensor>& bias_opt, double eps, bool /*cudnn_enable*/) {
  const Tensor weight = weight_opt.value_or(Tensor()), bias = bias_opt.value_or(Tensor());
  check_layer_norm_inputs(input, normalized_shape, weight, bias);
  const bool reduced = input.dtype() == kFloat16 || input.dtype() == kBFloat16;
  const auto up = [&](const Tensor& t) { return reduced ? t.to(kFloat32) : t; };
  std::vector<int64_t> dims;
  for (int64_t d = input.dim() - static_cast<int64_t>(normalized_shape.size()); d < input.dim(); ++d) {
    dims.push_back(d);
  }
  const Tensor x = up(input);
  const Tensor mean = x.mean(dims, /*keepdim=*/true);
  const Tensor var = x.var(dims, /*correction=*/0, /*keepdim=*/true);
  Tensor out = (x - mean) * (var + eps).rsqrt();
  if (weight.defined()) out = out * up(weight);
  if (bias.defined()) out = out + up(bias);
  return reduced ? out.to(input.dtype()) : out;
}

}  // namespace

Tensor layer_norm(const Tensor& input, IntArrayRef normalized_shape,
                  const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
                  double eps, bool cudnn_enable) {
  return dispatch::call<layer_norm_impl>(OpId::layer_norm, input, normalized_shape, weight, bias,
                                         eps, cudnn_enable);
}

EMBER_REGISTER_OP(layer_norm, &layer_norm);

namespace nn::functional {

Tensor layer_norm(const Tensor& input, IntArrayRef normalized_shape,
                  const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
                  double eps) {
  return ember::layer_norm(input, normalized_shape, weight, bias, eps, true);
}

}  // namespace nn::functional

}  // namespace ember
