#include "normalization_kernels.h"

#include <cmath>
#include <cstring>
#include <type_traits>

#include "ember/parallel.h"

namespace ember::cpu {

namespace {

NCS view_of(const Tensor& t) {
  auto v = ncs_view(t);
  EMBER_ASSERT(v.has_value(), "normalization kernel given a tensor whose trailing dims do not collapse");
  return *v;
}

// Calls f(c, n) for every (channel, sample) pair, parallel over channels.
template <class F>
void for_channels(int64_t C, int64_t work_per_channel, const F& f) {
  const int64_t grain = std::max<int64_t>(1, 32768 / std::max<int64_t>(work_per_channel, 1));
  parallel_for(0, C, grain, [&](int64_t b, int64_t e) {
    for (int64_t c = b; c < e; ++c) f(c);
  });
}

}  // namespace

void batch_norm_stats_ref(const Tensor& x, std::vector<double>& mean, std::vector<double>& var) {
  const NCS v = view_of(x);
  mean.assign(static_cast<size_t>(v.c), 0.0);
  var.assign(static_cast<size_t>(v.c), 0.0);
  const double m = static_cast<double>(v.n * v.s);
  if (m == 0) return;
  visit_floating(x.dtype(), [&]<class T>() {
    const T* p = static_cast<const T*>(x.data_ptr());
    for_channels(v.c, v.n * v.s, [&](int64_t c) {
      // Two passes in float64: the mean, then the centred sum of squares (no cancellation).
      double sum = 0;
      for (int64_t n = 0; n < v.n; ++n) {
        const T* q = p + n * v.sn + c * v.sc;
        for (int64_t s = 0; s < v.s; ++s) sum += static_cast<double>(q[s * v.ss]);
      }
      const double mu = sum / m;
      double sq = 0;
      for (int64_t n = 0; n < v.n; ++n) {
        const T* q = p + n * v.sn + c * v.sc;
        for (int64_t s = 0; s < v.s; ++s) {
          const double d = static_cast<double>(q[s * v.ss]) - mu;
          sq += d * d;
        }
      }
      mean[static_cast<size_t>(c)] = mu;
      var[static_cast<size_t>(c)] = sq / m;
    });
  }, "batch_norm");
}

void channel_affine_ref(const Tensor& out, const Tensor& x, const std::vector<double>& a,
                        const std::vector<double>& b) {
  const NCS vx = view_of(x), vo = view_of(out);
  visit_floating(x.dtype(), [&]<class T>() {
    using M = opmath_t<T>;
    const T* px = static_cast<const T*>(x.data_ptr());
    T* po = static_cast<T*>(out.data_ptr());
    for (int64_t n = 0; n < vx.n; ++n)
      for (int64_t c = 0; c < vx.c; ++c)
        for (int64_t s = 0; s < vx.s; ++s) {
          const M xv = static_cast<M>(px[n * vx.sn + c * vx.sc + s * vx.ss]);
          po[n * vo.sn + c * vo.sc + s * vo.ss] =
              static_cast<T>(xv * static_cast<M>(a[static_cast<size_t>(c)]) +
                             static_cast<M>(b[static_cast<size_t>(c)]));
        }
  }, "batch_norm");
}

void channel_affine(const Tensor& out, const Tensor& x, const std::vector<double>& a,
                    const std::vector<double>& b) {
  const NCS vx = view_of(x), vo = view_of(out);
  const bool planes = vx.ss == 1 && vo.ss == 1;                     // NCHW: each (n, c) a run
  const bool rows = vx.sc == 1 && vo.sc == 1 && vx.c > 1;           // channels_last: each (n, s) a run
  if (!planes && !rows) return channel_affine_ref(out, x, a, b);
  visit_floating(x.dtype(), [&]<class T>() {
    using M = opmath_t<T>;
    const T* px = static_cast<const T*>(x.data_ptr());
    T* po = static_cast<T*>(out.data_ptr());
    const int64_t C = vx.c;
    std::vector<M> am(a.begin(), a.end()), bm(b.begin(), b.end());
    if (planes) {
      const int64_t S = vx.s;
      parallel_for(0, vx.n * C, std::max<int64_t>(1, 32768 / std::max<int64_t>(S, 1)),
                   [&](int64_t lo, int64_t hi) {
        for (int64_t i = lo; i < hi; ++i) {
          const int64_t n = i / C, c = i % C;
          const T* xs = px + n * vx.sn + c * vx.sc;
          T* os = po + n * vo.sn + c * vo.sc;
          const M av = am[static_cast<size_t>(c)], bv = bm[static_cast<size_t>(c)];
          for (int64_t s = 0; s < S; ++s) os[s] = static_cast<T>(static_cast<M>(xs[s]) * av + bv);
        }
      });
    } else {
      const int64_t S = vx.s;
      const M* ap = am.data();
      const M* bp = bm.data();
      parallel_for(0, vx.n * S, std::max<int64_t>(1, 32768 / C), [&](int64_t lo, int64_t hi) {
        for (int64_t i = lo; i < hi; ++i) {
          const int64_t n = i / S, s = i % S;
          // __restrict on the scale and shift (never aliased by the output) lets the compiler
          // vectorize this row without a run-time overlap check; x and out may be the same.
          const T* xs = px + n * vx.sn + s * vx.ss;
          T* os = po + n * vo.sn + s * vo.ss;
          const M* __restrict as = ap;
          const M* __restrict bs = bp;
          for (int64_t c = 0; c < C; ++c) os[c] = static_cast<T>(static_cast<M>(xs[c]) * as[c] + bs[c]);
        }
      });
    }
  }, "batch_norm");
}

void channel_affine2_ref(const Tensor& out, const Tensor& dy, const Tensor& x,
                         const std::vector<double>& a, const std::vector<double>& b,
                         const std::vector<double>& k) {
  const NCS vo = view_of(out), vd = view_of(dy), vx = view_of(x);
  visit_floating(x.dtype(), [&]<class T>() {
    using M = opmath_t<T>;
    const T* px = static_cast<const T*>(x.data_ptr());
    const T* pd = static_cast<const T*>(dy.data_ptr());
    T* po = static_cast<T*>(out.data_ptr());
    parallel_for(0, vx.n * vx.c, std::max<int64_t>(1, 32768 / std::max<int64_t>(vx.s, 1)),
                 [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; ++i) {
        const int64_t n = i / vx.c, c = i % vx.c;
        const M av = static_cast<M>(a[static_cast<size_t>(c)]);
        const M bv = static_cast<M>(b[static_cast<size_t>(c)]);
        const M kv = static_cast<M>(k[static_cast<size_t>(c)]);
        const T* xs = px + n * vx.sn + c * vx.sc;
        const T* ds = pd + n * vd.sn + c * vd.sc;
        T* os = po + n * vo.sn + c * vo.sc;
        for (int64_t s = 0; s < vx.s; ++s) {
          os[s * vo.ss] = static_cast<T>(static_cast<M>(ds[s * vd.ss]) * av +
                                         static_cast<M>(xs[s * vx.ss]) * bv + kv);
        }
      }
    });
  }, "batch_norm_backward");
}

