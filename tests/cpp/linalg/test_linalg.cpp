// ember::linalg in C++: identities against float64 references built from the definitions
// (A inv(A) = I, A X = B, L L^T = A, Q R = A with Q orthonormal, U S Vh = A, A V = V diag(L)),
// batches, empty matrices, meta shapes, PyTorch's error texts, and gradcheck on every rule.
#include <gtest/gtest.h>

#include "ember/autograd/gradcheck.h"
#include "ember/ember.h"
#include "testing.h"

namespace ember {
namespace {

using testing::expect_error;
using testing::values;

Tensor rand_matrix(IntArrayRef shape, uint64_t seed, double shift = 0) {
  manual_seed(seed);
  Tensor a = randn(shape, TensorOptions(kFloat64));
  if (shift != 0) a = a + eye(shape.back(), TensorOptions(kFloat64)) * shift;
  return a;
}

void expect_near(const Tensor& got, const Tensor& want, double tol = 1e-10) {
  ASSERT_EQ(got.sizes().vec(), want.sizes().vec());
  auto g = values(got), w = values(want);
  for (size_t i = 0; i < g.size(); ++i) EXPECT_NEAR(g[i], w[i], tol) << "at " << i;
}

TEST(Linalg, InvSolveDetAgreeWithDefinitions) {
  const Tensor A = rand_matrix({2, 4, 4}, 1, 4.0);
  const Tensor I = eye(4, TensorOptions(kFloat64)).expand({2, 4, 4});
  expect_near(matmul(A, linalg::inv(A)), I);
  const Tensor B = rand_matrix({2, 4, 3}, 2);
  expect_near(matmul(A, linalg::solve(A, B)), B);
  const Tensor Bt = rand_matrix({2, 3, 4}, 3);
  expect_near(matmul(linalg::solve(A, Bt, false), A), Bt);
  // det of a triangular matrix is the product of its diagonal.
  const Tensor T = testing::from_values({2, 5, 7, 0, 3, 1, 0, 0, -4}, {3, 3}, kFloat64);
  EXPECT_NEAR(linalg::det(T).item<double>(), -24.0, 1e-12);
  auto [sign, logabs] = linalg::slogdet(T);
  EXPECT_EQ(sign.item<double>(), -1.0);
  EXPECT_NEAR(logabs.item<double>(), std::log(24.0), 1e-12);
  EXPECT_EQ(linalg::det(empty({0, 0}, TensorOptions(kFloat64))).item<double>(), 1.0);
}

TEST(Linalg, FactorizationsReconstruct) {
  const Tensor S = rand_matrix({3, 5, 5}, 4);
  const Tensor spd = matmul(S, S.transpose(-2, -1)) + eye(5, TensorOptions(kFloat64)) * 5;
  const Tensor L = linalg::cholesky(spd);
  expect_near(matmul(L, L.transpose(-2, -1)), spd, 1e-9);
  const Tensor A = rand_matrix({2, 6, 4}, 5);
  auto [Q, R] = linalg::qr(A);
  expect_near(matmul(Q, R), A);
  expect_near(matmul(Q.transpose(-2, -1), Q), eye(4, TensorOptions(kFloat64)).expand({2, 4, 4}));
  auto [U, Sv, Vh] = linalg::svd(A, false);
  expect_near(matmul(U * Sv.unsqueeze(-2), Vh), A);
  auto [w, V] = linalg::eigh(spd);
  expect_near(matmul(spd, V), V * w.unsqueeze(-2), 1e-9);
  auto [P, Lu, Uu] = linalg::lu(A);
  expect_near(matmul(P, matmul(Lu, Uu)), A);
}

TEST(Linalg, LstsqAndPinv) {
  const Tensor A = rand_matrix({6, 3}, 6);
  const Tensor b = rand_matrix({6, 2}, 7);
  auto [x, residuals, rank, sv] = linalg::lstsq(A, b, std::nullopt, std::string("gelsd"));
  // The normal equations: A^T (A x - b) = 0.
  expect_near(matmul(A.t(), matmul(A, x) - b), zeros({3, 2}, TensorOptions(kFloat64)), 1e-9);
  EXPECT_EQ(rank.item<int64_t>(), 3);
  expect_near(residuals, (matmul(A, x) - b).pow(2).sum(std::vector<int64_t>{0}), 1e-9);
  expect_near(linalg::pinv(A), linalg::solve(matmul(A.t(), A), A.t()), 1e-9);
}

TEST(Linalg, NormsAgreeWithDefinitions) {
  const Tensor A = testing::from_values({1, -2, 3, -4, 5, -6}, {2, 3}, kFloat64);
  EXPECT_NEAR(linalg::matrix_norm(A, std::string("fro")).item<double>(), std::sqrt(91.0), 1e-12);
  EXPECT_NEAR(linalg::matrix_norm(A, Scalar(1)).item<double>(), 9.0, 1e-12);    // max column sum
  EXPECT_NEAR(linalg::matrix_norm(A, Scalar(INFINITY)).item<double>(), 15.0, 1e-12);  // max row sum
  EXPECT_NEAR(linalg::vector_norm(A, Scalar(INFINITY)).item<double>(), 6.0, 1e-12);
  auto sv = linalg::svdvals(A);
  EXPECT_NEAR(linalg::matrix_norm(A, std::string("nuc")).item<double>(), sv.sum().item<double>(), 1e-12);
  EXPECT_NEAR(linalg::matrix_norm(A, Scalar(2)).item<double>(), sv.amax().item<double>(), 1e-12);
}

TEST(Linalg, ErrorsAreTorchs) {
  expect_error([] { linalg::inv(zeros({2, 3}, TensorOptions(kFloat64))); },
               "linalg.inv: A must be batches of square matrices, but they are 2 by 3 matrices");
  expect_error([] { linalg::inv(ones({3, 3}, TensorOptions(kInt64))); },
               "linalg.inv: Expected a floating point or complex tensor as input. Got Long");
  const Tensor S = testing::from_values({1, 2, 3, 2, 4, 6, 1, 1, 1}, {3, 3}, kFloat64);
  expect_error([&] { linalg::inv(S); },
               "linalg.inv: The diagonal element 2 is zero, the inversion could not be completed because the "
               "input matrix is singular.",
               ErrorKind::LinAlg);
  expect_error([&] { linalg::inv(stack({eye(3, TensorOptions(kFloat64)), S})); },
               "linalg.inv: (Batch element 1): The diagonal element 2 is zero", ErrorKind::LinAlg);
  expect_error([] { linalg::cholesky(-eye(3, TensorOptions(kFloat64))); },
               "linalg.cholesky: The factorization could not be completed because the input is not "
               "positive-definite (the leading minor of order 1 is not positive-definite).",
               ErrorKind::LinAlg);
  expect_error([] { linalg::qr(zeros({3, 3}, TensorOptions(kFloat64)), "foo"); },
               "qr received unrecognized mode 'foo' but expected one of 'reduced' (default), 'r', or 'complete'");
  expect_error([] { linalg::matrix_norm(zeros({3, 3}, TensorOptions(kFloat64)), Scalar(3)); },
               "linalg.matrix_norm: Order 3 not supported.");
  // Failed checks leave no output behind and _ex ops report instead of raising.
  auto [inverse, info] = linalg::inv_ex(S);
  EXPECT_EQ(info.item<int32_t>(), 2);
}

TEST(Linalg, MetaShapes) {
  const Tensor m = empty({4, 5, 3}, TensorOptions(kFloat32).device(kMeta));
  auto [U, S, Vh] = linalg::svd(m, true);
  EXPECT_EQ(U.sizes().vec(), (std::vector<int64_t>{4, 5, 5}));
  EXPECT_EQ(S.sizes().vec(), (std::vector<int64_t>{4, 3}));
  EXPECT_EQ(Vh.sizes().vec(), (std::vector<int64_t>{4, 3, 3}));
  auto [Q, R] = linalg::qr(m);
  EXPECT_EQ(Q.sizes().vec(), (std::vector<int64_t>{4, 5, 3}));
  EXPECT_TRUE(linalg::inv(empty({2, 3, 3}, TensorOptions(kFloat32).device(kMeta))).is_meta());
}

TEST(Linalg, Gradcheck) {
  using autograd::gradcheck;
  using autograd::gradgradcheck;
  using autograd::tensor_list;
  const Tensor A = rand_matrix({2, 3, 3}, 8, 3.0).requires_grad_();
  const Tensor B = rand_matrix({2, 3, 2}, 9).requires_grad_();
  const Tensor W = rand_matrix({4, 3}, 10).requires_grad_();
  auto sym = [](const Tensor& x) { return matmul(x, x.transpose(-2, -1)) + eye(x.size(-1), TensorOptions(kFloat64)); };
  EXPECT_TRUE(gradcheck([](const tensor_list& x) { return tensor_list{linalg::inv(x[0])}; }, {A}));
  EXPECT_TRUE(gradgradcheck([](const tensor_list& x) { return tensor_list{linalg::inv(x[0])}; }, {A}));
  EXPECT_TRUE(gradcheck([](const tensor_list& x) { return tensor_list{linalg::det(x[0])}; }, {A}));
  EXPECT_TRUE(gradcheck([](const tensor_list& x) { return tensor_list{std::get<1>(linalg::slogdet(x[0]))}; }, {A}));
  EXPECT_TRUE(gradcheck([](const tensor_list& x) { return tensor_list{linalg::solve(x[0], x[1])}; }, {A, B}));
  EXPECT_TRUE(gradgradcheck([](const tensor_list& x) { return tensor_list{linalg::solve(x[0], x[1])}; }, {A, B}));
  EXPECT_TRUE(gradcheck([&](const tensor_list& x) { return tensor_list{linalg::cholesky(sym(x[0]))}; }, {A}));
  EXPECT_TRUE(gradcheck([](const tensor_list& x) {
    auto [Q, R] = linalg::qr(x[0]);
    return tensor_list{Q, R};
  }, {W}));
  EXPECT_TRUE(gradcheck([](const tensor_list& x) {
    auto [U, S, Vh] = linalg::svd(x[0], false);
    // U and Vh are unique up to a joint sign: differentiate sign-invariant functions of them.
    return tensor_list{S, matmul(U, Vh), U * U};
  }, {W}));
  EXPECT_TRUE(gradcheck([&](const tensor_list& x) {
    auto [w, V] = linalg::eigh(sym(x[0]));
    return tensor_list{w, V * V};
  }, {A}));
  EXPECT_TRUE(gradcheck([](const tensor_list& x) { return tensor_list{linalg::matrix_exp(x[0])}; }, {A}));
  EXPECT_TRUE(gradcheck([](const tensor_list& x) { return tensor_list{linalg::vector_norm(x[0], 3.0)}; }, {W}));
  EXPECT_TRUE(gradcheck([](const tensor_list& x) { return tensor_list{linalg::pinv(x[0])}; }, {W}));
  EXPECT_TRUE(gradcheck([](const tensor_list& x) { return tensor_list{std::get<0>(linalg::lstsq(x[0], x[1]))}; },
                        {W, rand_matrix({4, 2}, 11).requires_grad_()}));
  EXPECT_TRUE(gradcheck([](const tensor_list& x) { return tensor_list{linalg::cross(x[0], x[1])}; },
                        {W, rand_matrix({1, 3}, 12).requires_grad_()}));
  EXPECT_TRUE(gradcheck([](const tensor_list& x) { return tensor_list{linalg::solve_triangular(x[0], x[1], true)}; },
                        {(rand_matrix({3, 3}, 13) * 0.1 + eye(3, TensorOptions(kFloat64)) * 2).requires_grad_(), B}));
}

}  // namespace
}  // namespace ember
