// Unary quantized kernels: clamps on codes (relu, relu6, hardtanh, clamp), the functions of one
// code computed by dequantize -> f -> quantize (requantize for cat, hardswish, sigmoid), the
// add_scalar requantization, mul_scalar's code flip, and batch_norm. 8-bit codes go through two
// 256-entry tables (PyTorch's vector and scalar formulas, Note [PyTorch's two formulas]).

#include <array>

#include "ember/parallel.h"
#include "qelementwise_kernels.h"

namespace ember::cpu::quantized {

namespace {
constexpr int64_t kGrain = 32768;

float hardswish_f(float x) { return x * std::min(std::max(x + 3.0f, 0.0f), 6.0f) / 6.0f; }
float sigmoid_f(float x) { return 1.0f / (1.0f + std::exp(-x)); }
float hardsigmoid_f(float x) { return std::min(std::max(x + 3.0f, 0.0f), 6.0f) / 6.0f; }

// f(code) with PyTorch's vector formula (vec = true) or scalar formula.
template <class T>
T unary_one(int64_t q, const QUnarySpec& s, bool vec) {
  const QParams& in = s.in;
  const QParams& out = s.out;
  const float sx = static_cast<float>(in.scale);
  switch (s.fn) {
    case QUnaryFn::AddScalar: {
      // requantize_from_int: z' + lrintf(f32(q - z + c_q) * f32(f32(s) * (1 / f32(s')))),
      // the same in both of PyTorch's paths.
      const float mult = sx * (1.0f / static_cast<float>(out.scale));
      const int32_t c = static_cast<int32_t>(q - in.zero_point + s.c_q);
      const int64_t r =
          out.zero_point + static_cast<int64_t>(std::nearbyint(static_cast<float>(c) * mult));
      return static_cast<T>(std::min(std::max(r, qmin_of<T>()), qmax_of<T>()));
    }
    case QUnaryFn::SigmoidQnnpack: {
      // QNNPACK's sigmoid table (float, clamped to [0, 255] before rounding).
      const float x = sx * static_cast<float>(q - in.zero_point);
      float v = (1.0f / static_cast<float>(out.scale)) / (1.0f + std::exp(-x));
      v = std::min(std::max(v, 0.0f), 255.0f);
      return static_cast<T>(static_cast<uint8_t>(std::lrintf(v)) +
                            static_cast<uint8_t>(out.zero_point));
    }
    case QUnaryFn::HardsigmoidQnnpack: {
      // QNNPACK's hardsigmoid table, built as its hardswish table.
      const float x = sx * static_cast<float>(q - in.zero_point);
      float v = (1.0f / static_cast<float>(out.scale)) * hardsigmoid_f(x) +
                static_cast<float>(out.zero_point);
      v = std::min(std::max(v, 0.0f), 255.0f);
      return static_cast<T>(static_cast<uint8_t>(std::lrintf(v)));
    }
    case QUnaryFn::HardswishQnnpack: {
      // QNNPACK's hardswish table: z' + f32(1 / s') * hardswish(x), clamped, then lrintf.
      const float x = sx * static_cast<float>(q - in.zero_point);
      const float h = x * std::min(std::max(x + 3.0f, 0.0f), 6.0f) / 6.0f;
      float v = (1.0f / static_cast<float>(out.scale)) * h + static_cast<float>(out.zero_point);
      v = std::min(std::max(v, 0.0f), 255.0f);
      return static_cast<T>(static_cast<uint8_t>(std::lrintf(v)));
    }
    default:
      break;
  }
  float x = vec ? dequant_vec(q, sx, vec_premul(in)) : dequant_scalar(q, sx, in.zero_point);
  switch (s.fn) {
    case QUnaryFn::RequantRelu:
      x = std::max(x, 0.0f);
      break;
    case QUnaryFn::Hardswish:
      x = hardswish_f(x);
      break;
    case QUnaryFn::Sigmoid:
      x = sigmoid_f(x);
      break;
    case QUnaryFn::Hardsigmoid:
      x = hardsigmoid_f(x);
      break;
    default:
      break;
  }
  return vec ? quant_vec<T>(x, inv_scale_scalar(out.scale), out.zero_point)
             : quant_scalar<T>(x, inv_scale_scalar(out.scale), out.zero_point);
}

// Note [Loops over codes] (qbinary_kernels.cpp): constants as by-value parameters.
template <class T>
void table_range(const T* x, T* y, int64_t i0, int64_t i1, const T* table) {
  for (int64_t i = i0; i < i1; ++i) y[i] = table[static_cast<uint8_t>(x[i])];
}

}  // namespace

template <class T>
void qunary_ref(const T* x, T* y, int64_t n, int64_t row, const QUnarySpec& spec) {
  for (int64_t i = 0; i < n; ++i) {
    y[i] = unary_one<T>(x[i], spec, (i % row) < vec_part<T>(row));
  }
}

template <class T>
void qunary(const T* x, T* y, int64_t n, int64_t row, const QUnarySpec& spec) {
  if (n == 0) return;
  if constexpr (sizeof(T) == 1) {
    // Two tables indexed by the code's bits; each element picks by its position in its row.
    std::array<T, 256> tv{}, ts{};
    for (int i = 0; i < 256; ++i) {
      const int64_t q = static_cast<int64_t>(static_cast<T>(i));
      tv[static_cast<uint8_t>(static_cast<T>(q))] = unary_one<T>(q, spec, true);
      ts[static_cast<uint8_t>(static_cast<T>(q))] = unary_one<T>(q, spec, false);
    }
    auto run_row = [&](int64_t off, int64_t len) {
      const int64_t v = vec_part<T>(len);
      table_range<T>(x + off, y + off, 0, v, tv.data());
      table_range<T>(x + off, y + off, v, len, ts.data());
    };
    if (row == n) {
      const int64_t v = vec_part<T>(n);
      parallel_for(0, v, kGrain,
                   [&](int64_t i0, int64_t i1) { table_range<T>(x, y, i0, i1, tv.data()); });
      table_range<T>(x, y, v, n, ts.data());
    } else {
      parallel_for(0, n / row, std::max<int64_t>(1, kGrain / row), [&](int64_t r0, int64_t r1) {
        for (int64_t r = r0; r < r1; ++r) run_row(r * row, row);
      });
    }
  } else {
    parallel_for(0, n / row, std::max<int64_t>(1, kGrain / row), [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const int64_t v = vec_part<T>(row);
        for (int64_t i = 0; i < row; ++i)
          y[r * row + i] = unary_one<T>(x[r * row + i], spec, i < v);
      }
    });
  }
}

