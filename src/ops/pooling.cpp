// 2-d pooling: max_pool2d_with_indices, avg_pool2d, _adaptive_avg_pool2d, adaptive_max_pool2d
// (Primitives, each with its dedicated backward op as in PyTorch) and the composites max_pool2d
// and adaptive_avg_pool2d. Inputs are [N, C, H, W] or unbatched [C, H, W] in any strided layout;
// outputs follow the input's layout (channels_last stays channels_last). Kernels:
// src/backends/cpu/pooling_kernels.cpp.
#include "../autograd/record.h"
#include "../backends/cpu/layout.h"
#include "../backends/cpu/pooling_kernels.h"
#include "../dispatch/boxing.h"
#include "ember/ops/index_ops.h"
#include "ember/ops/pooling.h"
#include "ember/quantized/elementwise.h"
#include "ember/ops/reduce.h"
#include "elementwise.h"
#include "pool_autograd.h"
#include "reduce_common.h"

namespace ember {

using dispatch::OpId;

namespace {

// A 1-or-2-element list as (h, w); `fallback` when empty (stride = kernel_size).
std::pair<int64_t, int64_t> pair_of(IntArrayRef v, const char* what, const char* op,
                                    std::optional<std::pair<int64_t, int64_t>> fallback = {}) {
  if (v.empty() && fallback) return *fallback;
  EMBER_CHECK(v.size() == 1 || v.size() == 2, op, ": ", what);
  return {v[0], v.size() == 2 ? v[1] : v[0]};
}

// PyTorch's pooling_output_shape.
int64_t pooled_size(int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dil, bool ceil) {
  const int64_t num = in + 2 * pad - dil * (k - 1) - 1 + (ceil ? stride - 1 : 0);
  int64_t out = (num >= 0 ? num / stride : -((-num + stride - 1) / stride)) + 1;
  if (ceil && (out - 1) * stride >= in + pad) --out;
  return out;
}

struct PoolGeometry {
  cpu::Pool2dParams p;
  int64_t oh, ow;
};

// PyTorch's argument parsing and pool2d_shape_check for max / avg pooling.
PoolGeometry pool_geometry(const char* op, const Tensor& input, IntArrayRef kernel_size,
                           IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                           bool ceil_mode) {
  const bool is_max = std::string(op) == "max_pool2d";
  auto [kh, kw] = pair_of(kernel_size, "kernel_size must either be a single int, or a tuple of two ints", op);
  auto [sh, sw] = pair_of(stride, "stride must either be omitted, a single int, or a tuple of two ints", op,
                          std::pair{kh, kw});
  auto [ph, pw] = pair_of(padding, is_max ? "padding must be either be a single int, or a tuple of two ints"
                                          : "padding must either be a single int, or a tuple of two ints", op);
  auto [dh, dw] = pair_of(dilation, "dilation must be either a single int, or a tuple of two ints", op);
  EMBER_CHECK(sh != 0 && sw != 0, "stride should not be zero");
  EMBER_CHECK(kh > 0 && kw > 0, "kernel size should be greater than zero, but got kH: ", kh, " kW: ", kw);
  EMBER_CHECK(sh > 0 && sw > 0, "stride should be greater than zero, but got dH: ", sh, " dW: ", sw);
  EMBER_CHECK(dh > 0 && dw > 0, "dilation should be greater than zero, but got dilationH: ", dh,
              " dilationW: ", dw);
  EMBER_CHECK(ph <= kh / 2 && pw <= kw / 2, "pad should be at most half of kernel size, but got pad=",
              ph > kh / 2 ? ph : pw, " and kernel_size=", ph > kh / 2 ? kh : kw);
  if (is_max) {
    EMBER_CHECK(input.dim() == 3 || input.dim() == 4,
                "non-empty 3D or 4D (batch mode) tensor expected for input");
  } else {
    wrap_dim(-3, input.dim());
    EMBER_CHECK(input.dim() == 3 || input.dim() == 4,
                "non-empty 3D or 4D (batch mode) tensor expected for input");
  }
  const int64_t nd = input.dim();
  bool valid = true;
  for (int64_t d = nd - 3; d < nd; ++d) valid = valid && input.size(d) != 0;
  EMBER_CHECK(valid, "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:",
              input.sizes());
  const int64_t C = input.size(-3), H = input.size(-2), W = input.size(-1);
  const int64_t oh = pooled_size(H, kh, ph, sh, dh, ceil_mode);
  const int64_t ow = pooled_size(W, kw, pw, sw, dw, ceil_mode);
  EMBER_CHECK(oh >= 1 && ow >= 1, "Given input size: (", C, "x", H, "x", W,
              "). Calculated output size: (", C, "x", oh, "x", ow, "). Output size is too small");
  return {{kh, kw, sh, sw, ph, pw, dh, dw}, oh, ow};
}

// The input as 4-d (an unbatched [C, H, W] gains N = 1), and the output sizes in its rank.
Tensor as4d(const Tensor& t) { return t.dim() == 3 ? t.unsqueeze(0) : t; }
std::vector<int64_t> out_sizes(const Tensor& input, int64_t oh, int64_t ow) {
  std::vector<int64_t> s = input.sizes().vec();
  s[s.size() - 2] = oh;
  s[s.size() - 1] = ow;
  return s;
}

void check_floating(const char* op, const Tensor& t) {
  EMBER_CHECK(is_floating(t.dtype()), "\"", op, "\" not implemented for '",
              scalar_type_name(t.dtype()), "'");
}

std::tuple<Tensor, Tensor> max_pool2d_with_indices_impl(const Tensor& input, IntArrayRef kernel_size,
                                                        IntArrayRef stride, IntArrayRef padding,
                                                        IntArrayRef dilation, bool ceil_mode) {
  ops::check_not_quantized("aten::max_pool2d_with_indices", {input});
  const PoolGeometry g = pool_geometry("max_pool2d", input, kernel_size, stride, padding, dilation, ceil_mode);
  check_floating("max_pool2d", input);
  const auto sizes = out_sizes(input, g.oh, g.ow);
  Tensor out = cpu::empty_like_layout(sizes, input, input.dtype());
  Tensor idx = cpu::empty_like_layout(sizes, input, kInt64);
  if (!out.is_meta()) cpu::max_pool2d_kernel(as4d(out), as4d(idx), as4d(input), g.p);
  return {out, idx};
}

Tensor max_pool2d_with_indices_backward_impl(const Tensor& grad_output, const Tensor& input,
                                             IntArrayRef kernel_size, IntArrayRef stride,
                                             IntArrayRef padding, IntArrayRef dilation,
                                             bool ceil_mode, const Tensor& indices) {
  const PoolGeometry g = pool_geometry("max_pool2d", input, kernel_size, stride, padding, dilation, ceil_mode);
  const auto sizes = out_sizes(input, g.oh, g.ow);
  EMBER_CHECK(grad_output.sizes() == IntArrayRef(sizes) && indices.sizes() == IntArrayRef(sizes),
              "max_pool2d_with_indices_backward: expected grad_output and indices of size ",
              size_str(sizes), ", but got ", size_str(grad_output.sizes()), " and ",
              size_str(indices.sizes()));
  Tensor gi = cpu::empty_like_layout(input.sizes(), input, grad_output.dtype());
  if (!gi.is_meta()) cpu::max_pool2d_backward_kernel(as4d(gi), as4d(grad_output), as4d(indices));
  return gi;
}

Tensor max_pool2d_impl(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride,
                       IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  // As PyTorch: a quantized input runs aten::quantized_max_pool2d (src/quant/qpool.cpp).
  if (input.is_quantized()) {
    return quantized_max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode);
  }
  return std::get<0>(max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode));
}

