// int8 3-d convolution and 1/2/3-d transposed convolution on raw buffers (quint8 activations,
// qint8 weights), with the requantization of PyTorch 1.13's two engines (the same constants as
// the 2-d kernels: Note [int8 requantization formulas] in qconv_ref.cpp).
//
//   QConvNdGeometry g = ...;  // 1-d and 2-d problems are 3-d ones with leading sizes 1
//   auto p = PackedQConvNd::create(QFormula::Qnnpack, g, w, w_scales, w_zps, 1, bias);
//   p->run(x, n, {d, h, w}, 0.02, 128, y, 0.05, 0, /*relu=*/false);  // x, y: NDHWC codes
//
// Note [Gathered transposed convolution]: a transposed convolution is computed as a gather,
// like the direct one: output position o reads input position i = (o + pad - k*dil) / stride
// for each kernel offset k where the division is exact. The int32 sums are exact either way, so
// the result only depends on the requantization, which is the engine's. The fast path gathers
// each output position's taps into a row (im2col; taps outside the input hold the code z_x,
// the real 0) and multiplies the rows by the weights with oneDNN's exact int8 matmul (Note
// [Exact int8 accumulators from oneDNN]); the same taps feed the portable loop otherwise.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "qconv.h"

namespace ember::cpu::quantized {

namespace detail {
class OnednnWeights;
}

using Dims3 = std::array<int64_t, 3>;

struct QConvNdGeometry {
  int64_t in_channels = 0, out_channels = 0, groups = 1;
  bool transposed = false;
  Dims3 kernel{1, 1, 1}, stride{1, 1, 1}, padding{0, 0, 0}, dilation{1, 1, 1},
      output_padding{0, 0, 0};
  /// Direct: (in + 2p - d(k-1) - 1)/s + 1. Transposed: (in-1)s - 2p + d(k-1) + op + 1.
  Dims3 out_size(const Dims3& in) const;
};

/// Weights: direct O x (C/groups) x KD x KH x KW; transposed C x (O/groups) x KD x KH x KW (as
/// PyTorch lays them out), int8 codes, contiguous. w_scales / w_zero_points: 1 value or O values
/// (per output channel). bias: O floats or nullptr.
class PackedQConvNd {
 public:
  static std::unique_ptr<PackedQConvNd> create(QFormula formula, const QConvNdGeometry& g,
                                               const int8_t* weight, const double* w_scales,
                                               const int64_t* w_zero_points, int64_t n_wparams,
                                               const float* bias);
  /// x: N x D x H x W x C uint8 (NDHWC contiguous); y: N x OD x OH x OW x O uint8, preallocated.
  void run(const uint8_t* x, int64_t n, const Dims3& in, double x_scale, int64_t x_zero_point,
           uint8_t* y, double y_scale, int64_t y_zero_point, bool relu) const;
  QFormula formula() const { return formula_; }
  const QConvNdGeometry& geometry() const { return g_; }
  /// Whether run() uses oneDNN's exact int8 matmul on gathered patches (VNNI, weight zero
  /// points 0, at least 8 output channels per group); otherwise the portable gather loop.
  bool uses_onednn() const { return !onednn_.empty(); }
  ~PackedQConvNd();

 private:
  PackedQConvNd() = default;
  void accumulate_gather(const uint8_t* x, int64_t n, const Dims3& in, int32_t zx,
                         int32_t* acc, int64_t row_begin, int64_t row_end) const;
  void accumulate_onednn(const uint8_t* x, int64_t n, const Dims3& in, int32_t zx,
                         int32_t* acc, int64_t row_begin, int64_t row_end) const;
  QFormula formula_ = QFormula::Qnnpack;
  QConvNdGeometry g_;
  // Per group, per kernel offset, per input channel of the group: the O/groups weights minus
  // their zero points, output channel innermost (the loop the compiler vectorises).
  std::vector<int32_t> wt_;
  std::vector<double> w_scales_;
  std::vector<int64_t> w_zero_points_;
  std::vector<float> bias_;
  bool has_bias_ = false;
  // Per group: its weights as an Og x (Cg * K) matrix for oneDNN (empty: not used).
  std::vector<std::unique_ptr<detail::OnednnWeights>> onednn_;
};

/// The scalar definition (NCDHW loops, one output at a time): the fast run() equals it.
void qconv_nd_ref(QFormula formula, const QConvNdGeometry& g, const int8_t* weight,
                  const double* w_scales, const int64_t* w_zero_points, int64_t n_wparams,
                  const float* bias, const uint8_t* x, int64_t n, const Dims3& in, double x_scale,
                  int64_t x_zero_point, uint8_t* y, double y_scale, int64_t y_zero_point,
                  bool relu);

}  // namespace ember::cpu::quantized
