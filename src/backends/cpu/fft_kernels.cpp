// Note [FFT library]
// ember's transforms run on its own FFT engine (fft_engine.h): a mixed-radix Stockham FFT
// (radix 4 and 2, odd radices up to 31 by a paired butterfly, Bluestein's chirp-z above that)
// that transforms 8 float lines (4 double lines) at once, one per lane of a 256-bit GCC vector:
// every butterfly is then plain SIMD arithmetic without shuffles, and the strided lines of a
// multi-dimensional transform are gathered 8 adjacent ones at a time, which reads whole cache
// lines. This is pocketfft's scheme (PyTorch's and numpy's FFT) for transforms of several lines.
// Plans (radices, twiddles, Bluestein's chirp) are cached per (length, direction, precision).
// Real transforms of even length n take a complex transform of n/2 points and a twiddled
// post-pass (pre-pass for c2r), as pocketfft's real FFTs do.
//
// Why not a library: session 9 used kissfft (BSD, Debian's libkissfft-dev); measured in a Release
// build on this machine it was 1.5-8x slower than torch 1.13 (pocketfft) on benchmarks/bench_fft.py
// (a plain recursive complex FFT with strided twiddle reads and no SIMD; its generic butterfly
// also keeps a mutable scratch buffer, a data race when one plan is shared across threads).
// FFTW is faster but GPL: linking it would make every program that embeds ember GPL, against
// ember's licence. pocketfft is not packaged by Debian. docs/complex.md has the figures.
#include "fft_kernels.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <mutex>
#include <numbers>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "dtype_lists.h"
#include "ember/parallel.h"
#include "fft_engine.h"

namespace ember::cpu {

namespace {

using fftengine::CV;
using fftengine::Plan;

// A small cache of immutable objects by integer key; emptied when it grows past kMax entries.
template <class T>
class Cache {
 public:
  template <class Make>
  std::shared_ptr<const T> get(int64_t key, Make&& make) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = map_.find(key);
      if (it != map_.end()) return it->second;
    }
    std::shared_ptr<const T> value = make();
    std::lock_guard<std::mutex> lock(mu_);
    if (map_.size() >= kMax) map_.clear();
    return map_.emplace(key, std::move(value)).first->second;
  }

 private:
  static constexpr size_t kMax = 64;
  std::mutex mu_;
  std::unordered_map<int64_t, std::shared_ptr<const T>> map_;
};

template <class R>
std::shared_ptr<const Plan<R>> plan_for(int64_t n, bool forward) {
  static Cache<Plan<R>> cache;
  return cache.get(n * 2 + (forward ? 1 : 0), [&] { return fftengine::make_plan<R>(n, forward); });
}

// e^{s 2 pi i k / n} for k = 0..n/2: the real transforms' pre / post twiddles.
template <class R>
struct RealTwiddles {
  std::vector<R> wr, wi;
};

template <class R>
std::shared_ptr<const RealTwiddles<R>> real_twiddles(int64_t n, bool forward) {
  static Cache<RealTwiddles<R>> cache;
  return cache.get(n * 2 + (forward ? 1 : 0), [&] {
    auto t = std::make_shared<RealTwiddles<R>>();
    const double sign = forward ? -1.0 : 1.0;
    for (int64_t k = 0; k <= n / 2; ++k) {
      const double a = sign * 2.0 * std::numbers::pi * static_cast<double>(k) / static_cast<double>(n);
      t->wr.push_back(static_cast<R>(std::cos(a)));
      t->wi.push_back(static_cast<R>(std::sin(a)));
    }
    return t;
  });
}

template <class R>
constexpr int kLanes = static_cast<int>(32 / sizeof(R));

// Lane l of v (v itself when V is the scalar type).
template <class V, class R>
inline R& lane(V& v, int l) {
  if constexpr (std::is_same_v<V, R>) {
    (void)l;
    return v;
  } else {
    return v[l];  // GCC's vector subscript: an lvalue of the element type
  }
}

// The lines along a dim of a contiguous tensor: line l starts at (l / inner) n inner + l % inner
// and steps by inner.
struct Lines {
  int64_t n, inner, count;
  Lines(IntArrayRef sizes, int64_t dim) : n(sizes[static_cast<size_t>(dim)]), inner(1), count(1) {
    for (size_t k = 0; k < sizes.size(); ++k) {
      if (static_cast<int64_t>(k) > dim) inner *= sizes[k];
      else if (static_cast<int64_t>(k) < dim) count *= sizes[k];
    }
    count *= inner;
  }
  int64_t start(int64_t line) const { return (line / inner) * n * inner + line % inner; }
};

