// The QAT modules (ember::nn::qat, ember::nn::intrinsic::qat) and the stubs
// (ember::quantization) from C++ with no Python: the weight fake-quantizer from the qconfig,
// the BN-folding forward against the unfused computation, BN freezing under a parent's train(),
// from_float / to_float, and PyTorch's assertion texts. Numbers against torch 1.13 are in
// tests/python/quantization/test_qat_modules.py.
#include <gtest/gtest.h>

#include "../testing.h"
#include "ember/nn.h"
#include "ember/nn/intrinsic/fused.h"
#include "ember/nn/intrinsic/qat/modules.h"
#include "ember/nn/qat/modules.h"
#include "ember/nn/utils/fusion.h"
#include "ember/nn/module_clone.h"
#include "ember/quantization/stubs.h"
#include "ember/quantized/tensor.h"

namespace ember {
namespace {

namespace nniqat = nn::intrinsic::qat;
namespace q = quantization;
using testing::expect_error;

// Fake quantization with fixed qparams (what a FakeQuantize does once its observer settled).
struct FixedFakeQuant : nn::Module {
  FixedFakeQuant() : Module("FixedFakeQuant") {}
  Value forward(const std::vector<Value>& in) override {
    return fake_quantize_per_tensor_affine(in.at(0).to_tensor(), 0.02, 3, -128, 127);
  }
};

const bool cloneable = [] {
  nn::register_cloneable<FixedFakeQuant>();
  return true;
}();

q::QConfigPtr qconfig() {
  auto c = std::make_shared<q::QConfig>();
  c->activation = [] { return std::make_shared<nn::Identity>(); };
  c->weight = [] { return std::make_shared<FixedFakeQuant>(); };
  return c;
}

TEST(QatModules, Conv2dFakeQuantizesItsWeight) {
  auto qc = qconfig();
  nn::qat::Conv2d conv(2, 3, 3, 1, 1, 1, 1, true, "zeros", qc);
  EXPECT_EQ(conv.qconfig(), qc);
  ASSERT_TRUE(conv.child("weight_fake_quant"));
  Tensor x = randn({2, 2, 5, 5});
  Tensor want = nn::functional::conv2d(
      x, fake_quantize_per_tensor_affine(conv.weight(), 0.02, 3, -128, 127),
      std::optional<Tensor>(conv.bias()), std::vector<int64_t>{1, 1},
      std::vector<int64_t>{1, 1});
  EXPECT_TRUE(allclose(conv(x), want, 1e-5, 1e-6));
  EXPECT_EQ(conv.repr(),
            "Conv2d(\n  2, 3, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1)\n"
            "  (weight_fake_quant): FixedFakeQuant()\n)");
  expect_error([] { nn::qat::Linear(2, 2); }, "qconfig must be provided for QAT module",
               ErrorKind::Assertion);
}

TEST(QatModules, ConvBnFoldingMatchesBnOfConv) {
  // With an identity weight fake-quantizer, the folded forward is bn(conv(x)) up to rounding.
  auto qc = std::make_shared<q::QConfig>(*qconfig());
  qc->weight = [] { return std::make_shared<nn::Identity>(); };
  nniqat::ConvBnReLU2d m(2, 3, 3, 1, 0, 1, 1, true, "zeros", 1e-5, 0.1, false, qc);
  Tensor x = randn({4, 2, 6, 6});
  nn::Conv2d conv(2, 3, 3);
  conv.weight().detach().copy_(m.weight().detach());
  conv.bias().detach().copy_(m.bias().detach());
  nn::BatchNorm2d bn(3);
  {
    NoGradGuard g;
    bn.weight().copy_(m.bn().weight());
    bn.bias().copy_(m.bn().bias());
  }
  Tensor want = bn(conv(x)).relu();
  EXPECT_TRUE(allclose(m(x), want, 1e-4, 1e-5));
  EXPECT_TRUE(allclose(m.bn().running_mean(), bn.running_mean(), 1e-5, 1e-6));
}

TEST(QatModules, FrozenBnStaysInEvalUnderParentTrain) {
  auto seq = std::make_shared<nn::Sequential>(
      std::make_shared<nniqat::ConvBn2d>(1, 2, 1, 1, 0, 1, 1, false, "zeros", 1e-5, 0.1, false,
                                         qconfig()));
  auto m = std::dynamic_pointer_cast<nniqat::ConvBn2d>((*seq)[0]);
  EXPECT_FALSE(m->freeze_bn);
  seq->apply(nniqat::freeze_bn_stats);
  EXPECT_TRUE(m->freeze_bn);
  seq->train();
  EXPECT_TRUE(m->is_training());
  EXPECT_FALSE(m->bn().is_training());
  seq->apply(nniqat::update_bn_stats);
  seq->train();
  EXPECT_TRUE(m->bn().is_training());
}

TEST(QatModules, FromFloatAndToFloat) {
  auto conv = std::make_shared<nn::Conv2d>(2, 3, 3);
  auto bn = std::make_shared<nn::BatchNorm2d>(3);
  bn->running_var().copy_(rand({3}) + 0.5);
  auto fused = std::make_shared<nn::intrinsic::ConvBnReLU2d>(conv, bn, std::make_shared<nn::ReLU>());
  expect_error([&] { nniqat::ConvBnReLU2d::from_float(*fused); },
               "Input float module must have qconfig defined", ErrorKind::Assertion);
  expect_error([&] { nniqat::ConvBn2d::from_float(*fused); },
               "qat.ConvBn2d.from_float only works for ConvBn2d", ErrorKind::Assertion);
  fused->set_qconfig(qconfig());
  auto m = nniqat::ConvBnReLU2d::from_float(*fused);
  EXPECT_EQ(m->weight().impl(), conv->weight().impl());
  EXPECT_EQ(m->bn().running_var().impl(), bn->running_var().impl());
  auto back = std::dynamic_pointer_cast<nn::intrinsic::ConvReLU2d>(m->to_float());
  ASSERT_TRUE(back);
  auto& folded = static_cast<nn::Conv2d&>(*(*back)[0]);
  auto [w, b] = nn::utils::fuse_conv_bn_weights(conv->weight(), conv->bias(), bn->running_mean(),
                                                bn->running_var(), bn->eps, bn->weight(),
                                                bn->bias());
  EXPECT_TRUE(equal(folded.weight(), w));
  EXPECT_TRUE(equal(folded.bias(), b));
  auto lin = std::make_shared<nn::Linear>(3, 2);
  lin->set_qconfig(qconfig());
  auto ql = nn::qat::Linear::from_float(*lin);
  EXPECT_EQ(ql->weight().impl(), lin->weight().impl());
  expect_error([&] { nn::qat::Conv2d::from_float(*lin); },
               "qat.Conv2d.from_float only works for Conv2d", ErrorKind::Assertion);
}

TEST(QatModules, FusedModuleMarker) {
  auto qc = qconfig();
  EXPECT_TRUE(nn::intrinsic::is_fused_module(nniqat::ConvBn2d(1, 2, 1, 1, 0, 1, 1, false, "zeros",
                                                             1e-5, 0.1, false, qc)));
  EXPECT_TRUE(nn::intrinsic::is_fused_module(nniqat::LinearReLU(2, 2, true, qc)));
  EXPECT_FALSE(nn::intrinsic::is_fused_module(nn::qat::Conv2d(1, 1, 1, 1, 0, 1, 1, true, "zeros", qc)));
  EXPECT_FALSE(nn::intrinsic::is_fused_module(nn::Sequential()));
}

TEST(Stubs, IdentityAndWrapper) {
  q::QuantStub stub;
  EXPECT_FALSE(stub.has_qconfig());
  Tensor x = randn({2});
  EXPECT_TRUE(stub(x).is_same(x));
  EXPECT_EQ(stub.repr(), "QuantStub()");
  auto qc = qconfig();
  auto lin = std::make_shared<nn::Linear>(2, 2);
  lin->set_qconfig(qc);
  lin->eval();
  q::QuantWrapper w(lin);
  EXPECT_EQ(std::dynamic_pointer_cast<q::QuantStub>(w.child("quant"))->qconfig(), qc);
  EXPECT_EQ(w.child("dequant")->qconfig(), qc);
  EXPECT_FALSE(w.is_training());
  EXPECT_TRUE(equal(w(x.view({1, 2})), (*lin)(x.view({1, 2}))));
  EXPECT_EQ(w.state_dict().keys(), (std::vector<std::string>{"module.weight", "module.bias"}));
}

}  // namespace
}  // namespace ember
