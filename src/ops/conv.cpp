// Convolutions: the aten::convolution primitive, aten::convolution_backward (its own op, so the
// double backward goes through ember ops), and the conv1d / conv2d / conv_transpose2d composites
// with PyTorch's checks and messages (ATen's ConvUtils check_shape_forward and Convolution.cpp).
// Kernels: src/backends/cpu/conv_kernels.h (oneDNN for float32, direct loops otherwise).
//
// Note [Convolution memory format]
// As PyTorch's CPU path, a 4-d convolution runs in channels_last when its input or its weight
// suggests channels_last, and its output (and input gradient) come out in that format; otherwise
// everything is NCHW-contiguous. Operands are made dense in that format before the kernels run.
#include "ember/ops/conv.h"

#include <sstream>

#include "../autograd/record.h"
#include "../backends/cpu/conv_kernels.h"
#include "conv_fused.h"
#include "../dispatch/boxing.h"
#include "ember/ops/nn_ops.h"
#include "elementwise.h"
#include "pointwise_helpers.h"
#include "ember/ops/complex.h"
#include "ember/ops/index_ops.h"
#include "ember/ops/pointwise.h"
#include "ember/ops/reduce.h"
#include "ember/warning.h"

namespace ember {

using dispatch::OpId;

namespace {

std::vector<int64_t> expand_param(IntArrayRef p, const char* name, int64_t dim) {
  if (p.size() == 1) return std::vector<int64_t>(static_cast<size_t>(dim), p[0]);
  EMBER_CHECK(static_cast<int64_t>(p.size()) == dim, "expected ", name,
              " to be a single integer value or a list of ", dim,
              " values to match the convolution dimensions, but got ", name, "=", p);
  return p.vec();
}

struct Params {
  cpu::ConvGeometry geo;
  std::vector<int64_t> output_padding;
  bool transposed = false;
};

std::string join_x(const std::vector<int64_t>& v) {
  std::ostringstream os;
  for (size_t i = 0; i < v.size(); ++i) os << (i ? " x " : "") << v[i];
  return os.str();
}

// PyTorch's check_shape_forward plus the dtype checks of its CPU backends.
Params check_conv(const Tensor& input, const Tensor& weight, const Tensor& bias, IntArrayRef stride,
                  IntArrayRef padding, IntArrayRef dilation, bool transposed,
                  IntArrayRef output_padding, int64_t groups) {
  EMBER_CHECK(weight.dim() >= 3, "weight should have at least three dimensions");
  const int64_t dim = weight.dim() - 2;
  Params p;
  p.geo.stride = expand_param(stride, "stride", dim);
  p.geo.padding = expand_param(padding, "padding", dim);
  p.geo.dilation = expand_param(dilation, "dilation", dim);
  p.output_padding = expand_param(output_padding, "output_padding", dim);
  p.geo.groups = groups;
  p.transposed = transposed;
  for (int64_t v : p.geo.padding) EMBER_CHECK(v >= 0, "negative padding is not supported");
  for (int64_t v : p.output_padding) EMBER_CHECK(v >= 0, "negative output_padding is not supported");
  for (int64_t v : p.geo.stride) EMBER_CHECK(v > 0, "non-positive stride is not supported");
  for (int64_t v : p.geo.dilation) EMBER_CHECK(v > 0, "non-positive dilation is not supported");
  EMBER_CHECK(groups > 0, "non-positive groups is not supported");
  EMBER_CHECK(dim <= 3, "convolution: expected 1, 2 or 3 spatial dimensions, but got weight of size ",
              weight.sizes());

  const IntArrayRef ws = weight.sizes();
  EMBER_CHECK(input.dim() == weight.dim(), "Expected ", weight.dim(), "-dimensional input for ",
              weight.dim(), "-dimensional weight ", ws, ", but got ", input.dim(),
              "-dimensional input of size ", input.sizes(), " instead");
  EMBER_CHECK(ws[0] >= groups, "Given groups=", groups, ", expected weight to be at least ", groups,
              " at dimension 0, but got weight of size ", ws, " instead");
  EMBER_CHECK(ws[0] % groups == 0, "Given groups=", groups, ", expected weight to be divisible by ",
              groups, " at dimension 0, but got weight of size [", ws, "] instead");
  if (!transposed) {
    EMBER_CHECK(input.size(1) == ws[1] * groups, "Given groups=", groups, ", weight of size ", ws,
                ", expected input", input.sizes(), " to have ", ws[1] * groups,
                " channels, but got ", input.size(1), " channels instead");
    EMBER_CHECK(!bias.defined() || (bias.dim() == 1 && bias.size(0) == ws[0]), "Given weight of size ",
                ws, ", expected bias to be 1-dimensional with ", ws[0],
                " elements, but got bias of size ", bias.sizes(), " instead");
    std::vector<int64_t> in_shape, k_shape;
    bool ok = true;
    for (int64_t i = 0; i < dim; ++i) {
      in_shape.push_back(input.size(2 + i) + 2 * p.geo.padding[i]);
      k_shape.push_back(p.geo.dilation[i] * (ws[2 + i] - 1) + 1);
      if (in_shape.back() < k_shape.back()) ok = false;
    }
    EMBER_CHECK(ok, "Calculated padded input size per channel: (", join_x(in_shape),
                "). Kernel size: (", join_x(k_shape),
                "). Kernel size can't be greater than actual input size");
  } else {
    EMBER_CHECK(input.size(1) == ws[0], "Given transposed=1, weight of size ", ws,
                ", expected input", input.sizes(), " to have ", ws[0], " channels, but got ",
                input.size(1), " channels instead");
    EMBER_CHECK(!bias.defined() || (bias.dim() == 1 && bias.size(0) == ws[1] * groups),
                "Given transposed=1, weight of size ", ws, ", expected bias to be 1-dimensional with ",
                ws[1] * groups, " elements, but got bias of size ", bias.sizes(), " instead");
    bool ok = true;
    for (int64_t i = 0; i < dim; ++i) {
      if (p.output_padding[i] >= p.geo.stride[i] && p.output_padding[i] >= p.geo.dilation[i]) ok = false;
    }
    if (!ok && dim == 2) {
      EMBER_FAIL("output padding must be smaller than either stride or dilation, but got "
                 "output_padding_height: ", p.output_padding[0], " output_padding_width: ",
                 p.output_padding[1], " stride_height: ", p.geo.stride[0], " stride_width: ",
                 p.geo.stride[1], " dilation_height: ", p.geo.dilation[0], " dilation_width: ",
                 p.geo.dilation[1]);
    }
    EMBER_CHECK(ok, "output padding must be smaller than either stride or dilation, but got "
                "output_padding=", IntArrayRef(p.output_padding), " stride=",
                IntArrayRef(p.geo.stride), " dilation=", IntArrayRef(p.geo.dilation));
  }
  for (int64_t i = 2; i < weight.dim(); ++i) {
    EMBER_CHECK(ws[i] > 0, "convolution: expected a kernel of positive sizes, but got weight of size ", ws);
  }

  // dtypes (as the messages of PyTorch's CPU backends)
  if (input.dtype() != weight.dtype()) {
    if (input.dtype() == kFloat32 && !is_complex(weight.dtype())) {
      EMBER_FAIL("Input type (ember.", scalar_type_name(input.dtype()), "Tensor) and weight type (ember.",
                 scalar_type_name(weight.dtype()), "Tensor) should be the same or input should be a "
                 "MKLDNN tensor and weight is a dense tensor");
    }
    EMBER_FAIL("expected scalar type ", scalar_type_name(input.dtype()), " but found ",
               scalar_type_name(weight.dtype()));
  }
  EMBER_CHECK(!bias.defined() || bias.dtype() == input.dtype(), "Input type (",
              ops::typemeta_name(input.dtype()), ") and bias type (",
              ops::typemeta_name(bias.dtype()), ") should be the same");
  const ScalarType t = input.dtype();
  EMBER_CHECK_NOT_IMPLEMENTED(t != kFloat16 && t != kBool && !is_quantized(t),
                              "\"slow_conv2d_cpu\" not implemented for '", scalar_type_name(t), "'");
  // The kernels are real: complex input reaches them only through the composites that split it
  // (Note [Complex convolution]); anything else gets the text of the PyTorch kernel it would reach.
  if (is_complex(t)) {
    const char* kernel = transposed ? (dim == 3 ? "slow_conv_transpose3d_out_cpu" : "slow_conv_transpose2d_out_cpu")
                                    : (dim == 3 ? "compute_columns3d" : "slow_conv2d_cpu");
    EMBER_FAIL("\"", kernel, "\" not implemented for '", scalar_type_name(t), "'");
  }
  ops::common_device("convolution", bias.defined() ? std::vector<Tensor>{input, weight, bias}
                                                   : std::vector<Tensor>{input, weight});
  return p;
}

std::vector<int64_t> output_sizes(const Tensor& input, const Tensor& weight, const Params& p) {
  std::vector<int64_t> out{input.size(0), p.transposed ? weight.size(1) * p.geo.groups : weight.size(0)};
  const auto& g = p.geo;
  for (size_t i = 0; i < g.stride.size(); ++i) {
    const int64_t in = input.size(2 + i), k = weight.size(2 + i);
    out.push_back(p.transposed
                      ? (in - 1) * g.stride[i] - 2 * g.padding[i] + g.dilation[i] * (k - 1) +
                            p.output_padding[i] + 1
                      : (in + 2 * g.padding[i] - g.dilation[i] * (k - 1) - 1) / g.stride[i] + 1);
  }
  return out;
}

// Note [Convolution memory format]
MemoryFormat conv_format(const Tensor& input, const Tensor& weight) {
  if (input.dim() != 4) return MemoryFormat::Contiguous;
  return input.suggest_memory_format() == MemoryFormat::ChannelsLast ||
                 weight.suggest_memory_format() == MemoryFormat::ChannelsLast
             ? MemoryFormat::ChannelsLast
             : MemoryFormat::Contiguous;
}

Tensor dense_in(const Tensor& t, MemoryFormat f) {
  return t.dim() == 4 ? t.contiguous(f) : t.contiguous();
}

// Weights need only be dense: oneDNN reorders them into its own blocked layout once and caches
// the copy per weight storage (Note [oneDNN convolution cache]), and the reference kernels take
// any strides. Converting an NCHW weight to the activations' channels_last here would make a
// fresh tensor per call and defeat that cache.
Tensor dense_weight(const Tensor& w, MemoryFormat f) {
  if (w.is_contiguous() || (w.dim() == 4 && w.is_contiguous(MemoryFormat::ChannelsLast))) return w;
  return dense_in(w, f);
}

Tensor convolution_impl(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                        const IntArrayRef& stride, const IntArrayRef& padding,
                        const IntArrayRef& dilation, const bool& transposed,
                        const IntArrayRef& output_padding, const int64_t& groups) {
  const Tensor b = bias ? *bias : Tensor();
  const Params p = check_conv(input, weight, b, stride, padding, dilation, transposed,
                              output_padding, groups);
  const MemoryFormat f = conv_format(input, weight);
  Tensor out = empty(output_sizes(input, weight, p), TensorOptions(input.dtype()).device(input.device()), f);
  if (out.is_meta() || out.numel() == 0) return out;
  const Tensor x = dense_in(input, f), w = dense_weight(weight, f);
  const std::optional<Tensor> bc = b.defined() ? std::optional<Tensor>(b.contiguous()) : std::nullopt;
  if (!transposed) {
    cpu::conv_forward(out, x, w, bc, p.geo);
  } else {
    // the adjoint of the plain convolution whose input is `out` (Note in conv_kernels.h)
    cpu::conv_backward_input(out, x, w, p.geo);
    if (bc) cpu::add_channel_bias(out, *bc);
  }
  return out;
}

std::tuple<Tensor, Tensor, Tensor> convolution_backward_impl(
    const Tensor& grad_output, const Tensor& input, const Tensor& weight,
    const std::optional<IntArrayRef>& bias_sizes, const IntArrayRef& stride,
    const IntArrayRef& padding, const IntArrayRef& dilation, const bool& transposed,
    const IntArrayRef& output_padding, const int64_t& groups, const IntArrayRef& output_mask) {
  EMBER_CHECK(output_mask.size() == 3, "convolution_backward: output_mask must have 3 entries, got ",
              output_mask);
  const Params p = check_conv(input, weight, Tensor(), stride, padding, dilation, transposed,
                              output_padding, groups);
  const std::vector<int64_t> out_sizes = output_sizes(input, weight, p);
  EMBER_CHECK(grad_output.sizes().equals(out_sizes), "convolution_backward: expected grad_output of size ",
              IntArrayRef(out_sizes), " (the convolution's output), but got ", grad_output.sizes());
  EMBER_CHECK(grad_output.dtype() == input.dtype(), "expected scalar type ", scalar_type_name(input.dtype()),
              " but found ", scalar_type_name(grad_output.dtype()));
  const MemoryFormat f = conv_format(input, weight);
  const TensorOptions o = TensorOptions(input.dtype()).device(input.device());
  Tensor gi, gw, gb;
  if (output_mask[0]) gi = empty(input.sizes(), o, f);
  if (output_mask[1]) gw = empty_like(weight, o);
  if (output_mask[2]) {
    EMBER_CHECK(bias_sizes.has_value(), "convolution_backward: output_mask asks for the bias "
                "gradient but bias_sizes is None");
    std::vector<int64_t> dims{0};
    for (int64_t d = 2; d < grad_output.dim(); ++d) dims.push_back(d);
    gb = grad_output.sum(dims);
  }
  if (input.is_meta() || grad_output.is_meta() || weight.is_meta()) {
    return {gi, gw, gb};
  }
  const Tensor gy = dense_in(grad_output, f);
  const Tensor x = gw.defined() ? dense_in(input, f) : input;
  const Tensor w = gi.defined() ? dense_weight(weight, f) : weight;
  if (!transposed) {
    if (gi.defined()) cpu::conv_backward_input(gi, gy, w, p.geo);
    if (gw.defined()) cpu::conv_backward_weight(gw, gy, x, p.geo);
  } else {
    // transposed: input plays the plain convolution's output gradient, grad_output its input
    if (gi.defined()) cpu::conv_forward(gi, gy, w, std::nullopt, p.geo);
    if (gw.defined()) cpu::conv_backward_weight(gw, x, gy, p.geo);
  }
  return {gi, gw, gb};
}

// ---- autograd ----
using autograd::OpNode;
using autograd::tensor_list;

// d convolution = convolution_backward (input, weight, bias), saved input and weight as PyTorch.
Tensor convolution_autograd(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                            const IntArrayRef& stride, const IntArrayRef& padding,
                            const IntArrayRef& dilation, const bool& transposed,
                            const IntArrayRef& output_padding, const int64_t& groups) {
  autograd::Recorder r("ConvolutionBackward0", input, weight, bias);
  Tensor out = r.forward([&] {
    return dispatch::call<convolution_impl>(OpId::convolution, input, weight, bias, stride, padding,
                                            dilation, transposed, output_padding, groups);
  });
  if (!r) return out;
  const size_t in_ = r.save(input, "input"), w_ = r.save(weight, "weight");
  // Without a bias PyTorch 1.13's conv1d/2d/3d pass an undefined one, whose sizes read (0,).
  const std::vector<int64_t> bsz = bias && bias->defined() ? bias->sizes().vec() : std::vector<int64_t>{0};
  r.values("bias_sym_sizes_opt", bsz, "dilation", dilation, "groups", groups,
           "output_padding", output_padding, "padding", padding, "stride", stride, "transposed", transposed);
  return r.finish(out, [=](OpNode& n, const tensor_list& g) {
    if (!g[0].defined()) return tensor_list{Tensor(), Tensor(), Tensor()};
    std::optional<IntArrayRef> bs;
    if (n.next_edge(2).is_valid()) bs = IntArrayRef(n.value(0).to_int_list());
    const auto list = [&](size_t i) { return IntArrayRef(n.value(i).to_int_list()); };
    auto [gi, gw, gb] = convolution_backward(g[0], n.saved(in_), n.saved(w_), bs, list(5), list(4), list(1),
                                             n.value(6).to_bool(), list(3), n.value(2).to_int(),
                                             {n.needs(0), n.needs(1), bs.has_value() && n.needs(2)});
    return tensor_list{gi, gw, gb};
  });
}

// The backward of convolution_backward: it is linear in grad_output and bilinear in
// (grad_output, input) and (grad_output, weight), so its gradients are convolutions again
// (PyTorch's _convolution_double_backward): for incoming ggI, ggW, ggb,
//   d grad_output = conv(ggI, W) + conv(I, ggW) + ggb,
//   d input       = conv_backward(gO, I, ggW).grad_input,
//   d weight      = conv_backward(gO, ggI, W).grad_weight.
std::tuple<Tensor, Tensor, Tensor> convolution_backward_autograd(
    const Tensor& grad_output, const Tensor& input, const Tensor& weight,
    const std::optional<IntArrayRef>& bias_sizes, const IntArrayRef& stride,
    const IntArrayRef& padding, const IntArrayRef& dilation, const bool& transposed,
    const IntArrayRef& output_padding, const int64_t& groups, const IntArrayRef& output_mask) {
  autograd::Recorder r("ConvolutionBackwardBackward0", grad_output, input, weight);
  auto outs = r.forward([&] {
    return dispatch::call<convolution_backward_impl>(OpId::convolution_backward, grad_output, input,
                                                     weight, bias_sizes, stride, padding, dilation,
                                                     transposed, output_padding, groups, output_mask);
  });
  if (!r) return outs;
  const size_t go_ = r.save(grad_output, "grad_output"), in_ = r.save(input, "input"), w_ = r.save(weight, "weight");
  r.values("dilation", dilation, "groups", groups, "output_padding", output_padding, "padding", padding,
           "stride", stride, "transposed", transposed);
  auto v = r.finish(std::vector<Tensor>{std::get<0>(outs), std::get<1>(outs), std::get<2>(outs)},
                    [=, s = stride.vec(), pd = padding.vec(), dl = dilation.vec(),
                     op = output_padding.vec()](OpNode& n, const tensor_list& g) {
    const Tensor& ggI = g[0];
    const Tensor& ggW = g[1];
    const Tensor& ggb = g.size() > 2 ? g[2] : Tensor();
    const Tensor gO = n.saved(go_), x = n.saved(in_), w = n.saved(w_);
    Tensor d_go, d_x, d_w;
    if (n.needs(0)) {
      if (ggI.defined()) d_go = convolution(ggI, w, std::nullopt, s, pd, dl, transposed, op, groups);
      if (ggW.defined()) {
        Tensor t = convolution(x, ggW, std::nullopt, s, pd, dl, transposed, op, groups);
        d_go = d_go.defined() ? d_go + t : t;
      }
      if (ggb.defined()) {
        std::vector<int64_t> shape(static_cast<size_t>(gO.dim()), 1);
        shape[1] = ggb.numel();
        Tensor t = ggb.reshape(shape).expand(gO.sizes());
        d_go = d_go.defined() ? d_go + t : t;
      }
    }
    if (n.needs(1) && ggW.defined()) {
      d_x = std::get<0>(convolution_backward(gO, x, ggW, std::nullopt, s, pd, dl, transposed, op,
                                             groups, {true, false, false}));
    }
    if (n.needs(2) && ggI.defined()) {
      d_w = std::get<1>(convolution_backward(gO, ggI, w, std::nullopt, s, pd, dl, transposed, op,
                                             groups, {false, true, false}));
    }
    return tensor_list{d_go, d_x, d_w};
  });
  return {v[0], v[1], v[2]};
}

EMBER_REGISTER_AUTOGRAD(convolution, &convolution_autograd);
EMBER_REGISTER_AUTOGRAD(convolution_backward, &convolution_backward_autograd);

// ---- frontends ----
Tensor convolution_op(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                      IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, bool transposed,
                      IntArrayRef output_padding, int64_t groups) {
  return dispatch::call<convolution_impl>(OpId::convolution, input, weight, bias, stride, padding,
                                          dilation, transposed, output_padding, groups);
}

std::tuple<Tensor, Tensor, Tensor> convolution_backward_op(
    const Tensor& grad_output, const Tensor& input, const Tensor& weight,
    std::optional<IntArrayRef> bias_sizes, IntArrayRef stride, IntArrayRef padding,
    IntArrayRef dilation, bool transposed, IntArrayRef output_padding, int64_t groups,
    IntArrayRef output_mask) {
  return dispatch::call<convolution_backward_impl>(OpId::convolution_backward, grad_output, input,
                                                   weight, bias_sizes, stride, padding, dilation,
                                                   transposed, output_padding, groups, output_mask);
}

// The legacy type names of PyTorch's check_input_same_type_as_parameters: CPUComplexFloatType for
// complex tensors, ember.FloatTensor for real ones.
std::string legacy_type_name(const Tensor& t) {
  return is_complex(t.dtype()) ? detail::str_cat("CPU", scalar_type_name(t.dtype()), "Type")
                               : detail::str_cat("ember.", scalar_type_name(t.dtype()), "Tensor");
}

// Note [Complex convolution]: PyTorch 1.13 runs conv1d / conv2d / conv3d (and conv_transpose1d)
// on complex tensors as three real convolutions (Gauss's trick): with a = conv(xr, wr, br),
// b = conv(xi, wi) and c = conv(xr + xi, wr + wi, br + bi),
//   conv(x, w, bias) = a - b + i (c - a - b).
// It is a composite of differentiable ops, so the gradients are those of the real convolutions.
// The other complex convolutions (conv_transpose2d / 3d, aten::convolution itself) refuse with
// the text of the real kernel they reach, as PyTorch's do.
Tensor complex_convolution(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                           IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, bool transposed,
                           IntArrayRef output_padding, int64_t groups) {
  EMBER_CHECK(input.dtype() == weight.dtype(), "Input type (", legacy_type_name(input), ") and weight type (",
              legacy_type_name(weight), ") should be the same");
  EMBER_CHECK(!bias || !bias->defined() || input.dtype() == bias->dtype(), "Input type (", legacy_type_name(input),
              ") and bias type (", legacy_type_name(*bias), ") should be the same");
  const Tensor xr = real(input), xi = imag(input), wr = real(weight), wi = imag(weight);
  auto conv = [&](const Tensor& x, const Tensor& w, const std::optional<Tensor>& b) {
    return convolution(x, w, b, stride, padding, dilation, transposed, output_padding, groups);
  };
  Tensor a, b, c;
  if (bias && bias->defined()) {
    const Tensor br = real(*bias), bi = imag(*bias);
    a = conv(xr, wr, br);
    b = conv(xi, wi, std::nullopt);
    c = conv(xr + xi, wr + wi, br + bi);
  } else {
    a = conv(xr, wr, std::nullopt);
    b = conv(xi, wi, std::nullopt);
    c = conv(xr + xi, wr + wi, std::nullopt);
  }
  return ember::complex(a - b, c - a - b);
}

// The convolution of a composite: complex input through the real ones (above).
Tensor convolution_of(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                      IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, bool transposed,
                      IntArrayRef output_padding, int64_t groups) {
  if (input.is_complex()) {
    return complex_convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups);
  }
  return convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups);
}

