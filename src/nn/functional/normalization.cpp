// aten::layer_norm, aten::native_layer_norm and native_layer_norm_backward (Composite rows of
// ops.def) and layer_norm's nn::functional form.
//
// PyTorch's native_layer_norm is a fused kernel with its own backward; here the statistics
// are the mean and the biased variance over the normalised dims, so autograd (and double
// backward) come from mean, var and rsqrt. 16-bit inputs are normalised in float32 and rounded
// once at the end, as PyTorch's kernel computes them in float (PyTorch 1.13 has no float16
// kernel on CPU; ember has).
#include "../../dispatch/boxing.h"
#include "ember/nn/functional.h"
#include "ember/ops/copy.h"
#include "ember/ops/nn_ops.h"
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

std::vector<int64_t> normalized_dims(const Tensor& input, IntArrayRef normalized_shape) {
  std::vector<int64_t> dims;
  for (int64_t d = input.dim() - static_cast<int64_t>(normalized_shape.size()); d < input.dim(); ++d) {
    dims.push_back(d);
  }
  return dims;
}

// PyTorch's native_layer_norm: (out, mean, rstd), the statistics kept with the normalised dims
// as size 1 (Note at the top: computed with mean / var, in float32 for 16-bit inputs).
std::tuple<Tensor, Tensor, Tensor> native_layer_norm_impl(const Tensor& input,
                                                          IntArrayRef normalized_shape,
                                                          const std::optional<Tensor>& weight_opt,
                                                          const std::optional<Tensor>& bias_opt,
                                                          double eps) {
  const Tensor weight = weight_opt.value_or(Tensor()), bias = bias_opt.value_or(Tensor());
  check_layer_norm_inputs(input, normalized_shape, weight, bias);
  const bool reduced = input.dtype() == kFloat16 || input.dtype() == kBFloat16;
  const auto up = [&](const Tensor& t) { return reduced ? t.to(kFloat32) : t; };
  const Tensor x = up(input);
  const std::vector<int64_t> dims = normalized_dims(input, normalized_shape);
  const Tensor mean = x.mean(dims, /*keepdim=*/true);
  const Tensor rstd = (x.var(dims, /*correction=*/0, /*keepdim=*/true) + eps).rsqrt();
  Tensor out = (x - mean) * rstd;
  if (weight.defined()) out = out * up(weight);
  if (bias.defined()) out = out + up(bias);
  // The statistics are not differentiable outputs (PyTorch's have no grad_fn).
  return {reduced ? out.to(input.dtype()) : out, mean.detach(), rstd.detach()};
}

Tensor layer_norm_impl(const Tensor& input, IntArrayRef normalized_shape,
                       const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
                       double eps, bool /*cudnn_enable*/) {
  return std::get<0>(native_layer_norm(input, normalized_shape, weight, bias, eps));
}

// PyTorch's layer-norm gradient (layer_norm_backward_cpu) from the saved statistics.
std::tuple<Tensor, Tensor, Tensor> native_layer_norm_backward_impl(
    const Tensor& grad_out, const Tensor& input, IntArrayRef normalized_shape, const Tensor& mean,
    const Tensor& rstd, const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
    IntArrayRef output_mask) {
  EMBER_CHECK(output_mask.size() == 3, "native_layer_norm_backward: output_mask must have 3 entries");
  const std::vector<int64_t> dims = normalized_dims(input, normalized_shape);
  std::vector<int64_t> outer;
  for (int64_t d = 0; d < input.dim() - static_cast<int64_t>(normalized_shape.size()); ++d) outer.push_back(d);
  const Tensor xhat = (input - mean) * rstd;
  Tensor gi, gw, gb;
  if (output_mask[0]) {
    const Tensor gx = weight && weight->defined() ? grad_out * *weight : grad_out;
    gi = rstd * (gx - gx.mean(dims, true) - xhat * (gx * xhat).mean(dims, true));
  }
  if (output_mask[1] && weight && weight->defined()) gw = (grad_out * xhat).sum(outer);
  if (output_mask[2] && bias && bias->defined()) gb = grad_out.sum(outer);
  return {gi, gw, gb};
}

}  // namespace

Tensor layer_norm(const Tensor& input, IntArrayRef normalized_shape,
                  const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
                  double eps, bool cudnn_enable) {
  return dispatch::call<layer_norm_impl>(OpId::layer_norm, input, normalized_shape, weight, bias,
                                         eps, cudnn_enable);
}

std::tuple<Tensor, Tensor, Tensor> native_layer_norm(const Tensor& input,
                                                     IntArrayRef normalized_shape,
                                                     const std::optional<Tensor>& weight,
                                                     const std::optional<Tensor>& bias, double eps) {
  return dispatch::call<native_layer_norm_impl>(OpId::native_layer_norm, input, normalized_shape,
                                                weight, bias, eps);
}

namespace {
std::tuple<Tensor, Tensor, Tensor> native_layer_norm_backward_op(
    const Tensor& grad_out, const Tensor& input, IntArrayRef normalized_shape, const Tensor& mean,
    const Tensor& rstd, const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
    IntArrayRef output_mask) {
  return dispatch::call<native_layer_norm_backward_impl>(OpId::native_layer_norm_backward,
                                                         grad_out, input, normalized_shape, mean,
                                                         rstd, weight, bias, output_mask);
}
}  // namespace

std::tuple<Tensor, Tensor, Tensor> native_layer_norm_backward(
    const Tensor& grad_out, const Tensor& input, IntArrayRef normalized_shape, const Tensor& mean,
    const Tensor& rstd, const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
    std::array<bool, 3> output_mask) {
  const std::vector<int64_t> mask{output_mask[0], output_mask[1], output_mask[2]};
  return native_layer_norm_backward_op(grad_out, input, normalized_shape, mean, rstd, weight, bias,
                                       mask);
}

EMBER_REGISTER_OP(layer_norm, &layer_norm);
EMBER_REGISTER_OP(native_layer_norm, &native_layer_norm);
EMBER_REGISTER_OP(native_layer_norm_backward, &native_layer_norm_backward_op);

namespace nn::functional {

Tensor layer_norm(const Tensor& input, IntArrayRef normalized_shape,
                  const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
                  double eps) {
  return ember::layer_norm(input, normalized_shape, weight, bias, eps, true);
}

}  // namespace nn::functional

}  // namespace ember
