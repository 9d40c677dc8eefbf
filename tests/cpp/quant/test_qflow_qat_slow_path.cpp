// The QAT ConvBn modules' slow forward (PyTorch's _ConvBnNd._forward_slow) from C++: in eval
// mode it equals the approximate forward up to rounding; it stays finite where bn.weight is 0
// (the approximate forward divides by it); in training mode it updates the BN statistics once
// per call. Numbers against torch 1.13: tests/python/quantization/test_qflow_qat_slow_path.py.
#include <gtest/gtest.h>

#include <cmath>

#include "../testing.h"
#include "ember/grad_mode.h"
#include "ember/nn.h"
#include "ember/nn/intrinsic/qat/modules.h"

namespace ember {
namespace {

namespace nniqat = nn::intrinsic::qat;
namespace q = quantization;

bool all_finite(const Tensor& t) {
  const Tensor c = t.detach().contiguous();
  const float* p = c.data_ptr<float>();
  for (int64_t i = 0; i < c.numel(); ++i) {
    if (!std::isfinite(p[i])) return false;
  }
  return true;
}

q::QConfigPtr identity_qconfig() {
  auto c = std::make_shared<q::QConfig>();
  c->activation = [] { return std::make_shared<nn::Identity>(); };
  c->weight = [] { return std::make_shared<nn::Identity>(); };
  return c;
}

std::shared_ptr<nniqat::ConvBn2d> conv_bn(bool bias) {
  manual_seed(4);
  auto m = std::make_shared<nniqat::ConvBn2d>(3, 4, 3, 1, 1, 1, 1, bias, "zeros", 1e-5, 0.1, false,
                                              identity_qconfig());
  NoGradGuard no_grad;
  m->bn().running_mean().copy_(randn({4}) * 0.1);
  m->bn().running_var().copy_(rand({4}) + 0.5);
  return m;
}

TEST(QflowQatSlowPath, EvalEqualsApproximate) {
  for (bool bias : {false, true}) {
    auto m = conv_bn(bias);
    m->eval();
    Tensor x = randn({2, 3, 5, 5});
    Tensor slow = m->_forward_slow(x), approx = m->_forward_approximate(x);
    EXPECT_TRUE(allclose(slow, approx, 1e-4, 1e-5));
    EXPECT_FALSE(m->enable_slow_path_for_better_numerical_stability);
    m->enable_slow_path_for_better_numerical_stability = true;
    EXPECT_TRUE(equal(m->forward(x), slow));
  }
}

TEST(QflowQatSlowPath, ZeroGammaStaysFinite) {
  auto m = conv_bn(true);
  m->eval();
  {
    NoGradGuard no_grad;
    m->bn().weight().select(0, 2).fill_(0);
  }
  Tensor x = randn({1, 3, 4, 4});
  EXPECT_TRUE(all_finite(m->_forward_slow(x)));
  EXPECT_FALSE(all_finite(m->_forward_approximate(x)));
}

TEST(QflowQatSlowPath, TrainingUpdatesStatisticsOnce) {
  auto m = conv_bn(false);
  m->train();
  m->enable_slow_path_for_better_numerical_stability = true;
  Tensor x = randn({4, 3, 5, 5});
  Tensor y = m->forward(x);
  EXPECT_EQ(m->bn().num_batches_tracked().item<int64_t>(), 1);
  // batch statistics: each channel of the output is normalised with the batch's mean and std
  // (then scaled by bn.weight and shifted by bn.bias)
  Tensor z = (y - m->bn().bias().reshape({1, 4, 1, 1})) / m->bn().weight().reshape({1, 4, 1, 1});
  Tensor mean = z.mean(std::vector<int64_t>{0, 2, 3});
  EXPECT_TRUE(allclose(mean, zeros({4}), 1e-4, 1e-4));
}

}  // namespace
}  // namespace ember
