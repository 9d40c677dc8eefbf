// quantized::conv3d* and quantized::conv_transpose{1,2,3}d* (PyTorch 1.13's schemas): the packed
// objects (packed_params_nd.h), their checks with each engine's texts, and the ops. The
// arithmetic is src/backends/cpu/quantized/qconv_nd.cpp.
#include "dispatch/boxing.h"
#include "ember/ops/factory.h"
#include "packed_params.h"
#include "packed_params_nd.h"
#include "quantizer.h"

namespace ember::quantized {

using dispatch::OpId;
using detail::needs_quantized;
using detail::packed_or_throw;
namespace qk = cpu::quantized;

namespace {

std::vector<int64_t> with_leading(int64_t first, IntArrayRef rest) {
  std::vector<int64_t> v{first};
  v.insert(v.end(), rest.begin(), rest.end());
  return v;
}

Tensor q_unsqueeze(const Tensor& q, int64_t dim) {
  return qtensor_over(codes_view(q).unsqueeze(dim), get_quantizer_ptr(q));
}
Tensor q_squeeze(const Tensor& q, int64_t dim) {
  return qtensor_over(codes_view(q).squeeze(dim), get_quantizer_ptr(q));
}

// Weight scales / zero points per output channel as the kernel takes them.
void weight_qparams(const Tensor& w, bool transpose, int64_t out_ch, bool qnnp,
                    std::vector<double>& scales, std::vector<int64_t>& zps, const char* op) {
  const QScheme scheme = qscheme(w);
  if (scheme == QScheme::PerTensorAffine || scheme == QScheme::PerTensorSymmetric) {
    scales = {q_scale(w)};
    zps = {q_zero_point(w)};
    return;
  }
  EMBER_CHECK(!transpose || qnnp, "Per Channel Quantization is currently disabled for "
              "transposed conv");
  const int64_t axis = q_per_channel_axis(w);
  // A direct convolution's output channels are dimension 0; a transposed one's, dimension 1
  // (with one group, the only case where one scale per weight slice is one per output channel).
  const int64_t want = transpose ? 1 : 0;
  EMBER_CHECK(axis == want && (!transpose || w.size(1) == out_ch), op,
              ": a per-channel weight must be quantized along its output channels (axis ", want,
              transpose ? ", with groups=1" : "", "), got axis ", axis);
  Tensor s = q_per_channel_scales(w).to(kFloat64).contiguous();
  Tensor z = q_per_channel_zero_points(w).to(kInt64).contiguous();
  scales.assign(s.data_ptr<double>(), s.data_ptr<double>() + s.numel());
  zps.assign(z.data_ptr<int64_t>(), z.data_ptr<int64_t>() + z.numel());
}

}  // namespace

void ConvNdPackedParams::init(const Tensor& weight, const std::optional<Tensor>& bias,
                              std::vector<int64_t> stride, std::vector<int64_t> padding,
                              std::vector<int64_t> output_padding, std::vector<int64_t> dilation,
                              int64_t groups, bool transpose, QFormula formula, const char* op) {
  const bool qnnp = formula == QFormula::Qnnpack;
  const size_t sd = stride.size();
  const int64_t wdim = static_cast<int64_t>(sd) + 2;
  EMBER_CHECK(weight.is_quantized(), op, ": expected a quantized weight, got a tensor of dtype "
              "ember.", dtype_name(weight.dtype()));
  EMBER_CHECK(weight.dtype() == kQInt8, op, ": expected a weight of dtype ember.qint8, got ember.",
              dtype_name(weight.dtype()));
  if (qnnp) {
    EMBER_CHECK(weight.dim() == wdim, "quantized::conv_prepack (qnnpack): Weights are expected "
                "to have ", wdim, " dimensions, found shape ", weight.sizes());
    EMBER_CHECK(padding.size() == sd, "quantized::conv_prepack (qnnpack): Specify top/left input "
                "padding only. bottom/right padding assumed to be equal to top/left");
    EMBER_CHECK(dilation.size() == sd, "quantized::conv_prepack (qnnpack): ", sd,
                "D convolution expects dilation to have ", sd, " elements.");
    EMBER_CHECK(output_padding.size() == sd, "quantized::conv_prepack (qnnpack): Specify "
                "top/left output padding only. bottom/right padding assumed to be equal to "
                "top/left");
  } else {
    EMBER_CHECK(weight.dim() == wdim, "Weights are expected to have ", wdim, " dimensions");
    EMBER_CHECK(padding.size() == sd, "Specify front/top/left padding only. end/bottom/right "
                "padding assumed to be equal to front/top/left");
    EMBER_CHECK(output_padding.size() == sd, "quantized::conv_prepack: Specify front/top/left "
                "output padding only. end/bottom/right output padding assumed to be equal to "
                "front/top/left.");
    EMBER_CHECK(dilation.size() == sd, "dilation should contain ", sd, " elements for ", sd,
                "D convolution.");
    for (int64_t v : output_padding)
      EMBER_CHECK(v == 0, "quantized::conv_prepack: ONEDNN only supports zero output_padding.");
  }
  EMBER_CHECK(groups > 0, op, ": groups must be a positive integer, got ", groups);
  const int64_t out_ch = transpose ? weight.size(1) * groups : weight.size(0);
  const int64_t in_ch = transpose ? weight.size(0) : weight.size(1) * groups;
  EMBER_CHECK(weight.size(0) % groups == 0, "Given groups=", groups,
              ", expected weight to be divisible by ", groups,
              " at dimension 0, but got weight of size ", weight.sizes(), " instead");
  for (size_t i = 0; i < sd; ++i) {
    EMBER_CHECK(stride[i] > 0, op, ": stride should be positive, got ", IntArrayRef(stride));
    EMBER_CHECK(dilation[i] > 0, op, ": dilation should be positive, got ", IntArrayRef(dilation));
    EMBER_CHECK(padding[i] >= 0, op, ": padding should be non-negative, got ", IntArrayRef(padding));
    EMBER_CHECK(output_padding[i] >= 0 &&
                    (output_padding[i] < stride[i] || output_padding[i] < dilation[i]),
                op, ": output padding must be smaller than either stride or dilation, got "
                "output_padding ", IntArrayRef(output_padding), ", stride ", IntArrayRef(stride),
                ", dilation ", IntArrayRef(dilation));
  }
  if (bias) {
    const bool ok = bias->dim() == 1 && bias->size(0) == out_ch;
    if (qnnp) {
      EMBER_CHECK(ok, "quantized::conv2d_prepack (qnnpack): expected bias to be 1-dimensional "
                  "with ", out_ch, " elements, but got bias of size ", bias->sizes(),
                  " instead. (weight dimensions: ", weight.sizes(), " , transpose: ",
                  transpose ? "True" : "False", ").");
    } else {
      EMBER_CHECK(bias->dim() == 1, "bias should be a vector (1D Tensor)");
      EMBER_CHECK(ok, "bias should have K elements: ", out_ch);
    }
    EMBER_CHECK(is_floating(bias->dtype()), op, ": expected a floating-point bias, got ember.",
                dtype_name(bias->dtype()));
  }
  std::vector<double> scales;
  std::vector<int64_t> zps;
  weight_qparams(weight, transpose, out_ch, qnnp, scales, zps, op);
  for (int64_t z : zps)
    EMBER_CHECK(qnnp || z == 0, "quantized::qconv_prepack: ONEDNN only supports symmetric "
                "quantization of weight, whose zero point must be 0.");

  weight_ = weight;
  bias_ = bias ? bias : (qnnp ? std::optional<Tensor>(zeros({out_ch})) : std::nullopt);
  qk::QConvNdGeometry g;
  g.in_channels = in_ch;
  g.out_channels = out_ch;
  g.groups = groups;
  g.transposed = transpose;
  const size_t off = 3 - sd;
  for (size_t i = 0; i < sd; ++i) {
    g.kernel[off + i] = weight.size(static_cast<int64_t>(2 + i));
    g.stride[off + i] = stride[i];
    g.padding[off + i] = padding[i];
    g.dilation[off + i] = dilation[i];
    g.output_padding[off + i] = output_padding[i];
  }
  stride_ = std::move(stride);
  padding_ = std::move(padding);
  output_padding_ = std::move(output_padding);
  dilation_ = std::move(dilation);
  groups_ = groups;
  transpose_ = transpose;
  Tensor codes = codes_view(weight).contiguous();
  Tensor b = bias_ ? bias_->to(kFloat32).contiguous() : Tensor();
  kernel_ = qk::PackedQConvNd::create(formula, g, static_cast<const int8_t*>(codes.data_ptr()),
                                      scales.data(), zps.data(),
                                      static_cast<int64_t>(scales.size()),
                                      b.defined() ? b.data_ptr<float>() : nullptr);
}

Tensor ConvNdPackedParams::run(const Tensor& qx, double output_scale, int64_t output_zero_point,
                               bool relu, const char* op) const {
  const bool qnnp = formula() == QFormula::Qnnpack;
  const int64_t sd = spatial_dims();
  EMBER_CHECK(qx.dim() == sd + 2, op, "(): Expected activation tensor to have ", sd + 2,
              " dimensions, got ", qx.dim());
  EMBER_CHECK(qx.dtype() == kQUInt8, op, qnnp ? " (qnnpack)" : " (ONEDNN)",
              ": data type of input should be QUint8.");
  EMBER_CHECK(qscheme(qx) == QScheme::PerTensorAffine,
              "Expected quantizer->qscheme() == kPerTensorAffine to be true, but got false.  "
              "(Could this error message be improved?  If so, please report an enhancement "
              "request to PyTorch.)");
  const auto& g = kernel_->geometry();
  if (qnnp) {
    EMBER_CHECK(qx.size(1) == g.in_channels, "Input channel size of weight and bias must match.");
  } else {
    EMBER_CHECK(qx.size(1) == g.in_channels, op, " (ONEDNN): input channel number should be ",
                g.in_channels, ", but got ", qx.size(1));
  }
  qk::Dims3 in{1, 1, 1};
  for (int64_t i = 0; i < sd; ++i) in[3 - sd + i] = qx.size(2 + i);
  const qk::Dims3 o = g.out_size(in);
  EMBER_CHECK(o[0] > 0 && o[1] > 0 && o[2] > 0, op, " (", formula_name(formula()),
              "): each dimension of output tensor should be greater than 0.");
  std::vector<int64_t> shape{qx.size(0), g.out_channels};
  for (int64_t i = 0; i < sd; ++i) shape.push_back(o[3 - sd + i]);
  const MemoryFormat fmt = sd == 3 ? MemoryFormat::ChannelsLast3d : MemoryFormat::ChannelsLast;
  Tensor out = _empty_affine_quantized(shape, kQUInt8, output_scale, output_zero_point, fmt,
                                       qx.device());
  if (out.numel() == 0 || out.is_meta()) return out;
  Tensor x = codes_view(qx).contiguous(fmt);
  kernel_->run(static_cast<const uint8_t*>(x.data_ptr()), qx.size(0), in, q_scale(qx),
               q_zero_point(qx), static_cast<uint8_t*>(out.data_ptr()), output_scale,
               output_zero_point, relu);
  return out;
}

std::vector<int64_t> ConvNdPackedParams::config_values() const {
  std::vector<int64_t> c{spatial_dims()};
  for (const auto* v : {&stride_, &padding_, &dilation_, &output_padding_})
    c.insert(c.end(), v->begin(), v->end());
  c.push_back(groups_);
  c.push_back(transpose_ ? 1 : 0);
  return c;
}

namespace {

// Splits a version-2 configuration of `sd` spatial dimensions into its parts.
struct Config {
  std::vector<int64_t> stride, padding, dilation, output_padding;
  int64_t groups;
  bool transpose;
};
Config parse_config(const std::vector<int64_t>& c, int64_t sd, const char* cls) {
  const size_t n = static_cast<size_t>(4 * sd + 3);
  EMBER_CHECK(c.size() == n && c[0] == sd, cls, ".__setstate__: expected the configuration of a ",
              sd, "-d convolution (", n, " values starting with ", sd, "), got ", c.size(),
              " values");
  auto part = [&](int64_t i) {
    return std::vector<int64_t>(c.begin() + 1 + i * sd, c.begin() + 1 + (i + 1) * sd);
  };
  return {part(0), part(1), part(2), part(3), c[n - 2], c[n - 1] != 0};
}

Tensor copy_qtensor(const Tensor& q) {
  return qtensor_over(codes_view(q).clone(), get_quantizer_ptr(q));
}
std::optional<Tensor> copy_optional(const std::optional<Tensor>& t) {
  if (!t) return std::nullopt;
  Tensor c = t->detach().clone();
  if (t->requires_grad()) c.requires_grad_(true);
  return c;
}

template <class P>
intrusive_ptr<P> pack(const Tensor& weight, const std::optional<Tensor>& bias,
                      std::vector<int64_t> stride, std::vector<int64_t> padding,
                      std::vector<int64_t> output_padding, std::vector<int64_t> dilation,
                      int64_t groups, bool transpose, const char* op) {
  auto p = make_intrusive<P>();
  p->init(weight, bias, std::move(stride), std::move(padding), std::move(output_padding),
          std::move(dilation), groups, transpose, formula_for_active_engine(op), op);
  return p;
}

// The stride / padding / dilation list lengths a spatial rank expects, with the engine's texts.
void check_lists(IntArrayRef stride, int64_t sd, const char* op) {
  if (formula_for_active_engine(op) == QFormula::Qnnpack) {
    EMBER_CHECK(static_cast<int64_t>(stride.size()) == sd, "quantized::conv_prepack (qnnpack): ",
                sd, "D convolution expects stride to have ", sd, " elements.");
  } else {
    EMBER_CHECK(static_cast<int64_t>(stride.size()) == sd, "stride should contain ", sd,
                " elements for ", sd, "D convolution.");
  }
}

}  // namespace

intrusive_ptr<Conv3dPackedParams> Conv3dPackedParams::from_state(
    const std::vector<int64_t>& config, const Tensor& weight, const std::optional<Tensor>& bias) {
  Config c = parse_config(config, 3, "Conv3dPackedParamsBase");
  return pack<Conv3dPackedParams>(weight, bias, c.stride, c.padding, c.output_padding, c.dilation,
                                  c.groups, c.transpose,
                                  c.transpose ? "quantized::conv_transpose3d_prepack"
                                              : "quantized::conv3d_prepack");
}
intrusive_ptr<Conv3dPackedParams> Conv3dPackedParams::deep_copy() const {
  return from_state(config_values(), copy_qtensor(weight_), copy_optional(bias_));
}

intrusive_ptr<ConvTranspose2dPackedParams> ConvTranspose2dPackedParams::from_state(
    const std::vector<int64_t>& config, const Tensor& weight, const std::optional<Tensor>& bias) {
  Config c = parse_config(config, 2, "Conv2dPackedParamsBase");
  EMBER_CHECK(c.transpose, "Conv2dPackedParamsBase.__setstate__: expected a transposed "
              "convolution's configuration");
  return pack<ConvTranspose2dPackedParams>(weight, bias, c.stride, c.padding, c.output_padding,
                                           c.dilation, c.groups, true,
                                           "quantized::conv_transpose2d_prepack");
}
intrusive_ptr<ConvTranspose2dPackedParams> ConvTranspose2dPackedParams::deep_copy() const {
  return from_state(config_values(), copy_qtensor(weight_), copy_optional(bias_));
}

namespace {

using P3 = intrusive_ptr<Conv3dPackedParams>;
using PT = intrusive_ptr<ConvTranspose2dPackedParams>;

// ---- QuantizedCPU kernels ----
P3 conv3d_prepack_q(const Tensor& w, const std::optional<Tensor>& b, const IntArrayRef& stride,
                    const IntArrayRef& padding, const IntArrayRef& dilation, const int64_t& groups) {
  const char* op = "quantized::conv3d_prepack";
  check_lists(stride, 3, op);
  return pack<Conv3dPackedParams>(w, b, stride.vec(), padding.vec(), {0, 0, 0}, dilation.vec(),
                                  groups, false, op);
}
P3 conv_transpose3d_prepack_q(const Tensor& w, const std::optional<Tensor>& b,
                              const IntArrayRef& stride, const IntArrayRef& padding,
                              const IntArrayRef& output_padding, const IntArrayRef& dilation,
                              const int64_t& groups) {
  const char* op = "quantized::conv_transpose3d_prepack";
  check_lists(stride, 3, op);
  return pack<Conv3dPackedParams>(w, b, stride.vec(), padding.vec(), output_padding.vec(),
                                  dilation.vec(), groups, true, op);
}
PT conv_transpose2d_prepack_q(const Tensor& w, const std::optional<Tensor>& b,
                              const IntArrayRef& stride, const IntArrayRef& padding,
                              const IntArrayRef& output_padding, const IntArrayRef& dilation,
                              const int64_t& groups) {
  const char* op = "quantized::conv_transpose2d_prepack";
  check_lists(stride, 2, op);
  return pack<ConvTranspose2dPackedParams>(w, b, stride.vec(), padding.vec(), output_padding.vec(),
                                           dilation.vec(), groups, true, op);
}
// As PyTorch: a 1-d transposed convolution is packed as a 2-d one of height 1.
PT conv_transpose1d_prepack_q(const Tensor& w, const std::optional<Tensor>& b,
                              const IntArrayRef& stride, const IntArrayRef& padding,
                              const IntArrayRef& output_padding, const IntArrayRef& dilation,
                              const int64_t& groups) {
  const char* op = "quantized::conv_transpose1d_prepack";
  check_lists(stride, 1, op);
  Tensor w2 = w.is_quantized() && w.dim() == 3 ? q_unsqueeze(w, 2) : w;
  return pack<ConvTranspose2dPackedParams>(w2, b, with_leading(1, stride),
                                           with_leading(0, padding),
                                           with_leading(0, output_padding),
                                           with_leading(1, dilation), groups, true, op);
}

template <class PP>
const ConvNdPackedParams& checked(const PP& p, bool transpose, const char* op) {
  const ConvNdPackedParams& params = packed_or_throw(p, op);
  EMBER_CHECK(params.transpose() == transpose, op, ": expected packed weights of a ",
              transpose ? "transposed" : "direct (non-transposed)", " convolution");
  return params;
}

Tensor conv3d_q(const Tensor& qx, const P3& p, const double& s, const int64_t& z) {
  return checked(p, false, "quantized::conv3d").run(qx, s, z, false, "quantized::conv3d");
}
Tensor conv3d_relu_q(const Tensor& qx, const P3& p, const double& s, const int64_t& z) {
  return checked(p, false, "quantized::conv3d_relu").run(qx, s, z, true, "quantized::conv3d");
}
Tensor conv_transpose3d_q(const Tensor& qx, const P3& p, const double& s, const int64_t& z) {
  const char* op = "quantized::conv_transpose3d";
  return checked(p, true, op).run(qx, s, z, false, op);
}
Tensor conv_transpose2d_q(const Tensor& qx, const PT& p, const double& s, const int64_t& z) {
  const char* op = "quantized::conv_transpose2d";
  return checked(p, true, op).run(qx, s, z, false, op);
}
Tensor conv_transpose1d_q(const Tensor& qx, const PT& p, const double& s, const int64_t& z) {
  const char* op = "quantized::conv_transpose1d";
  const ConvNdPackedParams& params = checked(p, true, op);
  // The input gains the height dimension, so a wrong rank is reported as the 2-d op's.
  EMBER_CHECK(qx.dim() == 3, "quantized::conv_transpose2d(): Expected activation tensor to have "
              "4 dimensions, got ", qx.dim() + 1);
  return q_squeeze(params.run(q_unsqueeze(qx, 2), s, z, false, "quantized::conv_transpose2d"), 2);
}

[[maybe_unused]] const bool registered = [] {
  dispatch::register_quantized(OpId::quantized_conv3d_prepack, &conv3d_prepack_q);
  dispatch::register_quantized(OpId::quantized_conv_transpose1d_prepack, &conv_transpose1d_prepack_q);
  dispatch::register_quantized(OpId::quantized_conv_transpose2d_prepack, &conv_transpose2d_prepack_q);
  dispatch::register_quantized(OpId::quantized_conv_transpose3d_prepack, &conv_transpose3d_prepack_q);
  dispatch::register_quantized(OpId::quantized_conv3d_new, &conv3d_q);
  dispatch::register_quantized(OpId::quantized_conv3d_relu_new, &conv3d_relu_q);
  dispatch::register_quantized(OpId::quantized_conv_transpose1d, &conv_transpose1d_q);
  dispatch::register_quantized(OpId::quantized_conv_transpose2d, &conv_transpose2d_q);
  dispatch::register_quantized(OpId::quantized_conv_transpose3d, &conv_transpose3d_q);
  return true;
}();

// ---- ops on the packed object alone (the backend runs them) ----
template <class PP>
std::tuple<Tensor, std::optional<Tensor>> unpack_impl(const PP& p) {
  const ConvNdPackedParams& params = packed_or_throw(p, "quantized::conv_unpack");
  return {params.weight(), params.bias()};
}
std::tuple<Tensor, std::optional<Tensor>> unpack1d_impl(const PT& p) {
  const ConvNdPackedParams& params = packed_or_throw(p, "quantized::conv_transpose1d_unpack");
  return {q_squeeze(params.weight(), 2), params.bias()};
}
template <class PP>
std::vector<int64_t> stride_impl(const PP& p) { return packed_or_throw(p, "quantized::conv_stride").stride(); }
template <class PP>
std::vector<int64_t> padding_impl(const PP& p) { return packed_or_throw(p, "quantized::conv_padding").padding(); }
template <class PP>
std::vector<int64_t> dilation_impl(const PP& p) { return packed_or_throw(p, "quantized::conv_dilation").dilation(); }
template <class PP>
std::vector<int64_t> output_padding_impl(const PP& p) {
  return packed_or_throw(p, "quantized::conv_output_padding").output_padding();
}
template <class PP>
int64_t groups_impl(const PP& p) { return packed_or_throw(p, "quantized::conv_groups").groups(); }
template <class PP>
int64_t transpose_impl(const PP& p) { return packed_or_throw(p, "quantized::conv_transpose").transpose(); }

}  // namespace

// ---- frontends ----
Conv3dPacked conv3d_prepack(const Tensor& weight, const std::optional<Tensor>& bias,
                            IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                            int64_t groups) {
  return dispatch::call<&needs_quantized<OpId::quantized_conv3d_prepack, P3, Tensor,
                                         std::optional<Tensor>, IntArrayRef, IntArrayRef,
                                         IntArrayRef, int64_t>>(
      OpId::quantized_conv3d_prepack, weight, bias, stride, padding, dilation, groups);
}
EMBER_REGISTER_OP(quantized_conv3d_prepack, &conv3d_prepack);

#define EMBER_QCONVT_PREPACK(fn, id, Ret)                                                       \
  Ret fn(const Tensor& weight, const std::optional<Tensor>& bias, IntArrayRef stride,          \
         IntArrayRef padding, IntArrayRef output_padding, IntArrayRef dilation, int64_t groups) { \
    return dispatch::call<&needs_quantized<OpId::id, Ret, Tensor, std::optional<Tensor>,         \
                                           IntArrayRef, IntArrayRef, IntArrayRef, IntArrayRef,   \
                                           int64_t>>(OpId::id, weight, bias, stride, padding,    \
                                                     output_padding, dilation, groups);          \
  }                                                                                              \
  EMBER_REGISTER_OP(id, &fn)
EMBER_QCONVT_PREPACK(conv_transpose1d_prepack, quantized_conv_transpose1d_prepack, PT);
EMBER_QCONVT_PREPACK(conv_transpose2d_prepack, quantized_conv_transpose2d_prepack, PT);
EMBER_QCONVT_PREPACK(conv_transpose3d_prepack, quantized_conv_transpose3d_prepack, P3);
#undef EMBER_QCONVT_PREPACK

#define EMBER_QCONVND_RUN(fn, id, PP)                                                            \
  Tensor fn(const Tensor& qx, const PP& packed, double output_scale, int64_t output_zero_point) { \
    return dispatch::call<&needs_quantized<OpId::id, Tensor, Tensor, PP, double, int64_t>>(       \
        OpId::id, qx, packed, output_scale, output_zero_point);                                   \
  }                                                                                               \
  EMBER_REGISTER_OP(id, &fn)
EMBER_QCONVND_RUN(conv3d, quantized_conv3d_new, P3);
EMBER_QCONVND_RUN(conv3d_relu, quantized_conv3d_relu_new, P3);
EMBER_QCONVND_RUN(conv_transpose1d, quantized_conv_transpose1d, PT);
EMBER_QCONVND_RUN(conv_transpose2d, quantized_conv_transpose2d, PT);
EMBER_QCONVND_RUN(conv_transpose3d, quantized_conv_transpose3d, P3);
#undef EMBER_QCONVND_RUN

std::tuple<Tensor, std::optional<Tensor>> conv3d_unpack(const P3& p) {
  return dispatch::call<&unpack_impl<P3>>(OpId::quantized_conv3d_unpack, p);
}
EMBER_REGISTER_OP(quantized_conv3d_unpack, &conv3d_unpack);
std::tuple<Tensor, std::optional<Tensor>> conv_transpose3d_unpack(const P3& p) {
  return dispatch::call<&unpack_impl<P3>>(OpId::quantized_conv_transpose3d_unpack, p);
}
EMBER_REGISTER_OP(quantized_conv_transpose3d_unpack, &conv_transpose3d_unpack);
std::tuple<Tensor, std::optional<Tensor>> conv_transpose2d_unpack(const PT& p) {
  return dispatch::call<&unpack_impl<PT>>(OpId::quantized_conv_transpose2d_unpack, p);
}
EMBER_REGISTER_OP(quantized_conv_transpose2d_unpack, &conv_transpose2d_unpack);
std::tuple<Tensor, std::optional<Tensor>> conv_transpose1d_unpack(const PT& p) {
  return dispatch::call<&unpack1d_impl>(OpId::quantized_conv_transpose1d_unpack, p);
}
EMBER_REGISTER_OP(quantized_conv_transpose1d_unpack, &conv_transpose1d_unpack);

#define EMBER_QCONVND_ACCESSOR(fn, id, PP, Ret, impl)                   \
  Ret fn(const PP& p) { return dispatch::call<&impl<PP>>(OpId::id, p); } \
  EMBER_REGISTER_OP(id, &fn)
#define EMBER_QCONVND_ACCESSORS(prefix, PP)                                                        \
  EMBER_QCONVND_ACCESSOR(prefix##_stride, quantized_##prefix##_stride, PP, std::vector<int64_t>,   \
                         stride_impl);                                                             \
  EMBER_QCONVND_ACCESSOR(prefix##_padding, quantized_##prefix##_padding, PP, std::vector<int64_t>, \
                         padding_impl);                                                            \
  EMBER_QCONVND_ACCESSOR(prefix##_dilation, quantized_##prefix##_dilation, PP,                     \
                         std::vector<int64_t>, dilation_impl);                                     \
  EMBER_QCONVND_ACCESSOR(prefix##_output_padding, quantized_##prefix##_output_padding, PP,         \
                         std::vector<int64_t>, output_padding_impl);                               \
  EMBER_QCONVND_ACCESSOR(prefix##_groups, quantized_##prefix##_groups, PP, int64_t, groups_impl);  \
  EMBER_QCONVND_ACCESSOR(prefix##_transpose, quantized_##prefix##_transpose, PP, int64_t,          \
                         transpose_impl)
EMBER_QCONVND_ACCESSORS(conv3d, P3);
EMBER_QCONVND_ACCESSORS(conv_transpose2d, PT);
EMBER_QCONVND_ACCESSORS(conv_transpose3d, P3);
#undef EMBER_QCONVND_ACCESSORS
#undef EMBER_QCONVND_ACCESSOR

}  // namespace ember::quantized
