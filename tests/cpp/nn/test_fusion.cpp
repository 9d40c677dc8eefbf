// nn::utils::fuse_conv_bn_eval / fuse_linear_bn_eval (quantization-spec § 4.2):
// the fused module equals bn(conv(x)) in eval to 1e-5, the folded weights follow the formulas
// (checked in float64), eval-only errors, copies keep hyperparameters; parameters_to_vector /
// vector_to_parameters.
#include <gtest/gtest.h>

#include "../testing.h"
#include "ember/nn.h"
#include "ember/nn/utils/convert_parameters.h"
#include "ember/nn/utils/fusion.h"

namespace ember {
namespace {

using testing::expect_error;
using testing::expect_values;

// A BatchNorm with non-trivial statistics and affine parameters.
template <class BN>
std::shared_ptr<BN> trained_bn(int64_t c) {
  auto bn = std::make_shared<BN>(c);
  bn->running_mean().copy_(randn({c}));
  bn->running_var().copy_(rand({c}) + 0.5);
  bn->weight().detach().copy_(randn({c}));
  bn->bias().detach().copy_(randn({c}));
  bn->eval();
  return bn;
}

void expect_close(const Tensor& a, const Tensor& b, double tol) {
  ASSERT_EQ(a.sizes().vec(), b.sizes().vec());
  const auto va = testing::values(a), vb = testing::values(b);
  for (size_t i = 0; i < va.size(); ++i)
    EXPECT_NEAR(va[i], vb[i], tol * (1 + std::abs(vb[i]))) << "at " << i;
}

TEST(Fusion, ConvBnEqualsConvThenBn) {
  manual_seed(0);
  for (bool bias : {false, true}) {
    for (int64_t groups : {1, 4}) {
      nn::Conv2d conv(8, 4, 3, 2, 1, 1, groups, bias);
      conv.eval();
      auto bn = trained_bn<nn::BatchNorm2d>(4);
      auto fused = nn::utils::fuse_conv_bn_eval(conv, *bn);
      EXPECT_EQ(fused->type_name(), "Conv2d");
      EXPECT_FALSE(fused->is_training());
      EXPECT_EQ(fused->repr(),
                "Conv2d(8, 4, kernel_size=(3, 3), stride=(2, 2), padding=(1, 1)" +
                    std::string(groups == 4 ? ", groups=4" : "") + ")");  // now with a bias
      EXPECT_TRUE(nn::is_parameter(fused->weight()));
      const Tensor x = randn({2, 8, 7, 7});
      expect_close((*fused)(x), (*bn)(conv(x)), 1e-5);
    }
  }
}

TEST(Fusion, FoldedWeightsFollowTheFormula) {
  manual_seed(1);
  nn::Conv2d conv(3, 2, 1);
  conv.eval();
  auto bn = trained_bn<nn::BatchNorm2d>(2);
  auto fused = nn::utils::fuse_conv_bn_eval(conv, *bn);
  const auto w = testing::values(conv.weight()), b = testing::values(conv.bias());
  const auto rm = testing::values(bn->running_mean()), rv = testing::values(bn->running_var());
  const auto g = testing::values(bn->weight()), be = testing::values(bn->bias());
  std::vector<double> want_w, want_b;
  for (int64_t o = 0; o < 2; ++o) {
    const double r = 1.0 / std::sqrt(rv[o] + 1e-5);
    for (int64_t i = 0; i < 3; ++i) want_w.push_back(w[o * 3 + i] * g[o] * r);
    want_b.push_back((b[o] - rm[o]) * r * g[o] + be[o]);
  }
  expect_values(fused->weight(), {2, 3, 1, 1}, want_w, 1e-6, 1e-7);
  expect_values(fused->bias(), {2}, want_b, 1e-6, 1e-7);
  // The original modules are untouched.
  EXPECT_EQ(testing::values(conv.weight()), w);
}

TEST(Fusion, TransposedConvAndConv1d) {
  manual_seed(2);
  nn::ConvTranspose2d t(4, 3, 3, 2, 1, 1, 1, false);
  t.eval();
  auto bn = trained_bn<nn::BatchNorm2d>(3);
  auto fused = nn::utils::fuse_conv_bn_eval(t, *bn, /*transpose=*/true);
  EXPECT_EQ(fused->type_name(), "ConvTranspose2d");
  const Tensor x = randn({1, 4, 5, 5});
  expect_close((*fused)(x), (*bn)(t(x)), 1e-5);

  nn::Conv1d c1(2, 3, 3, 1, "same");
  c1.eval();
  auto bn1 = trained_bn<nn::BatchNorm1d>(3);
  auto f1 = nn::utils::fuse_conv_bn_eval(c1, *bn1);
  EXPECT_EQ(f1->padding_string, "same");
  const Tensor x1 = randn({2, 2, 6});
  expect_close((*f1)(x1), (*bn1)(c1(x1)), 1e-5);
}

TEST(Fusion, LinearBn) {
  manual_seed(3);
  nn::Linear lin(5, 4);
  lin.eval();
  auto bn = trained_bn<nn::BatchNorm1d>(4);
  auto fused = nn::utils::fuse_linear_bn_eval(lin, *bn);
  EXPECT_EQ(fused->repr(), "Linear(in_features=5, out_features=4, bias=True)");
  const Tensor x = randn({3, 5});
  expect_close((*fused)(x), (*bn)(lin(x)), 1e-5);
  nn::Linear nobias(5, 4, false);
  nobias.eval();
  expect_close((*nn::utils::fuse_linear_bn_eval(nobias, *bn))(x), (*bn)(nobias(x)), 1e-5);
}

TEST(Fusion, EvalOnly) {
  nn::Conv2d conv(2, 2, 1);
  nn::BatchNorm2d bn(2);
  expect_error([&] { nn::utils::fuse_conv_bn_eval(conv, bn); }, "Fusion only for eval!");
  conv.eval();
  expect_error([&] { nn::utils::fuse_conv_bn_eval(conv, bn); }, "Fusion only for eval!");
  nn::BatchNorm2d untracked(2, 1e-5, 0.1, true, false);
  untracked.eval();
  expect_error([&] { nn::utils::fuse_conv_bn_eval(conv, untracked); },
               "fusion needs the running statistics of BatchNorm2d");
}

TEST(Fusion, ParametersToVectorAndBack) {
  nn::Linear lin(3, 2);
  const auto params = lin.parameters();
  const Tensor v = nn::utils::parameters_to_vector(params);
  EXPECT_EQ(v.sizes().vec(), (std::vector<int64_t>{8}));
  auto want = testing::values(lin.weight());
  for (double b : testing::values(lin.bias())) want.push_back(b);
  EXPECT_EQ(testing::values(v), want);
  const Tensor w = testing::iota({8});
  nn::utils::vector_to_parameters(w, params);
  expect_values(lin.weight(), {2, 3}, {0, 1, 2, 3, 4, 5});
  expect_values(lin.bias(), {2}, {6, 7});
  EXPECT_TRUE(nn::is_parameter(lin.weight()));
  // The parameters now view `w`'s storage, as `param.data = vec[...]` makes them.
  Tensor shared = w;
  shared.fill_(1);
  expect_values(lin.bias(), {2}, {1, 1});
  expect_error([&] { nn::utils::vector_to_parameters(ones({2}), params); }, "invalid for input");
}

}  // namespace
}  // namespace ember
