// 1-d pooling (Composites over the 2-d ops on a [N, C, 1, L] view, as PyTorch's avg_pool1d and
// max_pool1d_with_indices are) and 3-d pooling: max_pool3d_with_indices, avg_pool3d,
// _adaptive_avg_pool3d, adaptive_max_pool3d (Primitives with their backward ops) and the
// composites max_pool3d, adaptive_avg_pool3d. Inputs are [N, C, D, H, W] or unbatched
// [C, D, H, W]; kernels (src/backends/cpu/pool3d_kernels.cpp) run on contiguous copies.
#include <array>

#include "../autograd/record.h"
#include "../backends/cpu/pool3d_kernels.h"
#include "../dispatch/boxing.h"
#include "elementwise.h"
#include "ember/ops/nn_ops.h"
#include "ember/ops/pooling.h"
#include "ember/ops/reduce.h"
#include "pool_autograd.h"
#include "reduce_common.h"

namespace ember {

using dispatch::OpId;

namespace {

void check_floating(const char* op, const Tensor& t) {
  EMBER_CHECK(is_floating(t.dtype()), "\"", op, "\" not implemented for '",
              scalar_type_name(t.dtype()), "'");
}

// A 1-or-3-element list as three values; `fallback` when empty (stride = kernel_size).
std::array<int64_t, 3> triple(IntArrayRef v, const std::string& msg,
                              std::optional<std::array<int64_t, 3>> fallback = {}) {
  if (v.empty() && fallback) return *fallback;
  EMBER_CHECK(v.size() == 1 || v.size() == 3, msg);
  return v.size() == 1 ? std::array<int64_t, 3>{v[0], v[0], v[0]}
                       : std::array<int64_t, 3>{v[0], v[1], v[2]};
}

int64_t pooled_size(int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dil, bool ceil) {
  const int64_t num = in + 2 * pad - dil * (k - 1) - 1 + (ceil ? stride - 1 : 0);
  int64_t out = (num >= 0 ? num / stride : -((-num + stride - 1) / stride)) + 1;
  if (ceil && (out - 1) * stride >= in + pad) --out;
  return out;
}

struct Geometry3d {
  cpu::Pool3dParams p;
  int64_t o[3];
};

// PyTorch's argument parsing and pool3d_shape_check (max and avg differ in a few texts).
Geometry3d pool3d_geometry(const char* op, const Tensor& input, IntArrayRef kernel_size,
                           IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                           bool ceil_mode) {
  const std::string name(op);
  const bool is_max = name == "max_pool3d";
  const auto k = triple(kernel_size, name + ": kernel_size must be a single int, or a tuple of three ints");
  const auto s = triple(stride, name + ": stride must be omitted, a single int, or a tuple of three ints", k);
  const auto p = triple(padding, name + ": padding must be a single int, or a tuple of three ints");
  const auto d = triple(dilation, name + ": dilation must be either a single int, or a tuple of three ints");
  EMBER_CHECK(input.dim() == 4 || input.dim() == 5,
              "non-empty 4D or 5D (batch mode) tensor expected for input");
  for (int i = 0; i < 3; ++i) EMBER_CHECK(s[i] != 0, "stride should not be zero");
  EMBER_CHECK(k[0] > 0 && k[1] > 0 && k[2] > 0, "kernel size should be greater than zero, but got ",
              "kT: ", k[0], " kH: ", k[1], " kW: ", k[2]);
  EMBER_CHECK(s[0] > 0 && s[1] > 0 && s[2] > 0, "stride should be greater than zero, but got dT: ",
              s[0], " dH: ", s[1], " dW: ", s[2]);
  EMBER_CHECK(d[0] > 0 && d[1] > 0 && d[2] > 0, "dilation should be greater than zero, but got ",
              "dilationT: ", d[0], " dilationH: ", d[1], " dilationW: ", d[2]);
  for (int64_t i = 1; i < input.dim(); ++i) {
    EMBER_CHECK(input.size(i) > 0, name, ": Expected input's non-batch dimensions to have positive ",
                "length, but input has a shape of ", input.sizes(), " and non-batch dimension ",
                input.size(i), " has length zero!");
  }
  const int64_t C = input.size(-4), T = input.size(-3), H = input.size(-2), W = input.size(-1);
  if (!is_max) {
    EMBER_CHECK(T >= k[0] && H >= k[1] && W >= k[2], "input image (T: ", T, " H: ", H, " W: ", W,
                ") smaller than kernel size (kT: ", k[0], " kH: ", k[1], " kW: ", k[2], ")");
  }
  for (int i = 0; i < 3; ++i) {
    EMBER_CHECK(p[i] <= k[i] / 2, "pad should be at most half of kernel size, but got pad=", p[i],
                " and kernel_size=", k[i]);
  }
  Geometry3d g{};
  const int64_t in[3] = {T, H, W};
  for (int i = 0; i < 3; ++i) {
    g.p.k[i] = k[i];
    g.p.s[i] = s[i];
    g.p.p[i] = p[i];
    g.p.d[i] = d[i];
    g.o[i] = pooled_size(in[i], k[i], p[i], s[i], d[i], ceil_mode);
  }
  EMBER_CHECK(g.o[0] >= 1 && g.o[1] >= 1 && g.o[2] >= 1, "Given input size: (", C, "x", T, "x", H,
              "x", W, "). Calculated output size: (", C, "x", g.o[0], "x", g.o[1], "x", g.o[2],
              "). Output size is too small");
  return g;
}

std::vector<int64_t> out_sizes(const Tensor& input, const int64_t* o) {
  std::vector<int64_t> s = input.sizes().vec();
  for (size_t i = 0; i < 3; ++i) s[s.size() - 3 + i] = o[i];
  return s;
}

// A contiguous [P, D, H, W] view of a (contiguous) 4-d or 5-d tensor.
Tensor planes(const Tensor& t) {
  return t.view({-1, t.size(-3), t.size(-2), t.size(-1)});
}
Tensor new_out(IntArrayRef sizes, const Tensor& like, ScalarType dtype) {
  return empty(sizes, TensorOptions(dtype).device(like.device()));
}

std::tuple<Tensor, Tensor> max_pool3d_with_indices_impl(const Tensor& input, IntArrayRef kernel_size,
                                                        IntArrayRef stride, IntArrayRef padding,
                                                        IntArrayRef dilation, bool ceil_mode) {
  ops::check_not_quantized("aten::max_pool3d_with_indices", {input});
  const Geometry3d g = pool3d_geometry("max_pool3d", input, kernel_size, stride, padding, dilation, ceil_mode);
  check_floating("max_pool3d_with_indices_cpu", input);
  const auto sizes = out_sizes(input, g.o);
  Tensor out = new_out(sizes, input, input.dtype()), idx = new_out(sizes, input, kInt64);
  if (!out.is_meta() && out.numel() != 0)
    cpu::max_pool3d_kernel(planes(out), planes(idx), planes(input.contiguous()), g.p);
  return {out, idx};
}

Tensor max_pool3d_with_indices_backward_impl(const Tensor& grad_output, const Tensor& input,
                                             IntArrayRef kernel_size, IntArrayRef stride,
                                             IntArrayRef padding, IntArrayRef dilation,
                                             bool ceil_mode, const Tensor& indices) {
  const Geometry3d g = pool3d_geometry("max_pool3d", input, kernel_size, stride, padding, dilation, ceil_mode);
  const auto sizes = out_sizes(input, g.o);
  EMBER_CHECK(grad_output.sizes() == IntArrayRef(sizes) && indices.sizes() == IntArrayRef(sizes),
              "max_pool3d_with_indices_backward: expected grad_output and indices of size ",
              size_str(sizes), ", but got ", size_str(grad_output.sizes()), " and ",
              size_str(indices.sizes()));
  Tensor gi = new_out(input.sizes(), input, grad_output.dtype());
  if (!gi.is_meta() && gi.numel() != 0)
    cpu::max_pool3d_backward_kernel(planes(gi), planes(grad_output.contiguous()),
                                    planes(indices.contiguous()));
  return gi;
}

Tensor max_pool3d_impl(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride,
                       IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  return std::get<0>(max_pool3d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode));
}

Tensor avg_pool3d_impl(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride,
                       IntArrayRef padding, bool ceil_mode, bool count_include_pad,
                       std::optional<int64_t> divisor_override) {
  ops::check_not_quantized("aten::avg_pool3d", {input});
  EMBER_CHECK(!divisor_override || *divisor_override != 0, "divisor must be not zero");
  const Geometry3d g = pool3d_geometry("avg_pool3d", input, kernel_size, stride, padding, {1}, ceil_mode);
  check_floating("avg_pool3d_out_frame", input);
  Tensor out = new_out(out_sizes(input, g.o), input, input.dtype());
  if (!out.is_meta() && out.numel() != 0)
    cpu::avg_pool3d_kernel(planes(out), planes(input.contiguous()), g.p, count_include_pad,
                           divisor_override);
  return out;
}

Tensor avg_pool3d_backward_impl(const Tensor& grad_output, const Tensor& input, IntArrayRef kernel_size,
                                IntArrayRef stride, IntArrayRef padding, bool ceil_mode,
                                bool count_include_pad, std::optional<int64_t> divisor_override) {
  EMBER_CHECK(!divisor_override || *divisor_override != 0, "divisor must be not zero");
  const Geometry3d g = pool3d_geometry("avg_pool3d", input, kernel_size, stride, padding, {1}, ceil_mode);
  const auto sizes = out_sizes(input, g.o);
  EMBER_CHECK(grad_output.sizes() == IntArrayRef(sizes), "avg_pool3d_backward: expected grad_output of size ",
              size_str(sizes), ", but got ", size_str(grad_output.sizes()));
  Tensor gi = new_out(input.sizes(), input, grad_output.dtype());
  if (!gi.is_meta() && gi.numel() != 0)
    cpu::avg_pool3d_backward_kernel(planes(gi), planes(grad_output.contiguous()), g.p,
                                    count_include_pad, divisor_override);
  return gi;
}

void check_adaptive3d(const char* op, const Tensor& input, bool colon) {
  EMBER_CHECK(input.dim() == 4 || input.dim() == 5, op, "(): Expected 4D or 5D tensor, but got",
              colon ? ": " : " ", input.sizes());
  for (int64_t d = 1; d < input.dim(); ++d) {
    EMBER_CHECK(input.size(d) > 0, op, "(): Expected input to have non-zero size for non-batch ",
                "dimensions, but input has sizes ", input.sizes(), " with dimension ", d,
                " being empty");
  }
}

void check_output_size3(const char* op, IntArrayRef output_size) {
  EMBER_CHECK(output_size.size() == 3, op, ": internal error: output_size.size() must be 3");
  for (int64_t v : output_size) {
    EMBER_CHECK(v >= 0, op, ": elements of output_size must be greater than or equal to 0 but received {",
                output_size[0], ", ", output_size[1], ", ", output_size[2], "}");
  }
}

Tensor _adaptive_avg_pool3d_impl(const Tensor& input, IntArrayRef output_size) {
  ops::check_not_quantized("aten::_adaptive_avg_pool3d", {input});
  check_output_size3("adaptive_avg_pool3d", output_size);
  check_adaptive3d("adaptive_avg_pool3d", input, false);
  check_floating("adaptive_avg_pool3d_cpu", input);
  Tensor out = new_out(out_sizes(input, output_size.data()), input, input.dtype());
  if (!out.is_meta() && out.numel() != 0)
    cpu::adaptive_avg_pool3d_kernel(planes(out), planes(input.contiguous()));
  return out;
}

Tensor _adaptive_avg_pool3d_backward_impl(const Tensor& grad_output, const Tensor& input) {
  check_adaptive3d("adaptive_avg_pool3d_backward", input, false);
  EMBER_CHECK(grad_output.dim() == input.dim(), "adaptive_avg_pool3d_backward: grad_output of size ",
              size_str(grad_output.sizes()), " does not match input of size ", size_str(input.sizes()));
  Tensor gi = new_out(input.sizes(), input, grad_output.dtype());
  if (!gi.is_meta() && gi.numel() != 0)
    cpu::adaptive_avg_pool3d_backward_kernel(planes(gi), planes(grad_output.contiguous()));
  return gi;
}

// PyTorch 1.13: a 1x1x1 output is the mean over the last three dims.
Tensor adaptive_avg_pool3d_impl(const Tensor& input, IntArrayRef output_size) {
  EMBER_CHECK(output_size.size() == 3, "adaptive_avg_pool3d: output_size must be 3");
  if (output_size[0] == 1 && output_size[1] == 1 && output_size[2] == 1) {
    check_adaptive3d("adaptive_avg_pool3d", input, false);
    return input.mean({-1, -2, -3}, true);
  }
  return _adaptive_avg_pool3d(input, output_size);
}

std::tuple<Tensor, Tensor> adaptive_max_pool3d_impl(const Tensor& input, IntArrayRef output_size) {
  ops::check_not_quantized("aten::adaptive_max_pool3d", {input});
  check_adaptive3d("adaptive_max_pool3d", input, true);
  check_output_size3("adaptive_max_pool3d", output_size);
  check_floating("adaptive_max_pool3d_cpu", input);
  const auto sizes = out_sizes(input, output_size.data());
  Tensor out = new_out(sizes, input, input.dtype()), idx = new_out(sizes, input, kInt64);
  if (!out.is_meta() && out.numel() != 0)
    cpu::adaptive_max_pool3d_kernel(planes(out), planes(idx), planes(input.contiguous()));
  return {out, idx};
}

Tensor adaptive_max_pool3d_backward_impl(const Tensor& grad_output, const Tensor& input,
                                         const Tensor& indices) {
  check_adaptive3d("adaptive_max_pool3d_backward", input, true);
  EMBER_CHECK(grad_output.sizes() == indices.sizes(), "adaptive_max_pool3d_backward: expected ",
              "grad_output and indices of the same size, but got ", size_str(grad_output.sizes()),
              " and ", size_str(indices.sizes()));
  Tensor gi = new_out(input.sizes(), input, grad_output.dtype());
  if (!gi.is_meta() && gi.numel() != 0)
    cpu::max_pool3d_backward_kernel(planes(gi), planes(grad_output.contiguous()),
                                    planes(indices.contiguous()));
  return gi;
}

// ---- 1-d pooling over the 2-d ops ----
int64_t single(IntArrayRef v, const char* op, const char* what) {
  EMBER_CHECK(v.size() == 1, op, "() argument '", what, "' should contain one int (got ", v.size(), ")");
  return v[0];
}

Tensor avg_pool1d_impl(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                       IntArrayRef padding, bool ceil_mode, bool count_include_pad) {
  EMBER_CHECK(self.dim() == 2 || self.dim() == 3, "Expected 2 to 3 dimensions, but got ", self.dim(),
              "-dimensional tensor for argument #1 'self' (while checking arguments for avg_pool1d)");
  const int64_t k = single(kernel_size, "avg_pool1d", "kernel_size");
  const int64_t s = stride.empty() ? k : single(stride, "avg_pool1d", "stride");
  const int64_t p = single(padding, "avg_pool1d", "padding");
  return avg_pool2d(self.unsqueeze(-2), {1, k}, {1, s}, {0, p}, ceil_mode, count_include_pad)
      .squeeze(-2);
}

void check_max_pool1d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                      IntArrayRef padding, IntArrayRef dilation) {
  EMBER_CHECK(self.dim() == 2 || self.dim() == 3, "max_pool1d: Expected 2D or 3D (batch mode) tensor ",
              "with optional 0 dim batch size for input, but got:", self.sizes());
  const int64_t k = single(kernel_size, "max_pool1d", "kernel_size");
  const int64_t s = stride.empty() ? k : single(stride, "max_pool1d", "stride");
  const int64_t p = single(padding, "max_pool1d", "padding");
  const int64_t d = single(dilation, "max_pool1d", "dilation");
  EMBER_CHECK(k > 0, "max_pool1d() kernel_size must be greater than zero, but got ", k);
  EMBER_CHECK(s > 0, "max_pool1d() stride must be greater than zero, but got ", s);
  EMBER_CHECK(p >= 0, "max_pool1d() padding must be non-negative, but got ", p);
  EMBER_CHECK(p <= k / 2, "max_pool1d() padding should be at most half of kernel size, but got ",
              "padding=", p, " and kernel_size=", k);
  EMBER_CHECK(d > 0, "max_pool1d() dilation must be greater than zero, but got ", d);
}