// Runs body(first_line, lanes_used, work) over groups of L lines in parallel, work a lane
// buffer of work_size elements per task.
template <class R, int L, class F>
void for_groups(int64_t lines, int64_t work_size, int64_t cost_per_line, const F& body) {
  using V = typename fftengine::Lanes<R, L>::V;
  const int64_t groups = (lines + L - 1) / L;
  const int64_t grain = std::max<int64_t>(1, 65536 / std::max<int64_t>(1, cost_per_line * L));
  parallel_for(0, groups, grain, [&](int64_t g0, int64_t g1) {
    std::vector<CV<V>> work(static_cast<size_t>(work_size));
    for (int64_t g = g0; g < g1; ++g) {
      const int64_t first = g * L;
      body(first, static_cast<int>(std::min<int64_t>(L, lines - first)), work.data());
    }
  });
}

// Whether lines go through the L-lane engine: there is more than one, and the lane buffers stay
// within a few MB (a single long transform runs on one lane instead).
template <class R>
bool use_lanes(int64_t lines, int64_t work_size) {
  return lines > 1 && work_size * kLanes<R> <= (int64_t{1} << 19);
}

template <class R, int L>
void c2c_lines(std::complex<R>* data, const Lines& ln, const Plan<R>& plan, R scale) {
  using V = typename fftengine::Lanes<R, L>::V;
  const int64_t n = ln.n, inner = ln.inner;
  for_groups<R, L>(ln.count, plan.work_size(), n, [&](int64_t first, int cnt, CV<V>* work) {
    std::complex<R>* base[L];
    for (int l = 0; l < L; ++l) base[l] = l < cnt ? data + ln.start(first + l) : nullptr;
    for (int64_t j = 0; j < n; ++j) {
      CV<V>& w = work[j];
      for (int l = 0; l < L; ++l) {
        const std::complex<R> c = l < cnt ? base[l][j * inner] : std::complex<R>();
        lane<V, R>(w.re, l) = c.real();
        lane<V, R>(w.im, l) = c.imag();
      }
    }
    CV<V>* res = fftengine::execute(plan, work);
    for (int64_t j = 0; j < n; ++j) {
      CV<V> v{res[j].re * scale, res[j].im * scale};
      for (int l = 0; l < cnt; ++l) base[l][j * inner] = std::complex<R>(lane<V, R>(v.re, l), lane<V, R>(v.im, l));
    }
  });
}

template <class R, int L>
void r2c_lines(std::complex<R>* out, const R* in, const Lines& li, const Lines& lo, R scale) {
  using V = typename fftengine::Lanes<R, L>::V;
  const int64_t n = li.n, inner = li.inner, half = n / 2;
  const bool even = n % 2 == 0;
  const auto plan = plan_for<R>(even ? half : n, true);
  const auto tw = real_twiddles<R>(n, true);
  for_groups<R, L>(li.count, plan->work_size(), n, [&](int64_t first, int cnt, CV<V>* work) {
    const R* src[L];
    std::complex<R>* dst[L];
    for (int l = 0; l < L; ++l) {
      src[l] = l < cnt ? in + li.start(first + l) : nullptr;
      dst[l] = l < cnt ? out + lo.start(first + l) : nullptr;
    }
    const int64_t m = even ? half : n;
    for (int64_t j = 0; j < m; ++j) {
      CV<V>& w = work[j];
      for (int l = 0; l < L; ++l) {
        lane<V, R>(w.re, l) = l < cnt ? src[l][(even ? 2 * j : j) * inner] : R(0);
        lane<V, R>(w.im, l) = l < cnt && even ? src[l][(2 * j + 1) * inner] : R(0);
      }
    }
    const CV<V>* z = fftengine::execute(*plan, work);
    for (int64_t k = 0; k <= half; ++k) {
      CV<V> x;
      if (even) {
        // Z = E + iO with E, O the spectra of the even and odd samples; X[k] = E[k] + W^k O[k].
        const CV<V>& a = z[k % half];
        const CV<V>& b = z[(half - k) % half];
        const V er = (a.re + b.re) * R(0.5), ei = (a.im - b.im) * R(0.5);
        const V orr = (a.im + b.im) * R(0.5), oi = (b.re - a.re) * R(0.5);
        const R wr = tw->wr[static_cast<size_t>(k)], wi = tw->wi[static_cast<size_t>(k)];
        x = {er + wr * orr - wi * oi, ei + wr * oi + wi * orr};
      } else {
        x = z[k];
      }
      x.re *= scale;
      x.im *= scale;
      for (int l = 0; l < cnt; ++l) dst[l][k * inner] = std::complex<R>(lane<V, R>(x.re, l), lane<V, R>(x.im, l));
    }
  });
}

