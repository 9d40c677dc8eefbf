// Kernels of the quantized element-wise, activation, normalisation and pooling ops (internal).
// They work on code buffers (uint8 for quint8, int8 for qint8, int32 for qint32) plus the
// quantization parameters, and know nothing of quantized tensors: the op glue in src/quant/
// allocates, lays out and checks. Each fast kernel has a scalar `*_ref` beside it (the
// specification, tests assert fast == ref).
//
// Note [PyTorch's two formulas]: PyTorch 1.13's generic quantized kernels (the ones the onednn
// engine runs, and qnnpack's fallback) compute most elements with a vectorised formula and the
// tail of each inner row (its last n % 64 elements for 8-bit codes, n % 16 for qint32) with a
// scalar one, and the two differ in rounding: the vector path dequantizes as
// fma(f32(s), f32(q), f32(s)·f32(-z)), the scalar path as f32(q - z)·f32(s); both quantize with
// the float reciprocal f32(1 / f32(s)) of the output scale (the vector quantizer sends values
// out of int32 range to INT32_MIN). They disagree on about 1 element in 300,000; to be
// bit-exact, ember applies each formula where PyTorch does (`vec_part`), measured against torch
// on random inputs (tests/python/quantized/).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace ember::cpu::quantized {

/// Per-tensor quantization parameters as PyTorch keeps them (scale double, zero point int64).
struct QParams {
  double scale = 1.0;
  int64_t zero_point = 0;
};

template <class T>
constexpr int64_t qmin_of() {
  return std::numeric_limits<T>::min();
}
template <class T>
constexpr int64_t qmax_of() {
  return std::numeric_limits<T>::max();
}

/// Length of the part of a row of `n` elements of T that PyTorch's vectorised loop covers
/// (two 256-bit vectors per step: 64 codes of 8 bits, 16 of 32 bits).
template <class T>
constexpr int64_t vec_part(int64_t n) {
  constexpr int64_t step = 2 * 32 / static_cast<int64_t>(sizeof(T));
  return n - n % step;
}

// ---- the two dequantize / quantize formulas (Note [PyTorch's two formulas]) ----
inline float dequant_scalar(int64_t q, float s, int64_t z) { return static_cast<float>(q - z) * s; }
/// `premul` = f32(s) * -f32(z).
/// (q as int32: AVX2 has no vector int64 -> float conversion.)
inline float dequant_vec(int32_t q, float s, float premul) {
  return std::fma(s, static_cast<float>(q), premul);
}
inline float vec_premul(const QParams& p) {
  return static_cast<float>(p.scale) * -static_cast<float>(p.zero_point);
}
/// quantize_val: clamp(z + rint(x * f32(1 / f32(s)))).
template <class T>
inline T quant_scalar(float x, float inv_scale_f, int64_t z) {
  const float r = std::nearbyint(x * inv_scale_f);
  int64_t q = z + static_cast<int64_t>(r);
  if (!(r == r)) q = z;  // NaN (never produced by finite codes)
  return static_cast<T>(std::min(std::max(q, qmin_of<T>()), qmax_of<T>()));
}
/// The AVX2 quantizer: cvtps2dq (ties to even; out of int32 range gives INT32_MIN), + z with
/// int32 wrap-around, clamp. Written in int32 so that loops over it vectorise.
template <class T>
inline T quant_vec(float x, float inv_scale, int64_t z) {
  // qint32 has no AVX2 quantizer: PyTorch quantizes its vectors element by element.
  if constexpr (sizeof(T) == 4) {
    return quant_scalar<T>(x, inv_scale, z);
  } else {
    const float v = x * inv_scale;
    // Branch-free (so that it vectorises): ties-to-even rounding by the 1.5·2^23 trick on a
    // value clamped to ±2^22 (anything beyond saturates an 8-bit code anyway), and a select
    // gives INT32_MIN where cvtps2dq would (out of int32 range, NaN).
    const float vc = std::min(std::max(v, -4194304.0f), 4194304.0f);
    const float rounded = (vc + 12582912.0f) - 12582912.0f;
    const int32_t ok =
        static_cast<int32_t>(v >= -2147483648.0f) & static_cast<int32_t>(v < 2147483648.0f);
    const int32_t r = ok ? static_cast<int32_t>(rounded) : INT32_MIN;
    const int32_t q = static_cast<int32_t>(static_cast<uint32_t>(r) +
                                           static_cast<uint32_t>(static_cast<int32_t>(z)));
    constexpr int32_t lo = static_cast<int32_t>(qmin_of<T>()),
                      hi = static_cast<int32_t>(qmax_of<T>());
    return static_cast<T>(std::min(std::max(q, lo), hi));
  }
}
inline float inv_scale_scalar(double s) { return 1.0f / static_cast<float>(s); }