std::tuple<Tensor, Tensor> max_pool1d_with_indices_impl(const Tensor& self, IntArrayRef kernel_size,
                                                        IntArrayRef stride, IntArrayRef padding,
                                                        IntArrayRef dilation, bool ceil_mode) {
  check_max_pool1d(self, kernel_size, stride, padding, dilation);
  const int64_t k = kernel_size[0], s = stride.empty() ? k : stride[0];
  auto [out, idx] = max_pool2d_with_indices(self.unsqueeze(-2), {1, k}, {1, s}, {0, padding[0]},
                                            {1, dilation[0]}, ceil_mode);
  return {out.squeeze(-2), idx.squeeze(-2)};
}

Tensor max_pool1d_impl(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                       IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  return std::get<0>(max_pool1d_with_indices(self, kernel_size, stride, padding, dilation, ceil_mode));
}

Tensor adaptive_avg_pool1d_impl(const Tensor& self, IntArrayRef output_size) {
  const int64_t o = single(output_size, "adaptive_avg_pool1d", "output_size");
  EMBER_CHECK(self.dim() == 2 || self.dim() == 3, "adaptive_avg_pool1d(): Expected 2D or 3D tensor, ",
              "but got: ", self.sizes());
  return adaptive_avg_pool2d(self.unsqueeze(-2), {1, o}).squeeze(-2);
}