template <class T>
void qunary_rows_ref(const T* x, T* y, int64_t rows, int64_t len, int64_t y_stride, int64_t step,
                     const QUnarySpec& spec) {
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t i = 0; i < len; ++i) {
      y[r * y_stride + i] = unary_one<T>(x[r * len + i], spec, i < len - len % step);
    }
  }
}

template <class T>
void qunary_rows(const T* x, T* y, int64_t rows, int64_t len, int64_t y_stride, int64_t step,
                 const QUnarySpec& spec) {
  if (rows == 0 || len == 0) return;
  if constexpr (sizeof(T) == 1) {
    std::array<T, 256> tv{}, ts{};
    for (int i = 0; i < 256; ++i) {
      const int64_t q = static_cast<int64_t>(static_cast<T>(i));
      tv[static_cast<uint8_t>(i)] = unary_one<T>(q, spec, true);
      ts[static_cast<uint8_t>(i)] = unary_one<T>(q, spec, false);
    }
    const int64_t v = len - len % step;
    parallel_for(0, rows, std::max<int64_t>(1, kGrain / len), [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const T* xr = x + r * len;
        T* yr = y + r * y_stride;
        table_range<T>(xr, yr, 0, v, tv.data());
        table_range<T>(xr, yr, v, len, ts.data());
      }
    });
  } else {
    qunary_rows_ref<T>(x, y, rows, len, y_stride, step, spec);
  }
}

template <class T>
void qclamp_codes_ref(const T* x, T* y, int64_t n, int64_t lo, int64_t hi) {
  for (int64_t i = 0; i < n; ++i) {
    y[i] = static_cast<T>(std::min<int64_t>(std::max<int64_t>(x[i], lo), hi));
  }
}

namespace {
template <class T>
void clamp_range(const T* x, T* y, int64_t i0, int64_t i1, const T l, const T h) {
  for (int64_t i = i0; i < i1; ++i) y[i] = std::min(std::max(x[i], l), h);
}
template <class T>
void flip_range(const T* x, T* y, int64_t i0, int64_t i1, bool relu, const T zp) {
  constexpr int64_t sum = qmax_of<T>() + qmin_of<T>();
  if (relu) {
    for (int64_t i = i0; i < i1; ++i) y[i] = std::max(static_cast<T>(sum - x[i]), zp);
  } else {
    for (int64_t i = i0; i < i1; ++i) y[i] = static_cast<T>(sum - x[i]);
  }
}
}  // namespace

