// ember::quantization::fuse_modules and the fused containers (ember::nn::intrinsic) on C++
// models with no Python: structure, BN folded bit for bit (the same float32 expressions as
// PyTorch's fuse_conv_bn_weights), error texts, hooks moved, inplace vs copy. The comparisons
// with torch 1.13 are in tests/python/quantization/test_fuse_modules.py.
#include <gtest/gtest.h>

#include "../testing.h"
#include "ember/models/mobilenetv2.h"
#include "ember/nn.h"
#include "ember/nn/intrinsic/fused.h"
#include "ember/nn/utils/fusion.h"
#include "ember/quantization/fuse.h"

namespace ember {
namespace {

namespace nni = nn::intrinsic;
namespace q = quantization;
using testing::expect_error;

std::shared_ptr<nn::Sequential> conv_bn_relu(bool bias = false) {
  auto seq = std::make_shared<nn::Sequential>();
  seq->add_module("conv", std::make_shared<nn::Conv2d>(3, 4, 3, 1, 1, 1, 1, bias));
  auto bn = std::make_shared<nn::BatchNorm2d>(4);
  bn->running_mean().copy_(randn({4}));
  bn->running_var().copy_(rand({4}) + 0.5);
  {
    NoGradGuard g;
    bn->weight().copy_(randn({4}));
    bn->bias().copy_(randn({4}));
  }
  seq->add_module("bn", bn);
  seq->add_module("relu", std::make_shared<nn::ReLU>());
  return seq;
}

bool bit_equal(const Tensor& a, const Tensor& b) {
  return a.sizes() == b.sizes() && equal(a, b);
}

TEST(FuseModules, EvalConvBnReluFoldsExactly) {
  auto m = conv_bn_relu();
  m->eval();
  auto fused = q::fuse_modules(*m, {{"conv", "bn", "relu"}});
  ASSERT_NE(fused, m);
  auto first = std::dynamic_pointer_cast<nni::ConvReLU2d>(fused->child("conv"));
  ASSERT_TRUE(first);
  EXPECT_EQ(fused->child("bn")->type_name(), "Identity");
  EXPECT_EQ(fused->child("relu")->type_name(), "Identity");
  EXPECT_FALSE(fused->child("bn")->is_training());
  // The weights are fuse_conv_bn_weights' (PyTorch's expression order).
  auto& conv = static_cast<nn::Conv2d&>(*m->child("conv"));
  auto& bn = static_cast<nn::BatchNorm2d&>(*m->child("bn"));
  auto [w, b] = nn::utils::fuse_conv_bn_weights(conv.weight(), std::nullopt, bn.running_mean(),
                                                bn.running_var(), bn.eps, bn.weight(), bn.bias());
  auto& folded = static_cast<nn::Conv2d&>(*(*first)[0]);
  EXPECT_TRUE(bit_equal(folded.weight(), w));
  EXPECT_TRUE(bit_equal(folded.bias(), b));
  // The original model is untouched; the result computes bn(conv(x)) then relu.
  EXPECT_EQ(m->child("conv")->type_name(), "Conv2d");
  EXPECT_FALSE(conv.bias().defined());
  Tensor x = randn({2, 3, 5, 5});
  Tensor want = (*m)(x);
  Tensor got = (*fused)(x);
  EXPECT_TRUE(allclose(got, want, 1e-4, 1e-5));
  auto keys = fused->state_dict().keys();
  EXPECT_EQ(keys, (std::vector<std::string>{"conv.0.weight", "conv.0.bias"}));
}

TEST(FuseModules, QatKeepsModulesInContainers) {
  auto m = conv_bn_relu(true);
  auto conv = m->child("conv"), bn = m->child("bn"), relu = m->child("relu");
  auto fused = q::fuse_modules_qat(*m, {{"conv", "bn", "relu"}}, /*inplace=*/true);
  EXPECT_EQ(fused, m);
  auto f = std::dynamic_pointer_cast<nni::ConvBnReLU2d>(m->child("conv"));
  ASSERT_TRUE(f);
  EXPECT_EQ((*f)[0], conv);
  EXPECT_EQ((*f)[1], bn);
  EXPECT_EQ((*f)[2], relu);
  EXPECT_TRUE(m->child("bn")->is_training());
  EXPECT_EQ(f->repr(),
            "ConvBnReLU2d(\n  (0): Conv2d(3, 4, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1))\n"
            "  (1): BatchNorm2d(4, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True)\n"
            "  (2): ReLU()\n)");
  auto keys = m->state_dict().keys();
  EXPECT_EQ(keys.front(), "conv.0.weight");
  EXPECT_EQ(keys.back(), "conv.1.num_batches_tracked");
}

TEST(FuseModules, PatternTable) {
  auto lin = std::make_shared<nn::Linear>(3, 4);
  auto bn1 = std::make_shared<nn::BatchNorm1d>(4);
  auto relu = std::make_shared<nn::ReLU>();
  auto out = q::fuse_known_modules({lin, relu}, false);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_TRUE(std::dynamic_pointer_cast<nni::LinearReLU>(out[0]));
  EXPECT_EQ(out[1]->type_name(), "Identity");
  EXPECT_TRUE(std::dynamic_pointer_cast<nni::LinearBn1d>(q::fuse_known_modules({lin, bn1}, true)[0]));
  lin->eval();
  bn1->eval();
  auto folded = q::fuse_known_modules({lin, bn1}, false)[0];
  EXPECT_EQ(typeid(*folded), typeid(nn::Linear));
  EXPECT_NE(folded, lin);
  auto bn3 = std::make_shared<nn::BatchNorm3d>(2);
  EXPECT_TRUE(std::dynamic_pointer_cast<nni::BNReLU3d>(q::fuse_known_modules({bn3, relu}, false)[0]));
  auto c1 = std::make_shared<nn::Conv1d>(2, 4, 3);
  auto b1 = std::make_shared<nn::BatchNorm1d>(4);
  EXPECT_TRUE(std::dynamic_pointer_cast<nni::ConvBnReLU1d>(q::fuse_known_modules({c1, b1, relu}, true)[0]));
  EXPECT_TRUE(std::dynamic_pointer_cast<nni::ConvBn1d>(q::fuse_known_modules({c1, b1}, true)[0]));
  // 3-d: QAT keeps the modules in ConvBn3d / ConvBnReLU3d; eval folds into a Conv3d (+ ReLU).
  auto c3 = std::make_shared<nn::Conv3d>(2, 2, 3);
  auto b3 = std::make_shared<nn::BatchNorm3d>(2);
  EXPECT_TRUE(std::dynamic_pointer_cast<nni::ConvBn3d>(q::fuse_known_modules({c3, b3}, true)[0]));
  EXPECT_TRUE(std::dynamic_pointer_cast<nni::ConvBnReLU3d>(q::fuse_known_modules({c3, b3, relu}, true)[0]));
  EXPECT_TRUE(std::dynamic_pointer_cast<nni::ConvReLU3d>(q::fuse_known_modules({c3, relu}, false)[0]));
  c3->eval();
  b3->eval();
  relu->eval();
  EXPECT_EQ(typeid(*q::fuse_known_modules({c3, b3}, false)[0]), typeid(nn::Conv3d));
  auto eval3 = std::dynamic_pointer_cast<nni::ConvReLU3d>(q::fuse_known_modules({c3, b3, relu}, false)[0]);
  ASSERT_TRUE(eval3);
  EXPECT_EQ(typeid(*(*eval3)[0]), typeid(nn::Conv3d));
  auto t3 = std::make_shared<nn::ConvTranspose3d>(2, 2, 2);
  t3->eval();
  EXPECT_EQ(typeid(*q::fuse_known_modules({t3, b3}, false)[0]), typeid(nn::ConvTranspose3d));
}

TEST(FuseModules, Errors) {
  auto m = conv_bn_relu();
  m->eval();
  expect_error([&] { q::fuse_modules(*m, {{"relu", "conv"}}); },
               "did not find fuser method for: (ReLU, Conv2d) ", ErrorKind::Assertion);
  m->child("conv")->train();
  expect_error([&] { q::fuse_modules(*m, {{"conv", "bn"}}); },
               "Conv and BN both must be in the same mode (train or eval).", ErrorKind::Assertion);
  m->train();
  expect_error([&] { q::fuse_modules(*m, {{"conv", "bn"}}); }, "Fusion only for eval!");
  expect_error([&] { q::fuse_modules(*m, {{"conv", "nope"}}); },
               "'Sequential' object has no attribute 'nope'", ErrorKind::Attribute);
  auto conv = std::make_shared<nn::Conv2d>(1, 3, 1);
  auto bn = std::make_shared<nn::BatchNorm2d>(4);
  expect_error([&] { q::fuse_conv_bn(true, conv, bn); },
               "Output channel of Conv2d must match num_features of BatchNorm2d", ErrorKind::Assertion);
  auto convt = std::make_shared<nn::ConvTranspose2d>(2, 4, 3);
  expect_error([&] { q::fuse_known_modules({convt, bn}, true); },
               "Fusing ConvTranspose+BatchNorm not yet supported in QAT.");
  expect_error([&] { nni::ConvReLU2d(std::make_shared<nn::Conv1d>(1, 1, 1), std::make_shared<nn::ReLU>()); },
               "ConvReLU2d: incorrect types for input modules: expected (Conv2d, ReLU), got (Conv1d, ReLU)",
               ErrorKind::Assertion);
  // Nothing changed by the failures.
  EXPECT_EQ(m->child("conv")->type_name(), "Conv2d");
  EXPECT_EQ(m->child("bn")->type_name(), "BatchNorm2d");
}

TEST(FuseModules, HooksMove) {
  std::vector<std::string> calls;
  for (int variant = 0; variant < 3; ++variant) {
    // 0: conv, bn; 1: conv, bn, relu; 2: conv, relu (quantization-spec § 4.1, item 79)
    auto m = conv_bn_relu();
    m->eval();
    std::vector<std::string> names =
        variant == 0 ? std::vector<std::string>{"conv", "bn"}
        : variant == 1 ? std::vector<std::string>{"conv", "bn", "relu"}
                       : std::vector<std::string>{"conv", "relu"};
    if (variant == 2) m->unregister_module("bn");
    calls.clear();
    m->child("conv")->register_forward_pre_hook(
        [&](nn::Module& mod, const std::vector<Value>&) -> std::optional<std::vector<Value>> {
          calls.push_back("pre:" + mod.type_name());
          return std::nullopt;
        });
    m->child(names.back())->register_forward_hook(
        [&](nn::Module& mod, const std::vector<Value>&, const Value&) -> std::optional<Value> {
          calls.push_back("post:" + mod.type_name());
          return std::nullopt;
        });
    q::fuse_modules(*m, {names}, /*inplace=*/true);
    (*m)(randn({1, 3, 4, 4}));
    const std::vector<std::vector<std::string>> want = {
        {"pre:Conv2d", "pre:Conv2d", "post:Conv2d"},
        {"pre:ConvReLU2d", "pre:Conv2d", "post:ConvReLU2d"},
        {"pre:ConvReLU2d", "post:ConvReLU2d"}};
    EXPECT_EQ(calls, want[static_cast<size_t>(variant)]) << variant;
  }
}

TEST(FuseModules, MobileNetV2NestedNames) {
  auto net = models::mobilenet_v2(10, 0.25);
  net->eval();
  Tensor x = randn({1, 3, 32, 32});
  Tensor before = (*net)(x);
  // features.0 ends in a ReLU6, which is not in the table (torchvision replaces it by ReLU)
  expect_error([&] { q::fuse_modules(*net, {{"features.0.0", "features.0.1", "features.0.2"}}); },
               "did not find fuser method for: (Conv2d, BatchNorm2d, ReLU6) ", ErrorKind::Assertion);
  auto fused = q::fuse_modules(*net, {{"features.0.0", "features.0.1"},
                                      {"features.1.conv.1", "features.1.conv.2"}});
  EXPECT_EQ(typeid(*q::get_submodule_by_path(*fused, "features.0.0")), typeid(nn::Conv2d));
  EXPECT_EQ(q::get_submodule_by_path(*fused, "features.0.1")->type_name(), "Identity");
  EXPECT_EQ(q::get_submodule_by_path(*fused, "features.1.conv.2")->type_name(), "Identity");
  EXPECT_EQ(q::get_submodule_by_path(*net, "features.0.1")->type_name(), "BatchNorm2d");
  // the folded model computes the same up to rounding
  EXPECT_TRUE(allclose((*fused)(x), before, 1e-3, 1e-4));
}

TEST(FuseModules, CustomFuserFn) {
  auto m = conv_bn_relu();
  int called = 0;
  q::FuserFn fn = [&](const std::vector<q::ModulePtr>& mods, bool is_qat) {
    ++called;
    EXPECT_TRUE(is_qat);
    return q::fuse_known_modules(mods, is_qat);
  };
  auto out = q::fuse_modules_qat(*m, {{"conv", "bn"}}, false, fn);
  EXPECT_EQ(called, 1);
  EXPECT_TRUE(std::dynamic_pointer_cast<nni::ConvBn2d>(out->child("conv")));
  // An additional mapping wins over the default table.
  q::FuserMethodMapping extra;
  extra[{typeid(nn::Conv2d), typeid(nn::BatchNorm2d)}] = [](bool, const std::vector<q::ModulePtr>& m) {
    return m[0];
  };
  auto mods = std::vector<q::ModulePtr>{m->child("conv"), m->child("bn")};
  EXPECT_EQ(q::fuse_known_modules(mods, false, extra)[0], m->child("conv"));
}

}  // namespace
}  // namespace ember
