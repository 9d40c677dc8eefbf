// Views, copies, comparisons and fake quantization of quantized tensors in C++ (the Python tests
// compare the same against torch 1.13 in more cases).
#include "ember/quantized/tensor.h"
#include "quant/quantizer.h"
#include "testing.h"

namespace ember {
namespace {

using testing::expect_error;
using testing::from_values;
using testing::values;

Tensor per_channel_2x3(int64_t axis) {
  Tensor x = from_values({0.5, 1.0, -1.0, 2.0, 0.0, 0.3}, {2, 3});
  const int64_t c = x.size(axis);
  std::vector<double> s, z;
  for (int64_t i = 0; i < c; ++i) {
    s.push_back(0.1 * static_cast<double>(i + 1));
    z.push_back(static_cast<double>(i));
  }
  return quantize_per_channel(x, from_values(s, {c}, kFloat64), from_values(z, {c}, kInt64), axis,
                              kQUInt8);
}

TEST(QTensorOps, PerTensorViewsKeepTheQuantizer) {
  Tensor q = quantize_per_tensor(testing::iota({2, 3, 4}) * 0.1, 0.1, 3, kQUInt8);
  for (const Tensor& v : {q.view({6, 4}), q.select(1, 1), q.slice(2, 1, 3),
                          q.unsqueeze(0), q.transpose(0, 2), q.flatten(), q.expand({2, 3, 4})}) {
    EXPECT_EQ(v.q_scale(), 0.1);
    EXPECT_EQ(v.q_zero_point(), 3);
  }
}

TEST(QTensorOps, PerChannelAxisFollowsTheView) {
  Tensor p = per_channel_2x3(1);
  EXPECT_EQ(p.select(0, 1).q_per_channel_axis(), 0);
  EXPECT_EQ(p.unsqueeze(0).q_per_channel_axis(), 2);
  EXPECT_EQ(p.unsqueeze(0).squeeze().q_per_channel_axis(), 1);
  Tensor one = p.select(1, 2);  // the axis itself: that channel's per-tensor parameters
  EXPECT_EQ(one.qscheme(), QScheme::PerTensorAffine);
  EXPECT_EQ(one.q_scale(), 0.1 * 3);
  EXPECT_EQ(one.q_zero_point(), 2);
  Tensor s = p.slice(1, 1, 3);
  EXPECT_EQ(values(s.q_per_channel_scales()), (std::vector<double>{0.1 * 2, 0.1 * 3}));
  EXPECT_EQ(values(dequantize(s)), values(dequantize(p).slice(1, 1, 3)));
  expect_error([&] { p.t(); }, "Setting strides is possible only on uniformly quantized tensor");
  expect_error([&] { p.view({3, 2}); }, "must keep its channel axis");
  // one channel left: per-tensor, so squeezing its dim works
  EXPECT_EQ(per_channel_2x3(0).slice(0, 0, 1).squeeze().qscheme(), QScheme::PerTensorAffine);
}

TEST(QTensorOps, CopyCloneFillCompare) {
  Tensor x = from_values({0.5, 1.0, -1.0, 2.0, 0.0, 0.3}, {2, 3});
  Tensor q = quantize_per_tensor(x, 0.1, 3, kQUInt8);
  Tensor c = q.clone();
  EXPECT_TRUE(equal(c, q));
  c.fill_(0.5);
  EXPECT_EQ(values(int_repr(c)), std::vector<double>(6, 8.0));
  EXPECT_FALSE(equal(c, q));
  Tensor other = quantize_per_tensor(x, 0.2, 3, kQUInt8);
  c.copy_(other);  // PyTorch: self takes the source's quantizer with its codes
  EXPECT_EQ(c.q_scale(), 0.2);
  EXPECT_TRUE(equal(c, other));
  c.copy_(x);  // from float: quantized with self's parameters
  EXPECT_TRUE(equal(c, other));
  Tensor f = x.clone();
  expect_error([&] { f.copy_(q); }, "Copying from quantized Tensor to non-quantized Tensor");
  EXPECT_EQ(values(eq(q, other)), values(eq(dequantize(q), dequantize(other))));
  EXPECT_FALSE(equal(q, x));
}

TEST(QTensorOps, OtherOpsRaisePyTorchsError) {
  Tensor q = quantize_per_tensor(from_values({1, 2}, {2}), 0.1, 3, kQUInt8);
  expect_error([&] { q.sum(); }, "Could not run 'aten::sum.IntList_out' with arguments from the 'QuantizedCPU' backend",
               ErrorKind::NotImplemented);
  expect_error([&] { exp(q); }, "Could not run 'aten::exp.out'", ErrorKind::NotImplemented);
  expect_error([&] { q.zero_(); }, "Could not run 'aten::zero_'", ErrorKind::NotImplemented);
}

TEST(QTensorOps, FakeQuantize) {
  Tensor x = from_values({0.5, 1.5, 2.5, -0.5, 300.0}, {5});
  Tensor y = fake_quantize_per_tensor_affine(x, 1.0, 1, 0, 255);
  EXPECT_EQ(values(y), (std::vector<double>{0, 2, 2, 0, 254}));
  Tensor w = from_values({0.5, 1.5, 2.5, -0.5}, {2, 2});
  Tensor yc = fake_quantize_per_channel_affine(w, from_values({1.0, 0.5}, {2}),
                                               from_values({0, 0}, {2}, kInt32), 0, -128, 127);
  EXPECT_EQ(values(yc), (std::vector<double>{0, 2, 2.5, -0.5}));
}

}  // namespace
}  // namespace ember