std::tuple<Tensor, Tensor> adaptive_max_pool1d_impl(const Tensor& self, IntArrayRef output_size) {
  const int64_t o = single(output_size, "adaptive_max_pool1d", "output_size");
  EMBER_CHECK(self.dim() == 2 || self.dim() == 3, "adaptive_max_pool1d(): Expected 2D or 3D tensor, ",
              "but got: ", self.sizes());
  auto [out, idx] = adaptive_max_pool2d(self.unsqueeze(-2), {1, o});
  return {out.squeeze(-2), idx.squeeze(-2)};
}


// ---- autograd ----
using autograd::OpNode;
using autograd::tensor_list;

// Note [Pool autograd kernels] (pool_autograd.h).
std::tuple<Tensor, Tensor> max_pool3d_with_indices_autograd(const Tensor& self, const IntArrayRef& k,
                                                            const IntArrayRef& s, const IntArrayRef& p,
                                                            const IntArrayRef& d, const bool& ceil) {
  return ops::pool::max_with_indices<max_pool3d_with_indices_impl>(
      "MaxPool3DWithIndicesBackward0", OpId::max_pool3d_with_indices,
      [](auto&&... a) { return max_pool3d_with_indices_backward(a...); }, self, k, s, p, d, ceil);
}

Tensor max_pool3d_with_indices_backward_autograd(const Tensor& grad_output, const Tensor& self,
                                                 const IntArrayRef& k, const IntArrayRef& s,
                                                 const IntArrayRef& p, const IntArrayRef& d,
                                                 const bool& ceil, const Tensor& indices) {
  return ops::pool::max_with_indices_backward<max_pool3d_with_indices_backward_impl, 3>(
      "MaxPool3DWithIndicesBackwardBackward0", OpId::max_pool3d_with_indices_backward, grad_output,
      self, k, s, p, d, ceil, indices);
}