template <class R, int L>
void c2r_lines(R* out, const std::complex<R>* in, const Lines& li, const Lines& lo, R scale) {
  using V = typename fftengine::Lanes<R, L>::V;
  const int64_t n = lo.n, inner = lo.inner, half = n / 2;
  const bool even = n % 2 == 0;
  const auto plan = plan_for<R>(even ? half : n, false);
  const auto tw = real_twiddles<R>(n, false);
  // Even n: the half spectrum X[0..half] sits after the engine's workspace.
  const int64_t extra = even ? half + 1 : 0;
  for_groups<R, L>(li.count, plan->work_size() + extra, n, [&](int64_t first, int cnt, CV<V>* work) {
    const std::complex<R>* src[L];
    R* dst[L];
    for (int l = 0; l < L; ++l) {
      src[l] = l < cnt ? in + li.start(first + l) : nullptr;
      dst[l] = l < cnt ? out + lo.start(first + l) : nullptr;
    }
    auto load = [&](CV<V>& w, int64_t k, bool real_only, bool conjugate) {
      for (int l = 0; l < L; ++l) {
        const std::complex<R> c = l < cnt ? src[l][k * inner] : std::complex<R>();
        lane<V, R>(w.re, l) = c.real();
        lane<V, R>(w.im, l) = real_only ? R(0) : (conjugate ? -c.imag() : c.imag());
      }
    };
    if (even) {
      CV<V>* x = work + plan->work_size();
      for (int64_t k = 0; k <= half; ++k) load(x[k], k, k == 0 || k == half, false);
      // Z[k] = (X[k] + conj X[h-k]) + i W^-k (X[k] - conj X[h-k]): the spectrum of the even
      // samples plus i times that of the odd ones.
      for (int64_t k = 0; k < half; ++k) {
        const CV<V>& a = x[k];
        const CV<V>& b = x[half - k];
        const V ar = a.re + b.re, ai = a.im - b.im, br = a.re - b.re, bi = a.im + b.im;
        const R wr = tw->wr[static_cast<size_t>(k)], wi = tw->wi[static_cast<size_t>(k)];
        const V cr = wr * br - wi * bi, ci = wr * bi + wi * br;
        work[k] = {ar - ci, ai + cr};
      }
    } else {
      load(work[0], 0, true, false);
      for (int64_t k = 1; k <= half; ++k) {
        load(work[k], k, false, false);
        load(work[n - k], k, false, true);
      }
    }
    const CV<V>* z = fftengine::execute(*plan, work);
    for (int64_t j = 0; j < (even ? half : n); ++j) {
      V re = z[j].re * scale, im = z[j].im * scale;
      for (int l = 0; l < cnt; ++l) {
        if (even) {
          dst[l][2 * j * inner] = lane<V, R>(re, l);
          dst[l][(2 * j + 1) * inner] = lane<V, R>(im, l);
        } else {
          dst[l][j * inner] = lane<V, R>(re, l);
        }
      }
    }
  });
}

}  // namespace

void fft_c2c_kernel(const Tensor& data, IntArrayRef dims, bool forward, double scale) {
  EMBER_ASSERT(data.is_contiguous() && data.is_complex());
  if (data.numel() == 0) return;
  dispatch_types(kComplexTypes, data.dtype(), "fft_c2c", [&]<class C>() {
    using R = typename C::value_type;
    auto* p = static_cast<C*>(data.data_ptr());
    for (size_t i = 0; i < dims.size(); ++i) {
      const Lines ln(data.sizes(), dims[i]);
      // The scale rides on the last pass's stores.
      const R s = static_cast<R>(i + 1 == dims.size() ? scale : 1.0);
      if (ln.n <= 1) {
        if (s != R(1)) {
          for (int64_t k = 0; k < data.numel(); ++k) p[k] *= s;
        }
        continue;
      }
      const auto plan = plan_for<R>(ln.n, forward);
      if (use_lanes<R>(ln.count, plan->work_size())) c2c_lines<R, kLanes<R>>(p, ln, *plan, s);
      else c2c_lines<R, 1>(p, ln, *plan, s);
    }
  });
}

