// aten::layer_norm (Composite: native_layer_norm's output), aten::native_layer_norm and
// native_layer_norm_backward (Primitive rows of ops.def, fused kernels in
// src/backends/cpu/layer_norm_kernels.cpp) and layer_norm's nn::functional form.
//
// Note [Layer norm backward]: as batch norm (Note [Batch norm backward]), native_layer_norm's
// rule calls the op native_layer_norm_backward, so subclasses and modes see both as in PyTorch.
// The backward's own autograd kernel (create_graph, or a direct call on tensors that need grad)
// writes the same gradients with Tensor ops whose statistics are differentiable functions of the
// input: the mean recomputed, rstd as (var(x) + c).rsqrt() with c = rstd^-2 - var(x) detached
// (the op has no eps argument; c is the forward's eps up to rounding), so double backward is
// exact. 16-bit inputs are normalised in float32 with float32 statistics and rounded once
// (PyTorch 1.13 has no float16 kernel on CPU; ember has).
#include "../../autograd/record.h"
#include "../../backends/cpu/layer_norm_kernels.h"
#include "../../dispatch/boxing.h"
#include "../../ops/reduce_common.h"
#include "ember/ops/factory.h"
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

int64_t rows_of(const Tensor& input, size_t k) {
  int64_t rows = 1;
  for (int64_t d = 0; d < input.dim() - static_cast<int64_t>(k); ++d) rows *= input.size(d);
  return rows;
}

// The statistics' shape: the input's outer dims, then 1 for each normalised dim (PyTorch's).
std::vector<int64_t> stat_shape(const Tensor& input, size_t k) {
  std::vector<int64_t> shape(input.sizes().begin(), input.sizes().end());
  for (size_t i = shape.size() - k; i < shape.size(); ++i) shape[i] = 1;
  return shape;
}

ScalarType stat_dtype(ScalarType t) { return t == kFloat16 || t == kBFloat16 ? kFloat32 : t; }

Tensor contiguous_or_meta(const Tensor& t) {
  return !t.defined() || t.is_meta() ? t : t.contiguous();
}

// PyTorch's native_layer_norm: (out, mean, rstd), the statistics kept with the normalised dims
// as size 1; one fused pass per row (Note at the top).
std::tuple<Tensor, Tensor, Tensor> native_layer_norm_impl(const Tensor& input,
                                                          IntArrayRef normalized_shape,
                                                          const std::optional<Tensor>& weight_opt,
                                                          const std::optional<Tensor>& bias_opt,
                                                          double eps) {
  const Tensor weight = weight_opt.value_or(Tensor()), bias = bias_opt.value_or(Tensor());
  check_layer_norm_inputs(input, normalized_shape, weight, bias);
  const size_t k = normalized_shape.size();
  const int64_t rows = rows_of(input, k);
  const int64_t cols = rows == 0 ? 0 : input.numel() / rows;
  const TensorOptions opts = TensorOptions(input.dtype()).device(input.device());
  const TensorOptions sopts = TensorOptions(stat_dtype(input.dtype())).device(input.device());
  Tensor out = empty(input.sizes(), opts);
  Tensor mean = empty(stat_shape(input, k), sopts), rstd = empty(stat_shape(input, k), sopts);
  if (out.is_meta() || input.is_meta()) return {out, mean, rstd};
  cpu::layer_norm_kernel(out, mean, rstd, input.contiguous(), contiguous_or_meta(weight),
                         contiguous_or_meta(bias), rows, cols, eps);
  return {out, mean, rstd};
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
  const Tensor w = weight.value_or(Tensor()), b = bias.value_or(Tensor());
  check_layer_norm_inputs(input, normalized_shape, w, b);
  EMBER_CHECK(grad_out.sizes() == input.sizes(), "native_layer_norm_backward: grad_out of size ",
              grad_out.sizes(), " does not match the input's size ", input.sizes());
  const size_t k = normalized_shape.size();
  const int64_t rows = rows_of(input, k);
  const int64_t cols = rows == 0 ? 0 : input.numel() / rows;
  EMBER_CHECK(mean.numel() == rows && rstd.numel() == rows, "native_layer_norm_backward: expected ",
              rows, " saved statistics, got mean of ", mean.numel(), " and rstd of ",
              rstd.numel());
  const TensorOptions opts = TensorOptions(input.dtype()).device(input.device());
  Tensor gi, gw, gb;
  if (output_mask[0]) gi = empty(input.sizes(), opts);
  if (output_mask[1] && w.defined()) gw = empty(w.sizes(), opts);
  if (output_mask[2] && b.defined()) gb = empty(b.sizes(), opts);
  if (input.is_meta() || grad_out.is_meta() || mean.is_meta() || rstd.is_meta()) return {gi, gw, gb};
  const ScalarType sd = stat_dtype(input.dtype());
  cpu::layer_norm_backward_kernel(gi, gw, gb, grad_out.to(input.dtype()).contiguous(),
                                  input.contiguous(), mean.to(sd).contiguous(),
                                  rstd.to(sd).contiguous(), contiguous_or_meta(w), rows, cols);
  return {gi, gw, gb};
}

