#include "layer_norm_kernels.h"

#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>

#include "dtype_lists.h"
#include "ember/parallel.h"

namespace ember::cpu {

namespace {

constexpr int kLanes = 16;

// sum of f(k) for k < n in 16 partial sums (a form GCC vectorizes), added pairwise.
template <class M, class F>
[[gnu::always_inline]] inline M lane_sum(int64_t n, F f) {
  M l[kLanes] = {};
  int64_t k = 0;
  for (; k + kLanes <= n; k += kLanes) {
    for (int j = 0; j < kLanes; ++j) l[j] += f(k + j);
  }
  for (int j = 0; k < n; ++k, ++j) l[j] += f(k);
  for (int w = kLanes / 2; w > 0; w /= 2) {
    for (int j = 0; j < w; ++j) l[j] += l[j + w];
  }
  return l[0];
}

// A row's elements as opmath values: the row itself when T is M, else converted into buf.
template <class T, class M>
const M* as_opmath(const T* p, int64_t n, M* buf) {
  if constexpr (std::is_same_v<T, M>) {
    (void)n;
    (void)buf;
    return p;
  } else {
    for (int64_t k = 0; k < n; ++k) buf[k] = static_cast<M>(p[k]);
    return buf;
  }
}

// The statistics' dtype: float for 16-bit inputs.
template <class T>
using stat_t = opmath_t<T>;

template <class T>
void forward(const Tensor& y_t, const Tensor& mean_t, const Tensor& rstd_t, const Tensor& x_t,
             const Tensor& w_t, const Tensor& b_t, int64_t rows, int64_t cols, double eps) {
  using M = opmath_t<T>;
  const T* x = static_cast<const T*>(x_t.data_ptr());
  T* y = static_cast<T*>(y_t.data_ptr());
  stat_t<T>* mean = static_cast<stat_t<T>*>(mean_t.data_ptr());
  stat_t<T>* rstd = static_cast<stat_t<T>*>(rstd_t.data_ptr());
  std::vector<M> wv, bv;
  const M* w = w_t.defined() ? as_opmath(static_cast<const T*>(w_t.data_ptr()), cols, (wv.resize(cols), wv.data())) : nullptr;
  const M* b = b_t.defined() ? as_opmath(static_cast<const T*>(b_t.data_ptr()), cols, (bv.resize(cols), bv.data())) : nullptr;
  const int64_t grain = std::max<int64_t>(1, 32768 / std::max<int64_t>(cols, 1));
  parallel_for(0, rows, grain, [&](int64_t begin, int64_t end) {
    std::vector<M> buf(std::is_same_v<T, M> ? 0 : 2 * cols);
    for (int64_t r = begin; r < end; ++r) {
      const M* xr = as_opmath(x + r * cols, cols, buf.data());
      const M mu = lane_sum<M>(cols, [&](int64_t k) { return xr[k]; }) / static_cast<M>(cols);
      const M var = lane_sum<M>(cols, [&](int64_t k) {
        const M d = xr[k] - mu;
        return d * d;
      }) / static_cast<M>(cols);
      const M rs = M(1) / std::sqrt(var + static_cast<M>(eps));
      mean[r] = static_cast<stat_t<T>>(mu);
      rstd[r] = static_cast<stat_t<T>>(rs);
      T* yr = y + r * cols;
      if constexpr (std::is_same_v<T, M>) {
        if (w && b) {
          for (int64_t k = 0; k < cols; ++k) yr[k] = ((xr[k] - mu) * rs) * w[k] + b[k];
        } else if (w) {
          for (int64_t k = 0; k < cols; ++k) yr[k] = ((xr[k] - mu) * rs) * w[k];
        } else if (b) {
          for (int64_t k = 0; k < cols; ++k) yr[k] = (xr[k] - mu) * rs + b[k];
        } else {
          for (int64_t k = 0; k < cols; ++k) yr[k] = (xr[k] - mu) * rs;
        }
      } else {
        for (int64_t k = 0; k < cols; ++k) {
          M v = (xr[k] - mu) * rs;
          if (w) v = v * w[k];
          if (b) v = v + b[k];
          yr[k] = static_cast<T>(v);
        }
      }
    }
  });
}

template <class T>
void backward(const Tensor& dx_t, const Tensor& dw_t, const Tensor& db_t, const Tensor& dy_t,
              const Tensor& x_t, const Tensor& mean_t, const Tensor& rstd_t, const Tensor& w_t,
              int64_t rows, int64_t cols) {
  using M = opmath_t<T>;
  const T* x = static_cast<const T*>(x_t.data_ptr());
  const T* dy = static_cast<const T*>(dy_t.data_ptr());
  const stat_t<T>* mean = static_cast<const stat_t<T>*>(mean_t.data_ptr());
  const stat_t<T>* rstd = static_cast<const stat_t<T>*>(rstd_t.data_ptr());
  T* dx = dx_t.defined() ? static_cast<T*>(dx_t.data_ptr()) : nullptr;
  const bool want_w = dw_t.defined(), want_b = db_t.defined();
  std::vector<M> wv;
  const M* w = w_t.defined() ? as_opmath(static_cast<const T*>(w_t.data_ptr()), cols, (wv.resize(cols), wv.data())) : nullptr;
  // One [2, cols] double buffer per chunk of rows for dw and db.
  const int64_t chunks = (want_w || want_b)
                             ? std::max<int64_t>(1, std::min<int64_t>(get_num_threads(), rows))
                             : std::max<int64_t>(1, std::min<int64_t>(rows, get_num_threads() * 4));
  std::vector<double> acc(want_w || want_b ? static_cast<size_t>(chunks * 2 * cols) : 0, 0.0);
  parallel_for(0, chunks, 1, [&](int64_t c0, int64_t c1) {
    std::vector<M> buf(std::is_same_v<T, M> ? cols : 4 * cols);
    for (int64_t c = c0; c < c1; ++c) {
      const int64_t r0 = rows * c / chunks, r1 = rows * (c + 1) / chunks;
      double* aw = want_w || want_b ? acc.data() + c * 2 * cols : nullptr;
      double* ab = aw ? aw + cols : nullptr;
      for (int64_t r = r0; r < r1; ++r) {
        M* xh = buf.data();  // xhat, then reused
        const M* xr;
        const M* gr;
        if constexpr (std::is_same_v<T, M>) {
          xr = x + r * cols;
          gr = dy + r * cols;
        } else {
          xr = as_opmath(x + r * cols, cols, buf.data() + cols);
          gr = as_opmath(dy + r * cols, cols, buf.data() + 2 * cols);
        }
        const M mu = static_cast<M>(mean[r]), rs = static_cast<M>(rstd[r]);
        for (int64_t k = 0; k < cols; ++k) xh[k] = (xr[k] - mu) * rs;
        if (want_w) {
          for (int64_t k = 0; k < cols; ++k) aw[k] += static_cast<double>(gr[k] * xh[k]);
        }
        if (want_b) {
          for (int64_t k = 0; k < cols; ++k) ab[k] += static_cast<double>(gr[k]);
        }
        if (!dx) continue;
        const M inv_n = M(1) / static_cast<M>(cols);
        M a, bsum;
        if (w) {
          a = lane_sum<M>(cols, [&](int64_t k) { return gr[k] * w[k]; }) * inv_n;
          bsum = lane_sum<M>(cols, [&](int64_t k) { return gr[k] * w[k] * xh[k]; }) * inv_n;
        } else {
          a = lane_sum<M>(cols, [&](int64_t k) { return gr[k]; }) * inv_n;
          bsum = lane_sum<M>(cols, [&](int64_t k) { return gr[k] * xh[k]; }) * inv_n;
        }
        T* dxr = dx + r * cols;
        if (w) {
          for (int64_t k = 0; k < cols; ++k)
            dxr[k] = static_cast<T>(rs * (gr[k] * w[k] - a - xh[k] * bsum));
        } else {
          for (int64_t k = 0; k < cols; ++k) dxr[k] = static_cast<T>(rs * (gr[k] - a - xh[k] * bsum));
        }
      }
    }
  });
  if (!want_w && !want_b) return;
  // Chunks added in order.
  for (int64_t c = 1; c < chunks; ++c) {
    for (int64_t k = 0; k < 2 * cols; ++k) acc[k] += acc[c * 2 * cols + k];
  }
  if (want_w) {
    T* dw = static_cast<T*>(dw_t.data_ptr());
    for (int64_t k = 0; k < cols; ++k) dw[k] = static_cast<T>(static_cast<M>(acc[k]));
  }
  if (want_b) {
    T* db = static_cast<T*>(db_t.data_ptr());
    for (int64_t k = 0; k < cols; ++k) db[k] = static_cast<T>(static_cast<M>(acc[cols + k]));
  }
}

// The references: one row at a time in double, the plain formulas.
template <class T>
void forward_ref(const Tensor& y_t, const Tensor& mean_t, const Tensor& rstd_t, const Tensor& x_t,
                 const Tensor& w_t, const Tensor& b_t, int64_t rows, int64_t cols, double eps) {
  const T* x = static_cast<const T*>(x_t.data_ptr());
  T* y = static_cast<T*>(y_t.data_ptr());
  const T* w = w_t.defined() ? static_cast<const T*>(w_t.data_ptr()) : nullptr;
  const T* b = b_t.defined() ? static_cast<const T*>(b_t.data_ptr()) : nullptr;
  for (int64_t r = 0; r < rows; ++r) {
    double s = 0, v = 0;
    for (int64_t k = 0; k < cols; ++k) s += static_cast<double>(x[r * cols + k]);
    const double mu = s / static_cast<double>(cols);
    for (int64_t k = 0; k < cols; ++k) {
      const double d = static_cast<double>(x[r * cols + k]) - mu;
      v += d * d;
    }
    const double rs = 1.0 / std::sqrt(v / static_cast<double>(cols) + eps);
    static_cast<stat_t<T>*>(mean_t.data_ptr())[r] = static_cast<stat_t<T>>(mu);
    static_cast<stat_t<T>*>(rstd_t.data_ptr())[r] = static_cast<stat_t<T>>(rs);
    for (int64_t k = 0; k < cols; ++k) {
      double o = (static_cast<double>(x[r * cols + k]) - mu) * rs;
      if (w) o *= static_cast<double>(w[k]);
      if (b) o += static_cast<double>(b[k]);
      y[r * cols + k] = static_cast<T>(o);
    }
  }
}

template <class T>
void backward_ref(const Tensor& dx_t, const Tensor& dw_t, const Tensor& db_t, const Tensor& dy_t,
                  const Tensor& x_t, const Tensor& mean_t, const Tensor& rstd_t, const Tensor& w_t,
                  int64_t rows, int64_t cols) {
  const T* x = static_cast<const T*>(x_t.data_ptr());
  const T* dy = static_cast<const T*>(dy_t.data_ptr());
  const T* w = w_t.defined() ? static_cast<const T*>(w_t.data_ptr()) : nullptr;
  std::vector<double> dw(cols, 0.0), db(cols, 0.0);
  for (int64_t r = 0; r < rows; ++r) {
    const double mu = static_cast<double>(static_cast<const stat_t<T>*>(mean_t.data_ptr())[r]);
    const double rs = static_cast<double>(static_cast<const stat_t<T>*>(rstd_t.data_ptr())[r]);
    double a = 0, bs = 0;
    for (int64_t k = 0; k < cols; ++k) {
      const double xh = (static_cast<double>(x[r * cols + k]) - mu) * rs;
      const double d = static_cast<double>(dy[r * cols + k]);
      const double g = w ? d * static_cast<double>(w[k]) : d;
      a += g;
      bs += g * xh;
      dw[k] += d * xh;
      db[k] += d;
    }
    a /= static_cast<double>(cols);
    bs /= static_cast<double>(cols);
    if (!dx_t.defined()) continue;
    for (int64_t k = 0; k < cols; ++k) {
      const double xh = (static_cast<double>(x[r * cols + k]) - mu) * rs;
      const double d = static_cast<double>(dy[r * cols + k]);
      const double g = w ? d * static_cast<double>(w[k]) : d;
      static_cast<T*>(dx_t.data_ptr())[r * cols + k] = static_cast<T>(rs * (g - a - xh * bs));
    }
  }
  for (int64_t k = 0; k < cols; ++k) {
    if (dw_t.defined()) static_cast<T*>(dw_t.data_ptr())[k] = static_cast<T>(dw[k]);
    if (db_t.defined()) static_cast<T*>(db_t.data_ptr())[k] = static_cast<T>(db[k]);
  }
}

}  // namespace

void layer_norm_kernel(const Tensor& y, const Tensor& mean, const Tensor& rstd, const Tensor& x,
                       const Tensor& w, const Tensor& b, int64_t rows, int64_t cols, double eps) {
  if (rows == 0) return;
  dispatch_types(kFloatTypes, x.dtype(), "LayerNormKernelImpl", [&]<class T>() {
    forward<T>(y, mean, rstd, x, w, b, rows, cols, eps);
  });
}

void layer_norm_ref(const Tensor& y, const Tensor& mean, const Tensor& rstd, const Tensor& x,
                    const Tensor& w, const Tensor& b, int64_t rows, int64_t cols, double eps) {
  dispatch_types(kFloatTypes, x.dtype(), "LayerNormKernelImpl", [&]<class T>() {
    forward_ref<T>(y, mean, rstd, x, w, b, rows, cols, eps);
  });
}

void layer_norm_backward_kernel(const Tensor& dx, const Tensor& dw, const Tensor& db,
                                const Tensor& dy, const Tensor& x, const Tensor& mean,
                                const Tensor& rstd, const Tensor& w, int64_t rows, int64_t cols) {
  dispatch_types(kFloatTypes, x.dtype(), "LayerNormBackwardKernelImpl", [&]<class T>() {
    backward<T>(dx, dw, db, dy, x, mean, rstd, w, rows, cols);
  });
}

void layer_norm_backward_ref(const Tensor& dx, const Tensor& dw, const Tensor& db,
                             const Tensor& dy, const Tensor& x, const Tensor& mean,
                             const Tensor& rstd, const Tensor& w, int64_t rows, int64_t cols) {
  dispatch_types(kFloatTypes, x.dtype(), "LayerNormBackwardKernelImpl", [&]<class T>() {
    backward_ref<T>(dx, dw, db, dy, x, mean, rstd, w, rows, cols);
  });
}

}  // namespace ember::cpu