Tensor avg_pool2d_impl(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride,
                       IntArrayRef padding, bool ceil_mode, bool count_include_pad,
                       std::optional<int64_t> divisor_override) {
  ops::check_not_quantized("aten::avg_pool2d", {input});
  EMBER_CHECK(!divisor_override || *divisor_override != 0, "divisor must be not zero");
  const PoolGeometry g = pool_geometry("avg_pool2d", input, kernel_size, stride, padding, {1}, ceil_mode);
  check_floating("avg_pool2d", input);
  Tensor out = cpu::empty_like_layout(out_sizes(input, g.oh, g.ow), input, input.dtype());
  if (!out.is_meta()) cpu::avg_pool2d_kernel(as4d(out), as4d(input), g.p, count_include_pad, divisor_override);
  return out;
}

Tensor avg_pool2d_backward_impl(const Tensor& grad_output, const Tensor& input, IntArrayRef kernel_size,
                                IntArrayRef stride, IntArrayRef padding, bool ceil_mode,
                                bool count_include_pad, std::optional<int64_t> divisor_override) {
  EMBER_CHECK(!divisor_override || *divisor_override != 0, "divisor must be not zero");
  const PoolGeometry g = pool_geometry("avg_pool2d", input, kernel_size, stride, padding, {1}, ceil_mode);
  const auto sizes = out_sizes(input, g.oh, g.ow);
  EMBER_CHECK(grad_output.sizes() == IntArrayRef(sizes), "avg_pool2d_backward: expected grad_output of size ",
              size_str(sizes), ", but got ", size_str(grad_output.sizes()));
  Tensor gi = cpu::empty_like_layout(input.sizes(), input, grad_output.dtype());
  if (!gi.is_meta())
    cpu::avg_pool2d_backward_kernel(as4d(gi), as4d(grad_output), g.p, count_include_pad, divisor_override);
  return gi;
}