void batch_norm_grad_sums_ref(const Tensor& dy, const Tensor& x, const std::vector<double>& mean,
                              std::vector<double>& sum_dy, std::vector<double>& sum_dy_xmu) {
  const NCS vd = view_of(dy), vx = view_of(x);
  sum_dy.assign(static_cast<size_t>(vx.c), 0.0);
  sum_dy_xmu.assign(static_cast<size_t>(vx.c), 0.0);
  visit_floating(x.dtype(), [&]<class T>() {
    const T* px = static_cast<const T*>(x.data_ptr());
    const T* pd = static_cast<const T*>(dy.data_ptr());
    for_channels(vx.c, vx.n * vx.s, [&](int64_t c) {
      const double mu = mean[static_cast<size_t>(c)];
      double s1 = 0, s2 = 0;
      for (int64_t n = 0; n < vx.n; ++n) {
        const T* xs = px + n * vx.sn + c * vx.sc;
        const T* ds = pd + n * vd.sn + c * vd.sc;
        for (int64_t s = 0; s < vx.s; ++s) {
          const double g = static_cast<double>(ds[s * vd.ss]);
          s1 += g;
          s2 += g * (static_cast<double>(xs[s * vx.ss]) - mu);
        }
      }
      sum_dy[static_cast<size_t>(c)] = s1;
      sum_dy_xmu[static_cast<size_t>(c)] = s2;
    });
  }, "batch_norm_backward");
}