// ---- autograd (Note [Layer norm backward]) ----
using autograd::OpNode;
using autograd::tensor_list;

std::tuple<Tensor, Tensor, Tensor> native_layer_norm_backward_autograd(
    const Tensor& grad_out, const Tensor& input, const IntArrayRef& normalized_shape,
    const Tensor& mean, const Tensor& rstd, const std::optional<Tensor>& weight,
    const std::optional<Tensor>& bias, const IntArrayRef& output_mask) {
  EMBER_CHECK(output_mask.size() == 3, "native_layer_norm_backward: output_mask must have 3 entries");
  const Tensor w = weight.value_or(Tensor()), b = bias.value_or(Tensor());
  check_layer_norm_inputs(input, normalized_shape, w, b);
  const bool reduced = input.dtype() == kFloat16 || input.dtype() == kBFloat16;
  const auto up = [&](const Tensor& t) { return reduced && t.defined() ? t.to(kFloat32) : t; };
  const auto down = [&](const Tensor& t) { return reduced && t.defined() ? t.to(input.dtype()) : t; };
  const std::vector<int64_t> dims = normalized_dims(input, normalized_shape);
  std::vector<int64_t> outer;
  for (int64_t d = 0; d < input.dim() - static_cast<int64_t>(normalized_shape.size()); ++d) outer.push_back(d);
  const Tensor x = up(input), g = up(grad_out);
  const Tensor var = x.var(dims, /*correction=*/0, /*keepdim=*/true);
  const Tensor c = (up(rstd).reshape(var.sizes()).pow(-2) - var).detach();
  const Tensor r = (var + c).rsqrt();
  const Tensor xhat = (x - x.mean(dims, true)) * r;
  (void)mean;
  Tensor gi, gw, gb;
  if (output_mask[0]) {
    const Tensor gx = w.defined() ? g * up(w) : g;
    gi = down(r * (gx - gx.mean(dims, true) - xhat * (gx * xhat).mean(dims, true)));
  }
  if (output_mask[1] && w.defined()) gw = down((g * xhat).sum(outer));
  if (output_mask[2] && b.defined()) gb = down(g.sum(outer));
  return {gi, gw, gb};
}

std::tuple<Tensor, Tensor, Tensor> native_layer_norm_autograd(const Tensor& input,
                                                              const IntArrayRef& normalized_shape,
                                                              const std::optional<Tensor>& weight,
                                                              const std::optional<Tensor>& bias,
                                                              const double& eps) {
  autograd::Recorder r("NativeLayerNormBackward0", input, weight, bias);
  auto outs = r.forward([&] {
    return dispatch::call<native_layer_norm_impl>(OpId::native_layer_norm, input,
                                                  normalized_shape, weight, bias, eps);
  });
  if (!r) return outs;
  const bool has_w = weight.has_value() && weight->defined();
  const bool has_b = bias.has_value() && bias->defined();
  const size_t x_ = r.save(input, "input");
  const size_t w_ = r.save_if(has_w, weight, "weight");
  const size_t b_ = r.save_if(has_b, bias, "bias");
  r.values("normalized_shape", normalized_shape);
  const size_t mean_ = b_ + 1, rstd_ = b_ + 2;
  auto list = r.finish(std::vector<Tensor>{std::get<0>(outs), std::get<1>(outs), std::get<2>(outs)},
                       [=](OpNode& n, const tensor_list& g) -> tensor_list {
    if (!g[0].defined()) return {Tensor(), Tensor(), Tensor()};
    auto some = [](const Tensor& t) { return t.defined() ? std::optional<Tensor>(t) : std::nullopt; };
    const Tensor w = has_w ? n.saved(w_) : Tensor();
    const Tensor b = has_b ? n.saved(b_) : Tensor();
    auto [gi, gw, gb] = native_layer_norm_backward(
        g[0], n.saved(x_), n.value(0).to_int_list(), n.saved(mean_), n.saved(rstd_), some(w), some(b),
        {n.needs(0), has_w && n.needs(1), has_b && n.needs(2)});
    return {gi, gw, gb};
  }, {true, false, false});  // the saved statistics are not differentiable outputs
  ops::save_output_at(r, list[1], mean_, "result1");
  ops::save_output_at(r, list[2], rstd_, "result2");
  return {list[0], list[1], list[2]};
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
EMBER_REGISTER_AUTOGRAD(native_layer_norm, &native_layer_norm_autograd);
EMBER_REGISTER_AUTOGRAD(native_layer_norm_backward, &native_layer_norm_backward_autograd);

namespace nn::functional {

Tensor layer_norm(const Tensor& input, IntArrayRef normalized_shape,
                  const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
                  double eps) {
  return ember::layer_norm(input, normalized_shape, weight, bias, eps, true);
}

}  // namespace nn::functional

}  // namespace ember