void check_adaptive_input(const char* op, const Tensor& input) {
  EMBER_CHECK(input.dim() == 3 || input.dim() == 4, op, "(): Expected 3D or 4D tensor, but got: ",
              input.sizes());
  for (int64_t d = 1; d < input.dim(); ++d) {
    EMBER_CHECK(input.size(d) > 0, op, "(): Expected input to have non-zero size for non-batch ",
                "dimensions, but input has sizes ", input.sizes(), " with dimension ", d, " being empty");
  }
}

Tensor _adaptive_avg_pool2d_impl(const Tensor& input, IntArrayRef output_size) {
  ops::check_not_quantized("aten::_adaptive_avg_pool2d", {input});
  EMBER_CHECK(output_size.size() == 2, "adaptive_avg_pool2d: output_size must be 2");
  EMBER_CHECK(output_size[0] >= 0 && output_size[1] >= 0,
              "adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 ",
              "but received {", output_size[0], ", ", output_size[1], "}");
  check_adaptive_input("adaptive_avg_pool2d", input);
  check_floating("adaptive_avg_pool2d", input);
  Tensor out = cpu::empty_like_layout(out_sizes(input, output_size[0], output_size[1]), input, input.dtype());
  if (!out.is_meta() && out.numel() != 0) cpu::adaptive_avg_pool2d_kernel(as4d(out), as4d(input));
  return out;
}

Tensor _adaptive_avg_pool2d_backward_impl(const Tensor& grad_output, const Tensor& input) {
  check_adaptive_input("adaptive_avg_pool2d_backward", input);
  EMBER_CHECK(grad_output.dim() == input.dim() &&
                  grad_output.sizes().slice(0, static_cast<size_t>(input.dim() - 2)) ==
                      input.sizes().slice(0, static_cast<size_t>(input.dim() - 2)),
              "adaptive_avg_pool2d_backward: grad_output of size ", size_str(grad_output.sizes()),
              " does not match input of size ", size_str(input.sizes()));
  Tensor gi = cpu::empty_like_layout(input.sizes(), input, grad_output.dtype());
  if (!gi.is_meta()) cpu::adaptive_avg_pool2d_backward_kernel(as4d(gi), as4d(grad_output));
  return gi;
}

