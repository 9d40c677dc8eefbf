// linalg on complex matrices from C++: linalg::eig / eigvals (A V = V diag(L), the complex pair
// of a rotation, errors), complex inv / det / solve, and stft / istft round trips.
#include <complex>

#include "ember/ops/complex.h"
#include "ember/ops/fft.h"
#include "ember/ops/linalg.h"
#include "ember/ops/linalg_eig.h"
#include "ember/ops/math.h"
#include "ember/ops/pointwise.h"
#include "testing.h"

namespace ember {
namespace {

using C = std::complex<double>;

double max_abs_diff(const Tensor& a, const Tensor& b) {
  return abs(a - b).max().item<double>();
}

TEST(Complex2Linalg, EigSatisfiesTheDefinition) {
  for (ScalarType t : {kFloat64, kComplexDouble}) {
    Tensor A = randn({3, 5, 5}, TensorOptions(t));
    auto [L, V] = linalg::eig(A);
    EXPECT_EQ(L.dtype(), kComplexDouble);
    EXPECT_EQ(V.sizes().vec(), (std::vector<int64_t>{3, 5, 5}));
    EXPECT_LT(max_abs_diff(matmul(A.to(kComplexDouble), V), V * L.unsqueeze(-2)), 1e-10);
    EXPECT_LT(max_abs_diff(linalg::eigvals(A), L), 1e-12);
  }
}

TEST(Complex2Linalg, RotationHasAConjugatePair) {
  Tensor A = zeros({2, 2}, kFloat32);
  A.select(0, 0).select(0, 1).fill_(1);
  A.select(0, 1).select(0, 0).fill_(-1);
  Tensor L = linalg::eigvals(A).to(kComplexDouble).contiguous();
  const C* l = L.data_ptr<C>();
  EXPECT_NEAR(l[0].imag(), 1.0, 1e-6);
  EXPECT_NEAR(l[1].imag(), -1.0, 1e-6);
  EXPECT_NEAR(std::abs(l[0].real()) + std::abs(l[1].real()), 0.0, 1e-6);
}

TEST(Complex2Linalg, EigErrors) {
  testing::expect_error([] { linalg::eig(ones({2, 3})); },
                        "linalg.eig: A must be batches of square matrices, but they are 2 by 3 matrices");
  testing::expect_error([] { linalg::eig(ones({3, 3}, kInt64)); }, "Unknown Complex ScalarType for Long");
}

TEST(Complex2Linalg, ComplexInvDetSolve) {
  Tensor A = randn({4, 4}, TensorOptions(kComplexDouble)) + eye(4, TensorOptions(kComplexDouble)) * 3;
  Tensor B = randn({4, 2}, TensorOptions(kComplexDouble));
  Tensor X = linalg::solve(A, B);
  EXPECT_LT(max_abs_diff(matmul(A, X), B), 1e-12);
  EXPECT_LT(max_abs_diff(matmul(A, linalg::inv(A)), eye(4, TensorOptions(kComplexDouble))), 1e-12);
  // det = the product of the eigenvalues
  Tensor d = linalg::det(A), p = linalg::eigvals(A).prod();
  EXPECT_LT(max_abs_diff(d, p), 1e-9 * (1 + abs(d).item<double>()));
}

TEST(Complex2Stft, RoundTrip) {
  Tensor x = randn({2, 50}, kFloat64);
  Tensor w = ones({16}, kFloat64) * 0.5;
  Tensor S = stft(x, 16, 4, std::nullopt, w, true, "reflect", false, std::nullopt, true);
  EXPECT_EQ(S.sizes().vec(), (std::vector<int64_t>{2, 9, 13}));
  Tensor y = istft(S, 16, 4, std::nullopt, w, true, false, std::nullopt, 50);
  EXPECT_LT(max_abs_diff(y, x), 1e-12);
}

}  // namespace
}  // namespace ember
