#include "softmax_kernels.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "ember/ops/copy.h"
#include "ember/ops/factory.h"
#include "ember/parallel.h"
#include "vec_math.h"

namespace ember::cpu {

namespace {

constexpr int64_t kTile = 64;
constexpr int kLanes = 16;

template <class M>
[[gnu::always_inline]] inline M max_nan(M a, M v) {
  // Nested selects: the form GCC vectorizes (see extremum() in reduce_kernels.cpp).
  return v != v ? v : (v > a ? v : a);
}

// exp(x) for x <= 0 or NaN, which is all softmax needs (it shifts by the line's max). float:
// Cephes' expf polynomial after a Cody-Waite reduction, 2^n put in the exponent bits, no calls
// and no branches, so loops over it vectorize (std::exp does not without -ffast-math). Error
// about 1 ulp; results below FLT_MIN (x < -87.3) flush to 0.
template <class M>
[[gnu::always_inline]] inline M exp_le0(M x) {
  if constexpr (std::is_same_v<M, float>) {
    constexpr float lo = -87.3365447504f;  // log(FLT_MIN)
    // Inputs below lo (masked attention scores: -inf) compute from 0 and are zeroed below: a
    // clamp to lo made each one a subnormal multiply (a microcode assist, ~100 cycles).
    // Integer masks, not selects: GCC turns a select into a branch, splits the float work into
    // it and then cannot if-convert it back under -ftrapping-math.
    const int32_t low = -static_cast<int32_t>(x < lo);
    const float xc = std::bit_cast<float>(std::bit_cast<int32_t>(x) & ~low);
    // n = round(xc / ln 2): xc <= 0, so truncating xc * log2(e) - 0.5 rounds to nearest (no
    // std::floor, which GCC does not vectorize under -ftrapping-math).
    const int32_t ni = static_cast<int32_t>(xc * 1.44269504088896341f - 0.5f);
    const float n = static_cast<float>(ni);
    const float r = xc - n * 0.693359375f + n * 2.12194440e-4f;
    float y = 1.9875691500e-4f;
    y = y * r + 1.3981999507e-3f;
    y = y * r + 8.3334519073e-3f;
    y = y * r + 4.1665795894e-2f;
    y = y * r + 1.6666665459e-1f;
    y = y * r + 5.0000001201e-1f;
    y = y * (r * r) + r + 1.0f;
    const int32_t scaled = std::bit_cast<int32_t>(y * std::bit_cast<float>((ni + 127) << 23));
    // Underflow to 0 and NaN passthrough: integer masks too.
    const int32_t keep = -static_cast<int32_t>(x >= lo);  // all ones unless underflow or NaN
    const int32_t nan = -static_cast<int32_t>(x != x);
    return std::bit_cast<float>((scaled & keep) | (std::bit_cast<int32_t>(x) & nan));
  } else {
    return std::exp(x);
  }
}

template <class M>
M row_max(const M* x, int64_t n) {
  M l[kLanes];
  for (int j = 0; j < kLanes; ++j) l[j] = -std::numeric_limits<M>::infinity();
  int64_t k = 0;
  for (; k + kLanes <= n; k += kLanes) {
#pragma GCC unroll 1
    for (int j = 0; j < kLanes; ++j) l[j] = max_nan(l[j], x[k + j]);
  }
  for (int j = 0; k < n; ++k, ++j) l[j] = max_nan(l[j], x[k]);
  M m = l[0];
  for (int j = 1; j < kLanes; ++j) m = max_nan(m, l[j]);
  return m;
}

// sum of exp(x[k] - shift), storing each exp in e[k] when Store.
template <bool Store, class M>
M row_exp_sum(const M* x, M shift, M* e, int64_t n) {
  M l[kLanes] = {};
  int64_t k = 0;
  for (; k + kLanes <= n; k += kLanes) {
#pragma GCC unroll 1
    for (int j = 0; j < kLanes; ++j) {
      const M v = exp_le0(x[k + j] - shift);
      if constexpr (Store) e[k + j] = v;
      l[j] += v;
    }
  }
  for (int j = 0; k < n; ++k, ++j) {
    const M v = exp_le0(x[k] - shift);
    if constexpr (Store) e[k] = v;
    l[j] += v;
  }
  for (int w = kLanes / 2; w > 0; w /= 2) {
    for (int j = 0; j < w; ++j) l[j] += l[j + w];
  }
  return l[0];
}

// One contiguous line. `buf` holds len opmath values (the line converted, when T is not M).
template <class T, class O, bool Log>
void softmax_row(const T* x, O* y, int64_t len, opmath_t<T>* buf) {
  using M = opmath_t<T>;
  const M* xs;
  if constexpr (std::is_same_v<T, M>) {
    xs = x;
  } else {
    for (int64_t k = 0; k < len; ++k) buf[k] = static_cast<M>(x[k]);
    xs = buf;
  }
  const M mx = row_max(xs, len);
  if constexpr (Log) {
    const M lse = std::log(row_exp_sum<false>(xs, mx, static_cast<M*>(nullptr), len));
    for (int64_t k = 0; k < len; ++k) y[k] = static_cast<O>(xs[k] - mx - lse);
  } else {
    // The exponentials go to the output when it holds M, else over the converted line.
    M* e = nullptr;
    if constexpr (std::is_same_v<O, M>) e = y;
    else e = buf;
    const M inv = M(1) / row_exp_sum<true>(xs, mx, e, len);
    for (int64_t k = 0; k < len; ++k) y[k] = static_cast<O>(e[k] * inv);
  }
}

// Lines of `len` elements: contiguous (inner == 1) or `inner` apart, a tile of neighbouring
// lines at a time so every pass reads memory in rows.
template <class T, class O, bool Log>
void softmax_lines(const T* in, O* out, int64_t outer, int64_t len, int64_t inner) {
  using M = opmath_t<T>;
  if (inner == 1) {
    const int64_t grain = std::max<int64_t>(1, 32768 / len);
    parallel_for(0, outer, grain, [&](int64_t begin, int64_t end) {
      std::vector<M> buf(std::is_same_v<T, M> && std::is_same_v<O, M> ? 0 : static_cast<size_t>(len));
      for (int64_t r = begin; r < end; ++r) softmax_row<T, O, Log>(in + r * len, out + r * len, len, buf.data());
    });
    return;
  }
  const int64_t tiles = (inner + kTile - 1) / kTile;
  const int64_t grain = std::max<int64_t>(1, 32768 / (len * std::min(inner, kTile)));
  parallel_for(0, outer * tiles, grain, [&](int64_t begin, int64_t end) {
    M mx[kTile], sum[kTile];
    for (int64_t item = begin; item < end; ++item) {
      const int64_t o = item / tiles, t0 = (item % tiles) * kTile;
      const int64_t lanes = std::min(kTile, inner - t0);
      const T* x = in + o * len * inner + t0;
      O* y = out + o * len * inner + t0;
      for (int64_t j = 0; j < lanes; ++j) {
        mx[j] = -std::numeric_limits<M>::infinity();
        sum[j] = 0;
      }
      for (int64_t k = 0; k < len; ++k) {
        for (int64_t j = 0; j < lanes; ++j) mx[j] = max_nan(mx[j], static_cast<M>(x[k * inner + j]));
      }
      for (int64_t k = 0; k < len; ++k) {
        for (int64_t j = 0; j < lanes; ++j) sum[j] += exp_le0(static_cast<M>(x[k * inner + j]) - mx[j]);
      }
      for (int64_t j = 0; j < lanes; ++j) sum[j] = Log ? std::log(sum[j]) : M(1) / sum[j];
      for (int64_t k = 0; k < len; ++k) {
        for (int64_t j = 0; j < lanes; ++j) {
          const M v = static_cast<M>(x[k * inner + j]) - mx[j];
          y[k * inner + j] = static_cast<O>(Log ? v - sum[j] : exp_le0(v) * sum[j]);
        }
      }
    }
  });
}

struct LineShape {
  int64_t outer = 1, len = 1, inner = 1;
};
LineShape line_shape(const Tensor& t, int64_t dim) {
  LineShape s;
  if (t.dim() == 0) return s;
  for (int64_t d = 0; d < dim; ++d) s.outer *= t.size(d);
  s.len = t.size(dim);
  for (int64_t d = dim + 1; d < t.dim(); ++d) s.inner *= t.size(d);
  return s;
}

}  // namespace

void softmax_kernel(const Tensor& out, const Tensor& in, int64_t dim, bool log) {
  EMBER_ASSERT(in.is_contiguous() && out.is_contiguous() && is_floating(in.dtype()));
  if (in.numel() == 0) return;
  const LineShape s = line_shape(in, dim);
  visit_dtype(in.dtype(), [&]<class T>() {
    if constexpr (std::is_floating_point_v<opmath_t<T>>) {
      const T* x = static_cast<const T*>(in.data_ptr());
      auto run = [&]<class O>(O* y) {
        if (log) softmax_lines<T, O, true>(x, y, s.outer, s.len, s.inner);
        else softmax_lines<T, O, false>(x, y, s.outer, s.len, s.inner);
      };
      if (out.dtype() == in.dtype()) {
        run(out.data_ptr<T>());
      } else {
        EMBER_ASSERT(out.dtype() == kFloat32 && is_reduced_float_v<T>);
        run(out.data_ptr<float>());
      }
    }
  }, log ? "log_softmax" : "softmax");
}

void softmax_backward_lastdim_kernel(const Tensor& gi, const Tensor& grad, const Tensor& output,
                                     bool log) {
  EMBER_ASSERT(gi.is_contiguous() && grad.is_contiguous() && output.is_contiguous());
  if (grad.numel() == 0) return;
  const int64_t len = grad.dim() == 0 ? 1 : grad.size(-1), rows = grad.numel() / len;
  auto run = [&]<class M>() {
    const M* g = grad.data_ptr<M>();
    const M* y = output.data_ptr<M>();
    M* o = gi.data_ptr<M>();
    const int64_t grain = std::max<int64_t>(1, 32768 / len);
    parallel_for(0, rows, grain, [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        const M* gr = g + r * len;
        const M* yr = y + r * len;
        M* orow = o + r * len;
        M l[kLanes] = {};
        int64_t k = 0;
        for (; k + kLanes <= len; k += kLanes) {
          for (int j = 0; j < kLanes; ++j) l[j] += log ? gr[k + j] : gr[k + j] * yr[k + j];
        }
        for (int j = 0; k < len; ++k, ++j) l[j] += log ? gr[k] : gr[k] * yr[k];
        for (int w = kLanes / 2; w > 0; w /= 2) {
          for (int j = 0; j < w; ++j) l[j] += l[j + w];
        }
        const M s = l[0];
        if (log) {
          // exp over the whole range (a caller's `output` need not be <= 0).
          if constexpr (std::is_same_v<M, float>) {
            exp_fast_array(orow, yr, len);
            for (k = 0; k < len; ++k) orow[k] = gr[k] - orow[k] * s;
          } else {
            for (k = 0; k < len; ++k) orow[k] = gr[k] - std::exp(yr[k]) * s;
          }
        } else {
          for (k = 0; k < len; ++k) orow[k] = yr[k] * (gr[k] - s);
        }
      }
    });
  };
  if (grad.dtype() == kFloat32) {
    run.template operator()<float>();
  } else {
    EMBER_ASSERT(grad.dtype() == kFloat64);
    run.template operator()<double>();
  }
}

