// Quantize / dequantize loops (quantize_kernels.h). The fast loops keep the reference formula
// but are written so that GCC vectorises them: for 8-bit codes everything stays in float (the
// x86 float -> int64 conversion of PyTorch's quantize_val, which maps NaN and |v| >= 2^63 to
// INT64_MIN and so to the minimum code, becomes a compare and a blend), and the work is split
// over ember's thread pool. qint32 codes (biases) keep the int64 clamp of the reference.
#include "quantize_kernels.h"

#include <cmath>
#include <limits>
#include <vector>

#include "backends/cpu/quantized/qavx512.h"
#include "ember/parallel.h"
#include "quantizer.h"

namespace ember::qkernels {

namespace {

constexpr int64_t kGrain = 32768;

template <class T>
constexpr int64_t kQMin = std::numeric_limits<T>::min();
template <class T>
constexpr int64_t kQMax = std::numeric_limits<T>::max();

// One code, 8-bit T, in float only (vectorisable); equal to quantize_val for every float x.
template <class T>
inline T quantize_one_fast(float x, float inv, float zpf) {
  constexpr float lo = static_cast<float>(kQMin<T>), hi = static_cast<float>(kQMax<T>);
  float v = zpf + std::nearbyint(x * inv);
  v = std::fabs(v) < 0x1p63f ? v : lo;  // one compare (false for NaN), so GCC vectorises it
  v = v < lo ? lo : v;
  v = v > hi ? hi : v;
  return static_cast<T>(static_cast<int32_t>(v));
}

// quantize_one_fast on 16 lanes (AVX-512), the same operations in the same order: the
// product rounded in the current mode (as nearbyint), + z, the |v| < 2^63 test (false for a
// NaN) giving lo, the clamp, the truncating conversion. Returns how many codes it wrote (a
// multiple of 16); the caller does the rest.
template <class T>
EMBER_AVX512_VNNI int64_t quantize_block16(const float* x, T* q, int64_t n, float inv, float zpf) {
  const __m512 vinv = _mm512_set1_ps(inv), vz = _mm512_set1_ps(zpf),
               lo = _mm512_set1_ps(static_cast<float>(kQMin<T>)),
               hi = _mm512_set1_ps(static_cast<float>(kQMax<T>)), big = _mm512_set1_ps(0x1p63f);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512 r = _mm512_roundscale_ps(_mm512_mul_ps(_mm512_loadu_ps(x + i), vinv),
                                          _MM_FROUND_CUR_DIRECTION | _MM_FROUND_NO_EXC);
    __m512 v = _mm512_add_ps(vz, r);
    v = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(_mm512_abs_ps(v), big, _CMP_LT_OQ), lo, v);
    v = _mm512_min_ps(_mm512_max_ps(v, lo), hi);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(q + i),
                     _mm512_cvtepi32_epi8(_mm512_cvttps_epi32(v)));
  }
  return i;
}

template <class T>
void quantize_block(const float* __restrict x, T* __restrict q, int64_t n, float inv,
                    int64_t zero_point) {
  if constexpr (sizeof(T) == 1) {
    const float zpf = static_cast<float>(zero_point);
    int64_t i = 0;
    // The input of an int8 model (MobileNetV2's 150K floats per image).
    if (cpu::quantized::detail::avx512::cpu_has_vnni_vbmi()) {
      i = quantize_block16(x, q, n, inv, zpf);
    }
    for (; i < n; ++i) q[i] = quantize_one_fast<T>(x[i], inv, zpf);
  } else {
    for (int64_t i = 0; i < n; ++i)
      q[i] = static_cast<T>(quantize_val(inv, zero_point, x[i], kQMin<T>, kQMax<T>));
  }
}

template <class T>
void dequantize_block(const T* __restrict q, float* __restrict x, int64_t n, float scale,
                      int64_t zero_point) {
  const auto z = static_cast<uint32_t>(zero_point);
  for (int64_t i = 0; i < n; ++i)
    x[i] = static_cast<float>(static_cast<int32_t>(static_cast<uint32_t>(q[i]) - z)) * scale;
}

}  // namespace

template <class T>
void quantize(const float* x, T* q, int64_t n, double scale, int64_t zero_point) {
  const float inv = inv_scale_of(scale);
  parallel_for(0, n, kGrain, [&](int64_t b, int64_t e) {
    quantize_block(x + b, q + b, e - b, inv, zero_point);
  });
}

template <class T>
void quantize_ref(const float* x, T* q, int64_t n, double scale, int64_t zero_point) {
  const float inv = inv_scale_of(scale);
  for (int64_t i = 0; i < n; ++i)
    q[i] = static_cast<T>(quantize_val(inv, zero_point, x[i], kQMin<T>, kQMax<T>));
}

template <class T>
void dequantize(const T* q, float* x, int64_t n, double scale, int64_t zero_point) {
  const auto s = static_cast<float>(scale);
  parallel_for(0, n, kGrain, [&](int64_t b, int64_t e) {
    dequantize_block(q + b, x + b, e - b, s, zero_point);
  });
}

template <class T>
void dequantize_ref(const T* q, float* x, int64_t n, double scale, int64_t zero_point) {
  const auto s = static_cast<float>(scale);
  for (int64_t i = 0; i < n; ++i) x[i] = dequantize_val(s, zero_point, q[i]);
}