// PyTorch 1.13: a 1x1 output is the mean over H and W (so its grad_fn is MeanBackward1).
Tensor adaptive_avg_pool2d_impl(const Tensor& input, IntArrayRef output_size) {
  EMBER_CHECK(output_size.size() == 2, "adaptive_avg_pool2d: output_size must be 2");
  EMBER_CHECK(output_size[0] >= 0 && output_size[1] >= 0,
              "adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 ",
              "but received {", output_size[0], ", ", output_size[1], "}");
  if (output_size[0] == 1 && output_size[1] == 1 && !is_quantized(input.dtype())) {
    return input.mean({-1, -2}, true);
  }
  return _adaptive_avg_pool2d(input, output_size);
}

std::tuple<Tensor, Tensor> adaptive_max_pool2d_impl(const Tensor& input, IntArrayRef output_size) {
  ops::check_not_quantized("aten::adaptive_max_pool2d", {input});
  check_adaptive_input("adaptive_max_pool2d", input);
  EMBER_CHECK(output_size.size() == 2, "adaptive_max_pool2d(): internal error: output_size.size() must be 2");
  const auto sizes = out_sizes(input, output_size[0], output_size[1]);
  EMBER_CHECK(output_size[0] >= 0 && output_size[1] >= 0,
              "Trying to create tensor with negative dimension ",
              output_size[0] < 0 ? output_size[0] : output_size[1], ": ", IntArrayRef(sizes));
  check_floating("adaptive_max_pool2d", input);
  Tensor out = cpu::empty_like_layout(sizes, input, input.dtype());
  Tensor idx = cpu::empty_like_layout(sizes, input, kInt64);
  if (!out.is_meta() && out.numel() != 0) cpu::adaptive_max_pool2d_kernel(as4d(out), as4d(idx), as4d(input));
  return {out, idx};
}

Tensor adaptive_max_pool2d_backward_impl(const Tensor& grad_output, const Tensor& input,
                                         const Tensor& indices) {
  check_adaptive_input("adaptive_max_pool2d_backward", input);
  EMBER_CHECK(grad_output.sizes() == indices.sizes(), "adaptive_max_pool2d_backward: expected ",
              "grad_output and indices of the same size, but got ", size_str(grad_output.sizes()),
              " and ", size_str(indices.sizes()));
  Tensor gi = cpu::empty_like_layout(input.sizes(), input, grad_output.dtype());
  if (!gi.is_meta()) cpu::max_pool2d_backward_kernel(as4d(gi), as4d(grad_output), as4d(indices));
  return gi;
}


}  // namespace