// conv1d / conv2d / conv_transpose2d accept one unbatched sample (no N dim), as PyTorch.
template <class F>
Tensor batchify(const Tensor& input, int64_t spatial, const char* name, F&& run) {
  const bool batched = input.dim() == spatial + 2;
  EMBER_CHECK(batched || input.dim() == spatial + 1, "Expected ", spatial + 1, "D (unbatched) or ",
              spatial + 2, "D (batched) input to ", name, ", but got input of size: ", input.sizes());
  if (batched) return run(input);
  return run(input.unsqueeze(0)).squeeze(0);
}

Tensor conv_nd_impl(int64_t spatial, const char* name, const Tensor& input, const Tensor& weight,
                    const std::optional<Tensor>& bias, IntArrayRef stride, IntArrayRef padding,
                    IntArrayRef dilation, int64_t groups) {
  return batchify(input, spatial, name, [&](const Tensor& x) {
    return convolution_of(x, weight, bias, stride, padding, dilation, false,
                          std::vector<int64_t>(static_cast<size_t>(spatial), 0), groups);
  });
}

// padding "valid" is no padding; "same" pads d * (k - 1) in total per dim, the odd element on the
// right by padding the input first (PyTorch's _convolution_mode, with its warning).
Tensor conv_nd_str_impl(int64_t spatial, const char* name, const Tensor& input, const Tensor& weight,
                        const std::optional<Tensor>& bias, IntArrayRef stride,
                        const std::string& padding, IntArrayRef dilation, int64_t groups) {
  const std::vector<int64_t> zeros_(static_cast<size_t>(spatial), 0);
  if (padding == "valid") {
    return conv_nd_impl(spatial, name, input, weight, bias, stride, zeros_, dilation, groups);
  }
  EMBER_CHECK(padding == "same", "Invalid padding string: '", padding, "'");
  return batchify(input, spatial, name, [&](const Tensor& x) {
    const int64_t dim = weight.dim() - 2;
    for (int64_t s : stride) {
      EMBER_CHECK(s == 1, "padding='same' is not supported for strided convolutions");
    }
    EMBER_CHECK(dim == spatial, "Expected ", spatial + 2, "-dimensional input for ", weight.dim(),
                "-dimensional weight ", weight.sizes(), ", but got ", x.dim(),
                "-dimensional input of size ", x.sizes(), " instead");
    const std::vector<int64_t> dil = expand_param(dilation, "dilation", dim);
    std::vector<int64_t> pad_l(static_cast<size_t>(dim)), pad_r(static_cast<size_t>(dim));
    bool symmetric = true;
    for (int64_t i = 0; i < dim; ++i) {
      const int64_t total = dil[i] * (weight.size(2 + i) - 1);
      pad_l[i] = total / 2;
      pad_r[i] = total - pad_l[i];
      if (pad_l[i] != pad_r[i]) symmetric = false;
    }
    Tensor xin = x;
    if (!symmetric) {
      warn("Using padding='same' with even kernel lengths and odd dilation may require a "
           "zero-padded copy of the input be created");
      for (int64_t i = 0; i < dim; ++i) {
        if (pad_r[i] == pad_l[i]) continue;
        std::vector<int64_t> extra = xin.sizes().vec();
        extra[static_cast<size_t>(2 + i)] = pad_r[i] - pad_l[i];
        xin = cat({xin, zeros(extra, TensorOptions(xin.dtype()).device(xin.device()))}, 2 + i);
      }
    }
    return convolution_of(xin, weight, bias, stride, pad_l, dilation, false, zeros_, groups);
  });
}

