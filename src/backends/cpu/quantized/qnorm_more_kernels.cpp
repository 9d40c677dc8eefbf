// quantized layer / group / instance norm on codes: the fast kernel (row statistics once, then
// one multiply-add per element, rows in parallel) and the scalar reference (the formula element
// by element). Compiled with -ffp-contract=off: each float operation rounds as PyTorch's.
#include "qnorm_more_kernels.h"

#include <cmath>

#include "ember/parallel.h"

namespace ember::cpu::quantized {

namespace {

struct RowStats {
  float mean, scale;  // mean of (q - z_x); f32(s_x) / sqrt(var * s_x^2 + eps)
};

template <class T>
RowStats row_stats(const T* x, int64_t n, const QNormSpec& s) {
  // qint32 rows can overflow int64: the sums wrap through uint64 (two's complement, defined),
  // which is what the arithmetic did before it was defined behaviour; 8-bit rows never wrap.
  uint64_t sum_u = 0, sum_sq_u = 0;
  for (int64_t i = 0; i < n; ++i) {
    const auto v = static_cast<uint64_t>(static_cast<int64_t>(x[i]));
    sum_u += v;
    sum_sq_u += v * v;
  }
  const auto sum = static_cast<int64_t>(sum_u), sum_sq = static_cast<int64_t>(sum_sq_u);
  const float nf = static_cast<float>(n);
  const float mean_shift = static_cast<float>(sum) / nf;
  const float mean = mean_shift - static_cast<float>(s.in.zero_point);
  const float var = std::max(static_cast<float>(sum_sq) / nf - mean_shift * mean_shift, 0.0f);
  const float sx = static_cast<float>(s.in.scale);
  const float r = sx / std::sqrt(var * sx * sx + static_cast<float>(s.eps));
  return {mean, r};
}

template <class T>
T one(const QNormSpec& s, T q, float mean, float mult, float add, float inv_out) {
  const float dq = static_cast<float>(static_cast<int64_t>(q) - s.in.zero_point);
  return quant_vec<T>((dq - mean) * mult + add, inv_out, s.out.zero_point);
}

}  // namespace

template <class T>
void qnormalize_ref(const T* x, T* y, const QNormSpec& s) {
  const float inv_out = inv_scale_scalar(s.out.scale);
  const int64_t N = s.row_len;
  const int64_t block = s.per_channel ? N / s.channels_per_row : N;
  for (int64_t i = 0; i < s.rows; ++i) {
    const RowStats st = row_stats(x + i * N, N, s);
    for (int64_t j = 0; j < N; ++j) {
      const T q = x[i * N + j];
      const float dq = static_cast<float>(static_cast<int64_t>(q) - s.in.zero_point);
      float v;
      if (s.per_channel) {
        const int64_t c = (i * s.channels_per_row + j / block) % s.channels;
        const float g = s.gamma ? s.gamma[c] : 1.0f, b = s.beta ? s.beta[c] : 0.0f;
        v = (dq - st.mean) * (st.scale * g) + b;
      } else {
        const float g = s.gamma ? s.gamma[j] : 1.0f, b = s.beta ? s.beta[j] : 0.0f;
        v = (dq - st.mean) * st.scale * g + b;
      }
      y[i * N + j] = quant_vec<T>(v, inv_out, s.out.zero_point);
    }
  }
}

template <class T>
void qnormalize(const T* x, T* y, const QNormSpec& s) {
  const float inv_out = inv_scale_scalar(s.out.scale);
  const int64_t N = s.row_len;
  if (s.rows == 0 || N == 0) return;
  parallel_for(0, s.rows, std::max<int64_t>(1, 16384 / N), [&](int64_t b0, int64_t b1) {
    for (int64_t i = b0; i < b1; ++i) {
      const T* xr = x + i * N;
      T* yr = y + i * N;
      const RowStats st = row_stats(xr, N, s);
      if (s.per_channel) {
        const int64_t block = N / s.channels_per_row;
        for (int64_t ch = 0; ch < s.channels_per_row; ++ch) {
          const int64_t c = (i * s.channels_per_row + ch) % s.channels;
          const float mult = st.scale * (s.gamma ? s.gamma[c] : 1.0f);
          const float add = s.beta ? s.beta[c] : 0.0f;
          for (int64_t j = ch * block; j < (ch + 1) * block; ++j)
            yr[j] = one<T>(s, xr[j], st.mean, mult, add, inv_out);
        }
      } else if (!s.gamma && !s.beta) {
        for (int64_t j = 0; j < N; ++j) yr[j] = one<T>(s, xr[j], st.mean, st.scale, 0.0f, inv_out);
      } else {
        for (int64_t j = 0; j < N; ++j) {
          const float dq = static_cast<float>(static_cast<int64_t>(xr[j]) - s.in.zero_point);
          const float v = (dq - st.mean) * st.scale * (s.gamma ? s.gamma[j] : 1.0f) +
                          (s.beta ? s.beta[j] : 0.0f);
          yr[j] = quant_vec<T>(v, inv_out, s.out.zero_point);
        }
      }
    }
  });
}

#define EMBER_QNORM_INSTANTIATE(T)                                 \
  template void qnormalize<T>(const T*, T*, const QNormSpec&);    \
  template void qnormalize_ref<T>(const T*, T*, const QNormSpec&)
EMBER_QNORM_INSTANTIATE(uint8_t);
EMBER_QNORM_INSTANTIATE(int8_t);
EMBER_QNORM_INSTANTIATE(int32_t);
#undef EMBER_QNORM_INSTANTIATE

}  // namespace ember::cpu::quantized