// ---- autograd ----
namespace {
using autograd::OpNode;
using autograd::tensor_list;

// Note [Pool autograd kernels] (pool_autograd.h).
std::tuple<Tensor, Tensor> max_pool2d_with_indices_autograd(const Tensor& self, const IntArrayRef& k,
                                                            const IntArrayRef& s, const IntArrayRef& p,
                                                            const IntArrayRef& d, const bool& ceil) {
  return ops::pool::max_with_indices<max_pool2d_with_indices_impl>(
      "MaxPool2DWithIndicesBackward0", OpId::max_pool2d_with_indices,
      [](auto&&... a) { return max_pool2d_with_indices_backward(a...); }, self, k, s, p, d, ceil);
}

Tensor max_pool2d_with_indices_backward_autograd(const Tensor& grad_output, const Tensor& self,
                                                 const IntArrayRef& k, const IntArrayRef& s,
                                                 const IntArrayRef& p, const IntArrayRef& d,
                                                 const bool& ceil, const Tensor& indices) {
  return ops::pool::max_with_indices_backward<max_pool2d_with_indices_backward_impl, 2>(
      "MaxPool2DWithIndicesBackwardBackward0", OpId::max_pool2d_with_indices_backward, grad_output,
      self, k, s, p, d, ceil, indices);
}

Tensor avg_pool2d_autograd(const Tensor& self, const IntArrayRef& k, const IntArrayRef& s,
                           const IntArrayRef& p, const bool& ceil, const bool& cip,
                           const std::optional<int64_t>& div) {
  return ops::pool::avg<avg_pool2d_impl>(
      "AvgPool2DBackward0", OpId::avg_pool2d,
      [](auto&&... a) { return avg_pool2d_backward(a...); }, self, k, s, p, ceil, cip, div);
}

Tensor avg_pool2d_backward_autograd(const Tensor& grad_output, const Tensor& self, const IntArrayRef& k,
                                    const IntArrayRef& s, const IntArrayRef& p, const bool& ceil,
                                    const bool& cip, const std::optional<int64_t>& div) {
  return ops::pool::avg_backward<avg_pool2d_backward_impl>(
      "AvgPool2DBackwardBackward0", OpId::avg_pool2d_backward,
      [](auto&&... a) { return avg_pool2d(a...); }, grad_output, self, k, s, p, ceil, cip, div);
}

Tensor adaptive_avg_pool2d_autograd(const Tensor& self, const IntArrayRef& output_size) {
  return ops::pool::adaptive_avg<_adaptive_avg_pool2d_impl>(
      "AdaptiveAvgPool2DBackward0", OpId::_adaptive_avg_pool2d,
      [](auto&&... a) { return _adaptive_avg_pool2d_backward(a...); }, self, output_size);
}

Tensor adaptive_avg_pool2d_backward_autograd(const Tensor& grad_output, const Tensor& self) {
  return ops::pool::adaptive_avg_backward<_adaptive_avg_pool2d_backward_impl, 2>(
      "AdaptiveAvgPool2DBackwardBackward0", OpId::_adaptive_avg_pool2d_backward,
      [](auto&&... a) { return _adaptive_avg_pool2d(a...); }, grad_output, self);
}

std::tuple<Tensor, Tensor> adaptive_max_pool2d_autograd(const Tensor& self, const IntArrayRef& output_size) {
  autograd::Recorder r("AdaptiveMaxPool2DBackward0", self);
  auto outs = r.forward([&] {
    return dispatch::call<adaptive_max_pool2d_impl>(OpId::adaptive_max_pool2d, self, output_size);
  });
  if (!r) return outs;
  const size_t self_ = r.save(self, "self"), idx_ = self_ + 1;
  outs = r.finish(outs, [=](OpNode& n, const tensor_list& g) {
    return tensor_list{adaptive_max_pool2d_backward(g[0], n.saved(self_), n.saved(idx_))};
  });
  ops::save_output_at(r, std::get<1>(outs), idx_, "result1");
  return outs;
}

Tensor adaptive_max_pool2d_backward_autograd(const Tensor& grad_output, const Tensor& self,
                                             const Tensor& indices) {
  autograd::Recorder r("AdaptiveMaxPool2DBackwardBackward0", grad_output, self);
  Tensor out = r.forward([&] {
    return dispatch::call<adaptive_max_pool2d_backward_impl>(OpId::adaptive_max_pool2d_backward,
                                                             grad_output, self, indices);
  });
  if (!r) return out;
  const size_t idx_ = r.save(indices, "indices");
  return r.finish(out, [=](OpNode& n, const tensor_list& g) {
    return tensor_list{n.needs(0) ? ops::pool::gather_by_indices<2>(g[0], n.saved(idx_)) : Tensor(), Tensor()};
  });
}
}  // namespace

EMBER_REGISTER_AUTOGRAD(max_pool2d_with_indices, &max_pool2d_with_indices_autograd);
EMBER_REGISTER_AUTOGRAD(max_pool2d_with_indices_backward, &max_pool2d_with_indices_backward_autograd);
EMBER_REGISTER_AUTOGRAD(avg_pool2d, &avg_pool2d_autograd);
EMBER_REGISTER_AUTOGRAD(avg_pool2d_backward, &avg_pool2d_backward_autograd);
EMBER_REGISTER_AUTOGRAD(_adaptive_avg_pool2d, &adaptive_avg_pool2d_autograd);
EMBER_REGISTER_AUTOGRAD(_adaptive_avg_pool2d_backward, &adaptive_avg_pool2d_backward_autograd);
EMBER_REGISTER_AUTOGRAD(adaptive_max_pool2d, &adaptive_max_pool2d_autograd);
EMBER_REGISTER_AUTOGRAD(adaptive_max_pool2d_backward, &adaptive_max_pool2d_backward_autograd);