Tensor conv1d_impl(const Tensor& i, const Tensor& w, const std::optional<Tensor>& b,
                   const IntArrayRef& s, const IntArrayRef& p, const IntArrayRef& d, const int64_t& g) {
  return conv_nd_impl(1, "conv1d", i, w, b, s, p, d, g);
}
Tensor conv1d_padding_impl(const Tensor& i, const Tensor& w, const std::optional<Tensor>& b,
                           const IntArrayRef& s, const std::string& p, const IntArrayRef& d,
                           const int64_t& g) {
  return conv_nd_str_impl(1, "conv1d", i, w, b, s, p, d, g);
}
Tensor conv2d_impl(const Tensor& i, const Tensor& w, const std::optional<Tensor>& b,
                   const IntArrayRef& s, const IntArrayRef& p, const IntArrayRef& d, const int64_t& g) {
  return conv_nd_impl(2, "conv2d", i, w, b, s, p, d, g);
}
Tensor conv2d_padding_impl(const Tensor& i, const Tensor& w, const std::optional<Tensor>& b,
                           const IntArrayRef& s, const std::string& p, const IntArrayRef& d,
                           const int64_t& g) {
  return conv_nd_str_impl(2, "conv2d", i, w, b, s, p, d, g);
}

Tensor conv1d_op(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                 IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  return dispatch::call<conv1d_impl>(OpId::conv1d, input, weight, bias, stride, padding, dilation,
                                     groups);
}
Tensor conv1d_padding_op(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                         IntArrayRef stride, const std::string& padding, IntArrayRef dilation,
                         int64_t groups) {
  return dispatch::call<conv1d_padding_impl>(OpId::conv1d_padding, input, weight, bias, stride,
                                             padding, dilation, groups);
}
Tensor conv2d_op(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                 IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  return dispatch::call<conv2d_impl>(OpId::conv2d, input, weight, bias, stride, padding, dilation,
                                     groups);
}
Tensor conv2d_padding_op(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                         IntArrayRef stride, const std::string& padding, IntArrayRef dilation,
                         int64_t groups) {
  return dispatch::call<conv2d_padding_impl>(OpId::conv2d_padding, input, weight, bias, stride,
                                             padding, dilation, groups);
}