// ---- fast paths (Note [Fast batch norm]) ----
//
// Note [Fast batch norm]: the references accumulate each channel in one float64 chain, whose add
// latency, not memory, bounds them. The fast loops keep the same float64 arithmetic (and the two
// passes of the statistics: the mean, then the centred squares, as PyTorch's CPU kernel) but in
// independent vector partial sums: along each (n, c) run for NCHW
// inputs (unit S stride; GCC vector-extension lanes), or along the channels of each (n, s) row
// for channels_last (unit C stride). Only the order of the float64 additions differs from the
// reference.
namespace {

// Four float64 lanes (two AVX registers' worth of partial sums run side by side); GCC's vector
// extension, as vec_math.cpp, since the compiler does not vectorize a float64 reduction itself.
using D4 = double __attribute__((vector_size(32)));
using F4 = float __attribute__((vector_size(16)));

template <class T>
D4 load4(const T* q) {
  if constexpr (std::is_same_v<T, float>) {
    F4 f;
    std::memcpy(&f, q, sizeof f);
    return __builtin_convertvector(f, D4);
  } else {
    return D4{static_cast<double>(q[0]), static_cast<double>(q[1]), static_cast<double>(q[2]),
              static_cast<double>(q[3])};
  }
}

double lanes_sum(D4 v) { return (v[0] + v[1]) + (v[2] + v[3]); }

// Adds sum(q[0, len)) into acc (mu == 0) or sum((q[i] - mu)^2) (centred); two vector partial
// sums and a scalar tail.
template <bool centred, class T>
void add_run(D4& acc0, D4& acc1, double& tail, const T* q, int64_t len, double mu) {
  int64_t s = 0;
  for (; s + 8 <= len; s += 8) {
    const D4 a = load4(q + s) - mu, b = load4(q + s + 4) - mu;
    acc0 += centred ? a * a : a;
    acc1 += centred ? b * b : b;
  }
  for (; s < len; ++s) {
    const double d = static_cast<double>(q[s]) - mu;
    tail += centred ? d * d : d;
  }
}

enum class Runs { Planes, Rows, None };

// Which unit-stride loop fits every tensor given (all of the same sizes).
Runs runs_of(std::initializer_list<NCS> views) {
  bool planes = true, rows = true;
  for (const NCS& v : views) {
    planes = planes && v.ss == 1;
    rows = rows && v.sc == 1 && v.c > 1;
  }
  return planes ? Runs::Planes : rows ? Runs::Rows : Runs::None;
}

}  // namespace

void batch_norm_stats(const Tensor& x, std::vector<double>& mean, std::vector<double>& var) {
  const NCS v = view_of(x);
  const Runs runs = runs_of({v});
  if (runs == Runs::None) return batch_norm_stats_ref(x, mean, var);
  const size_t C = static_cast<size_t>(v.c);
  mean.assign(C, 0.0);
  var.assign(C, 0.0);
  const double m = static_cast<double>(v.n * v.s);
  if (m == 0) return;
  visit_floating(x.dtype(), [&]<class T>() {
    const T* p = static_cast<const T*>(x.data_ptr());
    if (runs == Runs::Planes) {
      for_channels(v.c, v.n * v.s, [&](int64_t c) {
        D4 a0 = {}, a1 = {};
        double at = 0;
        for (int64_t n = 0; n < v.n; ++n) add_run<false>(a0, a1, at, p + n * v.sn + c * v.sc, v.s, 0.0);
        const double mu = (lanes_sum(a0 + a1) + at) / m;
        D4 q0 = {}, q1 = {};
        double qt = 0;
        for (int64_t n = 0; n < v.n; ++n) add_run<true>(q0, q1, qt, p + n * v.sn + c * v.sc, v.s, mu);
        mean[static_cast<size_t>(c)] = mu;
        var[static_cast<size_t>(c)] = (lanes_sum(q0 + q1) + qt) / m;
      });
      return;
    }
    // channels_last: the rows (n, s) in order, each adding into all C sums at once.
    double* __restrict sum = mean.data();
    for (int64_t n = 0; n < v.n; ++n)
      for (int64_t s = 0; s < v.s; ++s) {
        const T* q = p + n * v.sn + s * v.ss;
        for (size_t c = 0; c < C; ++c) sum[c] += static_cast<double>(q[c]);
      }
    for (size_t c = 0; c < C; ++c) sum[c] /= m;
    const double* __restrict mu = mean.data();
    double* __restrict sq = var.data();
    for (int64_t n = 0; n < v.n; ++n)
      for (int64_t s = 0; s < v.s; ++s) {
        const T* q = p + n * v.sn + s * v.ss;
        for (size_t c = 0; c < C; ++c) {
          const double d = static_cast<double>(q[c]) - mu[c];
          sq[c] += d * d;
        }
      }
    for (size_t c = 0; c < C; ++c) sq[c] /= m;
  }, "batch_norm");
}

