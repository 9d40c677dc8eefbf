// The quantized modules (ember::nn::quantized): PyTorch 1.13's reprs, state_dict layout and
// metadata versions, loading (older layouts, re-packing, all-or-nothing), clone re-packing, and
// forwards equal to the ops they wrap. Numbers against PyTorch itself are in
// tests/python/quantized/test_qmodules_vs_torch.py.
#include <gtest/gtest.h>

#include "../testing.h"
#include "ember/nn.h"
#include "ember/nn/module_clone.h"
#include "ember/nn/quantized.h"
#include "ember/quantized/conv_linear.h"
#include "ember/quantized/elementwise.h"
#include "ember/quantized/tensor.h"
#include "quant/packed_params.h"

namespace ember {
namespace {

namespace nnq = nn::quantized;
using testing::expect_error;

// A quint8 activation and a qint8 weight with varied codes.
Tensor qinput(IntArrayRef sizes, double scale = 0.05, int64_t zp = 120) {
  return quantize_per_tensor(randn(sizes), scale, zp, kQUInt8);
}
Tensor qweight(IntArrayRef sizes, double scale = 0.02) {
  return quantize_per_tensor(randn(sizes) * 0.5, scale, 0, kQInt8);
}

bool same_codes(const Tensor& a, const Tensor& b) {
  return a.dtype() == b.dtype() && q_scale(a) == q_scale(b) &&
         q_zero_point(a) == q_zero_point(b) && equal(int_repr(a), int_repr(b));
}

struct Net : nn::Module {
  Net() : Module("Net") {
    a = register_module("a", std::make_shared<nnq::Conv2d>(2, 4, 3));
    b = register_module("b", std::make_shared<nnq::Linear>(4, 3));
  }
  std::shared_ptr<nnq::Conv2d> a;
  std::shared_ptr<nnq::Linear> b;
};

const bool net_cloneable = [] {
  nn::register_cloneable<Net>();
  nn::detail::register_fixup(typeid(Net), [](nn::Module& m, nn::CloneMemo& memo) {
    auto& net = static_cast<Net&>(m);
    nn::remap_child(net.a, memo);
    nn::remap_child(net.b, memo);
  });
  return true;
}();

TEST(QModules, ConvReprs) {
  nnq::Conv2d conv(3, 4, 3);
  EXPECT_EQ(conv.repr(),
            "QuantizedConv2d(3, 4, kernel_size=(3, 3), stride=(1, 1), scale=1.0, zero_point=0)");
  nnq::ConvReLU2d dw(32, 32, 3, 1, 1, 1, 32);
  dw.scale = 0.0178;
  EXPECT_EQ(dw.repr(), "QuantizedConvReLU2d(32, 32, kernel_size=(3, 3), stride=(1, 1), "
                       "scale=0.0178, zero_point=0, padding=(1, 1), groups=32)");
  nnq::Conv1d c1(3, 4, 3, 2, 1, 2, 1, true, "reflect");
  EXPECT_EQ(c1.repr(), "QuantizedConv1d(3, 4, kernel_size=(3,), stride=(2,), scale=1.0, "
                       "zero_point=0, padding=(1,), dilation=(2,))");
  expect_error([] { nnq::Conv2d(3, 4, 3, 1, 0, 1, 2); }, "in_channels must be divisible by groups",
               ErrorKind::Value);
  expect_error([] { nnq::Conv2d(3, 4, 3, 1, 0, 1, 1, true, "circular"); },
               "'padding_mode' circular is not supported by quantized convolution",
               ErrorKind::Value);
}

TEST(QModules, ConvStateDictLayout) {
  nnq::Conv2d conv(2, 4, 3);
  const Tensor w = qweight({4, 2, 3, 3});
  const Tensor b = randn({4});
  conv.set_weight_bias(w, b);
  conv.scale = 0.25;
  conv.zero_point = 7;
  nn::StateDict sd = conv.state_dict();
  EXPECT_EQ(sd.keys(), (std::vector<std::string>{"weight", "bias", "scale", "zero_point"}));
  EXPECT_TRUE(sd.at("weight").to_tensor().is_same(w));  // the packed tensor itself
  EXPECT_EQ(sd.at("bias").to_tensor().dtype(), kFloat32);
  const Tensor scale = sd.at("scale").to_tensor(), zp = sd.at("zero_point").to_tensor();
  EXPECT_EQ(scale.dtype(), kFloat32);
  EXPECT_EQ(scale.dim(), 0);
  EXPECT_EQ(zp.dtype(), kInt64);
  EXPECT_EQ(zp.item().to<int64_t>(), 7);
  ASSERT_TRUE(sd.metadata);
  EXPECT_EQ(sd.metadata->at(0).second.at("version").to_int(), 1);
}

TEST(QModules, ConvLoadRepacksAndForwardMatchesOp) {
  nnq::Conv2d src(2, 4, 3, 1, 1);
  src.set_weight_bias(qweight({4, 2, 3, 3}), randn({4}));
  src.scale = 0.3;
  src.zero_point = 100;
  nnq::Conv2d dst(2, 4, 3, 1, 1);
  auto before = dst.packed_params();
  dst.load_state_dict(src.state_dict());
  EXPECT_NE(dst.packed_params().get(), before.get());
  EXPECT_EQ(dst.scale, static_cast<double>(static_cast<float>(0.3)));  // float32 state entry
  EXPECT_EQ(dst.zero_point, 100);
  EXPECT_TRUE(same_codes(dst.weight(), src.weight()));
  const Tensor x = qinput({1, 2, 5, 5});
  EXPECT_TRUE(same_codes(dst(x), quantized::conv2d(x, dst.packed_params(), dst.scale, 100)));
  nnq::ConvReLU2d relu(2, 4, 3, 1, 1);
  relu.load_state_dict(src.state_dict());
  EXPECT_TRUE(same_codes(relu(x), quantized::conv2d_relu(x, relu.packed_params(), relu.scale, 100)));
  expect_error([&] { dst(qinput({2, 5, 5})); }, "Input shape must be `(N, C, H, W)`!",
               ErrorKind::Value);
}

TEST(QModules, FailedLoadChangesNothing) {
  Net net, other;
  other.a->scale = 0.5;
  nn::StateDict sd = other.state_dict();
  sd.erase("b._packed_params._packed_params");
  const auto packed = net.a->packed_params();
  expect_error([&] { net.load_state_dict(sd); }, "b._packed_params._packed_params", ErrorKind::Key);
  EXPECT_EQ(net.a->packed_params().get(), packed.get());
  EXPECT_EQ(net.a->scale, 1.0);
}

TEST(QModules, LinearReprAndStateDict) {
  nnq::Linear fc(4, 3);
  EXPECT_EQ(fc.repr(), "QuantizedLinear(in_features=4, out_features=3, scale=1.0, zero_point=0, "
                       "qscheme=ember.per_tensor_affine)");
  nnq::dynamic::Linear d(3, 4);
  EXPECT_EQ(d.repr(), "DynamicQuantizedLinear(in_features=3, out_features=4, dtype=ember.qint8, "
                      "qscheme=ember.per_tensor_affine)");
  nnq::LinearReLU lr(3, 4);
  EXPECT_EQ(lr.type_name(), "QuantizedLinearReLU");
  nn::StateDict sd = fc.state_dict();
  EXPECT_EQ(sd.keys(), (std::vector<std::string>{"scale", "zero_point", "_packed_params.dtype",
                                                 "_packed_params._packed_params"}));
  EXPECT_EQ(sd.at("_packed_params.dtype").to_dtype(), kQInt8);
  const auto& pair = sd.at("_packed_params._packed_params").to_tensor_list();
  ASSERT_EQ(pair.size(), 2u);
  EXPECT_TRUE(pair[0].is_same(fc.weight()));
  ASSERT_TRUE(sd.metadata);
  EXPECT_EQ(sd.metadata->at(0).first, "");
  EXPECT_EQ(sd.metadata->at(0).second.at("version").to_int(), 3);
  EXPECT_EQ(sd.metadata->at(1).first, "_packed_params");
  EXPECT_EQ(sd.metadata->at(1).second.at("version").to_int(), 3);
  EXPECT_EQ(d.state_dict().metadata->at(0).second.at("version").to_int(), 4);
  expect_error([] { nnq::Linear(3, 4, true, kInt32); },
               "Unsupported dtype specified for quantized Linear!");
}

TEST(QModules, LinearLoadsEveryLayout) {
  nnq::Linear src(4, 3);
  src.set_weight_bias(qweight({3, 4}), randn({3}));
  src.scale = 0.125;
  src.zero_point = 3;
  const Tensor w = src.weight();
  const Tensor b = *src.bias();
  auto check = [&](nnq::Linear& dst) {
    EXPECT_TRUE(same_codes(dst.weight(), w));
    EXPECT_TRUE(equal(*dst.bias(), b));
    EXPECT_EQ(dst.scale, 0.125);
    EXPECT_EQ(dst.zero_point, 3);
  };
  {  // version 3, with its metadata
    nnq::Linear dst(4, 3);
    dst.load_state_dict(src.state_dict());
    check(dst);
  }
  {  // version 1: weight and bias on the Linear; no metadata at all
    nn::StateDict v1;
    v1.insert("scale", scalar_tensor(0.125, kFloat32));
    v1.insert("zero_point", scalar_tensor(3, kInt64));
    v1.insert("weight", w);
    v1.insert("bias", b);
    nnq::Linear dst(4, 3);
    dst.load_state_dict(v1);
    check(dst);
  }
  {  // version 2: weight, bias and dtype on the child
    nn::StateDict v2;
    v2.insert("scale", scalar_tensor(0.125, kFloat32));
    v2.insert("zero_point", scalar_tensor(3, kInt64));
    v2.insert("_packed_params.dtype", Value(kQInt8));
    v2.insert("_packed_params.weight", w);
    v2.insert("_packed_params.bias", b);
    v2.metadata = std::vector<std::pair<std::string, nn::LocalMetadata>>{
        {"", {{"version", Value(2)}}}, {"_packed_params", {{"version", Value(2)}}}};
    nnq::Linear dst(4, 3);
    dst.load_state_dict(v2);
    check(dst);
  }
  {  // a version-3 state_dict carried without its metadata reads as version 1 (PyTorch's)
    nn::StateDict plain;
    for (const auto& [k, v] : src.state_dict().items()) plain.insert(k, v);
    nnq::Linear dst(4, 3);
    expect_error([&] { dst.load_state_dict(plain); }, "weight", ErrorKind::Key);
  }
  const Tensor x = qinput({2, 4});
  nnq::Linear dst(4, 3);
  dst.load_state_dict(src.state_dict());
  EXPECT_TRUE(same_codes(dst(x), quantized::linear(x, dst.packed_module().packed_params(), 0.125, 3)));
}

TEST(QModules, CloneRepacksTheSameWeights) {
  Net net;
  net.a->set_weight_bias(qweight({4, 2, 3, 3}), randn({4}));
  net.a->scale = 0.2;
  auto copy = std::dynamic_pointer_cast<Net>(net.clone());
  ASSERT_TRUE(copy);
  EXPECT_NE(copy->a->packed_params().get(), net.a->packed_params().get());
  EXPECT_TRUE(copy->a->weight().is_same(net.a->weight()));  // as PyTorch's __deepcopy__
  EXPECT_EQ(copy->a->scale, 0.2);
  EXPECT_NE(copy->b->packed_module().packed_params().get(),
            net.b->packed_module().packed_params().get());
  EXPECT_EQ(copy->repr(), net.repr());
  const Tensor x = qinput({1, 2, 4, 4});
  EXPECT_TRUE(same_codes((*copy->a)(x), (*net.a)(x)));
}

TEST(QModules, QuantizeDeQuantize) {
  nnq::Quantize quant(0.1, 3, kQUInt8);
  EXPECT_EQ(quant.repr(), "Quantize(scale=tensor([0.1000]), zero_point=tensor([3]), dtype=ember.quint8)");
  nn::StateDict sd = quant.state_dict();
  EXPECT_EQ(sd.at("scale").to_tensor().dtype(), kFloat32);
  EXPECT_EQ(sd.at("scale").to_tensor().sizes().vec(), std::vector<int64_t>{1});
  EXPECT_EQ(sd.at("zero_point").to_tensor().dtype(), kInt64);
  const Tensor x = randn({2, 3});
  const Tensor q = quant(x);
  // float(self.scale): the float32 value of 0.1.
  EXPECT_TRUE(same_codes(q, quantize_per_tensor(x, static_cast<float>(0.1), 3, kQUInt8)));
  nnq::DeQuantize dq;
  EXPECT_EQ(dq.repr(), "DeQuantize()");
  EXPECT_TRUE(equal(dq(q), dequantize(q)));
}

TEST(QModules, FunctionalModules) {
  nnq::FloatFunctional ff;
  EXPECT_EQ(ff.repr(), "FloatFunctional(\n  (activation_post_process): Identity()\n)");
  expect_error([&] { ff.call({Value(ones({1}))}); },
               "FloatFunctional is not intended to use the 'forward'. Please use the underlying "
               "operation");
  const Tensor a = randn({3}), b = randn({3});
  EXPECT_TRUE(equal(ff.add_relu(a, b), (a + b).relu()));
  int observed = 0;
  ff.child("activation_post_process")->register_forward_hook(
      [&observed](nn::Module&, const std::vector<Value>&, const Value&) -> std::optional<Value> {
        ++observed;
        return std::nullopt;
      });
  ff.add(a, b);
  ff.mul(a, b);
  ff.cat({a, b});
  ff.add_scalar(a, 1.0);
  ff.mul_scalar(a, 2.0);
  EXPECT_EQ(observed, 3);  // add, mul, cat; never the scalar forms
  nnq::FXFloatFunctional fx;
  EXPECT_EQ(fx.repr(), "FXFloatFunctional()");

  nnq::QFunctional qf;
  EXPECT_EQ(qf.repr(), "QFunctional(\n  scale=1.0, zero_point=0\n  (activation_post_process): "
                       "Identity()\n)");
  expect_error([&] { qf.call({Value(ones({1}))}); }, "Functional is not intended to use the "
               "'forward'. Please use the underlying operation");
  qf.scale = 0.06;
  qf.zero_point = 125;
  const Tensor qa = qinput({2, 3}, 0.031, 120), qb = qinput({2, 3}, 0.047, 131);
  EXPECT_TRUE(same_codes(qf.add(qa, qb), quantized::add(qa, qb, 0.06, 125)));
  EXPECT_TRUE(same_codes(qf.add_relu(qa, qb), quantized::add_relu(qa, qb, 0.06, 125)));
  EXPECT_TRUE(same_codes(qf.mul(qa, qb), quantized::mul(qa, qb, 0.06, 125)));
  EXPECT_TRUE(same_codes(qf.cat({qa, qb}, 1), quantized::cat({qa, qb}, 1, 0.06, 125)));
  nn::StateDict sd = qf.state_dict();
  EXPECT_EQ(sd.keys(), (std::vector<std::string>{"scale", "zero_point"}));
  nnq::QFunctional back;
  back.load_state_dict(sd);
  EXPECT_EQ(back.scale, static_cast<double>(static_cast<float>(0.06)));
  EXPECT_EQ(back.zero_point, 125);
}

TEST(QModules, ActivationsDropoutBatchNorm) {
  EXPECT_EQ(nnq::ReLU6().repr(), "QuantizedReLU6()");
  EXPECT_EQ(nnq::Hardswish(0.1, 2).repr(), "QuantizedHardswish()");
  nnq::Dropout drop(0.2);
  EXPECT_EQ(drop.repr(), "QuantizedDropout(p=0.2, inplace=False)");
  const Tensor q = qinput({2, 3, 4, 4});
  EXPECT_TRUE(drop(q).is_same(q));  // identity, also in training mode
  nnq::BatchNorm2d bn(3);
  EXPECT_EQ(bn.repr(), "QuantizedBatchNorm2d(3, eps=1e-05, momentum=0.1, affine=True, "
                       "track_running_stats=True)");
  EXPECT_EQ(bn.state_dict().keys(),
            (std::vector<std::string>{"weight", "bias", "running_mean", "running_var",
                                      "num_batches_tracked", "scale", "zero_point"}));
  EXPECT_EQ(bn.state_dict().metadata->at(0).second.at("version").to_int(), 2);
  bn.buffer("scale") = scalar_tensor(0.07, kFloat32);
  bn.buffer("zero_point") = scalar_tensor(10, kInt64);
  EXPECT_TRUE(same_codes(bn(q), quantized::batch_norm2d(q, bn.weight(), bn.bias(),
                                                        bn.running_mean(), bn.running_var(),
                                                        1e-5, static_cast<float>(0.07), 10)));
  nnq::BNReLU2d bnr(3);
  bnr.load_state_dict(bn.state_dict());
  const Tensor r = bnr(q);
  EXPECT_TRUE(equal(int_repr(r), clamp(int_repr(bn(q)), Scalar(10), std::nullopt)));
  expect_error([&] { bnr(qinput({3, 4, 4})); }, "Input shape must be `(N, C, H, W)`!",
               ErrorKind::Value);
}

TEST(QModules, QuantizeWeightClampsToTheObserverRange) {
  // -1.01 / (2 / 255) = -128.8: saturates at -128 in int8, clamped to -127 by a [-127, 127]
  // observer.
  const Tensor w = testing::from_values({-1.01, 0.5, 1.0}, {3});
  const Tensor scale = testing::from_values({2.0 / 255.0}, {1});
  const Tensor zp = testing::from_values({0}, {1}, kInt32);
  const Tensor full = nnq::quantize_weight(w, scale, zp, QScheme::PerTensorSymmetric, 0, -128, 127);
  const Tensor narrow = nnq::quantize_weight(w, scale, zp, QScheme::PerTensorSymmetric, 0, -127, 127);
  EXPECT_EQ(testing::values(int_repr(full))[0], -128);
  EXPECT_EQ(testing::values(int_repr(narrow))[0], -127);
  EXPECT_EQ(q_scale(narrow), q_scale(full));
}

}  // namespace
}  // namespace ember