Tensor conv_transpose2d_impl(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                             const IntArrayRef& stride, const IntArrayRef& padding,
                             const IntArrayRef& output_padding, const int64_t& groups,
                             const IntArrayRef& dilation) {
  return batchify(input, 2, "conv_transpose2d", [&](const Tensor& x) {
    return convolution(x, weight, bias, stride, padding, dilation, true, output_padding, groups);
  });
}
Tensor conv_transpose2d_op(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                           IntArrayRef stride, IntArrayRef padding, IntArrayRef output_padding,
                           int64_t groups, IntArrayRef dilation) {
  return dispatch::call<conv_transpose2d_impl>(OpId::conv_transpose2d_input, input, weight, bias,
                                               stride, padding, output_padding, groups, dilation);
}

// conv3d, conv_transpose1d and conv_transpose3d (issue 16): the same composites in 1-d / 3-d.
Tensor conv3d_impl(const Tensor& i, const Tensor& w, const std::optional<Tensor>& b,
                   const IntArrayRef& s, const IntArrayRef& p, const IntArrayRef& d, const int64_t& g) {
  return conv_nd_impl(3, "conv3d", i, w, b, s, p, d, g);
}
Tensor conv3d_padding_impl(const Tensor& i, const Tensor& w, const std::optional<Tensor>& b,
                           const IntArrayRef& s, const std::string& p, const IntArrayRef& d,
                           const int64_t& g) {
  return conv_nd_str_impl(3, "conv3d", i, w, b, s, p, d, g);
}
template <int64_t Spatial>
Tensor conv_transpose_nd_impl(const Tensor& input, const Tensor& weight,
                              const std::optional<Tensor>& bias, const IntArrayRef& stride,
                              const IntArrayRef& padding, const IntArrayRef& output_padding,
                              const int64_t& groups, const IntArrayRef& dilation) {
  return batchify(input, Spatial, Spatial == 1 ? "conv_transpose1d" : "conv_transpose3d",
                  [&](const Tensor& x) {
                    // PyTorch 1.13 splits complex input in conv_transpose1d only.
                    if constexpr (Spatial == 1) {
                      return convolution_of(x, weight, bias, stride, padding, dilation, true, output_padding,
                                            groups);
                    } else {
                      return convolution(x, weight, bias, stride, padding, dilation, true, output_padding, groups);
                    }
                  });
}

}  // namespace