template <class T>
void quantize_per_channel(const float* x, T* q, int64_t outer, int64_t channels, int64_t inner,
                          const double* scales, const int64_t* zero_points) {
  std::vector<float> inv(channels);
  for (int64_t c = 0; c < channels; ++c) inv[c] = inv_scale_of(scales[c]);
  if (inner == 1 && sizeof(T) == 1) {
    // Channels innermost (channels_last, or the last axis): one pass per row, vectorised over
    // the channels with per-channel reciprocals.
    std::vector<float> zpf(channels);
    for (int64_t c = 0; c < channels; ++c) zpf[c] = static_cast<float>(zero_points[c]);
    const int64_t grain = std::max<int64_t>(1, kGrain / std::max<int64_t>(channels, 1));
    parallel_for(0, outer, grain, [&](int64_t b, int64_t e) {
      for (int64_t o = b; o < e; ++o) {
        const float* xr = x + o * channels;
        T* qr = q + o * channels;
        for (int64_t c = 0; c < channels; ++c) {
          if constexpr (sizeof(T) == 1) qr[c] = quantize_one_fast<T>(xr[c], inv[c], zpf[c]);
        }
      }
    });
    return;
  }
  const int64_t grain = std::max<int64_t>(1, kGrain / std::max<int64_t>(inner, 1));
  parallel_for(0, outer * channels, grain, [&](int64_t b, int64_t e) {
    for (int64_t oc = b; oc < e; ++oc) {
      const int64_t c = oc % channels;
      quantize_block(x + oc * inner, q + oc * inner, inner, inv[c], zero_points[c]);
    }
  });
}

template <class T>
void quantize_per_channel_ref(const float* x, T* q, int64_t outer, int64_t channels,
                              int64_t inner, const double* scales, const int64_t* zero_points) {
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t c = 0; c < channels; ++c)
      for (int64_t i = 0; i < inner; ++i) {
        const int64_t k = (o * channels + c) * inner + i;
        q[k] = static_cast<T>(
            quantize_val(inv_scale_of(scales[c]), zero_points[c], x[k], kQMin<T>, kQMax<T>));
      }
}

template <class T>
void dequantize_per_channel(const T* q, float* x, int64_t outer, int64_t channels, int64_t inner,
                            const double* scales, const int64_t* zero_points) {
  std::vector<float> zf(channels);
  for (int64_t c = 0; c < channels; ++c) zf[c] = static_cast<float>(zero_points[c]);
  if (inner == 1) {
    const int64_t grain = std::max<int64_t>(1, kGrain / std::max<int64_t>(channels, 1));
    parallel_for(0, outer, grain, [&](int64_t b, int64_t e) {
      for (int64_t o = b; o < e; ++o) {
        const T* __restrict qr = q + o * channels;
        float* __restrict xr = x + o * channels;
        for (int64_t c = 0; c < channels; ++c)
          xr[c] = static_cast<float>(static_cast<double>(static_cast<float>(qr[c]) - zf[c]) * scales[c]);
      }
    });
    return;
  }
  const int64_t grain = std::max<int64_t>(1, kGrain / std::max<int64_t>(inner, 1));
  parallel_for(0, outer * channels, grain, [&](int64_t b, int64_t e) {
    for (int64_t oc = b; oc < e; ++oc) {
      const int64_t c = oc % channels;
      const T* __restrict qb = q + oc * inner;
      float* __restrict xb = x + oc * inner;
      const float z = zf[c];
      const double s = scales[c];
      for (int64_t i = 0; i < inner; ++i)
        xb[i] = static_cast<float>(static_cast<double>(static_cast<float>(qb[i]) - z) * s);
    }
  });
}

template <class T>
void dequantize_per_channel_ref(const T* q, float* x, int64_t outer, int64_t channels,
                                int64_t inner, const double* scales, const int64_t* zero_points) {
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t c = 0; c < channels; ++c)
      for (int64_t i = 0; i < inner; ++i) {
        const int64_t k = (o * channels + c) * inner + i;
        x[k] = dequantize_val_per_channel(scales[c], zero_points[c], q[k]);
      }
}

#define EMBER_QKERNELS_INSTANTIATE(T)                                                              \
  template void quantize<T>(const float*, T*, int64_t, double, int64_t);                           \
  template void quantize_ref<T>(const float*, T*, int64_t, double, int64_t);                       \
  template void dequantize<T>(const T*, float*, int64_t, double, int64_t);                         \
  template void dequantize_ref<T>(const T*, float*, int64_t, double, int64_t);                     \
  template void quantize_per_channel<T>(const float*, T*, int64_t, int64_t, int64_t,               \
                                        const double*, const int64_t*);                            \
  template void quantize_per_channel_ref<T>(const float*, T*, int64_t, int64_t, int64_t,           \
                                            const double*, const int64_t*);                        \
  template void dequantize_per_channel<T>(const T*, float*, int64_t, int64_t, int64_t,             \
                                          const double*, const int64_t*);                          \
  template void dequantize_per_channel_ref<T>(const T*, float*, int64_t, int64_t, int64_t,         \
                                              const double*, const int64_t*);
EMBER_QKERNELS_INSTANTIATE(uint8_t)
EMBER_QKERNELS_INSTANTIATE(int8_t)
EMBER_QKERNELS_INSTANTIATE(int32_t)
#undef EMBER_QKERNELS_INSTANTIATE

}  // namespace ember::qkernels
