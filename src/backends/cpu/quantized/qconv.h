// int8 convolution and linear kernels on raw buffers (quint8 activations, qint8 weights), with
// the numerics of PyTorch 1.13's two engines. No quantized tensors here: the ops layer
// (packed-params objects, quantized::conv2d) calls these with pointers and qparams.
//
//   auto p = PackedQConv2d::create(QFormula::Qnnpack, geom, w, w_scales, w_zps, 1, bias);
//   p->run(x, n, h, w, 0.02, 128, y, 0.05, 0, /*relu=*/true);  // x, y: NHWC uint8 codes
//
// Numerics (spec § 7): see Note [int8 requantization formulas] in qconv_ref.cpp. Each packed
// kernel's output equals qconv2d_ref / qlinear_ref bit for bit (tests/cpp/quant).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

namespace ember::cpu::quantized {

/// Which requantization a packed kernel reproduces (spec § 7.2 vs § 7.3). A property of the
/// packed weight, chosen at prepack time from the active engine.
enum class QFormula { Qnnpack, Onednn };

struct QConvGeometry {
  int64_t in_channels, out_channels, groups;
  int64_t kernel_h, kernel_w, stride_h, stride_w, pad_h, pad_w, dilation_h, dilation_w;
  /// OH = (H + 2*pad_h - dilation_h*(KH-1) - 1)/stride_h + 1 (as PyTorch); likewise OW.
  int64_t out_h(int64_t h) const;
  int64_t out_w(int64_t w) const;
};

/// A convolution's weight in its kernel's layout, plus everything fixed at prepack time.
class PackedQConv2d {
 public:
  /// weight: O x (C/groups) x KH x KW int8 codes (OIHW, contiguous). w_scales / w_zero_points:
  /// 1 value (per tensor) or O values (per output channel). bias: O floats or nullptr.
  /// Throws ember::Error with PyTorch's text where the engine refuses the weight (onednn:
  /// weight zero point != 0) or the geometry is invalid.
  static std::unique_ptr<PackedQConv2d> create(QFormula formula, const QConvGeometry& g,
                                               const int8_t* weight, const double* w_scales,
                                               const int64_t* w_zero_points, int64_t n_wparams,
                                               const float* bias);
  virtual ~PackedQConv2d();
  /// x: N x H x W x C uint8 codes (NHWC contiguous, quint8); y: N x OH x OW x O uint8 (NHWC
  /// contiguous), preallocated by the caller. relu: lower clamp at y_zero_point (ConvReLU2d).
  /// Batch 0 or an empty output is a no-op. Safe to call from several threads at once.
  virtual void run(const uint8_t* x, int64_t n, int64_t h, int64_t w, double x_scale,
                   int64_t x_zero_point, uint8_t* y, double y_scale, int64_t y_zero_point,
                   bool relu) = 0;
  QFormula formula() const { return formula_; }
  const QConvGeometry& geometry() const { return geometry_; }
  /// Whether run() uses the oneDNN int8 path (false: the exact portable kernel, used without
  /// AVX-512 VNNI / AVX-VNNI or with non-zero weight zero points).
  virtual bool uses_onednn() const = 0;

 protected:
  PackedQConv2d(QFormula f, const QConvGeometry& g) : formula_(f), geometry_(g) {}
  QFormula formula_;
  QConvGeometry geometry_;
};

/// Same for linear: weight O x K int8 (row-major), x: M x K uint8, y: M x O uint8.
class PackedQLinear {
 public:
  static std::unique_ptr<PackedQLinear> create(QFormula formula, int64_t in_features,
                                               int64_t out_features, const int8_t* weight,
                                               const double* w_scales, const int64_t* w_zero_points,
                                               int64_t n_wparams, const float* bias);
  virtual ~PackedQLinear();
  virtual void run(const uint8_t* x, int64_t m, double x_scale, int64_t x_zero_point, uint8_t* y,
                   double y_scale, int64_t y_zero_point, bool relu) = 0;
  /// Dynamic linear (nn.quantized.dynamic.Linear): x: M x K float, y: M x O float. The input is
  /// quantized to quint8 with qparams chosen from its min/max (choose_dynamic_qparams;
  /// reduce_range is honoured by the Onednn formula and ignored by Qnnpack, as in torch 1.13),
  /// y = f32(acc) * f32(f32(s_w[o]) * s_x) + bias[o], then max(y, 0) with relu.
  virtual void run_dynamic(const float* x, int64_t m, float* y, bool reduce_range, bool relu) = 0;
  QFormula formula() const { return formula_; }
  int64_t in_features() const { return in_features_; }
  int64_t out_features() const { return out_features_; }
  virtual bool uses_onednn() const = 0;

 protected:
  PackedQLinear(QFormula f, int64_t in, int64_t out)
      : formula_(f), in_features_(in), out_features_(out) {}
  QFormula formula_;
  int64_t in_features_, out_features_;
};

/// The qparams torch 1.13 picks for a dynamically quantized quint8 input
/// (quant_utils::ChooseQuantizationParams over [min(x, 0), max(x, 0)], qmin 0, qmax 255, or
/// 0..127 with reduce_range). The scale is a float, as PyTorch's.
struct DynamicQParams {
  float scale;
  int32_t zero_point;
};
DynamicQParams choose_dynamic_qparams(float min, float max, bool reduce_range);
/// quant_utils::ChooseQuantizationParams in general (the fused observer + fake-quant op's
/// qparams: preserve_sparsity for symmetric schemes).
DynamicQParams choose_quantization_params(float min, float max, int32_t qmin, int32_t qmax,
                                          bool preserve_sparsity, bool reduce_range = false);

/// Whether packs created from now on may use oneDNN (default true; tests and benchmarks turn
/// it off to exercise and measure the portable exact kernel on this machine).
void set_onednn_int8_enabled(bool enabled);
bool onednn_int8_enabled();

// ---- scalar references (the specification; the fast paths equal them bit for bit) ----

void qconv2d_ref(QFormula formula, const QConvGeometry& g, const int8_t* weight,
                 const double* w_scales, const int64_t* w_zero_points, int64_t n_wparams,
                 const float* bias, const uint8_t* x, int64_t n, int64_t h, int64_t w,
                 double x_scale, int64_t x_zero_point, uint8_t* y, double y_scale,
                 int64_t y_zero_point, bool relu);

void qlinear_ref(QFormula formula, int64_t in_features, int64_t out_features, const int8_t* weight,
                 const double* w_scales, const int64_t* w_zero_points, int64_t n_wparams,
                 const float* bias, const uint8_t* x, int64_t m, double x_scale,
                 int64_t x_zero_point, uint8_t* y, double y_scale, int64_t y_zero_point, bool relu);

void qlinear_dynamic_ref(QFormula formula, int64_t in_features, int64_t out_features,
                         const int8_t* weight, const double* w_scales, const int64_t* w_zero_points,
                         int64_t n_wparams, const float* bias, const float* x, int64_t m, float* y,
                         bool reduce_range, bool relu);

}  // namespace ember::cpu::quantized