Tensor convolution(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                   IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, bool transposed,
                   IntArrayRef output_padding, int64_t groups) {
  return convolution_op(input, weight, bias, stride, padding, dilation, transposed, output_padding,
                        groups);
}

std::tuple<Tensor, Tensor, Tensor> convolution_backward(
    const Tensor& grad_output, const Tensor& input, const Tensor& weight,
    std::optional<IntArrayRef> bias_sizes, IntArrayRef stride, IntArrayRef padding,
    IntArrayRef dilation, bool transposed, IntArrayRef output_padding, int64_t groups,
    std::array<bool, 3> output_mask) {
  const std::vector<int64_t> mask{output_mask[0], output_mask[1], output_mask[2]};
  return convolution_backward_op(grad_output, input, weight, bias_sizes, stride, padding, dilation,
                                 transposed, output_padding, groups, mask);
}

Tensor conv1d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
              IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  return conv1d_op(input, weight, bias, stride, padding, dilation, groups);
}
Tensor conv1d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
              IntArrayRef stride, const PaddingMode& padding, IntArrayRef dilation, int64_t groups) {
  return conv1d_padding_op(input, weight, bias, stride, padding.name, dilation, groups);
}
Tensor conv2d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
              IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  return conv2d_op(input, weight, bias, stride, padding, dilation, groups);
}
Tensor conv2d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
              IntArrayRef stride, const PaddingMode& padding, IntArrayRef dilation, int64_t groups) {
  return conv2d_padding_op(input, weight, bias, stride, padding.name, dilation, groups);
}
Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                        IntArrayRef stride, IntArrayRef padding, IntArrayRef output_padding,
                        int64_t groups, IntArrayRef dilation) {
  return conv_transpose2d_op(input, weight, bias, stride, padding, output_padding, groups, dilation);
}

