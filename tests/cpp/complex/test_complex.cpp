// complex64 / complex128 and ember::fft from C++: dtypes and promotion, views, arithmetic,
// printing, gradients, and the FFT kernel against its O(n^2) reference (fast == ref).
#include <complex>

#include "backends/cpu/fft_kernels.h"
#include "ember/ops/math.h"
#include "testing.h"

namespace ember {
namespace {

using C = std::complex<double>;

// A contiguous complex128 tensor holding `v`.
Tensor from_complex(const std::vector<C>& v, IntArrayRef sizes, ScalarType dtype = kComplexDouble) {
  Tensor t = empty({static_cast<int64_t>(v.size())}, kComplexDouble);
  std::copy(v.begin(), v.end(), t.data_ptr<C>());
  return t.view(sizes).to(dtype);
}

std::vector<C> complex_values(const Tensor& t) {
  Tensor c = t.contiguous().to(kComplexDouble);
  const C* p = c.data_ptr<C>();
  return std::vector<C>(p, p + c.numel());
}

TEST(ComplexDtype, NamesSizesPromotion) {
  EXPECT_STREQ(dtype_name(kComplexFloat), "complex64");
  EXPECT_STREQ(scalar_type_name(kComplexDouble), "ComplexDouble");
  EXPECT_EQ(element_size(kComplexFloat), 8u);
  EXPECT_EQ(element_size(kComplexDouble), 16u);
  EXPECT_EQ(dtype_from_name("cfloat"), kComplexFloat);
  EXPECT_EQ(promote_types(kComplexFloat, kFloat64), kComplexDouble);
  EXPECT_EQ(promote_types(kInt64, kComplexFloat), kComplexFloat);
  EXPECT_EQ(promote_types(kFloat16, kComplexFloat), kComplexFloat);
  EXPECT_EQ(to_real_value_type(kComplexDouble), kFloat64);
  EXPECT_EQ(to_complex_type(kFloat32), kComplexFloat);
  EXPECT_FALSE(is_floating(kComplexFloat));
  EXPECT_TRUE(is_complex(kComplexDouble));
  // A Python-like complex scalar: the default complex dtype, weakly typed.
  Tensor x = ones({2}, kFloat64) * Scalar(C(0, 1));
  EXPECT_EQ(x.dtype(), kComplexDouble);
  EXPECT_EQ((ones({2}) * Scalar(C(0, 1))).dtype(), kComplexFloat);
}

TEST(ComplexDtype, RealOpsRefuseComplex) {
  Tensor z = zeros({2}, kComplexFloat);
  testing::expect_error([&] { clamp(z, 0.0, 1.0); }, "clamp is not supported for complex types");
  testing::expect_error([&] { (void)(z < z); }, "\"lt_cpu\" not implemented for 'ComplexFloat'");
}

TEST(ComplexViews, ViewAsRealSharesMemory) {
  Tensor z = from_complex({C(1, 2), C(3, 4), C(5, 6)}, {3});
  Tensor r = view_as_real(z);
  EXPECT_EQ(r.sizes().vec(), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(r.strides().vec(), (std::vector<int64_t>{2, 1}));
  r.select(0, 1).select(0, 1).fill_(9.0);
  EXPECT_EQ(complex_values(z)[1], C(3, 9));
  Tensor back = view_as_complex(r);
  EXPECT_EQ(complex_values(back), complex_values(z));
  EXPECT_EQ(complex_values(real(z).to(kComplexDouble))[2], C(5, 0));
  testing::expect_error([&] { view_as_complex(zeros({3, 3})); }, "Tensor must have a last dimension of size 2");
}

TEST(ComplexMath, ArithmeticAndPrinting) {
  Tensor a = from_complex({C(1, 2), C(3, -1)}, {2}, kComplexFloat);
  Tensor b = from_complex({C(0, 1), C(2, 2)}, {2}, kComplexFloat);
  const auto p = complex_values(a * b);
  EXPECT_EQ(p[0], C(-2, 1));
  EXPECT_EQ(p[1], C(8, 4));
  EXPECT_EQ(complex_values(a + b)[1], C(5, 1));
  EXPECT_EQ(complex_values(conj(a))[0], C(1, -2));
  testing::expect_values(abs(from_complex({C(3, 4)}, {1})), {1}, {5.0});
  EXPECT_EQ(to_string(a), "tensor([1.+2.j, 3.-1.j])");
  EXPECT_EQ(to_string(a.to(kComplexDouble)), "tensor([1.+2.j, 3.-1.j], dtype=ember.complex128)");
  EXPECT_EQ(a.sum().item().to_complex(), C(4, 1));
  const auto m = complex_values(matmul(a.view({1, 2}), b.view({2, 1})));
  EXPECT_EQ(m[0], C(6, 5));
}

TEST(ComplexAutograd, AbsOfComplexGivesWirtingerGradient) {
  Tensor z = from_complex({C(3, 4)}, {1}).requires_grad_();
  abs(z).sum().backward();
  // d|z| = z / |z| (PyTorch's convention: the conjugate Wirtinger derivative times 2)
  const C g = complex_values(z.grad())[0];
  EXPECT_NEAR(g.real(), 0.6, 1e-12);
  EXPECT_NEAR(g.imag(), 0.8, 1e-12);
}

// fast == ref: the FFT engine against the definition, several lengths (powers of two,
// mixed radices, small primes, and lengths with a prime factor above 31, which go through
// Bluestein), dims and both directions.
TEST(FftKernel, MatchesTheDefinition) {
  for (auto sizes : std::vector<std::vector<int64_t>>{{16}, {3, 12}, {5, 7}, {2, 3, 13}, {1, 6}, {67}, {2, 202}, {3, 131}}) {
    for (ScalarType t : {kComplexFloat, kComplexDouble}) {
      Tensor x = randn(sizes, TensorOptions(t));
      for (bool forward : {true, false}) {
        std::vector<int64_t> dims;
        for (int64_t d = 0; d < static_cast<int64_t>(sizes.size()); ++d) dims.push_back(d);
        Tensor fast = x.clone(), ref = x.clone();
        cpu::fft_c2c_kernel(fast, dims, forward, 0.5);
        cpu::fft_c2c_kernel_ref(ref, dims, forward, 0.5);
        const auto f = complex_values(fast), r = complex_values(ref);
        const double tol = t == kComplexFloat ? 1e-4 : 1e-11;
        for (size_t i = 0; i < f.size(); ++i) EXPECT_NEAR(std::abs(f[i] - r[i]), 0.0, tol * (1 + std::abs(r[i])));
      }
    }
  }
}

TEST(Fft, PublicApiRoundTrips) {
  Tensor x = randn({4, 10}, kFloat64);
  Tensor back = fft::irfft(fft::rfft(x), 10);
  testing::expect_values(back, {4, 10}, testing::values(x), 1e-12, 1e-12);
  Tensor spec = fft::fft2(x.to(kComplexDouble), std::nullopt, {-2, -1}, "ortho");
  Tensor img = fft::ifft2(spec, std::nullopt, {-2, -1}, "ortho");
  testing::expect_values(real(img), {4, 10}, testing::values(x), 1e-12, 1e-12);
  testing::expect_values(fft::fftfreq(4), {4}, {0.0, 0.25, -0.5, -0.25});
  testing::expect_values(fft::rfftfreq(5, 0.5), {3}, {0.0, 0.4, 0.8});
  testing::expect_values(fft::fftshift(fft::fftfreq(4)), {4}, {-0.5, -0.25, 0.0, 0.25});
  testing::expect_error([&] { fft::fft(x, std::nullopt, -1, "bad"); }, "Invalid normalization mode: \"bad\"");
  Tensor meta = fft::rfft(zeros({3, 8}, TensorOptions().device(kMeta)));
  EXPECT_EQ(meta.sizes().vec(), (std::vector<int64_t>{3, 5}));
  EXPECT_EQ(meta.dtype(), kComplexFloat);
}

}  // namespace
}  // namespace ember