Tensor avg_pool3d_autograd(const Tensor& self, const IntArrayRef& k, const IntArrayRef& s,
                           const IntArrayRef& p, const bool& ceil, const bool& cip,
                           const std::optional<int64_t>& div) {
  return ops::pool::avg<avg_pool3d_impl>(
      "AvgPool3DBackward0", OpId::avg_pool3d,
      [](auto&&... a) { return avg_pool3d_backward(a...); }, self, k, s, p, ceil, cip, div);
}

Tensor avg_pool3d_backward_autograd(const Tensor& grad_output, const Tensor& self, const IntArrayRef& k,
                                    const IntArrayRef& s, const IntArrayRef& p, const bool& ceil,
                                    const bool& cip, const std::optional<int64_t>& div) {
  return ops::pool::avg_backward<avg_pool3d_backward_impl>(
      "AvgPool3DBackwardBackward0", OpId::avg_pool3d_backward,
      [](auto&&... a) { return avg_pool3d(a...); }, grad_output, self, k, s, p, ceil, cip, div);
}

Tensor adaptive_avg_pool3d_autograd(const Tensor& self, const IntArrayRef& output_size) {
  return ops::pool::adaptive_avg<_adaptive_avg_pool3d_impl>(
      "AdaptiveAvgPool3DBackward0", OpId::_adaptive_avg_pool3d,
      [](auto&&... a) { return _adaptive_avg_pool3d_backward(a...); }, self, output_size);
}

