// Internal to src/backends/cpu/quantized: the per-call requantization constants of an int8
// convolution / linear and the loops that apply them to int32 accumulators. See Note [int8
// requantization formulas] in qconv_ref.cpp.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "qconv.h"

namespace ember::cpu::quantized::detail {

/// Weight qparams expanded to one value per output channel, validated.
struct WeightParams {
  std::vector<double> scales;
  std::vector<int64_t> zero_points;
  bool all_zero_points_zero = true;
};
WeightParams expand_weight_params(QFormula formula, const char* op, int64_t out_channels,
                                  const double* w_scales, const int64_t* w_zero_points,
                                  int64_t n_wparams);

/// Constants of one call: they depend on the input and output scales, which may change from
/// call to call (the qnnpack integer bias is re-derived each time, spec checklist 81).
struct Requant {
  QFormula formula;
  std::vector<float> mult;     // Qnnpack: M[o]; Onednn: f32(s_x * s_w[o] / s_y)
  std::vector<int32_t> ibias;  // Qnnpack: b_q[o] (zeros without bias)
  std::vector<float> fbias;    // Onednn: f32(b[o] / (s_x * s_w[o])) (zeros without bias)
  int32_t zero_point = 0, lo = 0;
};
Requant make_requant(QFormula formula, const WeightParams& wp, const float* bias, double x_scale,
                     double y_scale, int64_t y_zero_point, bool relu);

/// The last Requant a packed weight made, reused while the call's scales, zero point and relu
/// stay the same (a model's layer sees the same ones on every call): make_requant divides in
/// double per output channel, ~17K channels over MobileNetV2's convolutions per forward.
/// Safe to share between threads (the constants are immutable once made).
class RequantCache {
 public:
  std::shared_ptr<const Requant> get(QFormula formula, const WeightParams& wp, const float* bias,
                                     double x_scale, double y_scale, int64_t y_zero_point,
                                     bool relu);

 private:
  std::mutex mutex_;
  double x_scale_ = 0, y_scale_ = 0;
  int64_t y_zero_point_ = 0;
  bool relu_ = false;
  std::shared_ptr<const Requant> last_;
};

/// One output code from one accumulator of output channel o (the scalar definition).
uint8_t requantize_one(const Requant& r, int32_t acc, int64_t o);

/// y[i, o] = requantize_one(acc[i, o]) for rows x channels, both row-major with leading
/// dimension `channels` (vectorised; equal to the scalar definition).
void requantize_rows(const Requant& r, const int32_t* acc, int64_t rows, int64_t channels,
                     uint8_t* y);

/// Dequantization constants of the dynamic linear: D[o] = f32(f32(s_w[o]) * s_x).
std::vector<float> dynamic_dequant_scales(const WeightParams& wp, float x_scale);

/// How the dynamic linear quantizes its input: Qnnpack as quantize_per_tensor (spec § 1.2:
/// rint(x * f32(1/s)) + z); Onednn as oneDNN's reorder does it for torch (ideep passes
/// f32(1.0 / double(s)) and the zero point is added before rounding: rint(f32(x * inv) + z)).
float dynamic_inv_scale(QFormula formula, float scale);
void quantize_input(QFormula formula, const float* x, int64_t count, float inv_scale,
                    int32_t zero_point, uint8_t* q);
uint8_t quantize_one(QFormula formula, float x, float inv_scale, int32_t zero_point);

/// The dynamic linear's output from int32 accumulators (rows x channels).
void dequantize_rows(const int32_t* acc, int64_t rows, int64_t channels, const float* scales,
                     const float* bias, bool relu, float* y);

/// min and max of count floats (count > 0).
void min_max(const float* x, int64_t count, float* mn, float* mx);

}  // namespace ember::cpu::quantized::detail