void batch_norm_grad_sums(const Tensor& dy, const Tensor& x, const std::vector<double>& mean,
                          std::vector<double>& sum_dy, std::vector<double>& sum_dy_xmu) {
  const NCS vd = view_of(dy), vx = view_of(x);
  const Runs runs = runs_of({vd, vx});
  if (runs == Runs::None) return batch_norm_grad_sums_ref(dy, x, mean, sum_dy, sum_dy_xmu);
  const size_t C = static_cast<size_t>(vx.c);
  sum_dy.assign(C, 0.0);
  sum_dy_xmu.assign(C, 0.0);
  visit_floating(x.dtype(), [&]<class T>() {
    const T* px = static_cast<const T*>(x.data_ptr());
    const T* pd = static_cast<const T*>(dy.data_ptr());
    if (runs == Runs::Planes) {
      for_channels(vx.c, vx.n * vx.s, [&](int64_t c) {
        const double mu = mean[static_cast<size_t>(c)];
        D4 s1 = {}, s2 = {};
        double t1 = 0, t2 = 0;
        for (int64_t n = 0; n < vx.n; ++n) {
          const T* xs = px + n * vx.sn + c * vx.sc;
          const T* ds = pd + n * vd.sn + c * vd.sc;
          int64_t s = 0;
          for (; s + 4 <= vx.s; s += 4) {
            const D4 g = load4(ds + s);
            s1 += g;
            s2 += g * (load4(xs + s) - mu);
          }
          for (; s < vx.s; ++s) {
            const double g = static_cast<double>(ds[s]);
            t1 += g;
            t2 += g * (static_cast<double>(xs[s]) - mu);
          }
        }
        sum_dy[static_cast<size_t>(c)] = lanes_sum(s1) + t1;
        sum_dy_xmu[static_cast<size_t>(c)] = lanes_sum(s2) + t2;
      });
      return;
    }
    double* __restrict s1 = sum_dy.data();
    double* __restrict s2 = sum_dy_xmu.data();
    const double* __restrict mu = mean.data();
    for (int64_t n = 0; n < vx.n; ++n)
      for (int64_t s = 0; s < vx.s; ++s) {
        const T* xs = px + n * vx.sn + s * vx.ss;
        const T* ds = pd + n * vd.sn + s * vd.ss;
        for (size_t c = 0; c < C; ++c) {
          const double g = static_cast<double>(ds[c]);
          s1[c] += g;
          s2[c] += g * (static_cast<double>(xs[c]) - mu[c]);
        }
      }
  }, "batch_norm_backward");
}