Tensor softmax_backward_lastdim_ref(const Tensor& grad, const Tensor& output, bool log) {
  const Tensor g = grad.to(kFloat64).contiguous(), y = output.to(kFloat64).contiguous();
  Tensor out = empty(grad.sizes(), kFloat64);
  if (grad.numel() == 0) return out;
  const int64_t len = grad.dim() == 0 ? 1 : grad.size(-1), rows = grad.numel() / len;
  const double* gp = g.data_ptr<double>();
  const double* yp = y.data_ptr<double>();
  double* op = out.data_ptr<double>();
  for (int64_t r = 0; r < rows; ++r) {
    double s = 0;
    for (int64_t k = 0; k < len; ++k) s += log ? gp[r * len + k] : gp[r * len + k] * yp[r * len + k];
    for (int64_t k = 0; k < len; ++k) {
      const int64_t i = r * len + k;
      op[i] = log ? gp[i] - std::exp(yp[i]) * s : yp[i] * (gp[i] - s);
    }
  }
  return out;
}

Tensor softmax_ref(const Tensor& in, int64_t dim, bool log) {
  Tensor c = in.to(kFloat64).contiguous();
  Tensor out = empty(in.sizes(), kFloat64);
  const double* x = c.data_ptr<double>();
  double* y = out.data_ptr<double>();
  if (in.numel() == 0) return out;
  const LineShape s = line_shape(in, dim);
  for (int64_t o = 0; o < s.outer; ++o) {
    for (int64_t i = 0; i < s.inner; ++i) {
      auto at = [&](int64_t k) { return (o * s.len + k) * s.inner + i; };
      long double mx = -std::numeric_limits<long double>::infinity();
      bool nan = false;
      for (int64_t k = 0; k < s.len; ++k) {
        nan = nan || std::isnan(x[at(k)]);
        mx = std::max<long double>(mx, x[at(k)]);
      }
      long double sum = 0;
      for (int64_t k = 0; k < s.len; ++k) sum += std::exp(x[at(k)] - mx);
      for (int64_t k = 0; k < s.len; ++k) {
        long double v = log ? x[at(k)] - mx - std::log(sum) : std::exp(x[at(k)] - mx) / sum;
        y[at(k)] = nan ? std::numeric_limits<double>::quiet_NaN() : static_cast<double>(v);
      }
    }
  }
  return out;
}

}  // namespace ember::cpu