Tensor conv3d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
              IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  return dispatch::call<conv3d_impl>(OpId::conv3d, input, weight, bias, stride, padding, dilation,
                                     groups);
}
Tensor conv3d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
              IntArrayRef stride, const std::string& padding, IntArrayRef dilation, int64_t groups) {
  return dispatch::call<conv3d_padding_impl>(OpId::conv3d_padding, input, weight, bias, stride,
                                             padding, dilation, groups);
}
Tensor conv_transpose1d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                        IntArrayRef stride, IntArrayRef padding, IntArrayRef output_padding,
                        int64_t groups, IntArrayRef dilation) {
  return dispatch::call<conv_transpose_nd_impl<1>>(OpId::conv_transpose1d, input, weight, bias,
                                                   stride, padding, output_padding, groups, dilation);
}
Tensor conv_transpose3d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                        IntArrayRef stride, IntArrayRef padding, IntArrayRef output_padding,
                        int64_t groups, IntArrayRef dilation) {
  return dispatch::call<conv_transpose_nd_impl<3>>(OpId::conv_transpose3d_input, input, weight, bias,
                                                   stride, padding, output_padding, groups, dilation);
}
namespace {
Tensor conv3d_op(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                 IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  return conv3d(input, weight, bias, stride, padding, dilation, groups);
}
Tensor conv3d_padding_op(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                         IntArrayRef stride, const std::string& padding, IntArrayRef dilation,
                         int64_t groups) {
  return conv3d(input, weight, bias, stride, padding, dilation, groups);
}
}  // namespace

