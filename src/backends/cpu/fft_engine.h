// ember's FFT engine (Note [FFT library] in fft_kernels.cpp): a mixed-radix Stockham FFT that
// transforms L lines at once, one line per SIMD lane.
//
// Data lives in "lane buffers": element j of the L lines is one CV<V> = {re lanes, im lanes},
// V a GCC vector of L reals (8 floats or 4 doubles in a 256-bit register), so every butterfly
// is plain vector arithmetic with no shuffles, and one plan drives L transforms. L = 1 (V = R)
// is the same code on one line, for single long transforms.
#pragma once

#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <memory>
#include <numbers>
#include <vector>

namespace ember::cpu::fftengine {

template <class R, int L>
struct Lanes;
template <>
struct Lanes<float, 8> {
  typedef float V __attribute__((vector_size(32)));
};
template <>
struct Lanes<double, 4> {
  typedef double V __attribute__((vector_size(32)));
};
template <class R>
struct Lanes<R, 1> {
  using V = R;
};

template <class V>
struct CV {
  V re, im;
};

// The largest prime radix the butterflies handle; lengths with a larger prime factor go through
// Bluestein's algorithm (three 5-smooth transforms of at least twice the length).
inline constexpr int64_t kMaxRadix = 31;

/// A length-n transform in one direction: the radices of its passes and their twiddles, or
/// (a prime factor above kMaxRadix) Bluestein's chirp and the plans of length m under it.
template <class R>
struct Plan {
  struct Stage {
    int64_t p, ns;          // radix, product of the radices before it
    size_t tw, bf;          // offsets into twr/twi ((p-1)*ns values) and into bfc/bfs
  };
  int64_t n = 0;
  bool forward = true;
  std::vector<Stage> stages;
  std::vector<R> twr, twi;  // twiddles e^{s 2 pi i r k / (ns p)}, r = 1..p-1, k < ns
  std::vector<R> bfc, bfs;  // odd radices: cos and s*sin of 2 pi rq/p, r, q = 1..(p-1)/2
  // Bluestein
  int64_t m = 0;
  std::shared_ptr<const Plan> fwd_m, inv_m;  // length-m plans (5-smooth m)
  std::vector<R> chr, chi;  // chirp w[t] = e^{s i pi t^2 / n}
  std::vector<R> bfr, bfi;  // FFT of the conjugate chirp, times 1/m

