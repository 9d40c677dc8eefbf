// The eager-mode workflow in C++ with no Python: prepare / calibrate / convert on C++ models
// (torchvision's quantizable MobileNetV2 and ResNet-18), observers fed when a C++ parent calls the
// child, the conv-bn fast path kept only without hooks, from_float's checks, the mappings.
#include <gtest/gtest.h>

#include <typeinfo>

#include "../testing.h"
#include "ember/models/quantization.h"
#include "ember/nn.h"
#include "ember/optim.h"
#include "ember/nn/intrinsic/fused.h"
#include "ember/nn/intrinsic/qat/modules.h"
#include "ember/quantization/fake_quantize.h"
#include "ember/quantization/fuse.h"
#include "ember/nn/quantized.h"
#include "ember/ops/random.h"
#include "ember/quantization/observer.h"
#include "ember/quantization/quantize.h"
#include "ember/quantization/stubs.h"
#include "ember/quantized/tensor.h"

namespace ember {
namespace {

namespace nnq = nn::quantized;
namespace q = quantization;
namespace qm = models::quantization;

q::QConfigPtr minmax_qconfig() {
  return std::make_shared<const q::QConfig>(q::QConfig{
      [] {
        q::ObserverOptions o;
        o.quant_min = 0;
        o.quant_max = 127;
        return std::make_shared<q::MinMaxObserver>(o);
      },
      [] {
        q::ObserverOptions o;
        o.dtype = kQInt8;
        o.qscheme = QScheme::PerTensorSymmetric;
        return std::make_shared<q::MinMaxObserver>(o);
      },
      {}});
}

int count_observers(nn::Module& m) {
  int n = 0;
  for (const auto& [name, mod] : m.named_modules()) {
    if (q::is_activation_post_process(*mod)) ++n;
  }
  return n;
}

class QEngineGuard {
 public:
  explicit QEngineGuard(QEngine e) : old_(quantized_engine()) { set_quantized_engine(e); }
  ~QEngineGuard() { set_quantized_engine(old_); }