Tensor adaptive_avg_pool3d_backward_autograd(const Tensor& grad_output, const Tensor& self) {
  return ops::pool::adaptive_avg_backward<_adaptive_avg_pool3d_backward_impl, 3>(
      "AdaptiveAvgPool3DBackwardBackward0", OpId::_adaptive_avg_pool3d_backward,
      [](auto&&... a) { return _adaptive_avg_pool3d(a...); }, grad_output, self);
}

std::tuple<Tensor, Tensor> adaptive_max_pool3d_autograd(const Tensor& self, const IntArrayRef& output_size) {
  autograd::Recorder r("AdaptiveMaxPool3DBackward0", self);
  auto outs = r.forward([&] {
    return dispatch::call<adaptive_max_pool3d_impl>(OpId::adaptive_max_pool3d, self, output_size);
  });
  if (!r) return outs;
  const size_t self_ = r.save(self, "self"), idx_ = self_ + 1;
  outs = r.finish(outs, [=](OpNode& n, const tensor_list& g) {
    return tensor_list{adaptive_max_pool3d_backward(g[0], n.saved(self_), n.saved(idx_))};
  });
  ops::save_output_at(r, std::get<1>(outs), idx_, "result1");
  return outs;
}

Tensor adaptive_max_pool3d_backward_autograd(const Tensor& grad_output, const Tensor& self,
                                             const Tensor& indices) {
  autograd::Recorder r("AdaptiveMaxPool3DBackwardBackward0", grad_output, self);
  Tensor out = r.forward([&] {
    return dispatch::call<adaptive_max_pool3d_backward_impl>(OpId::adaptive_max_pool3d_backward,
                                                             grad_output, self, indices);
  });
  if (!r) return out;
  const size_t idx_ = r.save(indices, "indices");
  return r.finish(out, [=](OpNode& n, const tensor_list& g) {
    return tensor_list{n.needs(0) ? ops::pool::gather_by_indices<3>(g[0], n.saved(idx_)) : Tensor(),
                       Tensor()};
  });
}

}  // namespace