  /// Elements of workspace execute() needs (its input is the first n of them).
  int64_t work_size() const { return m ? n + 2 * m : 2 * n; }
};

template <class R>
std::shared_ptr<const Plan<R>> make_plan(int64_t n, bool forward);

namespace detail {

inline int64_t largest_prime_factor(int64_t n) {
  int64_t p = 1;
  for (int64_t f = 2; f * f <= n; ++f) {
    while (n % f == 0) {
      p = f;
      n /= f;
    }
  }
  return n > 1 ? n : p;
}

template <class V, class R>
inline CV<V> twiddle(const CV<V>& v, R wr, R wi) {
  return {v.re * wr - v.im * wi, v.re * wi + v.im * wr};
}

// One radix-p pass of the Stockham algorithm: x (length n) to y. For j < n/p, with k = j % ns
// and b = j / ns: the p inputs x[j + r n/p] times w^{rk} go through a length-p DFT into
// y[b ns p + k + r ns].
template <bool Fwd, class V, class R>
void pass2(const CV<V>* x, CV<V>* y, int64_t n, int64_t ns, const R* twr, const R* twi) {
  const int64_t m = n / 2;
  for (int64_t j0 = 0; j0 < m; j0 += ns) {
    CV<V>* out = y + 2 * j0;
    for (int64_t k = 0; k < ns; ++k) {
      const CV<V> a = x[j0 + k];
      CV<V> b = x[j0 + k + m];
      if (ns > 1) b = twiddle(b, twr[k], twi[k]);
      out[k] = {a.re + b.re, a.im + b.im};
      out[k + ns] = {a.re - b.re, a.im - b.im};
    }
  }
}

template <bool Fwd, class V, class R>
void pass4(const CV<V>* x, CV<V>* y, int64_t n, int64_t ns, const R* twr, const R* twi) {
  const int64_t m = n / 4;
  for (int64_t j0 = 0; j0 < m; j0 += ns) {
    CV<V>* out = y + 4 * j0;
    for (int64_t k = 0; k < ns; ++k) {
      const int64_t j = j0 + k;
      CV<V> v0 = x[j], v1 = x[j + m], v2 = x[j + 2 * m], v3 = x[j + 3 * m];
      if (ns > 1) {
        v1 = twiddle(v1, twr[k], twi[k]);
        v2 = twiddle(v2, twr[ns + k], twi[ns + k]);
        v3 = twiddle(v3, twr[2 * ns + k], twi[2 * ns + k]);
      }
      const CV<V> t0{v0.re + v2.re, v0.im + v2.im}, t1{v0.re - v2.re, v0.im - v2.im};
      const CV<V> t2{v1.re + v3.re, v1.im + v3.im};
      // (v1 - v3) times -i (forward) or +i (inverse).
      const CV<V> t3 = Fwd ? CV<V>{v1.im - v3.im, v3.re - v1.re} : CV<V>{v3.im - v1.im, v1.re - v3.re};
      out[k] = {t0.re + t2.re, t0.im + t2.im};
      out[k + ns] = {t1.re + t3.re, t1.im + t3.im};
      out[k + 2 * ns] = {t0.re - t2.re, t0.im - t2.im};
      out[k + 3 * ns] = {t1.re - t3.re, t1.im - t3.im};
    }
  }
}

// Odd radix p: pairing r with p - r, X_q = v0 + sum_r (v_r + v_{p-r}) cos + i s (v_r - v_{p-r}) sin,
// and X_{p-q} the same with the sine term's sign flipped (bfs holds s sin).
// PC > 0: the radix as a constant (3, 5, 7), so that the loops over it unroll.
template <int PC, class V, class R>
void pass_odd(const CV<V>* x, CV<V>* y, int64_t n, int64_t p_runtime, int64_t ns, const R* twr, const R* twi,
              const R* bfc, const R* bfs) {
  const int64_t p = PC > 0 ? PC : p_runtime;
  const int64_t m = n / p, h = (p - 1) / 2;
  CV<V> v[kMaxRadix], s[kMaxRadix / 2 + 1], d[kMaxRadix / 2 + 1];
  for (int64_t j0 = 0; j0 < m; j0 += ns) {
    CV<V>* out = y + p * j0;
    for (int64_t k = 0; k < ns; ++k) {
      const int64_t j = j0 + k;
      v[0] = x[j];
      for (int64_t r = 1; r < p; ++r) {
        v[r] = x[j + r * m];
        if (ns > 1) v[r] = twiddle(v[r], twr[(r - 1) * ns + k], twi[(r - 1) * ns + k]);
      }
      CV<V> x0 = v[0];
      for (int64_t r = 1; r <= h; ++r) {
        s[r] = {v[r].re + v[p - r].re, v[r].im + v[p - r].im};
        d[r] = {v[r].re - v[p - r].re, v[r].im - v[p - r].im};
        x0.re += s[r].re;
        x0.im += s[r].im;
      }
      out[k] = x0;
      for (int64_t q = 1; q <= h; ++q) {
        CV<V> a = v[0], b{V{}, V{}};
        for (int64_t r = 1; r <= h; ++r) {
          const R c = bfc[(r - 1) * h + (q - 1)], sn = bfs[(r - 1) * h + (q - 1)];
          a.re += s[r].re * c;
          a.im += s[r].im * c;
          b.re += d[r].re * sn;
          b.im += d[r].im * sn;
        }
        out[k + q * ns] = {a.re - b.im, a.im + b.re};
        out[k + (p - q) * ns] = {a.re + b.im, a.im - b.re};
      }
    }
  }
}

}  // namespace detail

/// Transforms the n elements at work[0..n) (unnormalized); returns where the result is (work or
/// work + n). work holds plan.work_size() elements.
template <class V, class R>
CV<V>* execute(const Plan<R>& plan, CV<V>* work) {
  const int64_t n = plan.n;
  if (plan.m) {
    // Bluestein: X[k] = w[k] sum_j (x[j] w[j]) conj(w[k-j]), a circular convolution of length m.
    CV<V>* a = work + n;
    for (int64_t j = 0; j < n; ++j) a[j] = detail::twiddle(work[j], plan.chr[j], plan.chi[j]);
    for (int64_t j = n; j < plan.m; ++j) a[j] = {V{}, V{}};
    const CV<V>* fa = execute(*plan.fwd_m, a);
    // The product goes back to `a`, so that the inverse has its 2m elements of room after it.
    for (int64_t k = 0; k < plan.m; ++k) a[k] = detail::twiddle(fa[k], plan.bfr[k], plan.bfi[k]);
    const CV<V>* res = execute(*plan.inv_m, a);
    for (int64_t k = 0; k < n; ++k) work[k] = detail::twiddle(res[k], plan.chr[k], plan.chi[k]);
    return work;
  }
  CV<V>* x = work;
  CV<V>* y = work + n;
  for (const auto& st : plan.stages) {
    const R* twr = plan.twr.data() + st.tw;
    const R* twi = plan.twi.data() + st.tw;
    if (st.p == 4) {
      if (plan.forward) detail::pass4<true>(x, y, n, st.ns, twr, twi);
      else detail::pass4<false>(x, y, n, st.ns, twr, twi);
    } else if (st.p == 2) {
      detail::pass2<true>(x, y, n, st.ns, twr, twi);
    } else {
      const R* bfc = plan.bfc.data() + st.bf;
      const R* bfs = plan.bfs.data() + st.bf;
      switch (st.p) {
        case 3: detail::pass_odd<3>(x, y, n, 3, st.ns, twr, twi, bfc, bfs); break;
        case 5: detail::pass_odd<5>(x, y, n, 5, st.ns, twr, twi, bfc, bfs); break;
        case 7: detail::pass_odd<7>(x, y, n, 7, st.ns, twr, twi, bfc, bfs); break;
        default: detail::pass_odd<0>(x, y, n, st.p, st.ns, twr, twi, bfc, bfs); break;
      }
    }
    std::swap(x, y);
  }
  return x;
}

template <class R>
std::shared_ptr<const Plan<R>> make_plan(int64_t n, bool forward) {
  auto plan = std::make_shared<Plan<R>>();
  plan->n = n;
  plan->forward = forward;
  const double sign = forward ? -1.0 : 1.0;
  if (n > 1 && detail::largest_prime_factor(n) > kMaxRadix) {
    // The convolution's length: the smallest 2^a 3^b 5^c >= 2n - 1 (as pocketfft's good_size),
    // up to half the work of the next power of two.
    int64_t m = std::numeric_limits<int64_t>::max();
    for (int64_t f5 = 1; f5 < m && f5 < 4 * n; f5 *= 5) {
      for (int64_t f35 = f5; f35 < m && f35 < 4 * n; f35 *= 3) {
        int64_t f = f35;
        while (f < 2 * n - 1) f *= 2;
        m = std::min(m, f);
      }
    }
    plan->m = m;
    plan->fwd_m = make_plan<R>(m, true);
    plan->inv_m = make_plan<R>(m, false);
    plan->chr.resize(static_cast<size_t>(n));
    plan->chi.resize(static_cast<size_t>(n));
    std::vector<std::complex<double>> chirp(static_cast<size_t>(n));
    for (int64_t t = 0; t < n; ++t) {
      // t^2 mod 2n keeps the angle exact for large t.
      const auto t2 = static_cast<double>((t * t) % (2 * n));
      chirp[static_cast<size_t>(t)] = std::polar(1.0, sign * std::numbers::pi * t2 / static_cast<double>(n));
      plan->chr[static_cast<size_t>(t)] = static_cast<R>(chirp[static_cast<size_t>(t)].real());
      plan->chi[static_cast<size_t>(t)] = static_cast<R>(chirp[static_cast<size_t>(t)].imag());
    }
    // The kernel b[t] = conj(w[t]) for |t| < n, wrapped circularly; its FFT, in double, then
    // times 1/m (the inverse transform's normalization folded in).
    std::vector<CV<double>> b(static_cast<size_t>(2 * m), CV<double>{0, 0});
    b[0] = {chirp[0].real(), -chirp[0].imag()};
    for (int64_t t = 1; t < n; ++t) {
      b[static_cast<size_t>(t)] = b[static_cast<size_t>(m - t)] = {chirp[static_cast<size_t>(t)].real(),
                                                                  -chirp[static_cast<size_t>(t)].imag()};
    }
    const auto pm = make_plan<double>(m, true);
    const CV<double>* fb = execute(*pm, b.data());
    plan->bfr.resize(static_cast<size_t>(m));
    plan->bfi.resize(static_cast<size_t>(m));
    for (int64_t k = 0; k < m; ++k) {
      plan->bfr[static_cast<size_t>(k)] = static_cast<R>(fb[k].re / static_cast<double>(m));
      plan->bfi[static_cast<size_t>(k)] = static_cast<R>(fb[k].im / static_cast<double>(m));
    }
    return plan;
  }
  // Radices: 4s first, then a 2, then the odd factors ascending.
  std::vector<int64_t> radices;
  int64_t rest = n;
  while (rest % 4 == 0) {
    radices.push_back(4);
    rest /= 4;
  }
  if (rest % 2 == 0) {
    radices.push_back(2);
    rest /= 2;
  }
  for (int64_t f = 3; rest > 1; f += 2) {
    while (rest % f == 0) {
      radices.push_back(f);
      rest /= f;
    }
  }
  int64_t ns = 1;
  for (int64_t p : radices) {
    typename Plan<R>::Stage st{p, ns, plan->twr.size(), plan->bfc.size()};
    for (int64_t r = 1; r < p; ++r) {
      for (int64_t k = 0; k < ns; ++k) {
        // r k / (ns p) reduced exactly before the angle is formed.
        const double a = sign * 2.0 * std::numbers::pi * static_cast<double>((r * k) % (ns * p)) /
                         static_cast<double>(ns * p);
        plan->twr.push_back(static_cast<R>(std::cos(a)));
        plan->twi.push_back(static_cast<R>(std::sin(a)));
      }
    }
    if (p % 2 == 1) {
      const int64_t h = (p - 1) / 2;
      for (int64_t r = 1; r <= h; ++r) {
        for (int64_t q = 1; q <= h; ++q) {
          const double a = 2.0 * std::numbers::pi * static_cast<double>((r * q) % p) / static_cast<double>(p);
          plan->bfc.push_back(static_cast<R>(std::cos(a)));
          plan->bfs.push_back(static_cast<R>(sign * std::sin(a)));
        }
      }
    }
    plan->stages.push_back(st);
    ns *= p;
  }
  return plan;
}

}  // namespace ember::cpu::fftengine
