// Quantized leaky_relu, elu, tanh, threshold and QNNPACK's softmax on code buffers. Compiled
// with -ffp-contract=off (CMakeLists.txt), so each float operation rounds where PyTorch's does.
#include "qactivation_more_kernels.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "ember/parallel.h"

namespace ember::cpu::quantized {

namespace {

constexpr int64_t kGrain = 32768;

// f(x) as PyTorch's vector (vec = true, Sleef's expm1) or scalar (std::exp(x) - 1) lambda.
float apply(const QActSpec& s, float x, bool vec) {
  switch (s.fn) {
    case QActFn::LeakyRelu:
      return x > 0.0f ? x : x * s.a;
    case QActFn::Elu:
      if (x >= 0.0f) return x * s.b;
      if (vec) return std::expm1(x * s.c) * s.a * s.b;
      return (std::exp(x * s.c) - 1.0f) * s.a * s.b;
    case QActFn::Tanh:
      return std::tanh(x);
    case QActFn::Threshold:
      return x > s.a ? x : s.b;
  }
  return x;
}

template <class T>
T one_code(const QActSpec& s, int64_t q, bool vec) {
  const float sx = static_cast<float>(s.in.scale);
  const float x =
      vec ? dequant_vec(static_cast<int32_t>(q), sx, vec_premul(s.in)) : dequant_scalar(q, sx, s.in.zero_point);
  const float inv = inv_scale_scalar(s.out.scale);
  const float v = apply(s, x, vec);
  return vec ? quant_vec<T>(v, inv, s.out.zero_point) : quant_scalar<T>(v, inv, s.out.zero_point);
}

}  // namespace

template <class T>
void qact_ref(const T* x, T* y, int64_t n, const QActSpec& spec) {
  const int64_t vp = vec_part<T>(n);
  for (int64_t i = 0; i < n; ++i) y[i] = one_code<T>(spec, x[i], i < vp);
}

template <class T>
void qact(const T* x, T* y, int64_t n, const QActSpec& spec) {
  const int64_t vp = vec_part<T>(n);
  if constexpr (sizeof(T) == 1) {
    // Two tables (vector and scalar formulas) indexed by the code's offset from the minimum.
    std::array<T, 256> tv{}, ts{};
    constexpr int64_t lo = qmin_of<T>();
    for (int64_t i = 0; i < 256; ++i) {
      tv[i] = one_code<T>(spec, lo + i, true);
      ts[i] = one_code<T>(spec, lo + i, false);
    }
    parallel_for(0, n, kGrain, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        const auto k = static_cast<size_t>(static_cast<int64_t>(x[i]) - lo);
        y[i] = i < vp ? tv[k] : ts[k];
      }
    });
  } else {
    parallel_for(0, n, kGrain, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) y[i] = one_code<T>(spec, x[i], i < vp);
    });
  }
}

#define EMBER_QACT_INSTANTIATE(T)                                          \
  template void qact<T>(const T*, T*, int64_t, const QActSpec&);          \
  template void qact_ref<T>(const T*, T*, int64_t, const QActSpec&)
EMBER_QACT_INSTANTIATE(uint8_t);
EMBER_QACT_INSTANTIATE(int8_t);
EMBER_QACT_INSTANTIATE(int32_t);
#undef EMBER_QACT_INSTANTIATE

namespace {

std::array<uint32_t, 256> softmax_table(int64_t channels, double input_scale) {
  std::array<uint32_t, 256> t{};
  const double qscale = std::fmin(4294967295.0 / static_cast<double>(channels), 8388607.0);
  const double s = static_cast<double>(static_cast<float>(input_scale));
  for (int32_t i = 0; i < 256; ++i) {
    t[i] = static_cast<uint32_t>(std::lrint(qscale * std::exp(static_cast<double>(i - 255) * s)));
  }
  return t;
}

void softmax_row(const uint8_t* x, uint8_t* y, int64_t c, const std::array<uint32_t, 256>& table) {
  uint8_t mx = 0;
  for (int64_t i = 0; i < c; ++i) mx = std::max(mx, x[i]);
  const uint32_t* t = table.data() + (255 - mx);
  uint32_t sum = 0;
  for (int64_t i = 0; i < c; ++i) sum += t[x[i]];
  const uint32_t rounding = sum >> 1;
  for (int64_t i = 0; i < c; ++i) {
    const uint32_t q = ((t[x[i]] << 8) + rounding) / sum;
    y[i] = q > 255 ? 255 : static_cast<uint8_t>(q);
  }
}

}  // namespace

void qsoftmax_qnnpack_ref(const uint8_t* x, uint8_t* y, int64_t rows, int64_t channels,
                          double input_scale) {
  const auto table = softmax_table(channels, input_scale);
  for (int64_t r = 0; r < rows; ++r) softmax_row(x + r * channels, y + r * channels, channels, table);
}

void qsoftmax_qnnpack(const uint8_t* x, uint8_t* y, int64_t rows, int64_t channels,
                      double input_scale) {
  if (rows == 0 || channels == 0) return;
  const auto table = softmax_table(channels, input_scale);
  parallel_for(0, rows, std::max<int64_t>(1, kGrain / channels), [&](int64_t b, int64_t e) {
    for (int64_t r = b; r < e; ++r) softmax_row(x + r * channels, y + r * channels, channels, table);
  });
}

}  // namespace ember::cpu::quantized