EMBER_REGISTER_AUTOGRAD(max_pool3d_with_indices, &max_pool3d_with_indices_autograd);
EMBER_REGISTER_AUTOGRAD(max_pool3d_with_indices_backward, &max_pool3d_with_indices_backward_autograd);
EMBER_REGISTER_AUTOGRAD(avg_pool3d, &avg_pool3d_autograd);
EMBER_REGISTER_AUTOGRAD(avg_pool3d_backward, &avg_pool3d_backward_autograd);
EMBER_REGISTER_AUTOGRAD(_adaptive_avg_pool3d, &adaptive_avg_pool3d_autograd);
EMBER_REGISTER_AUTOGRAD(_adaptive_avg_pool3d_backward, &adaptive_avg_pool3d_backward_autograd);
EMBER_REGISTER_AUTOGRAD(adaptive_max_pool3d, &adaptive_max_pool3d_autograd);
EMBER_REGISTER_AUTOGRAD(adaptive_max_pool3d_backward, &adaptive_max_pool3d_backward_autograd);

Tensor avg_pool1d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                  IntArrayRef padding, bool ceil_mode, bool count_include_pad) {
  return dispatch::call<avg_pool1d_impl>(OpId::avg_pool1d, self, kernel_size, stride, padding,
                                         ceil_mode, count_include_pad);
}
Tensor adaptive_avg_pool1d(const Tensor& self, IntArrayRef output_size) {
  return dispatch::call<adaptive_avg_pool1d_impl>(OpId::adaptive_avg_pool1d, self, output_size);
}
Tensor max_pool1d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                  IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  return dispatch::call<max_pool1d_impl>(OpId::max_pool1d, self, kernel_size, stride, padding,
                                         dilation, ceil_mode);
}
std::tuple<Tensor, Tensor> max_pool1d_with_indices(const Tensor& self, IntArrayRef kernel_size,
                                                   IntArrayRef stride, IntArrayRef padding,
                                                   IntArrayRef dilation, bool ceil_mode) {
  return dispatch::call<max_pool1d_with_indices_impl>(OpId::max_pool1d_with_indices, self,
                                                      kernel_size, stride, padding, dilation,
                                                      ceil_mode);
}
std::tuple<Tensor, Tensor> adaptive_max_pool1d(const Tensor& self, IntArrayRef output_size) {
  return dispatch::call<adaptive_max_pool1d_impl>(OpId::adaptive_max_pool1d, self, output_size);
}
Tensor avg_pool3d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                  IntArrayRef padding, bool ceil_mode, bool count_include_pad,
                  std::optional<int64_t> divisor_override) {
  return dispatch::call<avg_pool3d_impl>(OpId::avg_pool3d, self, kernel_size, stride, padding,
                                         ceil_mode, count_include_pad, divisor_override);
}
Tensor avg_pool3d_backward(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel_size,
                           IntArrayRef stride, IntArrayRef padding, bool ceil_mode,
                           bool count_include_pad, std::optional<int64_t> divisor_override) {
  return dispatch::call<avg_pool3d_backward_impl>(OpId::avg_pool3d_backward, grad_output, self,
                                                  kernel_size, stride, padding, ceil_mode,
                                                  count_include_pad, divisor_override);
}
Tensor adaptive_avg_pool3d(const Tensor& self, IntArrayRef output_size) {
  return dispatch::call<adaptive_avg_pool3d_impl>(OpId::adaptive_avg_pool3d, self, output_size);
}
Tensor _adaptive_avg_pool3d(const Tensor& self, IntArrayRef output_size) {
  return dispatch::call<_adaptive_avg_pool3d_impl>(OpId::_adaptive_avg_pool3d, self, output_size);
}
Tensor _adaptive_avg_pool3d_backward(const Tensor& grad_output, const Tensor& self) {
  return dispatch::call<_adaptive_avg_pool3d_backward_impl>(OpId::_adaptive_avg_pool3d_backward,
                                                           grad_output, self);
}
Tensor max_pool3d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                  IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  return dispatch::call<max_pool3d_impl>(OpId::max_pool3d, self, kernel_size, stride, padding,
                                         dilation, ceil_mode);
}
std::tuple<Tensor, Tensor> max_pool3d_with_indices(const Tensor& self, IntArrayRef kernel_size,
                                                   IntArrayRef stride, IntArrayRef padding,
                                                   IntArrayRef dilation, bool ceil_mode) {
  return dispatch::call<max_pool3d_with_indices_impl>(OpId::max_pool3d_with_indices, self,
                                                      kernel_size, stride, padding, dilation,
                                                      ceil_mode);
}
Tensor max_pool3d_with_indices_backward(const Tensor& grad_output, const Tensor& self,
                                        IntArrayRef kernel_size, IntArrayRef stride,
                                        IntArrayRef padding, IntArrayRef dilation, bool ceil_mode,
                                        const Tensor& indices) {
  return dispatch::call<max_pool3d_with_indices_backward_impl>(
      OpId::max_pool3d_with_indices_backward, grad_output, self, kernel_size, stride, padding,
      dilation, ceil_mode, indices);
}
std::tuple<Tensor, Tensor> adaptive_max_pool3d(const Tensor& self, IntArrayRef output_size) {
  return dispatch::call<adaptive_max_pool3d_impl>(OpId::adaptive_max_pool3d, self, output_size);
}
Tensor adaptive_max_pool3d_backward(const Tensor& grad_output, const Tensor& self,
                                    const Tensor& indices) {
  return dispatch::call<adaptive_max_pool3d_backward_impl>(OpId::adaptive_max_pool3d_backward,
                                                           grad_output, self, indices);
}

