// Note [FFT library]
// The transforms run on kissfft (BSD-3-Clause, Debian's libkissfft-dev), through its C++ header
// kissfft.hh: a template over the scalar type, so float and double come from one kept source
// (Debian builds the C library for float only), with std::complex as the element type, which is
// ember's complex type too (Note [Complex dtypes]), so no conversion happens at the boundary.
// FFTW is faster but GPL: linking it would make every program that embeds ember GPL. pocketfft
// (PyTorch's and numpy's) is not packaged. benchmarks/fft_bench.py measures ember beside torch;
// docs/complex.md has the figures. A multi-dimensional transform is a sequence of 1-d transforms,
// one dim at a time, each over all the lines of that dim in parallel (gathered into a
// contiguous buffer when the dim is not the innermost one).
#include "fft_kernels.h"

#include <cmath>
#include <complex>
#include <numbers>
#include <vector>

#include <kissfft/kissfft.hh>

#include "dtype_lists.h"
#include "ember/parallel.h"

namespace ember::cpu {

namespace {

int64_t largest_prime_factor(int64_t n) {
  int64_t p = 1;
  for (int64_t f = 2; f * f <= n; ++f) {
    while (n % f == 0) {
      p = f;
      n /= f;
    }
  }
  return n > 1 ? n : p;
}

// Lengths with a prime factor above this go through Bluestein: kissfft's generic butterfly costs
// O(p) per element for a prime factor p (a length-4099 transform measured 2700x slower than
// pocketfft), Bluestein about three power-of-two transforms of at least twice the length.
constexpr int64_t kBluesteinPrime = 64;

// Bluestein's chirp-z: the length-n DFT as a circular convolution of length m (a power of two,
// m >= 2n - 1), since jk = (j^2 + k^2 - (k-j)^2) / 2:
//   X[k] = w[k] * sum_j (x[j] w[j]) conj(w[k-j]),  w[t] = e^{s i pi t^2 / n}, s = -1 forward.
template <class R>
class Bluestein {
 public:
  using C = std::complex<R>;
  Bluestein(int64_t n, bool forward) : n_(n), m_(1), fwd_(1, false), inv_(1, true) {
    while (m_ < 2 * n - 1) m_ *= 2;
    fwd_ = kissfft<R>(static_cast<size_t>(m_), false);
    inv_ = kissfft<R>(static_cast<size_t>(m_), true);
    chirp_.resize(static_cast<size_t>(n));
    const double sign = forward ? -1.0 : 1.0;
    for (int64_t t = 0; t < n; ++t) {
      // t^2 mod 2n keeps the angle exact for large t.
      const auto t2 = static_cast<double>((t * t) % (2 * n));
      chirp_[static_cast<size_t>(t)] = C(std::polar(1.0, sign * std::numbers::pi * t2 / static_cast<double>(n)));
    }
    std::vector<C> b(static_cast<size_t>(m_), C(0));
    b[0] = std::conj(chirp_[0]);
    for (int64_t t = 1; t < n; ++t) b[static_cast<size_t>(t)] = b[static_cast<size_t>(m_ - t)] = std::conj(chirp_[static_cast<size_t>(t)]);
    b_fft_.resize(static_cast<size_t>(m_));
    fwd_.transform(b.data(), b_fft_.data());
  }
  int64_t work_size() const { return 2 * m_; }
  // in and out may alias; work holds work_size() elements.
  void transform(const C* in, C* out, C* work) const {
    C* a = work;
    C* fa = work + m_;
    for (int64_t j = 0; j < n_; ++j) a[j] = in[j] * chirp_[static_cast<size_t>(j)];
    std::fill(a + n_, a + m_, C(0));
    fwd_.transform(a, fa);
    for (int64_t k = 0; k < m_; ++k) fa[k] *= b_fft_[static_cast<size_t>(k)];
    inv_.transform(fa, a);
    const R scale = R(1) / static_cast<R>(m_);
    for (int64_t k = 0; k < n_; ++k) out[k] = a[k] * chirp_[static_cast<size_t>(k)] * scale;
  }

