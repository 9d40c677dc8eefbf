#include "packed_params.h"

#include "dispatch/dispatcher.h"
#include "ember/ops/factory.h"
#include "quantizer.h"

namespace ember::quantized {

// Note [Packed params and engines]
// PyTorch decides a quantized conv's or linear's numerics when it packs the weight: the packed
// object is the engine's (PackedConvWeightsQnnp, PackedConvWeightsOnednn) and keeps computing
// that engine's way whatever engine is active when it runs (spec § 1.4; checklist 84: packed
// under qnnpack, run under onednn, qnnpack's numbers). ember does the same: prepack reads the
// active engine once, turns it into a formula (qnnpack -> QFormula::Qnnpack, onednn and x86 ->
// QFormula::Onednn) and the kernel packed for that formula is the only one the object ever
// runs, so nothing computes with another engine's formula silently. Copies made through
// __getstate__ / __setstate__ (deepcopy, pickle) and modules' load_state_dict re-pack for the
// engine active then, as PyTorch's do. The checks at prepack time are the engine's, with its
// texts: onednn refuses a weight zero point other than 0, qnnpack takes it; qnnpack stores a
// missing bias as zeros (and unpack gives those back), onednn keeps None.

QFormula formula_for_active_engine(const char* op) {
  switch (quantized_engine()) {
    case QEngine::QNNPACK: return QFormula::Qnnpack;
    case QEngine::ONEDNN:
    case QEngine::X86:
    case QEngine::FBGEMM: return QFormula::Onednn;
    case QEngine::NoQEngine: break;
  }
  EMBER_FAIL("Didn't find engine for operation ", op, " NoQEngine");
}

const char* formula_name(QFormula f) { return f == QFormula::Qnnpack ? "qnnpack" : "onednn"; }

namespace {

// A weight's quantization parameters as the kernels take them: one (per tensor) or one per
// output channel (per channel along axis 0).
struct WeightQParams {
  std::vector<double> scales;
  std::vector<int64_t> zero_points;
};

WeightQParams weight_qparams(const Tensor& w, const char* op) {
  WeightQParams p;
  const QScheme scheme = qscheme(w);
  if (scheme == QScheme::PerTensorAffine || scheme == QScheme::PerTensorSymmetric) {
    p.scales = {q_scale(w)};
    p.zero_points = {q_zero_point(w)};
    return p;
  }
  EMBER_CHECK(scheme == QScheme::PerChannelAffine || scheme == QScheme::PerChannelSymmetric, op,
              ": unsupported qscheme of the weight (expected per tensor or per channel affine)");
  EMBER_CHECK(q_per_channel_axis(w) == 0, op,
              ": a per-channel weight must be quantized along axis 0 (its output channels), "
              "got axis ", q_per_channel_axis(w));
  Tensor s = q_per_channel_scales(w).to(kFloat64).contiguous();
  Tensor z = q_per_channel_zero_points(w).to(kInt64).contiguous();
  p.scales.assign(s.data_ptr<double>(), s.data_ptr<double>() + s.numel());
  p.zero_points.assign(z.data_ptr<int64_t>(), z.data_ptr<int64_t>() + z.numel());
  return p;
}

void check_weight_dtype(const Tensor& w, const char* op) {
  EMBER_CHECK(w.is_quantized(), op, ": expected a quantized weight, got a tensor of dtype ember.",
              dtype_name(w.dtype()));
  EMBER_CHECK(w.dtype() == kQInt8, op, ": expected a weight of dtype ember.qint8, got ember.",
              dtype_name(w.dtype()));
}

bool all_zero(const std::vector<int64_t>& v) {
  for (int64_t z : v)
    if (z != 0) return false;
  return true;
}

// The bias as the kernels read it: float32, contiguous (PyTorch's kernels take float biases;
// the given tensor, whatever its float dtype, is what unpack returns).
Tensor kernel_bias(const std::optional<Tensor>& bias) {
  if (!bias) return Tensor();
  return bias->to(kFloat32).contiguous();
}

// An independent copy of a quantized tensor (same quantizer, which is immutable), and of a
// float one.
Tensor copy_qtensor(const Tensor& q) { return qtensor_over(codes_view(q).clone(), get_quantizer_ptr(q)); }
std::optional<Tensor> copy_optional(const std::optional<Tensor>& t) {
  if (!t) return std::nullopt;
  Tensor c = t->detach().clone();  // a leaf, as deepcopy makes it
  if (t->requires_grad()) c.requires_grad_(true);
  return c;
}

// The int8 codes of a weight, contiguous in its logical (row-major) order (a view of its
// storage when it already is).
Tensor weight_codes(const Tensor& w) { return codes_view(w).contiguous(); }

}  // namespace

// ---- conv ----

intrusive_ptr<ConvPackedParams> ConvPackedParams::make(
    const Tensor& weight, const std::optional<Tensor>& bias, std::vector<int64_t> stride,
    std::vector<int64_t> padding, std::vector<int64_t> dilation, int64_t groups, QFormula formula,
    const char* op) {
  const bool qnnp = formula == QFormula::Qnnpack;
  check_weight_dtype(weight, op);
  if (qnnp) {
    EMBER_CHECK(weight.dim() == 4, "quantized::conv_prepack (qnnpack): Weights are expected to "
                "have 4 dimensions, found shape ", weight.sizes());
    EMBER_CHECK(stride.size() == 2, "quantized::conv_prepack (qnnpack): 2D convolution expects "
                "stride to have 2 elements.");
    EMBER_CHECK(padding.size() == 2, "quantized::conv_prepack (qnnpack): Specify top/left input "
                "padding only. bottom/right padding assumed to be equal to top/left");
    EMBER_CHECK(dilation.size() == 2, "quantized::conv_prepack (qnnpack): 2D convolution expects "
                "dilation to have 2 elements.");
  } else {
    EMBER_CHECK(weight.dim() == 4, "Weights are expected to have 4 dimensions");
    EMBER_CHECK(stride.size() == 2, "stride should contain 2 elements for 2D convolution.");
    EMBER_CHECK(padding.size() == 2, "Specify front/top/left padding only. end/bottom/right "
                "padding assumed to be equal to front/top/left");
    EMBER_CHECK(dilation.size() == 2, "dilation should contain 2 elements for 2D convolution.");
  }
  const int64_t out_ch = weight.size(0);
  EMBER_CHECK(groups > 0, op, ": groups must be a positive integer, got ", groups);
  EMBER_CHECK(out_ch % groups == 0, "Given groups=", groups, ", expected weight to be divisible by ",
              groups, " at dimension 0, but got weight of size ", weight.sizes(), " instead");
  for (int i = 0; i < 2; ++i) {
    EMBER_CHECK(stride[i] > 0, op, ": stride should be positive, got ", IntArrayRef(stride));
    EMBER_CHECK(dilation[i] > 0, op, ": dilation should be positive, got ",
                IntArrayRef(dilation));
    EMBER_CHECK(padding[i] >= 0, op, ": padding should be non-negative, got ",
                IntArrayRef(padding));
  }
  if (bias) {
    const bool ok = bias->dim() == 1 && bias->size(0) == out_ch;
    if (qnnp) {
      EMBER_CHECK(ok, op, " (qnnpack): expected bias to be 1-dimensional with ", out_ch,
                  " elements, but got bias of size ", bias->sizes(),
                  " instead. (weight dimensions: ", weight.sizes(), " , transpose: False).");
    } else {
      EMBER_CHECK(bias->dim() == 1, "bias should be a vector (1D Tensor)");
      EMBER_CHECK(ok, "bias should have K elements: ", out_ch);
    }
    EMBER_CHECK(is_floating(bias->dtype()), op, ": expected a floating-point bias, got ember.",
                dtype_name(bias->dtype()));
  }
  WeightQParams qp = weight_qparams(weight, op);
  EMBER_CHECK(qp.scales.size() == 1 || static_cast<int64_t>(qp.scales.size()) == out_ch, op,
              ": expected ", out_ch, " per-channel weight scales, got ", qp.scales.size());
  EMBER_CHECK(qnnp || all_zero(qp.zero_points),
              "quantized::qconv_prepack: ONEDNN only supports symmetric quantization of weight, "
              "whose zero point must be 0.");

  auto p = make_intrusive<ConvPackedParams>();
  p->weight_ = weight;
  // qnnpack packs a missing bias as zeros and unpack gives those back (PyTorch 1.13).
  p->bias_ = bias ? bias : (qnnp ? std::optional<Tensor>(zeros({out_ch})) : std::nullopt);
  p->stride_ = std::move(stride);
  p->padding_ = std::move(padding);
  p->dilation_ = std::move(dilation);
  p->groups_ = groups;
  cpu::quantized::QConvGeometry g{};
  g.in_channels = weight.size(1) * groups;
  g.out_channels = out_ch;
  g.groups = groups;
  g.kernel_h = weight.size(2);
  g.kernel_w = weight.size(3);
  g.stride_h = p->stride_[0];
  g.stride_w = p->stride_[1];
  g.pad_h = p->padding_[0];
  g.pad_w = p->padding_[1];
  g.dilation_h = p->dilation_[0];
  g.dilation_w = p->dilation_[1];
  Tensor codes = weight_codes(weight);
  Tensor b = kernel_bias(p->bias_);
  p->kernel_ = cpu::quantized::PackedQConv2d::create(
      formula, g, static_cast<const int8_t*>(codes.data_ptr()), qp.scales.data(),
      qp.zero_points.data(), static_cast<int64_t>(qp.scales.size()),
      b.defined() ? b.data_ptr<float>() : nullptr);
  return p;
}

Tensor ConvPackedParams::run(const Tensor& qx, double output_scale, int64_t output_zero_point,
                             bool relu, const char* op) const {
  const bool qnnp = formula() == QFormula::Qnnpack;
  EMBER_CHECK(qx.dim() == 4, op, "(): Expected activation tensor to have 4 dimensions, got ",
              qx.dim());
  EMBER_CHECK(qx.dtype() == kQUInt8, op, qnnp ? " (qnnpack)" : " (ONEDNN)",
              ": data type of input should be QUint8.");
  EMBER_CHECK(qscheme(qx) == QScheme::PerTensorAffine,
              "Expected quantizer->qscheme() == kPerTensorAffine to be true, but got false.  "
              "(Could this error message be improved?  If so, please report an enhancement "
              "request to PyTorch.)");
  const auto& g = kernel_->geometry();
  EMBER_CHECK(qx.size(1) == g.in_channels, "Given groups=", groups_, ", weight of size ",
              weight_.sizes(), ", expected input", qx.sizes(), " to have ", g.in_channels,
              " channels, but got ", qx.size(1), " channels instead");
  const int64_t n = qx.size(0), h = qx.size(2), w = qx.size(3);
  const int64_t oh = g.out_h(h), ow = g.out_w(w);
  EMBER_CHECK(oh > 0 && ow > 0, op, " (", formula_name(formula()),
              "): each dimension of output tensor should be greater than 0.");
  Tensor out = _empty_affine_quantized({n, g.out_channels, oh, ow}, kQUInt8, output_scale,
                                       output_zero_point, MemoryFormat::ChannelsLast, qx.device());
  if (out.numel() == 0 || out.is_meta()) return out;
  // The input's codes in NHWC order: its own storage when it is channels_last already; an
  // NCHW-contiguous input (a quantize_per_tensor output) by the dedicated reordering.
  Tensor x = codes_view(qx);
  if (!x.is_contiguous(MemoryFormat::ChannelsLast) && x.is_contiguous() && x.is_cpu()) {
    Tensor nhwc = empty(x.sizes(), TensorOptions().dtype(kByte), MemoryFormat::ChannelsLast);
    cpu::quantized::nchw_to_nhwc(static_cast<const uint8_t*>(x.data_ptr()), n, x.size(1), h * w,
                                 static_cast<uint8_t*>(nhwc.data_ptr()));
    x = nhwc;
  } else {
    x = x.contiguous(MemoryFormat::ChannelsLast);
  }
  kernel_->run(static_cast<const uint8_t*>(x.data_ptr()), n, h, w, q_scale(qx),
               q_zero_point(qx), static_cast<uint8_t*>(out.data_ptr()), output_scale,
               output_zero_point, relu);
  return out;
}

std::vector<int64_t> ConvPackedParams::config_values() const {
  std::vector<int64_t> c{2};
  for (const auto* v : {&stride_, &padding_, &dilation_, &output_padding_})
    c.insert(c.end(), v->begin(), v->end());
  c.push_back(groups_);
  c.push_back(transpose() ? 1 : 0);
  return c;
}

intrusive_ptr<ConvPackedParams> ConvPackedParams::from_state(const std::vector<int64_t>& config,
                                                             const Tensor& weight,
                                                             const std::optional<Tensor>& bias) {
  EMBER_CHECK(config.size() == 11 && config[0] == 2,
              "Conv2dPackedParamsBase.__setstate__: expected the configuration of a 2-d "
              "convolution (11 values starting with 2), got ", config.size(), " values");
  EMBER_CHECK(config[10] == 0, "Conv2dPackedParamsBase.__setstate__: transposed convolutions "
              "are not supported");
  return make(weight, bias, {config[1], config[2]}, {config[3], config[4]},
              {config[5], config[6]}, config[9], formula_for_active_engine("quantized::conv2d_prepack"),
              "quantized::conv2d_prepack");
}

intrusive_ptr<ConvPackedParams> ConvPackedParams::deep_copy() const {
  return from_state(config_values(), copy_qtensor(weight_), copy_optional(bias_));
}

// ---- linear ----

intrusive_ptr<LinearPackedParams> LinearPackedParams::make(const Tensor& weight,
                                                           const std::optional<Tensor>& bias,
                                                           QFormula formula) {
  const char* op = "quantized::linear_prepack";
  const bool qnnp = formula == QFormula::Qnnpack;
  check_weight_dtype(weight, op);
  if (qnnp) {
    EMBER_CHECK(weight.dim() == 2, op, " (qnnpack): Weight tensor rank should be == 2");
  } else {
    EMBER_CHECK(weight.dim() == 2, "The weight tensor for ", op,
                " (onednn) should be 2-dimensional.");
  }
  const int64_t out_f = weight.size(0), in_f = weight.size(1);
  if (bias) {
    const bool ok = bias->dim() == 1 && bias->size(0) == out_f;
    if (qnnp) {
      EMBER_CHECK(ok, op, " (qnnpack): Given weight of size ", weight.sizes(),
                  ", expected bias to be 1-dimensional with ", out_f,
                  " elements, but got bias of size ", bias->sizes(), " instead");
    } else {
      EMBER_CHECK(bias->dim() == 1, "bias should be a vector (1D Tensor)");
      EMBER_CHECK(ok, "bias should have N elements: ", out_f, ", but got ", bias->size(0));
    }
    EMBER_CHECK(is_floating(bias->dtype()), op, ": expected a floating-point bias, got ember.",
                dtype_name(bias->dtype()));
  }
  WeightQParams qp = weight_qparams(weight, op);
  EMBER_CHECK(qp.scales.size() == 1 || static_cast<int64_t>(qp.scales.size()) == out_f, op,
              ": expected ", out_f, " per-channel weight scales, got ", qp.scales.size());
  if (!qnnp) {
    for (int64_t z : qp.zero_points)
      EMBER_CHECK(z == 0, op, ": ONEDNN only supports symmetric quantization of weight, whose "
                  "zero point must be 0, but got ", z);
  }
  auto p = make_intrusive<LinearPackedParams>();
  p->weight_ = weight;
  p->bias_ = bias ? bias : (qnnp ? std::optional<Tensor>(zeros({out_f})) : std::nullopt);
  Tensor codes = weight_codes(weight);
  Tensor b = kernel_bias(p->bias_);
  p->kernel_ = cpu::quantized::PackedQLinear::create(
      formula, in_f, out_f, static_cast<const int8_t*>(codes.data_ptr()), qp.scales.data(),
      qp.zero_points.data(), static_cast<int64_t>(qp.scales.size()),
      b.defined() ? b.data_ptr<float>() : nullptr);
  return p;
}

intrusive_ptr<LinearPackedParams> LinearPackedParams::deep_copy() const {
  return make(copy_qtensor(weight_), copy_optional(bias_),
              formula_for_active_engine("quantized::linear_prepack"));
}

namespace {

void check_linear_input(const Tensor& x, int64_t in_f, int64_t out_f, bool qnnp, const char* op) {
  if (qnnp) EMBER_CHECK(x.dim() >= 2, op, "(): Input tensor rank should be >= 2");
  EMBER_CHECK(x.dim() >= 1, op, "(): Input tensor rank should be >= 1");
  const int64_t k = x.size(-1);
  EMBER_CHECK(k == in_f, "mat1 and mat2 shapes cannot be multiplied (", x.numel() / (k ? k : 1),
              "x", k, " and ", in_f, "x", out_f, ")");
}

std::vector<int64_t> linear_out_shape(const Tensor& x, int64_t out_f) {
  std::vector<int64_t> shape(x.sizes().begin(), x.sizes().end());
  shape.back() = out_f;
  return shape;
}

}  // namespace

Tensor LinearPackedParams::run(const Tensor& qx, double output_scale, int64_t output_zero_point,
                               bool relu) const {
  const bool qnnp = formula() == QFormula::Qnnpack;
  EMBER_CHECK(qx.dtype() == kQUInt8, qnnp ? "quantized::linear (qnnpack)" : "qlinear (ONEDNN)",
              ": data type of input should be QUint8.");
  EMBER_CHECK(qscheme(qx) == QScheme::PerTensorAffine,
              "Expected quantizer->qscheme() == kPerTensorAffine to be true, but got false.  "
              "(Could this error message be improved?  If so, please report an enhancement "
              "request to PyTorch.)");
  check_linear_input(qx, in_features(), out_features(), qnnp,
                     relu ? "quantized::linear_relu" : "quantized::linear");
  Tensor out = _empty_affine_quantized(linear_out_shape(qx, out_features()), kQUInt8,
                                       output_scale, output_zero_point, MemoryFormat::Contiguous,
                                       qx.device());
  if (out.numel() == 0 || out.is_meta()) return out;
  Tensor x = codes_view(qx).contiguous();
  kernel_->run(static_cast<const uint8_t*>(x.data_ptr()), x.numel() / in_features(), q_scale(qx),
               q_zero_point(qx), static_cast<uint8_t*>(out.data_ptr()), output_scale,
               output_zero_point, relu);
  return out;
}

Tensor LinearPackedParams::run_dynamic(const Tensor& x, bool reduce_range, bool relu) const {
  const bool qnnp = formula() == QFormula::Qnnpack;
  if (qnnp) {
    EMBER_CHECK(x.dtype() == kFloat32, "Quantize only works on Float Tensor, got ",
                scalar_type_name(x.dtype()));
  } else {
    EMBER_CHECK(x.dtype() == kFloat32, "qlinear_dynamic (ONEDNN): data type of input should be "
                "float.");
  }
  check_linear_input(x, in_features(), out_features(), false,
                     relu ? "quantized::linear_relu_dynamic" : "quantized::linear_dynamic");
  Tensor out = empty(linear_out_shape(x, out_features()), TensorOptions().device(x.device()));
  if (out.numel() == 0 || out.is_meta()) return out;
  Tensor xc = x.contiguous();
  kernel_->run_dynamic(xc.data_ptr<float>(), xc.numel() / in_features(), out.data_ptr<float>(),
                       reduce_range, relu);
  return out;
}

}  // namespace ember::quantized