// ---- binary ops (qbinary_kernels.cpp) ----
/// quantized::add / add_relu, generic formula (spec § 7.4) over rows of `row` elements
/// (n a multiple of row; row = n for same-shaped dense inputs).
template <class T>
void qadd_generic(const T* a, const T* b, T* y, int64_t n, int64_t row, QParams pa, QParams pb,
                  QParams py, bool relu);
template <class T>
void qadd_generic_ref(const T* a, const T* b, T* y, int64_t n, int64_t row, QParams pa, QParams pb,
                      QParams py, bool relu);

/// QNNPACK's fixed-point add (spec § 7.2). make() validates the scale ratios with PyTorch's
/// error text.
struct QnnpackAddParams {
  int32_t a_mult, b_mult, bias;
  uint32_t shift;
  int32_t y_zero_point;
  uint8_t y_min, y_max;
  static QnnpackAddParams make(QParams pa, QParams pb, QParams py, bool relu);
};
void qadd_qnnpack(const uint8_t* a, const uint8_t* b, uint8_t* y, int64_t n,
                  const QnnpackAddParams& p);
void qadd_qnnpack_ref(const uint8_t* a, const uint8_t* b, uint8_t* y, int64_t n,
                      const QnnpackAddParams& p);

/// quantized::mul / mul_relu: clamp(z_y + rint(f32((qa-za)(qb-zb)) * f32(sa*sb/sy))).
template <class T>
void qmul(const T* a, const T* b, T* y, int64_t n, QParams pa, QParams pb, QParams py, bool relu);
template <class T>
void qmul_ref(const T* a, const T* b, T* y, int64_t n, QParams pa, QParams pb, QParams py,
              bool relu);

// ---- unary ops on codes (qunary_kernels.cpp) ----
/// y = min(max(x, lo), hi) on codes (relu: lo = z; clamp / hardtanh / relu6).
template <class T>
void qclamp_codes(const T* x, T* y, int64_t n, int64_t lo, int64_t hi);
template <class T>
void qclamp_codes_ref(const T* x, T* y, int64_t n, int64_t lo, int64_t hi);

/// The functions of one code that the generic kernels compute by dequantize -> f -> quantize.
enum class QUnaryFn {
  Requant,
  RequantRelu,
  Hardswish,
  HardswishQnnpack,
  Sigmoid,
  SigmoidQnnpack,
  Hardsigmoid,
  HardsigmoidQnnpack,
  AddScalar,
};
struct QUnarySpec {
  QUnaryFn fn;
  QParams in, out;
  int64_t c_q = 0;  // AddScalar: the code offset
};
/// Applies `spec` to n codes as PyTorch does (rows of `row` elements, Note [PyTorch's two
/// formulas]); 8-bit codes go through two 256-entry tables.
template <class T>
void qunary(const T* x, T* y, int64_t n, int64_t row, const QUnarySpec& spec);
template <class T>
void qunary_ref(const T* x, T* y, int64_t n, int64_t row, const QUnarySpec& spec);
/// `rows` rows of `len` codes (x rows dense, y rows `y_stride` apart), each row's first
/// len - len % step elements by the vector formula: quantized cat's NHWC kernel (step 8).
template <class T>
void qunary_rows(const T* x, T* y, int64_t rows, int64_t len, int64_t y_stride, int64_t step,
                 const QUnarySpec& spec);
