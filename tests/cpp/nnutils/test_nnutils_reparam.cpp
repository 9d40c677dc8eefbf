// nn::utils::weight_norm / spectral_norm (the hook forms), their removal, and the tensor
// attributes they rest on (Note [Tensor attributes]): parameter names and order as torch's,
// the layer's own forward reading the recomputed weight, gradients reaching g and v, power
// iteration in training only, and torch's error texts.
#include <gtest/gtest.h>

#include "../testing.h"
#include "ember/ember.h"
#include "ember/nn/utils/weight_norm.h"
#include "ember/ops/nnutils.h"

namespace ember {
namespace {

using testing::expect_error;
using testing::values;

std::vector<std::string> param_names(nn::Module& m) {
  std::vector<std::string> out;
  for (const auto& [n, p] : m.named_parameters()) out.push_back(n);
  return out;
}

void expect_close(const Tensor& a, const Tensor& b, double tol = 1e-6) {
  ASSERT_EQ(a.sizes().vec(), b.sizes().vec());
  const auto va = values(a), vb = values(b);
  for (size_t i = 0; i < va.size(); ++i) EXPECT_NEAR(va[i], vb[i], tol) << "at " << i;
}

TEST(NnutilsTensorAttribute, ParameterFallsBackToIt) {
  nn::Module m;
  EXPECT_FALSE(m.has_tensor_attribute("w"));
  m.set_tensor_attribute("w", ones({2}));
  EXPECT_TRUE(m.has_tensor_attribute("w"));
  EXPECT_FALSE(m.has_parameter("w"));
  EXPECT_EQ(values(m.parameter("w")), (std::vector<double>{1, 1}));
  int calls = 0;
  m.set_tensor_attribute_getter("w", [&calls](nn::Module&) {
    ++calls;
    return full({2}, 3.0);
  });
  EXPECT_TRUE(m.tensor_attribute_is_computed("w"));
  EXPECT_EQ(values(m.parameter("w")), (std::vector<double>{3, 3}));
  EXPECT_EQ(values(m.tensor_attribute("w")), (std::vector<double>{3, 3}));
  EXPECT_EQ(calls, 2);
  EXPECT_TRUE(m.named_parameters().empty());
  EXPECT_TRUE(m.remove_tensor_attribute("w"));
  EXPECT_FALSE(m.remove_tensor_attribute("w"));
  expect_error([&] { m.parameter("w"); }, "object has no parameter 'w'", ErrorKind::Attribute);
}

TEST(NnutilsWeightNorm, NamesValuesAndGradients) {
  manual_seed(0);
  nn::Linear lin(3, 4);
  const Tensor w0 = lin.weight().detach().clone();
  nn::utils::weight_norm(lin);
  EXPECT_EQ(param_names(lin), (std::vector<std::string>{"bias", "weight_g", "weight_v"}));
  EXPECT_EQ(lin.parameter("weight_g").sizes().vec(), (std::vector<int64_t>{4, 1}));
  expect_close(lin.parameter("weight_g"), w0.norm(2, std::vector<int64_t>{1}, true));
  expect_close(lin.parameter("weight_v"), w0);
  // The hook recomputes the weight from g and v before each forward.
  {
    NoGradGuard ng;
    lin.parameter("weight_g").mul_(2.0);
  }
  const Tensor x = randn({2, 3});
  const Tensor y = lin(x);
  expect_close(y, matmul(x, (w0 * 2.0).t()) + lin.bias(), 1e-5);
  y.sum().backward();
  EXPECT_TRUE(lin.parameter("weight_g").grad().defined());
  EXPECT_TRUE(lin.parameter("weight_v").grad().defined());
  expect_error([&] { nn::utils::weight_norm(lin); },
               "Cannot register two weight_norm hooks on the same parameter weight");
  nn::utils::remove_weight_norm(lin);
  EXPECT_EQ(param_names(lin), (std::vector<std::string>{"bias", "weight"}));
  expect_close(lin.weight(), w0 * 2.0, 1e-6);
  EXPECT_FALSE(lin.has_tensor_attribute("weight"));
  expect_error([&] { nn::utils::remove_weight_norm(lin); },
               "weight_norm of 'weight' not found in Linear(in_features=3, out_features=4, "
               "bias=True)",
               ErrorKind::Value);
}

TEST(NnutilsWeightNorm, DimNoneIsTheWholeTensor) {
  nn::Linear lin(3, 4);
  const Tensor w0 = lin.weight().detach().clone();
  nn::utils::weight_norm(lin, "weight", std::nullopt);
  EXPECT_EQ(lin.parameter("weight_g").dim(), 0);
  expect_close(lin.parameter("weight_g"), w0.norm());
  nn::utils::remove_weight_norm(lin);
  expect_close(lin.weight(), w0);
}

TEST(NnutilsWeightNorm, Ops) {
  const Tensor v = testing::iota({2, 3, 2}, kFloat64, 1.0);
  const Tensor n0 = norm_except_dim(v, 2, 0);
  EXPECT_EQ(n0.sizes().vec(), (std::vector<int64_t>{2, 1, 1}));
  expect_close(n0.reshape({-1}), v.reshape({2, -1}).norm(2, std::vector<int64_t>{1}));
  EXPECT_EQ(norm_except_dim(v, 2, 1).sizes().vec(), (std::vector<int64_t>{1, 3, 1}));
  EXPECT_EQ(norm_except_dim(v, 2, 2).sizes().vec(), (std::vector<int64_t>{1, 1, 2}));
  EXPECT_EQ(norm_except_dim(v, 2, -1).dim(), 0);
  const Tensor g = full({2, 1, 1}, 2.0, kFloat64);
  expect_close(_weight_norm(v, g, 0), v * (g / n0), 1e-12);
}

TEST(NnutilsSpectralNorm, PowerIterationInTrainingOnly) {
  manual_seed(0);
  nn::Linear lin(5, 4);
  const Tensor w0 = lin.weight().detach().clone();
  nn::utils::spectral_norm(lin);
  EXPECT_EQ(param_names(lin), (std::vector<std::string>{"bias", "weight_orig"}));
  std::vector<std::string> buffers;
  for (const auto& [n, b] : lin.named_buffers()) buffers.push_back(n);
  EXPECT_EQ(buffers, (std::vector<std::string>{"weight_u", "weight_v"}));
  EXPECT_EQ(lin.buffer("weight_u").sizes().vec(), (std::vector<int64_t>{4}));
  EXPECT_EQ(lin.buffer("weight_v").sizes().vec(), (std::vector<int64_t>{5}));
  const Tensor x = randn({3, 5});
  for (int i = 0; i < 50; ++i) lin(x);
  // After enough iterations the weight's largest singular value is 1.
  const Tensor s = linalg::svdvals(lin.parameter("weight").detach());
  EXPECT_NEAR(values(s)[0], 1.0, 1e-4);
  const Tensor sigma = linalg::svdvals(w0);
  EXPECT_NEAR(values(s)[0] * values(sigma)[0], values(sigma)[0], 1e-3);
  lin.eval();
  const Tensor u = lin.buffer("weight_u").clone();
  lin(x);
  expect_close(lin.buffer("weight_u"), u, 0);
  expect_error([&] { nn::utils::spectral_norm(lin); },
               "Cannot register two spectral_norm hooks on the same parameter weight");
  nn::utils::remove_spectral_norm(lin);
  EXPECT_EQ(param_names(lin), (std::vector<std::string>{"bias", "weight"}));
  EXPECT_TRUE(lin.named_buffers().empty());
  EXPECT_NEAR(values(linalg::svdvals(lin.weight().detach()))[0], 1.0, 1e-4);
  expect_error([&] { nn::utils::spectral_norm(lin, "weight", 0); },
               "Expected n_power_iterations to be positive, but got n_power_iterations=0",
               ErrorKind::Value);
}

TEST(NnutilsSpectralNorm, ConvTransposeUsesDim1) {
  nn::ConvTranspose2d conv(2, 3, 3);
  nn::utils::spectral_norm(conv);
  // weight (in=2, out=3, 3, 3) with dim 1: u has out_channels entries.
  EXPECT_EQ(conv.buffer("weight_u").sizes().vec(), (std::vector<int64_t>{3}));
  EXPECT_EQ(conv.buffer("weight_v").sizes().vec(), (std::vector<int64_t>{18}));
  EXPECT_EQ(conv(randn({1, 2, 4, 4})).sizes().vec(), (std::vector<int64_t>{1, 3, 6, 6}));
}

TEST(NnutilsHouseholder, ProductOfReflectors) {
  manual_seed(0);
  const Tensor A = randn({5, 3}, kFloat64);
  const Tensor tau = randn({3}, kFloat64);
  const Tensor Q = linalg::householder_product(A, tau);
  // Explicit product of H_i = I - tau_i v_i v_i^T.
  Tensor H = eye(5, kFloat64);
  const Tensor V = tril(A, -1) + eye(5, 3, kFloat64);
  for (int64_t i = 0; i < 3; ++i) {
    const Tensor v = V.narrow(1, i, 1);
    H = matmul(H, eye(5, kFloat64) - tau.narrow(0, i, 1) * matmul(v, v.t()));
  }
  expect_close(Q, H.narrow(1, 0, 3), 1e-12);
  expect_close(orgqr(A, tau), Q, 0);
  // Householder reflectors with tau = 2 / |v|^2 are orthogonal.
  const Tensor tau_o = Scalar(2.0) / (V * V).sum(std::vector<int64_t>{0});
  const Tensor Qo = linalg::householder_product(A, tau_o);
  expect_close(matmul(Qo.t(), Qo), eye(3, kFloat64), 1e-12);
  expect_error([&] { linalg::householder_product(randn({3}), randn({1})); },
               "ember.linalg.householder_product: input must have at least 2 dimensions.");
  expect_error([&] { linalg::householder_product(randn({3, 2}), randn({3})); },
               "input.shape[-1] must be greater than or equal to tau.shape[-1]");
}

}  // namespace
}  // namespace ember
