// The C++ workflow beyond MobileNetV2's layers, with no Python: convert's default static mapping
// covers torch 1.13's (3-d and transposed convolutions, the quantized norms and activations,
// BNReLU3d / ConvReLU3d), and the 3-d QAT modules (nn::qat::Conv3d, nn::intrinsic::qat::ConvBn3d
// / ConvBnReLU3d / ConvReLU3d) run prepare_qat -> train -> convert.
#include <gtest/gtest.h>

#include <typeinfo>

#include "../testing.h"
#include "ember/nn.h"
#include "ember/nn/intrinsic/fused.h"
#include "ember/nn/intrinsic/qat/modules.h"
#include "ember/nn/quantized.h"
#include "ember/nn/quantized/activation_more.h"
#include "ember/nn/quantized/conv_more.h"
#include "ember/nn/quantized/norm_more.h"
#include "ember/nn/qat/modules.h"
#include "ember/ops/random.h"
#include "ember/optim.h"
#include "ember/quantization/fuse.h"
#include "ember/quantization/qconfig.h"
#include "ember/quantization/quantize.h"
#include "ember/quantization/stubs.h"

namespace ember {
namespace {

namespace nnq = nn::quantized;
namespace nniqat = nn::intrinsic::qat;
namespace q = quantization;

std::shared_ptr<nn::Sequential> seq(std::vector<std::shared_ptr<nn::Module>> mods) {
  return std::make_shared<nn::Sequential>(std::move(mods));
}

float max_abs_diff(const Tensor& a, const Tensor& b) {
  return (a - b).abs().max().item().to<float>();
}

TEST(QWorkflow3d, StaticMappingConvertsTorchsModuleSet) {
  manual_seed(0);
  auto model = seq({std::make_shared<q::QuantStub>(),
                    std::make_shared<nn::Conv3d>(2, 4, 3, 1, 1),
                    std::make_shared<nn::BatchNorm3d>(4),
                    std::make_shared<nn::LeakyReLU>(0.2),
                    std::make_shared<nn::ConvTranspose3d>(4, 3, 2, 2),
                    std::make_shared<nn::ELU>(0.5),
                    std::make_shared<nn::InstanceNorm3d>(3, 1e-5, 0.1, true),
                    std::make_shared<nn::GroupNorm>(1, 3),
                    std::make_shared<q::DeQuantStub>()});
  model->eval();
  model->set_qconfig(q::get_default_qconfig("qnnpack"));
  q::prepare(model, /*inplace=*/true);
  const Tensor x = randn({2, 2, 4, 4, 4});
  const Tensor want = (*model)(x);  // the float model, observed
  q::convert(model, nullptr, /*inplace=*/true);
  EXPECT_EQ(typeid(*model->child("1")), typeid(nnq::Conv3d));
  EXPECT_EQ(typeid(*model->child("2")), typeid(nnq::BatchNorm3d));
  EXPECT_EQ(typeid(*model->child("3")), typeid(nnq::LeakyReLU));
  EXPECT_EQ(typeid(*model->child("4")), typeid(nnq::ConvTranspose3d));
  EXPECT_EQ(typeid(*model->child("5")), typeid(nnq::ELU));
  EXPECT_EQ(typeid(*model->child("6")), typeid(nnq::InstanceNorm3d));
  EXPECT_EQ(typeid(*model->child("7")), typeid(nnq::GroupNorm));
  // torch 1.13's _InstanceNorm.from_float passes affine into the momentum slot.
  EXPECT_NE(model->child("6")->extra_repr().find("momentum=1.0, affine=False"), std::string::npos)
      << model->child("6")->extra_repr();
  EXPECT_EQ(static_cast<nnq::LeakyReLU&>(*model->child("3")).negative_slope, 0.2);
  EXPECT_EQ(static_cast<nnq::ELU&>(*model->child("5")).alpha, 0.5);
  const Tensor got = (*model)(x);
  EXPECT_EQ(got.sizes(), want.sizes());
  // int8 all the way: within a few output quanta of the float model
  EXPECT_LT(max_abs_diff(got, want), 0.25f * want.abs().max().item().to<float>());
}

TEST(QWorkflow3d, FusedModulesConvertAsUnits) {
  manual_seed(1);
  auto model = seq({std::make_shared<q::QuantStub>(), std::make_shared<nn::Conv3d>(2, 3, 1),
                    std::make_shared<nn::ReLU>(), std::make_shared<nn::BatchNorm3d>(3),
                    std::make_shared<nn::ReLU>(), std::make_shared<nn::LayerNorm>(std::vector<int64_t>{3}),
                    std::make_shared<q::DeQuantStub>()});
  model->eval();
  auto fused = q::fuse_modules(*model, {{"1", "2"}, {"3", "4"}});
  fused->set_qconfig(q::get_default_qconfig("qnnpack"));
  q::prepare(fused, /*inplace=*/true);
  (*fused)(rand({1, 2, 3, 3, 3}));
  q::convert(fused, nullptr, /*inplace=*/true);
  EXPECT_EQ(typeid(*fused->child("1")), typeid(nnq::ConvReLU3d));
  EXPECT_EQ(typeid(*fused->child("3")), typeid(nnq::BNReLU3d));
  EXPECT_EQ(typeid(*fused->child("5")), typeid(nnq::LayerNorm));
  EXPECT_EQ(fused->child("1")->type_name(), "QuantizedConvReLU3d");
  const Tensor y = (*fused)(rand({1, 2, 3, 3, 3}));
  EXPECT_GE(y.min().item().to<float>(), -2.f);
}

TEST(QWorkflow3d, QatConvBnReLU3dTrainsAndConverts) {
  manual_seed(2);
  auto model = seq({std::make_shared<q::QuantStub>(), std::make_shared<nn::Conv3d>(2, 4, 3, 1, 1),
                    std::make_shared<nn::BatchNorm3d>(4), std::make_shared<nn::ReLU>(),
                    std::make_shared<nn::Conv3d>(4, 2, 1), std::make_shared<nn::ReLU>(),
                    std::make_shared<q::DeQuantStub>()});
  model->train();
  auto fused = q::fuse_modules_qat(*model, {{"1", "2", "3"}, {"4", "5"}});
  fused->set_qconfig(q::get_default_qat_qconfig("qnnpack"));
  q::prepare_qat(fused, std::nullopt, /*inplace=*/true);
  EXPECT_EQ(typeid(*fused->child("1")), typeid(nniqat::ConvBnReLU3d));
  EXPECT_EQ(typeid(*fused->child("4")), typeid(nniqat::ConvReLU3d));
  optim::SGD opt(fused->parameters(), optim::SGDOptions(0.01));
  const Tensor x = randn({2, 2, 4, 4, 4});
  const Tensor target = rand({2, 2, 4, 4, 4});
  float first = 0, last = 0;
  for (int step = 0; step < 8; ++step) {
    opt.zero_grad();
    Tensor loss = ((*fused)(x) - target).pow(2).mean();
    loss.backward();
    opt.step();
    (step == 0 ? first : last) = loss.item().to<float>();
  }
  EXPECT_LT(last, first);
  nniqat::freeze_bn_stats(*fused->child("1"));
  EXPECT_TRUE(static_cast<nniqat::ConvBnReLU3d&>(*fused->child("1")).freeze_bn);
  fused->eval();
  const Tensor want = (*fused)(x);
  q::convert(fused, nullptr, /*inplace=*/true);
  EXPECT_EQ(typeid(*fused->child("1")), typeid(nnq::ConvReLU3d));
  EXPECT_EQ(typeid(*fused->child("4")), typeid(nnq::ConvReLU3d));
  const Tensor got = (*fused)(x);
  EXPECT_LT(max_abs_diff(got, want), 0.1f * want.abs().max().item().to<float>() + 1e-3f);
}

TEST(QWorkflow3d, QatConv3dFromFloatChecks) {
  nn::Conv2d conv2d(1, 1, 1);
  conv2d.set_qconfig(q::get_default_qat_qconfig("qnnpack"));
  testing::expect_error([&] { nn::qat::Conv3d::from_float(conv2d); },
                        "qat.Conv3d.from_float only works for Conv3d", ErrorKind::Assertion);
  nn::Conv3d conv(1, 2, 1);
  conv.set_qconfig(q::get_default_qat_qconfig("qnnpack"));
  auto qat = nn::qat::Conv3d::from_float(conv);
  EXPECT_TRUE(qat->weight().is_same(conv.weight()));
  EXPECT_TRUE(qat->child("weight_fake_quant") != nullptr);
}

}  // namespace
}  // namespace ember