template <class T>
void qunary_rows_ref(const T* x, T* y, int64_t rows, int64_t len, int64_t y_stride, int64_t step,
                     const QUnarySpec& spec);

/// mul_scalar with c < 0: y = qmax + qmin - x (then max with z' when relu).
template <class T>
void qflip_codes(const T* x, T* y, int64_t n, bool relu, int64_t zp);

/// quantized::batch_norm2d on NHWC codes: per channel c, y = z_y + rint(fma(alpha[c], q - z_x,
/// beta[c])) (vector channels) / lrintf(alpha*(q - z_x) + beta) (the channel tail).
template <class T>
void qbatch_norm_nhwc(const T* x, T* y, int64_t rows, int64_t C, const float* alpha,
                      const float* beta, int64_t x_zp, int64_t y_zp, bool relu);
template <class T>
void qbatch_norm_nhwc_ref(const T* x, T* y, int64_t rows, int64_t C, const float* alpha,
                          const float* beta, int64_t x_zp, int64_t y_zp, bool relu);

// ---- pooling and resampling (qpool_kernels.cpp) ----
struct QPool2d {
  int64_t N, C, H, W, OH, OW;
  int64_t kh, kw, sh, sw, ph, pw, dh = 1, dw = 1;
};
/// Max pooling on codes; x and y both NCHW-contiguous or both NHWC-contiguous. `edge_clamp`:
/// QNNPACK's indirection, which reads a window position outside the input at the nearest edge
/// (the same maximum unless dilation > 1) instead of skipping it.
template <class T>
void qmax_pool2d(const T* x, T* y, const QPool2d& g, bool nhwc, bool edge_clamp = false);
template <class T>
void qmax_pool2d_ref(const T* x, T* y, const QPool2d& g, bool nhwc, bool edge_clamp = false);

/// How an average is requantized (measured against torch 1.13's three kernels).
enum class QAvgFormula {
  GenericNchw,  // avg_pool2d NCHW: rint(f32(acc) * f32(si/so/div) + zo)
  GenericNhwc,  // avg_pool2d / adaptive NHWC: rint(f32(acc) * m) + zo, m = f32(si)/f32(so)/div;
                // the channel tail past C/8*8 multiplies by f32(1/f32(1/m))
  Qnnpack,      // rint(f32(acc) * f32(si / (so * div))) + zo (float products)
};
/// avg_pool2d with count_include_pad / divisor_override as PyTorch's generic kernels.
template <class T>
void qavg_pool2d(const T* x, T* y, const QPool2d& g, bool nhwc, bool count_include_pad,
                 int64_t divisor_override, QParams in, QParams out, QAvgFormula f);
template <class T>
void qavg_pool2d_ref(const T* x, T* y, const QPool2d& g, bool nhwc, bool count_include_pad,
                     int64_t divisor_override, QParams in, QParams out, QAvgFormula f);
/// adaptive_avg_pool2d, generic kernels (NCHW: rint(Σq · f32(f32(1/kh)/kw)); NHWC: as
/// GenericNhwc). Output qparams are the input's.
template <class T>
void qadaptive_avg_pool2d(const T* x, T* y, const QPool2d& g, bool nhwc, QParams p);
template <class T>
void qadaptive_avg_pool2d_ref(const T* x, T* y, const QPool2d& g, bool nhwc, QParams p);

/// mean over the innermost dims of dense codes: m rows of n codes, y = rint(f32(Σq) / n)
/// (PyTorch 1.13's qmean_inner_dim kernel: the average of the codes, qparams unchanged).
template <class T>
void qmean_inner(const T* x, T* y, int64_t m, int64_t n);
template <class T>
void qmean_inner_ref(const T* x, T* y, int64_t m, int64_t n);

/// Nearest-neighbour upsampling of codes (PyTorch's nearest index: floor(o * scale)).
template <class T>
void qupsample_nearest2d(const T* x, T* y, const QPool2d& g, bool nhwc, float scale_h,
                         float scale_w);
template <class T>
void qupsample_nearest2d_ref(const T* x, T* y, const QPool2d& g, bool nhwc, float scale_h,
                             float scale_w);

}  // namespace ember::cpu::quantized
