// linalg.ldl_factor(_ex) / ldl_solve, geqrf / ormqr, linalg.diagonal / vander, symeig and
// _lu_with_info (src/ops/linalg_ldl.cpp): reconstructions, values torch 1.13 gives, batches,
// meta and error texts.
#include "ember/ops/factory.h"
#include "ember/ops/index_ops.h"
#include "ember/ops/shape.h"
#include "ember/ops/linalg_more.h"
#include "ember/ops/pointwise.h"
#include "ember/ops/reduce.h"
#include "testing.h"

namespace ember {
namespace {

using testing::expect_error;
using testing::expect_values;
using testing::from_values;
using testing::values;

double max_abs(const Tensor& t) { return values(t.abs().max())[0]; }

TEST(NamesbLinalg, LdlFactorSolvesSymmetricIndefiniteSystems) {
  // torch 1.13's example matrix (float64)
  const Tensor A = from_values({3.0820, 0.2750, -1.7754, 0.2750, -2.1690, -0.5606, -1.7754, -0.5606, -1.4385},
                               {3, 3}, kFloat64);
  auto [LD, pivots, info] = linalg::ldl_factor_ex(A);
  EXPECT_EQ(pivots.dtype(), kInt32);
  EXPECT_EQ(info.dtype(), kInt32);
  EXPECT_EQ(values(info)[0], 0);
  EXPECT_EQ(LD.strides().vec(), (std::vector<int64_t>{1, 3}));  // column-major, as PyTorch's
  EXPECT_EQ(values(LD)[1], 0.0);                                // the strict upper triangle is 0
  const Tensor B = from_values({1, 2, 3, 4, 5, 6}, {3, 2}, kFloat64);
  const Tensor X = linalg::ldl_solve(LD, pivots, B);
  EXPECT_LT(max_abs(matmul(A, X) - B), 1e-10);
  // a batch, broadcast against one right-hand side
  const Tensor A2 = stack({A, A * 2.0}, 0);
  auto [LD2, piv2] = linalg::ldl_factor(A2);
  const Tensor X2 = linalg::ldl_solve(LD2, piv2, B);
  EXPECT_EQ(X2.sizes().vec(), (std::vector<int64_t>{2, 3, 2}));
  EXPECT_LT(max_abs(matmul(A2, X2) - B), 1e-10);
}

TEST(NamesbLinalg, LdlErrors) {
  expect_error([] { linalg::ldl_factor_ex(zeros({3, 2})); },
               "ember.linalg.ldl_factor_ex: A must be batches of square matrices, but they are 3 by 2 matrices");
  expect_error([] { linalg::ldl_factor_ex(zeros({3, 3}, TensorOptions(kInt64))); },
               "ember.linalg.ldl_factor_ex: Expected a floating point or complex tensor as input. Got Long");
  auto [LD, pivots, info] = linalg::ldl_factor_ex(zeros({3, 3}));
  EXPECT_EQ(values(info)[0], 1);
  expect_error([] { linalg::ldl_factor(zeros({3, 3})); }, "ember.linalg.ldl_factor: Unknown error code: 1.");
}

TEST(NamesbLinalg, GeqrfOrmqrReconstruct) {
  const Tensor M = from_values({1, 2, 3, 4, 5, 6, 7, 8, 10, 1, 0, 2}, {4, 3}, kFloat64);
  auto [a, tau] = geqrf(M);
  EXPECT_EQ(tau.sizes().vec(), (std::vector<int64_t>{3}));
  const Tensor Q = ormqr(a, tau, eye(4, TensorOptions(kFloat64)));
  const Tensor R = triu(a);
  EXPECT_LT(max_abs(matmul(Q, R) - M), 1e-12);
  EXPECT_LT(max_abs(matmul(Q.t(), Q) - eye(4, TensorOptions(kFloat64))), 1e-12);
  // transpose and right multiplication
  const Tensor C = from_values({1, 0, 2, 1, 3, 1, 0, 2}, {4, 2}, kFloat64);
  EXPECT_LT(max_abs(ormqr(a, tau, C, true, true) - matmul(Q.t(), C)), 1e-12);
  EXPECT_LT(max_abs(ormqr(a, tau, C.t(), false, false) - matmul(C.t(), Q)), 1e-12);
  expect_error([&] { ormqr(a, tau, zeros({3, 2}, TensorOptions(kFloat64))); },
               "ember.ormqr: other.shape[-2] must be equal to input.shape[-2]");
}

TEST(NamesbLinalg, DiagonalVanderSymeigLu) {
  const Tensor x = from_values({1, 2, 3}, {3}, kInt64);
  const Tensor v = linalg::vander(x);
  EXPECT_EQ(v.dtype(), kInt64);
  expect_values(v, {3, 3}, {1, 1, 1, 1, 2, 4, 1, 3, 9});
  expect_values(linalg::vander(x.to(kFloat32), 2), {3, 2}, {1, 1, 1, 2, 1, 3});
  expect_error([] { linalg::vander(zeros({2}), 1); }, "N must be greater than 1.");
  expect_error([] { linalg::vander(zeros({2}, TensorOptions(kBool))); },
               "linalg.vander supports floating point, complex, and integer tensors, but got Bool");
  const Tensor A = from_values({2, 1, 1, 3}, {2, 2}, kFloat64);
  expect_values(linalg::diagonal(A), {2}, {2, 3});
  auto [e, V] = symeig(A);
  EXPECT_EQ(V.numel(), 0);
  expect_values(e, {2}, {1.381966011250105, 3.618033988749895}, 1e-12, 1e-12);
  auto [LU, piv, info] = _lu_with_info(zeros({2, 2}));  // singular: never raises
  EXPECT_EQ(values(info)[0], 1);
  const Tensor m = empty({2, 4, 4}, TensorOptions(kFloat32).device(kMeta));
  auto [ldm, pm, im] = linalg::ldl_factor_ex(m);
  EXPECT_TRUE(ldm.is_meta());
  EXPECT_EQ(pm.sizes().vec(), (std::vector<int64_t>{2, 4}));
}

}  // namespace
}  // namespace ember
