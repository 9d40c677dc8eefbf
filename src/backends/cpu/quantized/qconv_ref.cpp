// Scalar references of the int8 convolution / linear kernels, and the constants they share
// with the fast paths.
//
// Note [int8 requantization formulas]
// acc[o] = sum (q_x - z_x) * (q_w - z_w[o]) exactly in int32 (padding contributes 0: a padded
// input is the real value 0, the code z_x). Output codes, with lo = z_y under a fused ReLU, else 0:
//  * Qnnpack (PyTorch 1.13's qnnpack engine, spec § 7.2, bit-exact):
//      b_q[o] = rint(b[o] * f32(1 / f32(s_w[o] * s_x)))  (int32, product in double)
//      M[o]   = f32(f32(f32(s_w[o]) * f32(s_x)) * f32(1 / f32(s_y)))  (normal and > 0, else
//               PyTorch's error)
//      y = clamp(sat16(cvt(f32(acc + b_q) * M[o])) + z_y, lo, 255), where cvt is cvtps2dq:
//      round half to even, and INT32_MIN for a value outside int32 (which then clamps to 0,
//      as QNNPACK's SSE2 kernels give).
//  * Onednn (the fast engine, spec § 7.3, within 1 LSB of torch's onednn engine): oneDNN's own
//    int8 requantization, with the float bias given to it per call in accumulator units:
//      y = clamp(rint((f32(acc) + f32(b[o]/(s_x*s_w[o]))) * f32(s_x*s_w[o]/s_y) + z_y), lo, 255)
//    (quotients and products of scales in double; each float operation rounded separately:
//    this directory builds with -ffp-contract=off, so the compiler never fuses a multiply and
//    an add in one path and not in the other). The zero point is added before rounding, as
//    oneDNN does. Measured against torch 1.13's onednn engine: see
//    tests/python/quantized/test_qconv_kernels_vs_torch.py.
// Both run on the same exact accumulators; only these constants and the final loop differ.
#include <cmath>
#include <cstring>
#include <limits>

#include "ember/error.h"
#include "requant.h"

