// ember::linalg and the convolutions on complex matrices, in C++: the defining identities of each
// decomposition (U diag(S) Vh = A with real S, Q R = A with Q^H Q = I, L L^H = A, P L U = A,
// sign * exp(log|det|) = det, the normal equations of lstsq, the Moore-Penrose conditions of
// pinv), the complex convolution by three real ones against its four-product definition, and
// gradcheck of the complex rules.
#include <gtest/gtest.h>

#include <complex>
#include <vector>

#include "ember/autograd/gradcheck.h"
#include "ember/ember.h"
#include "testing.h"

namespace ember {
namespace {

using C = std::complex<double>;

Tensor crand(IntArrayRef shape, uint64_t seed, double shift = 0) {
  manual_seed(seed);
  Tensor a = randn(shape, TensorOptions(kComplexDouble));
  if (shift != 0) a = a + eye(shape.back(), TensorOptions(kComplexDouble)) * shift;
  return a;
}

Tensor mH(const Tensor& x) { return conj_physical(x.transpose(-2, -1)); }

// Element by element, real and imaginary parts.
void expect_close(const Tensor& got, const Tensor& want, double tol = 1e-10) {
  ASSERT_EQ(got.sizes().vec(), want.sizes().vec());
  ASSERT_EQ(got.dtype(), want.dtype());
  const Tensor g = got.contiguous(), w = want.contiguous();
  const Tensor gr = got.is_complex() ? view_as_real(g) : g, wr = want.is_complex() ? view_as_real(w) : w;
  auto a = testing::values(gr), b = testing::values(wr);
  for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], tol) << "at " << i;
}

TEST(ComplexLinalg, SvdQrCholeskyLuIdentities) {
  const std::vector<std::vector<int64_t>> shapes{{4, 4}, {2, 5, 3}, {3, 6}};
  for (const auto& shape : shapes) {
    const Tensor A = crand(shape, 1);
    auto [U, S, Vh] = linalg::svd(A, false);
    EXPECT_EQ(S.dtype(), kFloat64);
    expect_close(matmul(U * S.unsqueeze(-2).to(kComplexDouble), Vh), A);
    auto [Q, R] = linalg::qr(A);
    expect_close(matmul(Q, R), A);
    const int64_t k = Q.size(-1);
    const Tensor QhQ = matmul(mH(Q), Q);
    expect_close(QhQ, eye(k, TensorOptions(kComplexDouble)).expand(QhQ.sizes()));
    expect_close(imag(diagonal(R, 0, -2, -1)), zeros_like(imag(diagonal(R, 0, -2, -1))));  // Householder: real diagonal
    auto [P, L, U2] = linalg::lu(A);
    expect_close(matmul(P, matmul(L, U2)), A);
  }
  const Tensor B = crand({2, 4, 4}, 2);
  const Tensor H = matmul(B, mH(B)) + eye(4, TensorOptions(kComplexDouble)) * 4.0;
  const Tensor L = linalg::cholesky(H);
  expect_close(matmul(L, mH(L)), H);
  expect_close(matmul(mH(linalg::cholesky(H, true)), linalg::cholesky(H, true)), H);
  const Tensor X = crand({2, 4, 3}, 3);
  expect_close(matmul(H, cholesky_solve(X, L)), X);
  expect_close(matmul(H[0], cholesky_inverse(L[0])), eye(4, TensorOptions(kComplexDouble)));
}

TEST(ComplexLinalg, SlogdetLstsqPinvTriangular) {
  const Tensor A = crand({3, 4, 4}, 4);
  auto [sign, logabs] = linalg::slogdet(A);
  EXPECT_EQ(sign.dtype(), kComplexDouble);
  EXPECT_EQ(logabs.dtype(), kFloat64);
  expect_close(abs(sign), ones({3}, TensorOptions(kFloat64)));
  expect_close(sign * exp(logabs).to(kComplexDouble), linalg::det(A));
  const Tensor T = crand({5, 3}, 5), b = crand({5, 2}, 6);
  for (const char* driver : {"gels", "gelsy", "gelsd", "gelss"}) {
    const Tensor x = std::get<0>(linalg::lstsq(T, b, std::nullopt, std::string(driver)));
    // the normal equations: A^H (A x - b) = 0
    expect_close(matmul(mH(T), matmul(T, x) - b), zeros({3, 2}, TensorOptions(kComplexDouble)));
  }
  const Tensor Tp = linalg::pinv(T);
  expect_close(matmul(T, matmul(Tp, T)), T);
  expect_close(matmul(Tp, matmul(T, Tp)), Tp);
  expect_close(mH(matmul(T, Tp)), matmul(T, Tp));
  const Tensor Up = triu(crand({4, 4}, 7, 4.0));
  const Tensor Y = crand({4, 2}, 8);
  expect_close(matmul(Up, linalg::solve_triangular(Up, Y, true)), Y);
  expect_close(matmul(linalg::solve_triangular(Up, mH(Y), true, false), Up), mH(Y));
}