template <class T>
void qclamp_codes(const T* x, T* y, int64_t n, int64_t lo, int64_t hi) {
  const T l = static_cast<T>(std::max(lo, qmin_of<T>()));
  const T h = static_cast<T>(std::min(hi, qmax_of<T>()));
  parallel_for(0, n, kGrain, [&](int64_t i0, int64_t i1) { clamp_range<T>(x, y, i0, i1, l, h); });
}

template <class T>
void qflip_codes(const T* x, T* y, int64_t n, bool relu, int64_t zp) {
  // y = qmax + qmin - x stays in range; relu's zero point is one too (qmax - (z - qmin)).
  const T z = static_cast<T>(std::min(std::max(zp, qmin_of<T>()), qmax_of<T>()));
  parallel_for(0, n, kGrain, [&](int64_t i0, int64_t i1) { flip_range<T>(x, y, i0, i1, relu, z); });
}

// ---- batch norm ----
namespace {
template <class T>
T bn_one(T q, float alpha, float beta, int64_t x_zp, int64_t y_zp, bool relu) {
  const float d = static_cast<float>(static_cast<int64_t>(q) - x_zp);
  int64_t v = y_zp + static_cast<int64_t>(std::nearbyint(std::fma(alpha, d, beta)));
  v = std::min(std::max(v, qmin_of<T>()), qmax_of<T>());
  if (relu) v = std::max(v, y_zp);
  return static_cast<T>(v);
}
template <class T>
void bn_rows(const T* x, T* y, int64_t rows, int64_t C, const float* alpha, const float* beta,
             int64_t x_zp, int64_t y_zp, bool relu) {
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < C; ++c) {
      y[r * C + c] = bn_one<T>(x[r * C + c], alpha[c], beta[c], x_zp, y_zp, relu);
    }
  }
}
}  // namespace

template <class T>
void qbatch_norm_nhwc_ref(const T* x, T* y, int64_t rows, int64_t C, const float* alpha,
                          const float* beta, int64_t x_zp, int64_t y_zp, bool relu) {
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < C; ++c) {
      y[r * C + c] = bn_one<T>(x[r * C + c], alpha[c], beta[c], x_zp, y_zp, relu);
    }
  }
}

template <class T>
void qbatch_norm_nhwc(const T* x, T* y, int64_t rows, int64_t C, const float* alpha,
                      const float* beta, int64_t x_zp, int64_t y_zp, bool relu) {
  parallel_for(0, rows, std::max<int64_t>(1, kGrain / std::max<int64_t>(C, 1)),
               [&](int64_t r0, int64_t r1) {
                 bn_rows<T>(x + r0 * C, y + r0 * C, r1 - r0, C, alpha, beta, x_zp, y_zp, relu);
               });
}

#define EMBER_QUNARY_INST(T)                                                                    \
  template void qunary<T>(const T*, T*, int64_t, int64_t, const QUnarySpec&);                   \
  template void qunary_ref<T>(const T*, T*, int64_t, int64_t, const QUnarySpec&);               \
  template void qunary_rows<T>(const T*, T*, int64_t, int64_t, int64_t, int64_t,                \
                               const QUnarySpec&);                                              \
  template void qunary_rows_ref<T>(const T*, T*, int64_t, int64_t, int64_t, int64_t,            \
                                   const QUnarySpec&);                                          \
  template void qclamp_codes<T>(const T*, T*, int64_t, int64_t, int64_t);                       \
  template void qclamp_codes_ref<T>(const T*, T*, int64_t, int64_t, int64_t);                   \
  template void qflip_codes<T>(const T*, T*, int64_t, bool, int64_t);                           \
  template void qbatch_norm_nhwc<T>(const T*, T*, int64_t, int64_t, const float*, const float*, \
                                    int64_t, int64_t, bool);                                    \
  template void qbatch_norm_nhwc_ref<T>(const T*, T*, int64_t, int64_t, const float*,           \
                                        const float*, int64_t, int64_t, bool);
EMBER_QUNARY_INST(uint8_t)
EMBER_QUNARY_INST(int8_t)
EMBER_QUNARY_INST(int32_t)
#undef EMBER_QUNARY_INST

}  // namespace ember::cpu::quantized