void channel_affine2(const Tensor& out, const Tensor& dy, const Tensor& x,
                     const std::vector<double>& a, const std::vector<double>& b,
                     const std::vector<double>& k) {
  const NCS vo = view_of(out), vd = view_of(dy), vx = view_of(x);
  const Runs runs = runs_of({vo, vd, vx});
  if (runs == Runs::None) return channel_affine2_ref(out, dy, x, a, b, k);
  visit_floating(x.dtype(), [&]<class T>() {
    using M = opmath_t<T>;
    const T* px = static_cast<const T*>(x.data_ptr());
    const T* pd = static_cast<const T*>(dy.data_ptr());
    T* po = static_cast<T*>(out.data_ptr());
    const int64_t C = vx.c, S = vx.s;
    std::vector<M> am(a.begin(), a.end()), bm(b.begin(), b.end()), km(k.begin(), k.end());
    if (runs == Runs::Planes) {
      parallel_for(0, vx.n * C, std::max<int64_t>(1, 32768 / std::max<int64_t>(S, 1)),
                   [&](int64_t lo, int64_t hi) {
        for (int64_t i = lo; i < hi; ++i) {
          const int64_t n = i / C, c = i % C;
          const size_t cs = static_cast<size_t>(c);
          const M av = am[cs], bv = bm[cs], kv = km[cs];
          const T* xs = px + n * vx.sn + c * vx.sc;
          const T* ds = pd + n * vd.sn + c * vd.sc;
          T* os = po + n * vo.sn + c * vo.sc;
          for (int64_t s = 0; s < S; ++s)
            os[s] = static_cast<T>(static_cast<M>(ds[s]) * av + static_cast<M>(xs[s]) * bv + kv);
        }
      });
      return;
    }
    const M* ap = am.data();
    const M* bp = bm.data();
    const M* kp = km.data();
    parallel_for(0, vx.n * S, std::max<int64_t>(1, 32768 / C), [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; ++i) {
        const int64_t n = i / S, s = i % S;
        const T* xs = px + n * vx.sn + s * vx.ss;
        const T* ds = pd + n * vd.sn + s * vd.ss;
        T* os = po + n * vo.sn + s * vo.ss;
        const M* __restrict as = ap;
        const M* __restrict bs = bp;
        const M* __restrict ks = kp;
        for (int64_t c = 0; c < C; ++c)
          os[c] = static_cast<T>(static_cast<M>(ds[c]) * as[c] + static_cast<M>(xs[c]) * bs[c] + ks[c]);
      }
    });
  }, "batch_norm_backward");
}

void group_norm_kernel(const Tensor& y, const Tensor& x, int64_t group, double eps,
                       const std::vector<double>& w, const std::vector<double>& b,
                       std::vector<double>& mean, std::vector<double>& rstd) {
  const int64_t N = x.size(0), C = x.size(1);
  const int64_t HxW = N * C == 0 ? 0 : x.numel() / (N * C);
  const int64_t cpg = C / group;
  mean.assign(static_cast<size_t>(N * group), 0.0);
  rstd.assign(static_cast<size_t>(N * group), 0.0);
  visit_floating(x.dtype(), [&]<class T>() {
    using M = opmath_t<T>;
    const T* px = static_cast<const T*>(x.data_ptr());
    T* py = static_cast<T*>(y.data_ptr());
    const int64_t len = cpg * HxW;
    parallel_for(0, N * group, std::max<int64_t>(1, 32768 / std::max<int64_t>(len, 1)),
                 [&](int64_t lo, int64_t hi) {
      for (int64_t i = lo; i < hi; ++i) {
        const T* xs = px + i * len;
        T* ys = py + i * len;
        double sum = 0;
        for (int64_t k = 0; k < len; ++k) sum += static_cast<double>(xs[k]);
        const double mu = len ? sum / static_cast<double>(len) : 0.0;
        double sq = 0;
        for (int64_t k = 0; k < len; ++k) {
          const double d = static_cast<double>(xs[k]) - mu;
          sq += d * d;
        }
        const double var = len ? sq / static_cast<double>(len) : 0.0;
        const double rs = 1.0 / std::sqrt(var + eps);
        mean[static_cast<size_t>(i)] = mu;
        rstd[static_cast<size_t>(i)] = rs;
        const int64_t g = i % group;
        for (int64_t cc = 0; cc < cpg; ++cc) {
          const int64_t c = g * cpg + cc;
          const double wc = w.empty() ? 1.0 : w[static_cast<size_t>(c)];
          const double bc = b.empty() ? 0.0 : b[static_cast<size_t>(c)];
          const M a = static_cast<M>(rs * wc), k0 = static_cast<M>(bc - mu * rs * wc);
          const T* xc = xs + cc * HxW;
          T* yc = ys + cc * HxW;
          for (int64_t s = 0; s < HxW; ++s) yc[s] = static_cast<T>(static_cast<M>(xc[s]) * a + k0);
        }
      }
    });
  }, "GroupNormKernelImpl");
}

}  // namespace ember::cpu