// conv(x, w) over complex numbers is conv(xr, wr) - conv(xi, wi) + i (conv(xr, wi) + conv(xi, wr)):
// the definition Gauss's three-product form must reproduce.
TEST(ComplexLinalg, ConvolutionMatchesTheFourProductDefinition) {
  const Tensor x = crand({2, 3, 7, 6}, 9), w = crand({4, 3, 3, 2}, 10), b = crand({4}, 11);
  const Tensor got = conv2d(x, w, b, {2, 1}, {1, 1});
  auto conv = [&](const Tensor& xx, const Tensor& ww) { return conv2d(xx, ww, std::nullopt, {2, 1}, {1, 1}); };
  const Tensor xr = real(x), xi = imag(x), wr = real(w), wi = imag(w);
  const Tensor re = conv(xr, wr) - conv(xi, wi) + real(b).view({1, 4, 1, 1});
  const Tensor im = conv(xr, wi) + conv(xi, wr) + imag(b).view({1, 4, 1, 1});
  expect_close(got, complex(re, im));
  const Tensor x1 = crand({1, 2, 9}, 12), w1 = crand({2, 3, 3}, 13);
  const Tensor t = conv_transpose1d(x1, w1, std::nullopt, {2});
  const Tensor t_re = conv_transpose1d(real(x1), real(w1), std::nullopt, {2}) - conv_transpose1d(imag(x1), imag(w1), std::nullopt, {2});
  const Tensor t_im = conv_transpose1d(real(x1), imag(w1), std::nullopt, {2}) + conv_transpose1d(imag(x1), real(w1), std::nullopt, {2});
  expect_close(t, complex(t_re, t_im));
  testing::expect_error([&] { conv_transpose2d(crand({1, 2, 4, 4}, 14), crand({2, 3, 2, 2}, 15)); },
                        "\"slow_conv_transpose2d_out_cpu\" not implemented for 'ComplexDouble'");
}

TEST(ComplexLinalg, Gradcheck) {
  const Tensor A = crand({4, 3}, 16).requires_grad_();
  EXPECT_TRUE(autograd::gradcheck([](const autograd::tensor_list& in) {
    auto [Q, R] = linalg::qr(in[0]);
    return autograd::tensor_list{Q, R};
  }, {A}));
  EXPECT_TRUE(autograd::gradcheck([](const autograd::tensor_list& in) {
    auto [U, S, Vh] = linalg::svd(in[0], false);
    return autograd::tensor_list{S, matmul(U, Vh)};
  }, {A}));
  EXPECT_TRUE(autograd::gradcheck([](const autograd::tensor_list& in) {
    return autograd::tensor_list{linalg::pinv(in[0])};
  }, {A}));
  const Tensor S = crand({3, 3}, 17, 3.0).requires_grad_();
  EXPECT_TRUE(autograd::gradcheck([](const autograd::tensor_list& in) {
    auto [sign, logabs] = linalg::slogdet(in[0]);
    return autograd::tensor_list{sign, logabs};
  }, {S}));
  EXPECT_TRUE(autograd::gradcheck([](const autograd::tensor_list& in) {
    const Tensor H = matmul(in[0], conj_physical(in[0].transpose(0, 1))) + eye(3, TensorOptions(kComplexDouble)) * 3.0;
    return autograd::tensor_list{linalg::cholesky(H)};
  }, {S}));
  const Tensor x = crand({1, 2, 5}, 18).requires_grad_(), w = crand({3, 2, 2}, 19).requires_grad_();
  EXPECT_TRUE(autograd::gradcheck([](const autograd::tensor_list& in) {
    return autograd::tensor_list{conv1d(in[0], in[1], std::nullopt, {1}, {1})};
  }, {x, w}));
}

}  // namespace
}  // namespace ember