void fft_r2c_kernel(const Tensor& out, const Tensor& in, int64_t dim, double scale) {
  EMBER_ASSERT(out.is_contiguous() && in.is_contiguous() && out.is_complex() && in.dim() > 0);
  const Lines li(in.sizes(), dim), lo(out.sizes(), dim);
  EMBER_ASSERT(lo.n == li.n / 2 + 1 && li.count == lo.count);
  if (li.count == 0 || li.n == 0) return;
  dispatch_types(kComplexTypes, out.dtype(), "fft_r2c", [&]<class C>() {
    using R = typename C::value_type;
    const R* src = static_cast<const R*>(in.data_ptr());
    C* dst = static_cast<C*>(out.data_ptr());
    const int64_t ws = plan_for<R>(li.n % 2 == 0 ? li.n / 2 : li.n, true)->work_size();
    if (use_lanes<R>(li.count, ws)) r2c_lines<R, kLanes<R>>(dst, src, li, lo, static_cast<R>(scale));
    else r2c_lines<R, 1>(dst, src, li, lo, static_cast<R>(scale));
  });
}

void fft_c2r_kernel(const Tensor& out, const Tensor& in, int64_t dim, double scale) {
  EMBER_ASSERT(out.is_contiguous() && in.is_contiguous() && in.is_complex() && in.dim() > 0);
  const Lines li(in.sizes(), dim), lo(out.sizes(), dim);
  EMBER_ASSERT(li.n == lo.n / 2 + 1 && li.count == lo.count);
  if (lo.count == 0 || lo.n == 0) return;
  dispatch_types(kComplexTypes, in.dtype(), "fft_c2r", [&]<class C>() {
    using R = typename C::value_type;
    const C* src = static_cast<const C*>(in.data_ptr());
    R* dst = static_cast<R*>(out.data_ptr());
    const int64_t ws = plan_for<R>(lo.n % 2 == 0 ? lo.n / 2 : lo.n, false)->work_size() + lo.n;
    if (use_lanes<R>(lo.count, ws)) c2r_lines<R, kLanes<R>>(dst, src, li, lo, static_cast<R>(scale));
    else c2r_lines<R, 1>(dst, src, li, lo, static_cast<R>(scale));
  });
}

void fft_c2c_kernel_ref(const Tensor& data, IntArrayRef dims, bool forward, double scale) {
  EMBER_ASSERT(data.is_contiguous() && data.is_complex());
  dispatch_types(kComplexTypes, data.dtype(), "fft_c2c_ref", [&]<class C>() {
    auto* p = static_cast<C*>(data.data_ptr());
    const IntArrayRef sizes = data.sizes();
    const double sign = forward ? -1.0 : 1.0;
    std::vector<std::complex<double>> line;
    for (int64_t d : dims) {
      const int64_t n = sizes[static_cast<size_t>(d)];
      if (n == 0) continue;
      int64_t inner = 1;
      for (size_t k = static_cast<size_t>(d) + 1; k < sizes.size(); ++k) inner *= sizes[k];
      const int64_t lines = data.numel() / n;
      line.resize(static_cast<size_t>(n));
      for (int64_t l = 0; l < lines; ++l) {
        C* base = p + (l / inner) * n * inner + l % inner;
        for (int64_t j = 0; j < n; ++j) line[static_cast<size_t>(j)] = std::complex<double>(base[j * inner]);
        for (int64_t k = 0; k < n; ++k) {
          std::complex<double> acc = 0;
          for (int64_t j = 0; j < n; ++j) {
            const double angle = sign * 2.0 * std::numbers::pi * static_cast<double>((j * k) % n) /
                                 static_cast<double>(n);
            acc += line[static_cast<size_t>(j)] * std::polar(1.0, angle);
          }
          base[k * inner] = C(acc);
        }
      }
    }
    for (int64_t i = 0; i < data.numel(); ++i) p[i] = C(std::complex<double>(p[i]) * scale);
  });
}

}  // namespace ember::cpu
