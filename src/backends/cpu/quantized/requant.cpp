// Vectorised (AVX2) loops of the int8 kernels' requantization, quantization and dequantization.
// Each lane computes exactly what its scalar definition in qconv_ref.cpp computes (the same
// float operations in the same order; cvtps2dq / roundps round half to even as nearbyint does
// in the default rounding mode; max_ps / min_ps give their second operand for a NaN, as the
// scalar comparisons are written).
#include "requant.h"

#include <immintrin.h>

#include <cmath>

namespace ember::cpu::quantized::detail {
namespace {

inline void store8(uint8_t* dst, __m256i v32) {
  const __m128i p16 =
      _mm_packus_epi32(_mm256_castsi256_si128(v32), _mm256_extracti128_si256(v32, 1));
  _mm_storel_epi64(reinterpret_cast<__m128i*>(dst), _mm_packus_epi16(p16, p16));
}

void requantize_row_qnnpack(const Requant& r, const int32_t* acc, int64_t channels, uint8_t* y) {
  const __m256i lo16 = _mm256_set1_epi32(-32768), hi16 = _mm256_set1_epi32(32767);
  const __m256i zp = _mm256_set1_epi32(r.zero_point), lo = _mm256_set1_epi32(r.lo),
                hi = _mm256_set1_epi32(255);
  int64_t o = 0;
  for (; o + 8 <= channels; o += 8) {
    const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(acc + o));
    const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(r.ibias.data() + o));
    const __m256 v = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_add_epi32(a, b)),
                                   _mm256_loadu_ps(r.mult.data() + o));
    __m256i t = _mm256_cvtps_epi32(v);
    t = _mm256_min_epi32(_mm256_max_epi32(t, lo16), hi16);
    t = _mm256_min_epi32(_mm256_add_epi32(t, zp), hi16);
    t = _mm256_min_epi32(_mm256_max_epi32(t, lo), hi);
    store8(y + o, t);
  }
  for (; o < channels; ++o) y[o] = requantize_one(r, acc[o], o);
}

void requantize_row_onednn(const Requant& r, const int32_t* acc, int64_t channels, uint8_t* y) {
  const __m256 zp = _mm256_set1_ps(static_cast<float>(r.zero_point)),
               lo = _mm256_set1_ps(static_cast<float>(r.lo)), hi = _mm256_set1_ps(255.f);
  int64_t o = 0;
  for (; o + 8 <= channels; o += 8) {
    const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(acc + o));
    __m256 v = _mm256_add_ps(_mm256_cvtepi32_ps(a), _mm256_loadu_ps(r.fbias.data() + o));
    v = _mm256_mul_ps(v, _mm256_loadu_ps(r.mult.data() + o));
    v = _mm256_round_ps(_mm256_add_ps(v, zp), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    v = _mm256_min_ps(_mm256_max_ps(v, lo), hi);
    store8(y + o, _mm256_cvttps_epi32(v));
  }
  for (; o < channels; ++o) y[o] = requantize_one(r, acc[o], o);
}

}  // namespace

void requantize_rows(const Requant& r, const int32_t* acc, int64_t rows, int64_t channels,
                     uint8_t* y) {
  for (int64_t i = 0; i < rows; ++i) {
    if (r.formula == QFormula::Qnnpack) {
      requantize_row_qnnpack(r, acc + i * channels, channels, y + i * channels);
    } else {
      requantize_row_onednn(r, acc + i * channels, channels, y + i * channels);
    }
  }
}

void quantize_input(QFormula formula, const float* x, int64_t count, float inv_scale,
                    int32_t zero_point, uint8_t* q) {
  const bool round_first = formula == QFormula::Qnnpack;
  const __m256 inv = _mm256_set1_ps(inv_scale), zp = _mm256_set1_ps(static_cast<float>(zero_point)),
               lo = _mm256_setzero_ps(), hi = _mm256_set1_ps(255.f);
  constexpr int kRound = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
  int64_t i = 0;
  for (; i + 8 <= count; i += 8) {
    __m256 v = _mm256_mul_ps(_mm256_loadu_ps(x + i), inv);
    v = round_first ? _mm256_add_ps(_mm256_round_ps(v, kRound), zp)
                    : _mm256_round_ps(_mm256_add_ps(v, zp), kRound);
    v = _mm256_min_ps(_mm256_max_ps(v, lo), hi);
    store8(q + i, _mm256_cvttps_epi32(v));
  }
  for (; i < count; ++i) q[i] = quantize_one(formula, x[i], inv_scale, zero_point);
}

void dequantize_rows(const int32_t* acc, int64_t rows, int64_t channels, const float* scales,
                     const float* bias, bool relu, float* y) {
  const __m256 zero = _mm256_setzero_ps();
  for (int64_t i = 0; i < rows; ++i) {
    const int32_t* a = acc + i * channels;
    float* out = y + i * channels;
    int64_t o = 0;
    for (; o + 8 <= channels; o += 8) {
      __m256 v = _mm256_mul_ps(
          _mm256_cvtepi32_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + o))),
          _mm256_loadu_ps(scales + o));
      if (bias) v = _mm256_add_ps(v, _mm256_loadu_ps(bias + o));
      if (relu) v = _mm256_blendv_ps(v, zero, _mm256_cmp_ps(v, zero, _CMP_LT_OQ));
      _mm256_storeu_ps(out + o, v);
    }
    for (; o < channels; ++o) {
      float v = static_cast<float>(a[o]) * scales[o];
      if (bias) v = v + bias[o];
      if (relu && v < 0.f) v = 0.f;
      out[o] = v;
    }
  }
}

void min_max(const float* x, int64_t count, float* mn, float* mx) {
  float lo = x[0], hi = x[0];
  int64_t i = 0;
  if (count >= 8) {
    __m256 vlo = _mm256_loadu_ps(x), vhi = vlo;
    for (i = 8; i + 8 <= count; i += 8) {
      const __m256 v = _mm256_loadu_ps(x + i);
      vlo = _mm256_min_ps(v, vlo);
      vhi = _mm256_max_ps(v, vhi);
    }
    alignas(32) float l[8], h[8];
    _mm256_store_ps(l, vlo);
    _mm256_store_ps(h, vhi);
    for (int j = 0; j < 8; ++j) {
      lo = l[j] < lo ? l[j] : lo;
      hi = h[j] > hi ? h[j] : hi;
    }
  }
  for (; i < count; ++i) {
    lo = x[i] < lo ? x[i] : lo;
    hi = x[i] > hi ? x[i] : hi;
  }
  *mn = lo;
  *mx = hi;
}

}  // namespace ember::cpu::quantized::detail
