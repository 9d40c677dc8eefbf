// ember's FFT engine (Note [FFT library]) against the O(n^2) definition (fast == ref): complex
// lines along every dim, one line and many (the one-lane and the SIMD-lane paths), odd radices,
// Bluestein lengths, and the real transforms (r2c / c2r, even and odd lengths, any dim).
#include <complex>

#include "backends/cpu/fft_kernels.h"
#include "ember/ops/complex.h"
#include "ember/ops/math.h"
#include "ember/parallel.h"
#include "testing.h"

namespace ember {
namespace {

using C = std::complex<double>;

std::vector<C> complex_values(const Tensor& t) {
  Tensor c = t.contiguous().to(kComplexDouble);
  const C* p = c.data_ptr<C>();
  return std::vector<C>(p, p + c.numel());
}

void expect_close(const Tensor& fast, const Tensor& ref, double tol) {
  ASSERT_EQ(fast.sizes().vec(), ref.sizes().vec());
  const auto f = complex_values(fast), r = complex_values(ref);
  double norm = 0;
  for (const C& v : r) norm = std::max(norm, std::abs(v));
  for (size_t i = 0; i < f.size(); ++i) {
    ASSERT_NEAR(std::abs(f[i] - r[i]), 0.0, tol * (1 + norm)) << "element " << i;
  }
}

double tol_for(ScalarType t) { return t == kComplexFloat || t == kFloat32 ? 2e-5 : 1e-12; }

TEST(Complex2FftEngine, ComplexLinesMatchTheDefinition) {
  // 1 line (one lane), 3 lines (a partly filled lane group), 11 lines (two groups); lengths with
  // radices 4, 2, 3, 5, 7, 31 and Bluestein primes 37 and 101.
  for (auto sizes : std::vector<std::vector<int64_t>>{
           {64}, {3, 8}, {11, 12}, {1, 2}, {9, 45}, {5, 49}, {4, 62}, {3, 37}, {2, 101}, {1, 202}, {10, 6, 7}}) {
    for (ScalarType t : {kComplexFloat, kComplexDouble}) {
      Tensor x = randn(sizes, TensorOptions(t));
      const auto nd = static_cast<int64_t>(sizes.size());
      for (int64_t d = 0; d < nd; ++d) {
        for (bool forward : {true, false}) {
          Tensor fast = x.clone(), ref = x.clone();
          cpu::fft_c2c_kernel(fast, {d}, forward, 0.5);
          cpu::fft_c2c_kernel_ref(ref, {d}, forward, 0.5);
          expect_close(fast, ref, tol_for(t));
        }
      }
    }
  }
}

TEST(Complex2FftEngine, LongSingleLinesMatchAnInverseRoundTrip) {
  // Beyond the O(n^2) reference's reach: forward then inverse gives n times the input.
  for (int64_t n : {int64_t{1} << 16, int64_t{3 * 5 * 7 * 11 * 13}, int64_t{65537}}) {
    Tensor x = randn({n}, TensorOptions(kComplexDouble));
    Tensor y = x.clone();
    cpu::fft_c2c_kernel(y, {0}, true, 1.0);
    cpu::fft_c2c_kernel(y, {0}, false, 1.0 / static_cast<double>(n));
    expect_close(y, x, 1e-11);
  }
}

TEST(Complex2FftEngine, RealToComplexMatchesTheDefinition) {
  for (auto sizes : std::vector<std::vector<int64_t>>{{2}, {3, 8}, {9, 9}, {5, 30}, {4, 74}, {3, 5, 6}}) {
    for (ScalarType rt : {kFloat32, kFloat64}) {
      Tensor x = randn(sizes, TensorOptions(rt));
      const auto nd = static_cast<int64_t>(sizes.size());
      for (int64_t d = 0; d < nd; ++d) {
        const int64_t n = sizes[static_cast<size_t>(d)];
        std::vector<int64_t> osizes = sizes;
        osizes[static_cast<size_t>(d)] = n / 2 + 1;
        Tensor fast = empty(osizes, TensorOptions(to_complex_type(rt)));
        cpu::fft_r2c_kernel(fast, x, d, 0.25);
        Tensor ref = x.to(kComplexDouble).contiguous();
        cpu::fft_c2c_kernel_ref(ref, {d}, /*forward=*/true, 0.25);
        expect_close(fast, ref.narrow(d, 0, n / 2 + 1), tol_for(rt));
      }
    }
  }
}

TEST(Complex2FftEngine, ComplexToRealMatchesTheDefinition) {
  for (auto sizes : std::vector<std::vector<int64_t>>{{2}, {3, 8}, {9, 9}, {5, 30}, {4, 74}, {3, 5, 7}}) {
    for (ScalarType rt : {kFloat32, kFloat64}) {
      const auto nd = static_cast<int64_t>(sizes.size());
      for (int64_t d = 0; d < nd; ++d) {
        const int64_t n = sizes[static_cast<size_t>(d)];
        std::vector<int64_t> hsizes = sizes;
        hsizes[static_cast<size_t>(d)] = n / 2 + 1;
        // A half spectrum with non-zero imaginary parts at the zero (and Nyquist) frequency,
        // which the transform ignores.
        Tensor half = randn(hsizes, TensorOptions(to_complex_type(rt)));
        Tensor fast = empty(sizes, TensorOptions(rt));
        cpu::fft_c2r_kernel(fast, half, d, 0.5);
        // The reference: the full Hermitian spectrum by hand, the inverse definition, real part.
        Tensor full = zeros(sizes, TensorOptions(kComplexDouble));
        Tensor h64 = half.to(kComplexDouble);
        full.narrow(d, 0, n / 2 + 1).copy_(h64);
        for (int64_t k = 1; k < (n + 1) / 2; ++k) full.narrow(d, n - k, 1).copy_(conj_physical(h64.narrow(d, k, 1)));
        Tensor ref = full.contiguous();
        cpu::fft_c2c_kernel_ref(ref, {d}, /*forward=*/false, 0.5);
        expect_close(fast.to(kComplexDouble), real(ref).to(kComplexDouble), tol_for(rt));
      }
    }
  }
}

TEST(Complex2FftEngine, ThreadedBatchesAgreeWithOneThread) {
  Tensor x = randn({64, 96}, TensorOptions(kComplexFloat));
  Tensor a = x.clone(), b = x.clone();
  const int saved = get_num_threads();
  set_num_threads(1);
  cpu::fft_c2c_kernel(a, {0, 1}, true, 1.0);
  set_num_threads(2);
  cpu::fft_c2c_kernel(b, {0, 1}, true, 1.0);
  set_num_threads(saved);
  expect_close(a, b, 0.0);
}

}  // namespace
}  // namespace ember