namespace ember::cpu::quantized {

int64_t QConvGeometry::out_h(int64_t h) const {
  return (h + 2 * pad_h - dilation_h * (kernel_h - 1) - 1) / stride_h + 1;
}
int64_t QConvGeometry::out_w(int64_t w) const {
  return (w + 2 * pad_w - dilation_w * (kernel_w - 1) - 1) / stride_w + 1;
}

namespace detail {

WeightParams expand_weight_params(QFormula formula, const char* op, int64_t out_channels,
                                  const double* w_scales, const int64_t* w_zero_points,
                                  int64_t n_wparams) {
  EMBER_CHECK(n_wparams == 1 || n_wparams == out_channels, op, ": expected 1 (per tensor) or ",
              out_channels, " (per output channel) weight scales and zero points, got ", n_wparams);
  WeightParams wp;
  wp.scales.resize(out_channels);
  wp.zero_points.resize(out_channels);
  for (int64_t o = 0; o < out_channels; ++o) {
    const int64_t i = n_wparams == 1 ? 0 : o;
    wp.scales[o] = w_scales[i];
    wp.zero_points[o] = w_zero_points[i];
    EMBER_CHECK(w_zero_points[i] >= -128 && w_zero_points[i] <= 127, op, ": weight zero point ",
                w_zero_points[i], " is outside the qint8 range [-128, 127]");
    if (w_zero_points[i] != 0) wp.all_zero_points_zero = false;
  }
  (void)formula;
  return wp;
}

Requant make_requant(QFormula formula, const WeightParams& wp, const float* bias, double x_scale,
                     double y_scale, int64_t y_zero_point, bool relu) {
  EMBER_CHECK(y_zero_point >= 0 && y_zero_point <= 255, "quantized kernel: output zero point ",
              y_zero_point, " is outside the quint8 range [0, 255]");
  const int64_t O = static_cast<int64_t>(wp.scales.size());
  Requant r;
  r.formula = formula;
  r.zero_point = static_cast<int32_t>(y_zero_point);
  r.lo = relu ? r.zero_point : 0;
  r.mult.resize(O);
  if (formula == QFormula::Qnnpack) {
    r.ibias.assign(O, 0);
    const float sx = static_cast<float>(x_scale);
    const float inv_y = 1.f / static_cast<float>(y_scale);
    for (int64_t o = 0; o < O; ++o) {
      const float m = (static_cast<float>(wp.scales[o]) * sx) * inv_y;
      EMBER_CHECK(m > 0.0f && std::isnormal(m),
                  "failed to create op with requantization scale: ", m,
                  ": requantization scale must be finite and positive");
      r.mult[o] = m;
      if (bias) {
        // quantize_per_tensor(bias, s_w * s_x, 0, qint32): the reciprocal of the float scale.
        const float inv = 1.f / static_cast<float>(wp.scales[o] * x_scale);
        const float q = std::nearbyint(bias[o] * inv);
        const double lim_lo = std::numeric_limits<int32_t>::min();
        const double lim_hi = std::numeric_limits<int32_t>::max();
        const double qd = static_cast<double>(q);
        r.ibias[o] = qd <= lim_lo   ? std::numeric_limits<int32_t>::min()
                     : qd >= lim_hi ? std::numeric_limits<int32_t>::max()
                                    : static_cast<int32_t>(qd);
      }
    }
  } else {
    r.fbias.assign(O, 0.f);
    for (int64_t o = 0; o < O; ++o) {
      const double acc_scale = x_scale * wp.scales[o];
      r.mult[o] = static_cast<float>(acc_scale / y_scale);
      if (bias) r.fbias[o] = static_cast<float>(static_cast<double>(bias[o]) / acc_scale);
    }
  }
  return r;
}

// cvtps2dq: round half to even; NaN or outside int32 gives INT32_MIN.
static int32_t cvtps2dq(float v) {
  if (!(v >= -2147483648.f && v < 2147483648.f)) return std::numeric_limits<int32_t>::min();
  return static_cast<int32_t>(std::nearbyint(v));
}

uint8_t requantize_one(const Requant& r, int32_t acc, int64_t o) {
  if (r.formula == QFormula::Qnnpack) {
    const int32_t sum = static_cast<int32_t>(static_cast<uint32_t>(acc) +
                                             static_cast<uint32_t>(r.ibias[o]));  // int32 wraps
    int32_t t = cvtps2dq(static_cast<float>(sum) * r.mult[o]);
    t = std::min(std::max(t, -32768), 32767);  // packs_epi32
    t = std::min(t + r.zero_point, 32767);     // adds_epi16
    t = std::min(std::max(t, r.lo), 255);      // packus_epi16, then the [lo, 255] clamp
    return static_cast<uint8_t>(t);
  }
  float v = static_cast<float>(acc) + r.fbias[o];
  v = v * r.mult[o];
  v = std::nearbyint(v + static_cast<float>(r.zero_point));
  // max/min as the vector instructions do them (a NaN gives the lower bound)
  v = v > static_cast<float>(r.lo) ? v : static_cast<float>(r.lo);
  v = v < 255.f ? v : 255.f;
  return static_cast<uint8_t>(v);
}

std::vector<float> dynamic_dequant_scales(const WeightParams& wp, float x_scale) {
  std::vector<float> d(wp.scales.size());
  for (size_t o = 0; o < d.size(); ++o) d[o] = static_cast<float>(wp.scales[o]) * x_scale;
  return d;
}

float dynamic_inv_scale(QFormula formula, float scale) {
  return formula == QFormula::Qnnpack ? 1.f / scale
                                      : static_cast<float>(1.0 / static_cast<double>(scale));
}

uint8_t quantize_one(QFormula formula, float x, float inv_scale, int32_t zero_point) {
  const float z = static_cast<float>(zero_point);
  float v = formula == QFormula::Qnnpack ? std::nearbyint(x * inv_scale) + z
                                         : std::nearbyint(x * inv_scale + z);
  v = v > 0.f ? v : 0.f;
  v = v < 255.f ? v : 255.f;
  return static_cast<uint8_t>(v);
}

}  // namespace detail

DynamicQParams choose_quantization_params(float min, float max, int32_t qmin, int32_t qmax,
                                          bool preserve_sparsity, bool reduce_range) {
  // quant_utils::ChooseQuantizationParams(min, max, qmin, qmax, preserve_sparsity,
  // force_scale_power_of_two=false, reduce_range), torch 1.13.
  EMBER_CHECK(min <= max, "In ChooseQuantizationParams, min should be less than or equal to max");
  if (reduce_range) {
    qmin /= 2;
    qmax /= 2;
  }
  if (min < 0 && max > 0 && preserve_sparsity) {
    const int symmetric_qmin = -((qmax - qmin) / 2 + 1);
    const int symmetric_qmax = (qmax - qmin) / 2;
    const double max_scale = std::max(std::fabs(min / static_cast<float>(symmetric_qmin)),
                                      std::fabs(max / static_cast<float>(symmetric_qmax)));
    min = static_cast<float>(max_scale * symmetric_qmin);
    max = static_cast<float>(max_scale * symmetric_qmax);
  }
  min = std::min(min, 0.f);
  max = std::max(max, 0.f);
  EMBER_CHECK(qmin < qmax, "In ChooseQuantizationParams, qmin should be less than qmax");
  double scale = (static_cast<double>(max) - min) / (qmax - qmin);
  if (static_cast<float>(scale) == 0.0f || std::isinf(1.0f / static_cast<float>(scale)))
    scale = 0.1;
  constexpr float kSmallScale = 6.1e-5f;  // SMALL_SCALE_THRESHOLD
  if (scale < kSmallScale) {
    const float org_scale = static_cast<float>(scale);
    scale = kSmallScale;
    if (min == 0.0f) {
      max = kSmallScale * static_cast<float>(qmax - qmin);
    } else if (max == 0.0f) {
      min = -kSmallScale * static_cast<float>(qmax - qmin);
    } else {
      const float amplifier = kSmallScale / org_scale;
      min *= amplifier;
      max *= amplifier;
    }
  }
  const double zp_from_min = qmin - min / scale;
  const double zp_from_max = qmax - max / scale;
  const double zp_from_min_error = std::abs(qmin) - std::abs(min / scale);
  const double zp_from_max_error = std::abs(qmax) - std::abs(max / scale);
  double initial = zp_from_min_error < zp_from_max_error ? zp_from_min : zp_from_max;
  // Symmetric: the zero point is the middle of the range.
  if (min < 0 && max > 0 && preserve_sparsity) initial = static_cast<double>(qmin + qmax) / 2;
  int32_t zp;
  if (initial < qmin) {
    zp = qmin;
  } else if (initial > qmax) {
    zp = qmax;
  } else {
    zp = static_cast<int32_t>(std::nearbyint(initial));
  }
  return {static_cast<float>(scale), zp};
}

DynamicQParams choose_dynamic_qparams(float min, float max, bool reduce_range) {
  return choose_quantization_params(min, max, 0, 255, false, reduce_range);
}

namespace {

void check_input_zero_point(int64_t zx) {
  EMBER_CHECK(zx >= 0 && zx <= 255, "quantized kernel: input zero point ", zx,
              " is outside the quint8 range [0, 255]");
}

// acc of one output channel over one output position (NHWC input, OIHW weight).
int32_t conv_acc_ref(const QConvGeometry& g, const int8_t* weight, int64_t wzp, const uint8_t* x,
                     int64_t h, int64_t w, int64_t zx, int64_t oh, int64_t ow, int64_t o) {
  const int64_t cg = g.in_channels / g.groups, og = g.out_channels / g.groups;
  const int64_t c0 = (o / og) * cg;
  int64_t acc = 0;
  for (int64_t kh = 0; kh < g.kernel_h; ++kh) {
    const int64_t ih = oh * g.stride_h - g.pad_h + kh * g.dilation_h;
    if (ih < 0 || ih >= h) continue;
    for (int64_t kw = 0; kw < g.kernel_w; ++kw) {
      const int64_t iw = ow * g.stride_w - g.pad_w + kw * g.dilation_w;
      if (iw < 0 || iw >= w) continue;
      const uint8_t* px = x + (ih * w + iw) * g.in_channels + c0;
      for (int64_t c = 0; c < cg; ++c) {
        const int64_t wv = weight[((o * cg + c) * g.kernel_h + kh) * g.kernel_w + kw];
        acc += (static_cast<int64_t>(px[c]) - zx) * (wv - wzp);
      }
    }
  }
  return static_cast<int32_t>(acc);
}

}  // namespace

void qconv2d_ref(QFormula formula, const QConvGeometry& g, const int8_t* weight,
                 const double* w_scales, const int64_t* w_zero_points, int64_t n_wparams,
                 const float* bias, const uint8_t* x, int64_t n, int64_t h, int64_t w,
                 double x_scale, int64_t x_zero_point, uint8_t* y, double y_scale,
                 int64_t y_zero_point, bool relu) {
  const detail::WeightParams wp = detail::expand_weight_params(
      formula, "quantized::conv2d", g.out_channels, w_scales, w_zero_points, n_wparams);
  const int64_t oh_n = g.out_h(h), ow_n = g.out_w(w), O = g.out_channels;
  if (n == 0 || oh_n <= 0 || ow_n <= 0 || O == 0) return;
  check_input_zero_point(x_zero_point);
  const detail::Requant r =
      detail::make_requant(formula, wp, bias, x_scale, y_scale, y_zero_point, relu);
  for (int64_t b = 0; b < n; ++b) {
    const uint8_t* xb = x + b * h * w * g.in_channels;
    for (int64_t oh = 0; oh < oh_n; ++oh) {
      for (int64_t ow = 0; ow < ow_n; ++ow) {
        uint8_t* py = y + ((b * oh_n + oh) * ow_n + ow) * O;
        for (int64_t o = 0; o < O; ++o) {
          const int32_t acc =
              conv_acc_ref(g, weight, wp.zero_points[o], xb, h, w, x_zero_point, oh, ow, o);
          py[o] = detail::requantize_one(r, acc, o);
        }
      }
    }
  }
}

namespace {
int32_t linear_acc_ref(int64_t k, const int8_t* wrow, int64_t wzp, const uint8_t* xrow,
                       int64_t zx) {
  int64_t acc = 0;
  for (int64_t i = 0; i < k; ++i) {
    acc += (static_cast<int64_t>(xrow[i]) - zx) * (static_cast<int64_t>(wrow[i]) - wzp);
  }
  return static_cast<int32_t>(acc);
}
}  // namespace

void qlinear_ref(QFormula formula, int64_t in_features, int64_t out_features, const int8_t* weight,
                 const double* w_scales, const int64_t* w_zero_points, int64_t n_wparams,
                 const float* bias, const uint8_t* x, int64_t m, double x_scale,
                 int64_t x_zero_point, uint8_t* y, double y_scale, int64_t y_zero_point,
                 bool relu) {
  const detail::WeightParams wp = detail::expand_weight_params(
      formula, "quantized::linear", out_features, w_scales, w_zero_points, n_wparams);
  if (m == 0 || out_features == 0) return;
  check_input_zero_point(x_zero_point);
  const detail::Requant r =
      detail::make_requant(formula, wp, bias, x_scale, y_scale, y_zero_point, relu);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t o = 0; o < out_features; ++o) {
      const int32_t acc = linear_acc_ref(in_features, weight + o * in_features, wp.zero_points[o],
                                         x + i * in_features, x_zero_point);
      y[i * out_features + o] = detail::requantize_one(r, acc, o);
    }
  }
}

