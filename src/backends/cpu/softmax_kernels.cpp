#include "softmax_kernels.h"

#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "ember/ops/copy.h"
#include "ember/ops/factory.h"
#include "ember/parallel.h"

namespace ember::cpu {

namespace {

constexpr int64_t kTile = 64;

template <class M>
M max_nan(M a, M v) {
  return (v != v || v > a) ? v : a;
}

// Lines of `len` elements: contiguous (inner == 1) or `inner` apart, a tile of neighbouring
// lines at a time so every pass reads memory in rows.
template <class T, class O, bool Log>
void softmax_lines(const T* in, O* out, int64_t outer, int64_t len, int64_t inner) {
  using M = opmath_t<T>;
  const M neg_inf = -std::numeric_limits<M>::infinity();
  if (inner == 1) {
    const int64_t grain = std::max<int64_t>(1, 32768 / len);
    parallel_for(0, outer, grain, [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        const T* x = in + r * len;
        O* y = out + r * len;
        M mx = neg_inf;
        for (int64_t k = 0; k < len; ++k) mx = max_nan(mx, static_cast<M>(x[k]));
        M sum = 0;
        if constexpr (!Log && std::is_same_v<O, M>) {
          // The output can hold the exponentials at full precision: one exp per element.
          for (int64_t k = 0; k < len; ++k) {
            M e = std::exp(static_cast<M>(x[k]) - mx);
            y[k] = e;
            sum += e;
          }
          const M inv = M(1) / sum;
          for (int64_t k = 0; k < len; ++k) y[k] *= inv;
        } else {
          for (int64_t k = 0; k < len; ++k) sum += std::exp(static_cast<M>(x[k]) - mx);
          if constexpr (Log) {
            const M lse = std::log(sum);
            for (int64_t k = 0; k < len; ++k) y[k] = static_cast<O>(static_cast<M>(x[k]) - mx - lse);
          } else {
            const M inv = M(1) / sum;
            for (int64_t k = 0; k < len; ++k) y[k] = static_cast<O>(std::exp(static_cast<M>(x[k]) - mx) * inv);
          }
        }
      }
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
        mx[j] = neg_inf;
        sum[j] = 0;
      }
      for (int64_t k = 0; k < len; ++k) {
        for (int64_t j = 0; j < lanes; ++j) mx[j] = max_nan(mx[j], static_cast<M>(x[k * inner + j]));
      }
      for (int64_t k = 0; k < len; ++k) {
        for (int64_t j = 0; j < lanes; ++j) sum[j] += std::exp(static_cast<M>(x[k * inner + j]) - mx[j]);
      }
      for (int64_t j = 0; j < lanes; ++j) sum[j] = Log ? std::log(sum[j]) : M(1) / sum[j];
      for (int64_t k = 0; k < len; ++k) {
        for (int64_t j = 0; j < lanes; ++j) {
          const M v = static_cast<M>(x[k * inner + j]) - mx[j];
          y[k * inner + j] = static_cast<O>(Log ? v - sum[j] : std::exp(v) * sum[j]);
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