 private:
  int64_t n_, m_;
  kissfft<R> fwd_, inv_;
  std::vector<C> chirp_, b_fft_;
};

// One 1-d transform of length n along dim `d` of the contiguous complex buffer `data` (sizes
// `sizes`), in place, for every line.
template <class R>
void c2c_along(std::complex<R>* data, IntArrayRef sizes, int64_t d, bool forward) {
  using C = std::complex<R>;
  const int64_t n = sizes[static_cast<size_t>(d)];
  if (n <= 1) return;
  if (largest_prime_factor(n) > kBluesteinPrime) {
    int64_t inner = 1, numel = 1;
    for (size_t k = 0; k < sizes.size(); ++k) {
      numel *= sizes[k];
      if (static_cast<int64_t>(k) > d) inner *= sizes[k];
    }
    const Bluestein<R> plan(n, forward);
    parallel_for(0, numel / n, std::max<int64_t>(1, 32768 / n), [&](int64_t begin, int64_t end) {
      std::vector<C> line(static_cast<size_t>(n)), work(static_cast<size_t>(plan.work_size()));
      for (int64_t l = begin; l < end; ++l) {
        C* base = data + (l / inner) * n * inner + l % inner;
        for (int64_t j = 0; j < n; ++j) line[static_cast<size_t>(j)] = base[j * inner];
        plan.transform(line.data(), line.data(), work.data());
        for (int64_t j = 0; j < n; ++j) base[j * inner] = line[static_cast<size_t>(j)];
      }
    });
    return;
  }
  int64_t inner = 1, numel = 1;
  for (size_t k = 0; k < sizes.size(); ++k) {
    numel *= sizes[k];
    if (static_cast<int64_t>(k) > d) inner *= sizes[k];
  }
  if (numel == 0) return;
  const int64_t lines = numel / n;
  const kissfft<R> plan(static_cast<size_t>(n), !forward);
  // Grain: about 32k elements of work per task.
  const int64_t grain = std::max<int64_t>(1, 32768 / n);
  parallel_for(0, lines, grain, [&](int64_t begin, int64_t end) {
    std::vector<C> in(static_cast<size_t>(n)), out(static_cast<size_t>(n));
    for (int64_t line = begin; line < end; ++line) {
      const int64_t outer = line / inner, pos = line % inner;
      C* base = data + outer * n * inner + pos;
      if (inner == 1) {
        plan.transform(base, out.data());
        std::copy(out.begin(), out.end(), base);
      } else {
        for (int64_t j = 0; j < n; ++j) in[static_cast<size_t>(j)] = base[j * inner];
        plan.transform(in.data(), out.data());
        for (int64_t j = 0; j < n; ++j) base[j * inner] = out[static_cast<size_t>(j)];
      }
    }
  });
}

template <class R>
void scale_by(std::complex<R>* data, int64_t numel, double scale) {
  if (scale == 1.0) return;
  const R s = static_cast<R>(scale);
  parallel_for(0, numel, 1 << 15, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) data[i] *= s;
  });
}

}  // namespace

void fft_c2c_kernel(const Tensor& data, IntArrayRef dims, bool forward, double scale) {
  EMBER_ASSERT(data.is_contiguous() && data.is_complex());
  dispatch_types(kComplexTypes, data.dtype(), "fft_c2c", [&]<class C>() {
    using R = typename C::value_type;
    auto* p = static_cast<C*>(data.data_ptr());
    for (int64_t d : dims) c2c_along<R>(p, data.sizes(), d, forward);
    scale_by<R>(p, data.numel(), scale);
  });
}

void fft_r2c_lastdim_kernel(const Tensor& out, const Tensor& in, double scale) {
  EMBER_ASSERT(out.is_contiguous() && in.is_contiguous() && out.is_complex() && in.dim() > 0);
  const int64_t n = in.size(-1), half = n / 2;
  EMBER_ASSERT(n % 2 == 0 && n >= 2 && out.size(-1) == half + 1);
  const int64_t rows = in.numel() / n;
  dispatch_types(kComplexTypes, out.dtype(), "fft_r2c", [&]<class C>() {
    using R = typename C::value_type;
    const R* src = static_cast<const R*>(in.data_ptr());
    C* dst = static_cast<C*>(out.data_ptr());
    const kissfft<R> plan(static_cast<size_t>(half), /*inverse=*/false);
    const R s = static_cast<R>(scale);
    parallel_for(0, rows, std::max<int64_t>(1, 32768 / n), [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        C* o = dst + r * (half + 1);
        // transform_real packs the zero and Nyquist frequencies (both real) into o[0].
        plan.transform_real(src + r * n, o);
        const R dc = o[0].real(), nyquist = o[0].imag();
        o[0] = C(dc, 0);
        o[half] = C(nyquist, 0);
        if (s != R(1)) {
          for (int64_t k = 0; k <= half; ++k) o[k] *= s;
        }
      }
    });
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