std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input, IntArrayRef kernel_size,
                                                   IntArrayRef stride, IntArrayRef padding,
                                                   IntArrayRef dilation, bool ceil_mode) {
  return dispatch::call<max_pool2d_with_indices_impl>(OpId::max_pool2d_with_indices, input, kernel_size,
                                                      stride, padding, dilation, ceil_mode);
}
Tensor max_pool2d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                  IntArrayRef dilation, bool ceil_mode) {
  return dispatch::call<max_pool2d_impl>(OpId::max_pool2d, input, kernel_size, stride, padding, dilation,
                                         ceil_mode);
}
Tensor max_pool2d_with_indices_backward(const Tensor& grad_output, const Tensor& input,
                                        IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                                        IntArrayRef dilation, bool ceil_mode, const Tensor& indices) {
  return dispatch::call<max_pool2d_with_indices_backward_impl>(OpId::max_pool2d_with_indices_backward,
                                                               grad_output, input, kernel_size, stride,
                                                               padding, dilation, ceil_mode, indices);
}
Tensor avg_pool2d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                  bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor_override) {
  return dispatch::call<avg_pool2d_impl>(OpId::avg_pool2d, input, kernel_size, stride, padding, ceil_mode,
                                         count_include_pad, divisor_override);
}
Tensor avg_pool2d_backward(const Tensor& grad_output, const Tensor& input, IntArrayRef kernel_size,
                           IntArrayRef stride, IntArrayRef padding, bool ceil_mode,
                           bool count_include_pad, std::optional<int64_t> divisor_override) {
  return dispatch::call<avg_pool2d_backward_impl>(OpId::avg_pool2d_backward, grad_output, input,
                                                  kernel_size, stride, padding, ceil_mode,
                                                  count_include_pad, divisor_override);
}
Tensor adaptive_avg_pool2d(const Tensor& input, IntArrayRef output_size) {
  return dispatch::call<adaptive_avg_pool2d_impl>(OpId::adaptive_avg_pool2d, input, output_size);
}
Tensor _adaptive_avg_pool2d(const Tensor& input, IntArrayRef output_size) {
  return dispatch::call<_adaptive_avg_pool2d_impl>(OpId::_adaptive_avg_pool2d, input, output_size);
}
Tensor _adaptive_avg_pool2d_backward(const Tensor& grad_output, const Tensor& input) {
  return dispatch::call<_adaptive_avg_pool2d_backward_impl>(OpId::_adaptive_avg_pool2d_backward,
                                                           grad_output, input);
}
std::tuple<Tensor, Tensor> adaptive_max_pool2d(const Tensor& input, IntArrayRef output_size) {
  return dispatch::call<adaptive_max_pool2d_impl>(OpId::adaptive_max_pool2d, input, output_size);
}
Tensor adaptive_max_pool2d_backward(const Tensor& grad_output, const Tensor& input, const Tensor& indices) {
  return dispatch::call<adaptive_max_pool2d_backward_impl>(OpId::adaptive_max_pool2d_backward,
                                                           grad_output, input, indices);
}

EMBER_REGISTER_OP(max_pool2d_with_indices, &max_pool2d_with_indices);
EMBER_REGISTER_OP(max_pool2d, &max_pool2d);
EMBER_REGISTER_OP(max_pool2d_with_indices_backward, &max_pool2d_with_indices_backward);
EMBER_REGISTER_OP(avg_pool2d, &avg_pool2d);
EMBER_REGISTER_OP(avg_pool2d_backward, &avg_pool2d_backward);
EMBER_REGISTER_OP(adaptive_avg_pool2d, &adaptive_avg_pool2d);
EMBER_REGISTER_OP(_adaptive_avg_pool2d, &_adaptive_avg_pool2d);
EMBER_REGISTER_OP(_adaptive_avg_pool2d_backward, &_adaptive_avg_pool2d_backward);
EMBER_REGISTER_OP(adaptive_max_pool2d, &adaptive_max_pool2d);
EMBER_REGISTER_OP(adaptive_max_pool2d_backward, &adaptive_max_pool2d_backward);

}  // namespace ember