EMBER_REGISTER_OP(convolution, &convolution_op);
EMBER_REGISTER_OP(convolution_backward, &convolution_backward_op);
EMBER_REGISTER_OP(conv1d, &conv1d_op);
EMBER_REGISTER_OP(conv1d_padding, &conv1d_padding_op);
EMBER_REGISTER_OP(conv2d, &conv2d_op);
EMBER_REGISTER_OP(conv2d_padding, &conv2d_padding_op);
EMBER_REGISTER_OP(conv_transpose2d_input, &conv_transpose2d_op);
EMBER_REGISTER_OP(conv3d, &conv3d_op);
EMBER_REGISTER_OP(conv3d_padding, &conv3d_padding_op);
EMBER_REGISTER_OP(conv_transpose1d, &conv_transpose1d);
EMBER_REGISTER_OP(conv_transpose3d_input, &conv_transpose3d);

namespace ops::detail {

Tensor conv2d_fused_inference(const Tensor& input, const Tensor& weight, const Tensor& bias,
                              IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                              int64_t groups, cpu::ConvEpilogue epilogue, const Tensor& residual) {
  const Params p = check_conv(input, weight, bias, stride, padding, dilation, false, {0}, groups);
  const MemoryFormat f = conv_format(input, weight);
  const std::vector<int64_t> sizes = output_sizes(input, weight, p);
  const bool add = residual.defined();
  if (add && !residual.sizes().equals(sizes)) return Tensor();
  Tensor out = empty(sizes, TensorOptions(input.dtype()).device(input.device()), f);
  if (out.numel() == 0) return out;
  if (add) out.copy_(residual);
  epilogue.add_to_output = add;
  const Tensor x = dense_in(input, f), w = dense_weight(weight, f);
  const std::optional<Tensor> b = bias.defined() ? std::optional<Tensor>(bias.contiguous()) : std::nullopt;
  if (cpu::conv_forward_onednn(out, x, w, b, p.geo, epilogue)) return out;
  // No fused primitive: the same steps unfused.
  Tensor y = empty(sizes, TensorOptions(input.dtype()).device(input.device()), f);
  cpu::conv_forward(y, x, w, b, p.geo);
  if (add) y.add_(out);
  switch (epilogue.activation) {
    case cpu::ConvEpilogue::Activation::None: return y;
    case cpu::ConvEpilogue::Activation::ReLU: return y.relu_();
    case cpu::ConvEpilogue::Activation::Clip:
      return y.clamp_(Scalar(static_cast<double>(epilogue.clip_min)),
                      Scalar(static_cast<double>(epilogue.clip_max)));
  }
  return y;
}

}  // namespace ops::detail

}  // namespace ember
