// The Object kind of Value, the packed-params objects and the quantized conv / linear ops through
// the dispatcher: boxing round trips, the formula fixed at prepack time, unpack, outputs equal to
// the kernels' scalar references, checks with PyTorch's texts, and dispatch modes seeing the
// object. (Agreement with torch 1.13 itself: tests/python/quantized/test_q{conv,linear}_ops.py.)
#include <gtest/gtest.h>

#include <vector>

#include "backends/cpu/quantized/qconv.h"
#include "ember/quantized/conv_linear.h"
#include "ember/quantized/tensor.h"
#include "quant/packed_params.h"
#include "testing.h"

namespace ember {
namespace {

using quantized::ConvPackedParams;
using quantized::LinearPackedParams;
using testing::expect_error;

// Restores the engine a test changes.
struct EngineGuard {
  QEngine saved = quantized_engine();
  explicit EngineGuard(QEngine e) { set_quantized_engine(e); }
  ~EngineGuard() { set_quantized_engine(saved); }
};

Tensor conv_weight(int64_t o, int64_t c, int64_t k, double scale = 0.02, int64_t zp = 0) {
  return quantize_per_tensor(randn({o, c, k, k}) * 0.5, scale, zp, kQInt8);
}

std::vector<uint8_t> codes_u8(const Tensor& q) {
  Tensor c = int_repr(q).contiguous();
  const auto* p = static_cast<const uint8_t*>(c.data_ptr());
  return std::vector<uint8_t>(p, p + c.numel());
}

TEST(ValueObject, BoxesByReferenceAndChecksTheClass) {
  EngineGuard g(QEngine::QNNPACK);
  auto packed = quantized::linear_prepack(quantize_per_tensor(randn({4, 3}), 0.1, 0, kQInt8));
  Value v(packed);
  EXPECT_TRUE(v.is_object());
  EXPECT_STREQ(v.type_name(), "__torch__.torch.classes.quantized.LinearPackedParamsBase");
  EXPECT_EQ(v.to_object<LinearPackedParams>().get(), packed.get());  // the same object
  expect_error([&] { v.to_object<ConvPackedParams>(); },
               "Tried to convert an IValue of type "
               "__torch__.torch.classes.quantized.LinearPackedParamsBase to custom class type "
               "__torch__.torch.classes.quantized.Conv2dPackedParamsBase");
  EXPECT_TRUE(Value(intrusive_ptr<LinearPackedParams>()).is_none());
  expect_error([] { Value(1).to_object(); }, "expected a value of type Object but got int",
               ErrorKind::Type);
}

TEST(PackedParams, BoxedCallsRoundTripTheObject) {
  EngineGuard g(QEngine::QNNPACK);
  Tensor w = conv_weight(4, 2, 3);
  Stack out = find_op("quantized::conv2d_prepack")
                  .call({w, Value(), std::vector<int64_t>{2, 1}, std::vector<int64_t>{1, 0},
                         std::vector<int64_t>{1, 1}, int64_t{1}});
  ASSERT_EQ(out.size(), 1u);
  ASSERT_TRUE(out[0].is_object());
  Stack stride = find_op("quantized::conv2d_stride").call({out[0]});
  EXPECT_EQ(stride[0].to_int_list(), (std::vector<int64_t>{2, 1}));
  Stack unpacked = find_op("quantized::conv2d_unpack").call({out[0]});
  ASSERT_EQ(unpacked.size(), 2u);
  EXPECT_EQ(unpacked[0].to_tensor().impl(), w.impl());  // the weight given, not a copy
  EXPECT_TRUE(unpacked[1].is_tensor());                 // qnnpack: a zero bias
  EXPECT_EQ(testing::values(unpacked[1].to_tensor()), std::vector<double>(4, 0.0));
}

TEST(PackedParams, FormulaIsFixedAtPrepackTime) {
  Tensor w = conv_weight(8, 4, 3);
  Tensor b = randn({8});
  intrusive_ptr<ConvPackedParams> qnnp, dnnl;
  {
    EngineGuard g(QEngine::QNNPACK);
    qnnp = quantized::conv2d_prepack(w, b, {1, 1}, {1, 1}, {1, 1}, 1);
  }
  {
    EngineGuard g(QEngine::ONEDNN);
    dnnl = quantized::conv2d_prepack(w, b, {1, 1}, {1, 1}, {1, 1}, 1);
  }
  EXPECT_EQ(qnnp->formula(), cpu::quantized::QFormula::Qnnpack);
  EXPECT_EQ(dnnl->formula(), cpu::quantized::QFormula::Onednn);
  Tensor x = quantize_per_tensor(rand({2, 4, 9, 7}), 0.011, 17, kQUInt8);
  EngineGuard g(QEngine::ONEDNN);  // the engine at call time does not matter
  for (const auto& p : {qnnp, dnnl}) {
    for (bool relu : {false, true}) {
      Tensor y = relu ? quantized::conv2d_relu(x, p, 0.03, 40) : quantized::conv2d(x, p, 0.03, 40);
      EXPECT_EQ(y.sizes().vec(), (std::vector<int64_t>{2, 8, 9, 7}));
      EXPECT_TRUE(y.is_contiguous(MemoryFormat::ChannelsLast));
      EXPECT_EQ(q_scale(y), 0.03);
      EXPECT_EQ(q_zero_point(y), 40);
      // the kernel's scalar reference on the same codes
      cpu::quantized::QConvGeometry geo{4, 8, 1, 3, 3, 1, 1, 1, 1, 1, 1};
      Tensor xc = int_repr(x).contiguous(MemoryFormat::ChannelsLast);
      Tensor wc = int_repr(w).contiguous();
      double ws = q_scale(w);
      int64_t wz = 0;
      std::vector<uint8_t> ref(static_cast<size_t>(y.numel()));
      cpu::quantized::qconv2d_ref(p->formula(), geo, static_cast<const int8_t*>(wc.data_ptr()), &ws,
                                  &wz, 1, b.data_ptr<float>(),
                                  static_cast<const uint8_t*>(xc.data_ptr()), 2, 9, 7, 0.011, 17,
                                  ref.data(), 0.03, 40, relu);
      // y is channels_last: its memory order is the reference's NHWC order
      Tensor yc = int_repr(y).contiguous(MemoryFormat::ChannelsLast);
      const auto* yp = static_cast<const uint8_t*>(yc.data_ptr());
      EXPECT_EQ(std::vector<uint8_t>(yp, yp + yc.numel()), ref);
    }
  }
}

TEST(PackedParams, EngineChecksAndTexts) {
  Tensor w3 = conv_weight(4, 2, 3, 0.1, 3);
  {
    EngineGuard g(QEngine::ONEDNN);
    expect_error([&] { quantized::conv2d_prepack(w3, std::nullopt, {1, 1}, {0, 0}, {1, 1}, 1); },
                 "quantized::qconv_prepack: ONEDNN only supports symmetric quantization of "
                 "weight, whose zero point must be 0.");
    Tensor w = conv_weight(4, 2, 3);
    auto p = quantized::conv2d_prepack(w, std::nullopt, {1, 1}, {0, 0}, {1, 1}, 1);
    EXPECT_FALSE(std::get<1>(quantized::conv2d_unpack(p)).has_value());  // onednn keeps None
    expect_error([&] { quantized::conv2d_prepack(w, zeros({3}), {1, 1}, {0, 0}, {1, 1}, 1); },
                 "bias should have K elements: 4");
  }
  EngineGuard g(QEngine::QNNPACK);
  auto p = quantized::conv2d_prepack(w3, std::nullopt, {1, 1}, {0, 0}, {1, 1}, 1);  // accepted
  Tensor x = quantize_per_tensor(rand({1, 2, 5, 5}), 0.02, 10, kQUInt8);
  Tensor x3 = quantize_per_tensor(rand({2, 5, 5}), 0.02, 10, kQUInt8);
  expect_error([&] { quantized::conv2d(x3, p, 0.1, 0); },
               "quantized::conv2d(): Expected activation tensor to have 4 dimensions, got 3");
  expect_error([&] { quantized::conv2d(rand({1, 2, 5, 5}), p, 0.1, 0); },
               "Could not run 'quantized::conv2d.new' with arguments from the 'CPU' backend",
               ErrorKind::NotImplemented);
  expect_error([&] { quantized::conv2d_prepack(w3, zeros({3}), {1, 1}, {0, 0}, {1, 1}, 1); },
               "quantized::conv2d_prepack (qnnpack): expected bias to be 1-dimensional with 4 "
               "elements, but got bias of size [3] instead. (weight dimensions: [4, 2, 3, 3] , "
               "transpose: False).");
}

TEST(PackedParams, LinearMatchesReferenceAndKeepsLeadingDims) {
  EngineGuard g(QEngine::QNNPACK);
  Tensor w = quantize_per_tensor(randn({5, 6}), 0.03, 0, kQInt8);
  Tensor b = randn({5});
  auto p = quantized::linear_prepack(w, b);
  Tensor x = quantize_per_tensor(rand({2, 3, 6}), 0.01, 3, kQUInt8);
  Tensor y = quantized::linear_relu(x, p, 0.05, 9);
  EXPECT_EQ(y.sizes().vec(), (std::vector<int64_t>{2, 3, 5}));
  Tensor wc = int_repr(w).contiguous();
  double ws = q_scale(w);
  int64_t wz = 0;
  std::vector<uint8_t> ref(30);
  std::vector<uint8_t> xs = codes_u8(x);
  cpu::quantized::qlinear_ref(cpu::quantized::QFormula::Qnnpack, 6, 5,
                              static_cast<const int8_t*>(wc.data_ptr()), &ws, &wz, 1,
                              b.data_ptr<float>(), xs.data(), 6, 0.01, 3, ref.data(), 0.05, 9, true);
  EXPECT_EQ(codes_u8(y), ref);
  Tensor yd = quantized::linear_dynamic(rand({4, 6}), p);
  EXPECT_EQ(yd.dtype(), kFloat32);
  EXPECT_EQ(yd.sizes().vec(), (std::vector<int64_t>{4, 5}));
}

struct Recorder : DispatchMode {
  std::vector<std::string> names;
  std::vector<Value> objects;
  std::optional<Stack> torch_dispatch(const OpHandle& op, const Stack& args) override {
    names.push_back(op.full_name());
    for (const Value& v : args)
      if (v.is_object()) objects.push_back(v);
    return op.call(args);
  }
};

TEST(PackedParams, DispatchModesSeeTheObject) {
  EngineGuard g(QEngine::QNNPACK);
  Tensor w = conv_weight(4, 2, 3);
  auto rec = make_intrusive<Recorder>();
  Tensor x = quantize_per_tensor(rand({1, 2, 4, 4}), 0.02, 0, kQUInt8);
  intrusive_ptr<ConvPackedParams> p;
  {
    DispatchModeGuard guard(rec);
    p = quantized::conv2d_prepack(w, std::nullopt, {1, 1}, {0, 0}, {1, 1}, 1);
    quantized::conv2d(x, p, 0.1, 0);
  }
  EXPECT_EQ(rec->names, (std::vector<std::string>{"quantized::conv2d_prepack",
                                                   "quantized::conv2d.new"}));
  ASSERT_EQ(rec->objects.size(), 1u);
  EXPECT_EQ(rec->objects[0].to_object().get(), p.get());
}

}  // namespace
}  // namespace ember
