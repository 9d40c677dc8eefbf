// Note [Eval-mode conv-bn-activation fusion]: Sequential(Conv2d, BatchNorm2d[, act]) and the
// ResNet blocks in eval mode compute what the modules compute one by one (to float rounding),
// keep the layout rule, see every change to the parameters and statistics, and step aside
// (leaving the modules' own behaviour visible) in training, under autograd, with hooks, with
// modes and subclasses, and for modules that are not exactly the fusable classes.
#include <gtest/gtest.h>

#include "../dispatch/subclasses.h"
#include "../testing.h"
#include "ember/autograd/autograd.h"
#include "ember/grad_mode.h"
#include "ember/models.h"
#include "ember/nn.h"

namespace ember {
namespace {

using testing::DispatchTest;
using testing::dispatch_log;
using testing::LogDispatchMode;

void expect_close(const Tensor& a, const Tensor& b, double tol = 1e-5) {
  ASSERT_EQ(a.sizes().vec(), b.sizes().vec());
  const auto va = testing::values(a), vb = testing::values(b);
  for (size_t i = 0; i < va.size(); ++i)
    ASSERT_NEAR(va[i], vb[i], tol * (1 + std::abs(vb[i]))) << "at " << i;
}

void randomize_bn(nn::BatchNorm2d& bn) {
  const int64_t c = bn.num_features;
  bn.running_mean().copy_(randn({c}));
  bn.running_var().copy_(rand({c}) + 0.5);
  bn.weight().detach().copy_(randn({c}));
  bn.bias().detach().copy_(randn({c}));
}

struct ConvBnAct {
  std::shared_ptr<nn::Conv2d> conv;
  std::shared_ptr<nn::BatchNorm2d> bn;
  std::shared_ptr<nn::Module> act;
  std::shared_ptr<nn::Sequential> seq;
  // The modules called one at a time: the unfused reference.
  Tensor reference(const Tensor& x) const {
    Tensor y = (*bn)((*conv)(x));
    return act ? (*act)(y) : y;
  }
};

ConvBnAct make(int64_t in, int64_t out, int64_t k, int64_t stride, int64_t groups, bool bias,
               std::shared_ptr<nn::Module> act) {
  ConvBnAct m;
  m.conv = std::make_shared<nn::Conv2d>(in, out, k, stride, k / 2, 1, groups, bias);
  m.bn = std::make_shared<nn::BatchNorm2d>(out);
  randomize_bn(*m.bn);
  m.act = act;
  m.seq = act ? std::make_shared<nn::Sequential>(m.conv, m.bn, act)
              : std::make_shared<nn::Sequential>(m.conv, m.bn);
  m.seq->eval();
  return m;
}

TEST(ConvBnEval, SequentialMatchesTheModulesOneByOne) {
  manual_seed(0);
  NoGradGuard no_grad;
  const std::vector<std::shared_ptr<nn::Module>> acts{
      nullptr, std::make_shared<nn::ReLU>(), std::make_shared<nn::ReLU6>(true),
      std::make_shared<nn::Hardtanh>(-0.5, 0.25)};
  for (const auto& act : acts) {
    for (int64_t groups : {1, 8}) {
      for (bool bias : {false, true}) {
        auto m = make(8, 16, 3, 2, groups, bias, act);
        const Tensor x = randn({2, 8, 9, 9}) * 3;
        const Tensor y = (*m.seq)(x);
        ASSERT_NE(m.conv->_bn_fold_cache, nullptr) << "the fused path did not run";
        expect_close(y, m.reference(x));
        // the layout rule of conv2d: channels_last in, channels_last out
        const Tensor xc = x.contiguous(MemoryFormat::ChannelsLast);
        const Tensor yc = (*m.seq)(xc);
        EXPECT_TRUE(yc.is_contiguous(MemoryFormat::ChannelsLast));
        EXPECT_TRUE(y.is_contiguous());
        expect_close(yc, m.reference(x));
      }
    }
  }
}

TEST(ConvBnEval, SeesEveryChangeToParametersAndStatistics) {
  manual_seed(1);
  NoGradGuard no_grad;
  auto m = make(4, 6, 1, 1, 1, true, std::make_shared<nn::ReLU>());
  const Tensor x = randn({1, 4, 5, 5});
  expect_close((*m.seq)(x), m.reference(x));
  // in-place writes bump versions
  m.bn->running_mean().add_(1.0);
  expect_close((*m.seq)(x), m.reference(x));
  m.conv->weight().mul_(-2.0);
  expect_close((*m.seq)(x), m.reference(x));
  m.bn->bias().add_(0.5);
  expect_close((*m.seq)(x), m.reference(x));
  // replaced tensors (load_state_dict with assign, or a new Parameter)
  m.bn->running_var() = rand({6}) + 2.0;
  expect_close((*m.seq)(x), m.reference(x));
  auto sd = make(4, 6, 1, 1, 1, true, nullptr).seq->state_dict();
  m.seq->load_state_dict(sd);
  expect_close((*m.seq)(x), m.reference(x));
  m.bn->eps = 0.5;
  expect_close((*m.seq)(x), m.reference(x));
}

TEST(ConvBnEval, TrainingModeRunsTheModules) {
  manual_seed(2);
  NoGradGuard no_grad;
  auto m = make(3, 4, 3, 1, 1, false, std::make_shared<nn::ReLU>());
  m.seq->train();
  const Tensor before = m.bn->running_mean().clone();
  (*m.seq)(randn({4, 3, 6, 6}));
  EXPECT_EQ(m.conv->_bn_fold_cache, nullptr);
  EXPECT_EQ(m.bn->num_batches_tracked().item<int64_t>(), 1);  // the statistics moved
  EXPECT_FALSE(equal(before, m.bn->running_mean()));
}

TEST(ConvBnEval, AutogradRunsTheModules) {
  manual_seed(3);
  auto m = make(3, 4, 3, 1, 1, true, std::make_shared<nn::ReLU6>());
  const Tensor x = randn({1, 3, 5, 5});
  const Tensor y = (*m.seq)(x);  // grad mode on, parameters require grad
  EXPECT_EQ(m.conv->_bn_fold_cache, nullptr);
  ASSERT_TRUE(y.requires_grad());
  EXPECT_EQ(y.grad_fn()->name(), "HardtanhBackward0");
  y.sum().backward();
  EXPECT_TRUE(m.bn->weight().grad().defined());
}

TEST(ConvBnEval, HooksSeeTheirModules) {
  manual_seed(4);
  NoGradGuard no_grad;
  for (int which = 0; which < 3; ++which) {
    auto m = make(2, 3, 3, 1, 1, false, std::make_shared<nn::ReLU>());
    nn::Module& hooked = which == 0 ? *m.conv : which == 1 ? static_cast<nn::Module&>(*m.bn) : *m.act;
    int calls = 0;
    hooked.register_forward_hook([&](nn::Module&, const std::vector<Value>&, const Value&) {
      ++calls;
      return std::optional<Value>();
    });
    const Tensor x = randn({1, 2, 4, 4});
    expect_close((*m.seq)(x), m.reference(x));
    EXPECT_EQ(calls, 2) << which;  // once through the Sequential, once by the reference
    EXPECT_EQ(m.conv->_bn_fold_cache, nullptr);
  }
}

TEST(ConvBnEval, NotForOtherPaddingModesOrLayers) {
  manual_seed(5);
  NoGradGuard no_grad;
  auto reflect = std::make_shared<nn::Conv2d>(2, 3, 3, 1, 1, 1, 1, true, "reflect");
  auto bn = std::make_shared<nn::BatchNorm2d>(3);
  randomize_bn(*bn);
  auto seq = std::make_shared<nn::Sequential>(reflect, bn);
  seq->eval();
  const Tensor x = randn({1, 2, 4, 4});
  expect_close((*seq)(x), (*bn)((*reflect)(x)));
  EXPECT_EQ(reflect->_bn_fold_cache, nullptr);
  // a BatchNorm without running statistics normalises with the batch's: no folding
  auto conv = std::make_shared<nn::Conv2d>(2, 3, 1);
  auto bn_batch = std::make_shared<nn::BatchNorm2d>(3, 1e-5, 0.1, true, false);
  auto seq2 = std::make_shared<nn::Sequential>(conv, bn_batch);
  seq2->eval();
  expect_close((*seq2)(x), (*bn_batch)((*conv)(x)));
  EXPECT_EQ(conv->_bn_fold_cache, nullptr);
  // float64 runs the modules (the fused kernel is float32 only)
  auto m = make(2, 3, 3, 1, 1, true, nullptr);
  m.seq->to(kFloat64);
  const Tensor xd = randn({1, 2, 4, 4}, kFloat64);
  EXPECT_EQ((*m.seq)(xd).dtype(), kFloat64);
  EXPECT_EQ(m.conv->_bn_fold_cache, nullptr);
}

class ConvBnEvalDispatch : public DispatchTest {};

TEST_F(ConvBnEvalDispatch, ModesSeeTheModulesOps) {
  manual_seed(6);
  NoGradGuard no_grad;
  auto m = make(2, 3, 1, 1, 1, true, std::make_shared<nn::ReLU>());
  const Tensor x = randn({1, 2, 3, 3});
  {
    DispatchModeGuard g(make_intrusive<LogDispatchMode>("mode"));
    (*m.seq)(x);
  }
  const auto& log = dispatch_log();
  EXPECT_NE(std::find(log.begin(), log.end(), "mode:aten::convolution"), log.end());
  EXPECT_NE(std::find(log.begin(), log.end(), "mode:aten::relu"), log.end());
  EXPECT_EQ(m.conv->_bn_fold_cache, nullptr);
}

TEST(ConvBnEval, ResNetBlocksMatchTheirModules) {
  manual_seed(7);
  NoGradGuard no_grad;
  for (bool bottleneck : {false, true}) {
    auto net = bottleneck ? models::resnet50(10) : models::resnet18(10);
    for (auto& [name, mod] : net->named_modules()) {
      if (auto* bn = dynamic_cast<nn::BatchNorm2d*>(mod.get())) randomize_bn(*bn);
    }
    net->eval();
    // NCHW runs oneDNN in its blocked layout (the residual reordered in for the sum post-op),
    // channels_last directly
    const Tensor x = randn({1, 3, 64, 64});
    const Tensor x_cl = x.contiguous(MemoryFormat::ChannelsLast);
    const Tensor fused = (*net)(x), fused_cl = (*net)(x_cl);
    // the reference: every block unfused (a no-op hook on each BatchNorm switches fusion off)
    for (auto& [name, mod] : net->named_modules()) {
      if (dynamic_cast<nn::BatchNorm2d*>(mod.get())) {
        mod->register_forward_hook(
            [](nn::Module&, const std::vector<Value>&, const Value&) { return std::optional<Value>(); });
      }
    }
    const Tensor unfused = (*net)(x);
    expect_close(fused, unfused, 1e-4);
    expect_close(fused_cl, unfused, 1e-4);
  }
}

TEST(ConvBnEval, UnfusedBlocksCallTheirModulesInTorchvisionsOrder) {
  // training (no fusion): conv, bn, ..., the last bn, then the shortcut, as torchvision's forward
  manual_seed(10);
  auto net = models::resnet50(10);
  std::shared_ptr<nn::Module> block;  // a Bottleneck with a downsample shortcut
  for (auto& [name, mod] : net->named_modules()) {
    if (name == "layer1.0") block = mod;
  }
  ASSERT_TRUE(block);
  std::vector<std::string> order;
  for (auto& [name, mod] : block->named_modules()) {
    if (name.empty() || name == "downsample") continue;
    mod->register_forward_hook([&order, n = name](nn::Module&, const std::vector<Value>&, const Value&) {
      order.push_back(n);
      return std::optional<Value>();
    });
  }
  (*block)(randn({2, 64, 8, 8}));
  EXPECT_EQ(order, (std::vector<std::string>{"conv1", "bn1", "relu", "conv2", "bn2", "relu",
                                             "conv3", "bn3", "downsample.0", "downsample.1",
                                             "relu"}));
}

}  // namespace
}  // namespace ember