 private:
  QEngine old_;
};

TEST(QWorkflow, MobileNetV2FlowWithoutPython) {
  QEngineGuard engine(QEngine::QNNPACK);
  manual_seed(0);
  auto net = qm::mobilenet_v2();
  net->eval();
  net->fuse_model(false);
  // torchvision's fusion result: 35 ConvReLU2d (each holding its folded Conv2d) + 17 folded
  // Conv2d on their own.
  int conv_relu = 0, conv = 0;
  for (const auto& m : net->modules()) {
    conv_relu += typeid(*m) == typeid(nn::intrinsic::ConvReLU2d);
    conv += typeid(*m) == typeid(nn::Conv2d);
  }
  EXPECT_EQ(conv_relu, 35);
  EXPECT_EQ(conv, 35 + 17);
  net->set_qconfig(minmax_qconfig());
  auto prepared = q::prepare(net);
  EXPECT_NE(prepared.get(), net.get());
  EXPECT_EQ(count_observers(*prepared), 71);  // quant 1 + 52 convs + 17 skip_add + Linear 1
  EXPECT_EQ(count_observers(*net), 0);
  for (int i = 0; i < 2; ++i) (*prepared)(rand({1, 3, 64, 64}));
  // features.1 is called by the C++ Sequential `features`: its conv observers saw data.
  auto obs = std::dynamic_pointer_cast<q::MinMaxObserver>(
      prepared->child("features")->child("1")->child("conv")->child("0")->child("0")->child(
          "activation_post_process"));
  ASSERT_TRUE(obs);
  EXPECT_LE(obs->min_val().item().to<double>(), obs->max_val().item().to<double>());
  auto converted = q::convert(prepared);
  EXPECT_EQ(count_observers(*converted), 0);
  EXPECT_EQ(converted->state_dict().size(), 248u);
  EXPECT_TRUE(std::dynamic_pointer_cast<nnq::Quantize>(converted->child("quant")));
  EXPECT_TRUE(std::dynamic_pointer_cast<nnq::DeQuantize>(converted->child("dequant")));
  EXPECT_EQ(typeid(*converted->child("features")->child("0")->child("0")),
            typeid(nnq::ConvReLU2d));
  EXPECT_EQ(typeid(*converted->child("classifier")->child("1")), typeid(nnq::Linear));
  EXPECT_EQ(typeid(*converted->child("features")->child("3")->child("skip_add")),
            typeid(nnq::QFunctional));
  for (const auto& m : converted->modules()) EXPECT_FALSE(m->has_qconfig());
  Tensor y = (*converted)(rand({1, 3, 64, 64}));
  EXPECT_EQ(y.sizes().vec(), (std::vector<int64_t>{1, 1000}));
  EXPECT_EQ(y.dtype(), kFloat32);
}

TEST(QWorkflow, QuantizeModelResNet18) {
  QEngineGuard engine(QEngine::QNNPACK);
  auto net = qm::resnet18(/*quantize=*/true, "qnnpack", 10);
  EXPECT_EQ(typeid(*net->child("conv1")), typeid(nnq::ConvReLU2d));
  EXPECT_EQ(typeid(*net->child("layer1")->child("0")->child("add_relu")),
            typeid(nnq::QFunctional));
  EXPECT_EQ(typeid(*net->child("fc")), typeid(nnq::Linear));
  Tensor y = (*net)(rand({1, 3, 32, 32}));
  EXPECT_EQ(y.sizes().vec(), (std::vector<int64_t>{1, 10}));
  // fbgemm is not an engine of this build: torchvision's message.
  testing::expect_error([] { qm::resnet18(true, "fbgemm"); }, "Quantized backend not supported ");
}

TEST(QWorkflow, ObserversFireWhenASequentialCallsTheChild) {
  auto seq = std::make_shared<nn::Sequential>(std::vector<std::shared_ptr<nn::Module>>{
      std::make_shared<nn::Conv2d>(3, 4, 3), std::make_shared<nn::ReLU6>()});
  seq->eval();
  seq->set_qconfig(minmax_qconfig());
  q::prepare(seq, /*inplace=*/true);
  Tensor x = rand({1, 3, 5, 5});
  (*seq)(x);
  auto& conv = static_cast<nn::Conv2d&>(*seq->child("0"));
  auto obs = std::dynamic_pointer_cast<q::MinMaxObserver>(conv.child("activation_post_process"));
  Tensor raw = nn::functional::conv2d(x, conv.weight(), conv.bias());
  EXPECT_EQ(obs->min_val().item().to<float>(), raw.min().item().to<float>());
  EXPECT_EQ(obs->max_val().item().to<float>(), raw.max().item().to<float>());
}

TEST(QWorkflow, ConvBnFastPathOnlyWithoutHooks) {
  auto conv = std::make_shared<nn::Conv2d>(3, 4, 3);
  auto bn = std::make_shared<nn::BatchNorm2d>(4);
  bn->buffer("running_mean").copy_(rand({4}));
  bn->buffer("running_var").copy_(rand({4}) + 0.5);
  auto seq = std::make_shared<nn::Sequential>(std::vector<std::shared_ptr<nn::Module>>{conv, bn});
  seq->eval();
  Tensor x = rand({2, 3, 6, 6});
  Tensor plain = (*bn)((*conv)(x));
  Tensor fast = (*seq)(x);  // folded: equal up to rounding, not necessarily bit for bit
  EXPECT_TRUE(allclose(fast, plain, 1e-4, 1e-5));
  conv->set_qconfig(minmax_qconfig());
  q::prepare(seq, /*inplace=*/true);
  EXPECT_TRUE(conv->has_forward_hooks());
  Tensor hooked = (*seq)(x);
  // With the observer's hook the pair runs unfused: bit for bit the separate calls.
  EXPECT_TRUE(equal(hooked, plain));
  auto obs = std::dynamic_pointer_cast<q::MinMaxObserver>(conv->child("activation_post_process"));
  Tensor raw = nn::functional::conv2d(x, conv->weight(), conv->bias());
  EXPECT_EQ(obs->max_val().item().to<float>(), raw.max().item().to<float>());
  // convert removes the hook: the fast path is back.
  auto converted = q::convert(seq, nullptr, /*inplace=*/true, /*remove_qconfig=*/true);
  (void)converted;
}

TEST(QWorkflow, FromFloatChecks) {
  nn::Linear lin(2, 2);
  testing::expect_error([&] { nnq::Conv2d::from_float(lin); },
                        " nnq.Conv2d.from_float only works for Conv2d but got:<class 'Linear'>",
                        ErrorKind::Value);  // quantization::AssertionError
  nn::Conv2d conv(1, 1, 1);
  testing::expect_error([&] { nnq::Conv2d::from_float(conv); },
                        "Input float module must have qconfig defined.", ErrorKind::Value);
  testing::expect_error([&] { nnq::QFunctional::from_float(lin); },
                        "QFunctional.from_float expects an instance of FloatFunctional",
                        ErrorKind::Value);
}

TEST(QWorkflow, MappingsAndSwap) {
  auto mapping = q::get_default_static_quant_module_mappings();
  nn::Conv2d conv(1, 1, 1);
  nn::ReLU relu;
  EXPECT_TRUE(mapping.contains(conv));
  EXPECT_FALSE(mapping.contains(relu));
  auto list = q::get_default_qconfig_propagation_list();
  nn::Sequential seq;
  EXPECT_TRUE(list(seq));
  EXPECT_FALSE(list(relu));
  // No qconfig: swap_module leaves the module.
  auto lin = std::make_shared<nn::Linear>(2, 2);
  EXPECT_EQ(q::swap_module(lin, mapping.lookup()).get(), lin.get());
}

// QAT: fake-quantize observers over MovingAverage ones, as torch's default QAT qconfig.
q::QConfigPtr fake_quant_qconfig() {
  return std::make_shared<const q::QConfig>(q::QConfig{
      [] {
        q::ObserverOptions o;
        o.quant_min = 0;
        o.quant_max = 255;
        return std::make_shared<q::FakeQuantize>(
            std::make_shared<q::MovingAverageMinMaxObserver>(0.01, o));
      },
      [] {
        q::ObserverOptions o;
        o.dtype = kQInt8;
        o.qscheme = QScheme::PerTensorSymmetric;
        o.quant_min = -128;
        o.quant_max = 127;
        return std::make_shared<q::FakeQuantize>(
            std::make_shared<q::MovingAverageMinMaxObserver>(0.01, o));
      },
      {}});
}

TEST(QWorkflow, PrepareQatTrainConvert) {
  QEngineGuard engine(QEngine::QNNPACK);
  auto seq = std::make_shared<nn::Sequential>(std::vector<std::shared_ptr<nn::Module>>{
      std::make_shared<q::QuantStub>(), std::make_shared<nn::Conv2d>(2, 3, 3, 1, 0, 1, 1, false),
      std::make_shared<nn::BatchNorm2d>(3), std::make_shared<nn::ReLU>(),
      std::make_shared<nn::Flatten>(), std::make_shared<nn::Linear>(12, 2),
      std::make_shared<q::DeQuantStub>()});
  q::fuse_modules_qat(*seq, {{"1", "2", "3"}}, /*inplace=*/true);
  seq->set_qconfig(fake_quant_qconfig());
  seq->eval();
  testing::expect_error([&] { q::prepare_qat(seq); },
                        "prepare_qat only works on models in training mode", ErrorKind::Value);
  seq->train();
  auto qat = q::prepare_qat(seq);
  EXPECT_EQ(typeid(*qat->child("1")), typeid(nn::intrinsic::qat::ConvBnReLU2d));
  EXPECT_TRUE(qat->child("1")->child("activation_post_process"));
  EXPECT_TRUE(qat->child("5")->child("weight_fake_quant"));
  optim::SGD opt(qat->parameters(), {.lr = 0.01});
  for (int i = 0; i < 3; ++i) {
    opt.zero_grad();
    (*qat)(rand({4, 2, 4, 4})).sum().backward();
    opt.step();
  }
  qat->eval();
  auto int8 = q::convert(qat);
  EXPECT_EQ(typeid(*int8->child("1")), typeid(nnq::ConvReLU2d));
  EXPECT_EQ(typeid(*int8->child("5")), typeid(nnq::Linear));
  EXPECT_EQ(typeid(*int8->child("0")), typeid(nnq::Quantize));
  EXPECT_EQ(count_observers(*int8), 0);
  Tensor y = (*int8)(rand({1, 2, 4, 4}));
  EXPECT_EQ(y.sizes().vec(), (std::vector<int64_t>{1, 2}));
}

TEST(QWorkflow, QuantizeDynamicLinear) {
  auto seq = std::make_shared<nn::Sequential>(std::vector<std::shared_ptr<nn::Module>>{
      std::make_shared<nn::Linear>(4, 3), std::make_shared<nn::ReLU>(),
      std::make_shared<nn::Linear>(3, 2)});
  auto out = q::quantize_dynamic(seq);
  EXPECT_EQ(typeid(*out->child("0")), typeid(nnq::dynamic::Linear));
  EXPECT_EQ(typeid(*out->child("2")), typeid(nnq::dynamic::Linear));
  EXPECT_EQ(typeid(*seq->child("0")), typeid(nn::Linear));  // a copy was converted
  Tensor y = (*out)(rand({2, 4}));
  EXPECT_EQ(y.sizes().vec(), (std::vector<int64_t>{2, 2}));
}

}  // namespace
}  // namespace ember