EMBER_REGISTER_OP(avg_pool1d, &avg_pool1d);
EMBER_REGISTER_OP(adaptive_avg_pool1d, &adaptive_avg_pool1d);
EMBER_REGISTER_OP(max_pool1d, &max_pool1d);
EMBER_REGISTER_OP(max_pool1d_with_indices, &max_pool1d_with_indices);
EMBER_REGISTER_OP(adaptive_max_pool1d, &adaptive_max_pool1d);
EMBER_REGISTER_OP(avg_pool3d, &avg_pool3d);
EMBER_REGISTER_OP(avg_pool3d_backward, &avg_pool3d_backward);
EMBER_REGISTER_OP(adaptive_avg_pool3d, &adaptive_avg_pool3d);
EMBER_REGISTER_OP(_adaptive_avg_pool3d, &_adaptive_avg_pool3d);
EMBER_REGISTER_OP(_adaptive_avg_pool3d_backward, &_adaptive_avg_pool3d_backward);
EMBER_REGISTER_OP(max_pool3d, &max_pool3d);
EMBER_REGISTER_OP(max_pool3d_with_indices, &max_pool3d_with_indices);
EMBER_REGISTER_OP(max_pool3d_with_indices_backward, &max_pool3d_with_indices_backward);
EMBER_REGISTER_OP(adaptive_max_pool3d, &adaptive_max_pool3d);
EMBER_REGISTER_OP(adaptive_max_pool3d_backward, &adaptive_max_pool3d_backward);

}  // namespace ember