void qlinear_dynamic_ref(QFormula formula, int64_t in_features, int64_t out_features,
                         const int8_t* weight, const double* w_scales, const int64_t* w_zero_points,
                         int64_t n_wparams, const float* bias, const float* x, int64_t m, float* y,
                         bool reduce_range, bool relu) {
  const detail::WeightParams wp = detail::expand_weight_params(
      formula, "quantized::linear_dynamic", out_features, w_scales, w_zero_points, n_wparams);
  if (m == 0 || out_features == 0) return;
  float mn = 0.f, mx = 0.f;
  if (m * in_features > 0) {
    mn = mx = x[0];
    for (int64_t i = 0; i < m * in_features; ++i) {
      mn = std::min(mn, x[i]);
      mx = std::max(mx, x[i]);
    }
  }
  const DynamicQParams qp =
      choose_dynamic_qparams(mn, mx, formula == QFormula::Onednn && reduce_range);
  const float inv = detail::dynamic_inv_scale(formula, qp.scale);
  const std::vector<float> d = detail::dynamic_dequant_scales(wp, qp.scale);
  std::vector<uint8_t> qrow(in_features);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t k = 0; k < in_features; ++k) {
      qrow[k] = detail::quantize_one(formula, x[i * in_features + k], inv, qp.zero_point);
    }
    for (int64_t o = 0; o < out_features; ++o) {
      const int32_t acc = linear_acc_ref(in_features, weight + o * in_features, wp.zero_points[o],
                                         qrow.data(), qp.zero_point);
      float v = static_cast<float>(acc) * d[o];
      if (bias) v = v + bias[o];
      if (relu && v < 0.f) v = 0.f;  // NaN stays, as torch's relu_
      y[i * out_features + o] = v;
    }
  }
}

}  // namespace ember::cpu::quantized
