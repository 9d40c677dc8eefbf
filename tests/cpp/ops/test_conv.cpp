// Convolutions: values against torch 1.13 (pasted) and against the scalar reference, oneDNN
// (float32) vs conv_ref (float64) over many geometries and both memory formats, meta, errors,
// gradients (gradcheck / gradgradcheck) and the primitive cache.
#include "../../../src/backends/cpu/conv_kernels.h"
#include "../testing.h"
#include "ember/warning.h"
#include "ember/autograd/autograd.h"
#include "ember/autograd/gradcheck.h"

namespace ember {
namespace {

using testing::expect_error;
using testing::expect_values;
using testing::values;

Tensor iota_scaled(IntArrayRef sizes, double offset, double scale) {
  return (testing::iota(sizes, kFloat64) + offset) * scale;
}

TEST(Conv, Conv2dMatchesTorch) {
  // torch: F.conv2d(x, w, b, stride=2, padding=1, groups=2), x = arange/10, w = (arange-30)/100
  Tensor x = iota_scaled({1, 4, 5, 5}, 0, 0.1);
  Tensor w = iota_scaled({4, 2, 3, 3}, -30, 0.01);
  Tensor b = testing::from_values({0.5, -1., 2., 0.25}, {4}, kFloat64);
  const std::vector<double> expected{
      -1.436, -2.852, -2.052, -4.498, -7.777, -5.566, -4.508, -7.604, -5.316,
      -0.704, -0.68,  -0.888, -1.03,  -1.339, -1.45,  -1.616, -2.192, -1.992,
      11.128, 15.592, 10.976, 15.938, 22.649, 15.566, 11.176, 15.52,  10.832,
      18.81,  28.314, 19.09,  29.956, 45.037, 30.232, 21.018, 31.482, 21.106};
  for (ScalarType dt : {kFloat64, kFloat32}) {
    for (MemoryFormat f : {MemoryFormat::Contiguous, MemoryFormat::ChannelsLast}) {
      Tensor y = conv2d(x.to(dt).contiguous(f), w.to(dt), b.to(dt), {2, 2}, {1, 1}, {1, 1}, 2);
      expect_values(y, {1, 4, 3, 3}, expected, 1e-5, 1e-4);
      EXPECT_EQ(y.is_contiguous(MemoryFormat::ChannelsLast), f == MemoryFormat::ChannelsLast);
    }
  }
  // bfloat16 and int64 run the direct loop
  Tensor yb = conv2d(x.to(kBFloat16), w.to(kBFloat16), b.to(kBFloat16), {2, 2}, {1, 1}, {1, 1}, 2);
  expect_values(yb, {1, 4, 3, 3}, expected, 3e-2, 0.3);
  Tensor xi = testing::iota({1, 2, 3, 3}, kInt64), wi = testing::iota({1, 2, 2, 2}, kInt64);
  expect_values(conv2d(xi, wi), {1, 1, 2, 2}, {268, 296, 352, 380});
}

TEST(Conv, GradientsMatchTorch) {
  Tensor x = iota_scaled({1, 4, 5, 5}, 0, 0.1).requires_grad_();
  Tensor w = iota_scaled({4, 2, 3, 3}, -30, 0.01).requires_grad_();
  Tensor b = testing::from_values({0.5, -1., 2., 0.25}, {4}, kFloat64).requires_grad_();
  Tensor y = conv2d(x, w, b, {2, 2}, {1, 1}, {1, 1}, 2);
  EXPECT_EQ(y.grad_fn()->name(), "ConvolutionBackward0");
  (y * y).sum().backward();
  expect_values(w.grad()[0][0], {3, 3},
                {-61.7084, -84.983, -59.6408, -89.773, -123.0344, -86.0262, -51.6296, -70.209, -48.6772},
                1e-9, 1e-9);
  expect_values(b.grad(), {4}, {-83.218, -23.782, 258.754, 490.09}, 1e-9, 1e-9);
  expect_values(x.grad()[0][0], {5, 5},
                {0.85936, 2.47904, 1.59184, 2.78912, 1.20912, 3.5664, 9.85116, 6.18516, 10.71132,
                 4.58, 2.50376, 6.8338, 4.25828, 7.3426, 3.12632, 5.14224, 13.89132, 8.60388,
                 14.739, 6.22688, 2.60272, 6.98096, 4.3048, 7.33808, 3.08304},
                1e-9, 1e-9);
  Tensor x2 = iota_scaled({1, 3, 5, 5}, 0, 0.1).requires_grad_();
  Tensor y2 = conv2d(x2, iota_scaled({2, 3, 3, 3}, 0, 0.1));
  auto g = autograd::grad({y2.sum()}, {x2}, {}, std::nullopt, /*create_graph=*/true);
  EXPECT_EQ(g[0].grad_fn()->name(), "ConvolutionBackwardBackward0");
}

TEST(Conv, Conv1dSameAndTransposeMatchTorch) {
  Tensor x = iota_scaled({2, 3, 7}, 0, 1.0 / 7) - 1;
  Tensor w = iota_scaled({2, 3, 4}, -10, 0.1);
  std::vector<std::string> warnings;
  Tensor y = conv1d(x, w, std::nullopt, {1}, "same");
  expect_values(y, {2, 2, 7},
                {1.971429,  2.257143,   1.485714,   0.714286,   -0.057143,  -0.728571, -0.971429,
                 3.514286,  5.342857,   6.628571,   7.914286,   9.2,        6.985714,  4.685714,
                 -8.828571, -13.942857, -14.714286, -15.485714, -16.257143, -14.228571, -10.871429,
                 25.114286, 32.342857,  33.628571,  34.914286,  36.2,       25.885714, 16.385714},
                1e-6, 1e-5);
  expect_values(conv1d(x.to(kFloat32), w.to(kFloat32), std::nullopt, {1}, "same"), {2, 2, 7},
                values(y), 1e-5, 1e-5);
  expect_values(conv1d(x, w, std::nullopt, {1}, "valid"), {2, 2, 4}, values(conv1d(x, w)));

  Tensor xt = iota_scaled({1, 2, 3, 3}, 0, 0.2);
  Tensor wt = iota_scaled({2, 3, 2, 2}, -5, 0.1);
  Tensor bt = testing::from_values({1., 0., -1.}, {3}, kFloat64);
  const std::vector<double> expected{
      2.8,  2.74, 2.96, 2.86, 3.12, 2.68, 2.42, 2.76, 2.46, 2.84, 3.28, 3.1,  3.44, 3.22, 3.6,
      2.92, 2.54, 3.0,  2.58, 3.08, 3.76, 3.46, 3.92, 3.58, 4.08, 2.52, 2.62, 2.84, 2.9,  3.16,
      2.88, 2.78, 3.12, 2.98, 3.36, 3.48, 3.46, 3.8,  3.74, 4.12, 3.6,  3.38, 3.84, 3.58, 4.08,
      4.44, 4.3,  4.76, 4.58, 5.08, 2.24, 2.5,  2.72, 2.94, 3.2,  3.08, 3.14, 3.48, 3.5,  3.88,
      3.68, 3.82, 4.16, 4.26, 4.64, 4.28, 4.22, 4.68, 4.58, 5.08, 5.12, 5.14, 5.6,  5.58, 6.08};
  for (ScalarType dt : {kFloat64, kFloat32}) {
    Tensor yt = conv_transpose2d(xt.to(dt), wt.to(dt), bt.to(dt), {2, 2}, {1, 1}, {1, 1});
    expect_values(yt, {1, 3, 5, 5}, expected, 1e-5, 1e-5);
  }
  // unbatched input
  expect_values(conv_transpose2d(xt[0], wt, bt, {2, 2}, {1, 1}, {1, 1}), {3, 5, 5}, expected);
}

struct Case {
  std::vector<int64_t> in, w;
  std::vector<int64_t> stride, padding, dilation, output_padding;
  int64_t groups;
  bool transposed;
};

// float32 (oneDNN) against the float64 reference, forward and all three gradients.
TEST(Conv, OneDnnMatchesReference) {
  const std::vector<Case> cases{
      {{2, 3, 9, 9}, {8, 3, 3, 3}, {1, 1}, {1, 1}, {1, 1}, {0, 0}, 1, false},
      {{1, 16, 14, 14}, {16, 1, 3, 3}, {2, 2}, {1, 1}, {1, 1}, {0, 0}, 16, false},  // depthwise
      {{2, 32, 7, 7}, {24, 32, 1, 1}, {1, 1}, {0, 0}, {1, 1}, {0, 0}, 1, false},    // pointwise
      {{1, 8, 10, 11}, {6, 4, 3, 2}, {2, 1}, {2, 0}, {2, 3}, {0, 0}, 2, false},     // dilated, groups
      {{2, 4, 5, 5}, {4, 3, 3, 3}, {2, 2}, {1, 1}, {1, 1}, {1, 1}, 1, true},        // transposed
      {{1, 6, 4, 4}, {6, 2, 3, 3}, {1, 2}, {0, 1}, {2, 1}, {1, 0}, 3, true},
      {{2, 3, 11}, {5, 3, 4}, {2}, {1}, {2}, {0}, 1, false},                        // 1-d
      {{1, 2, 4, 5, 5}, {4, 2, 2, 3, 3}, {1, 2, 1}, {1, 0, 1}, {1, 1, 2}, {0, 0, 0}, 1, false},
  };
  manual_seed(0);
  for (const Case& c : cases) {
    for (MemoryFormat f : {MemoryFormat::Contiguous, MemoryFormat::ChannelsLast}) {
      if (f == MemoryFormat::ChannelsLast && c.in.size() != 4) continue;
      SCOPED_TRACE(::testing::Message() << "input " << IntArrayRef(c.in) << " weight "
                                        << IntArrayRef(c.w) << " transposed " << c.transposed
                                        << " format " << f);
      Tensor x = randn(c.in, kFloat64), w = randn(c.w, kFloat64);
      const int64_t oc = c.transposed ? c.w[1] * c.groups : c.w[0];
      Tensor b = randn({oc}, kFloat64);
      auto run = [&](ScalarType dt, bool grad) {
        Tensor xx = x.to(dt).detach(), ww = w.to(dt).detach(), bb = b.to(dt).detach();
        if (f == MemoryFormat::ChannelsLast) xx = xx.contiguous(f);
        if (grad) {
          xx.requires_grad_();
          ww.requires_grad_();
          bb.requires_grad_();
        }
        Tensor y = convolution(xx, ww, bb, c.stride, c.padding, c.dilation, c.transposed,
                               c.output_padding, c.groups);
        if (!grad) return std::vector<Tensor>{y};
        Tensor gy = testing::iota(y.sizes(), kFloat64).sin().to(dt);
        y.backward(gy);
        return std::vector<Tensor>{y, xx.grad(), ww.grad(), bb.grad()};
      };
      auto ref = run(kFloat64, true), got = run(kFloat32, true);
      for (size_t i = 0; i < ref.size(); ++i) {
        SCOPED_TRACE(i);
        ASSERT_TRUE(ref[i].defined() && got[i].defined());
        double scale = 0;
        for (double v : values(ref[i])) scale = std::max(scale, std::abs(v));
        expect_values(got[i], ref[i].sizes(), values(ref[i]), 1e-4, 1e-5 * (1 + scale));
      }
      EXPECT_EQ(got[0].is_contiguous(MemoryFormat::ChannelsLast), f == MemoryFormat::ChannelsLast);
    }
  }
}

TEST(Conv, KernelsDirectlyAgainstReference) {
  // the dispatching entry points vs the *_ref kernels on float32 (oneDNN used for the former)
  manual_seed(1);
  Tensor x = randn({2, 8, 9, 9}).contiguous(MemoryFormat::ChannelsLast);
  Tensor w = randn({16, 4, 3, 3});
  cpu::ConvGeometry g{{2, 2}, {1, 1}, {1, 1}, 2};
  Tensor a = empty({2, 16, 5, 5}), r = empty({2, 16, 5, 5});
  ASSERT_TRUE(cpu::conv_forward_onednn(a, x, w, std::nullopt, g));
  cpu::conv_forward_ref(r, x, w, std::nullopt, g);
  expect_values(a, {2, 16, 5, 5}, values(r), 1e-4, 1e-4);
}

TEST(Conv, NonContiguousInputs) {
  manual_seed(2);
  Tensor base = randn({2, 6, 7, 3}, kFloat64);
  Tensor x = base.transpose(2, 3);  // [2, 6, 3, 7], neither format
  Tensor w = randn({4, 6, 2, 2}, kFloat64).slice(3, 0, 2, 1);
  Tensor wsl = randn({4, 6, 2, 4}, kFloat64).slice(3, 0, 4, 2);  // strided weight
  for (const Tensor& ww : {w, wsl}) {
    Tensor y64 = conv2d(x, ww, std::nullopt, {1, 1}, {1, 0});
    Tensor yc = conv2d(x.contiguous(), ww.contiguous(), std::nullopt, {1, 1}, {1, 0});
    expect_values(y64, yc.sizes(), values(yc), 1e-12, 1e-12);
    Tensor y32 = conv2d(x.to(kFloat32), ww.to(kFloat32), std::nullopt, {1, 1}, {1, 0});
    expect_values(y32, yc.sizes(), values(yc), 1e-4, 1e-4);
  }
  // a channels_last weight makes the output channels_last
  Tensor y = conv2d(randn({1, 6, 5, 5}), randn({4, 6, 3, 3}).contiguous(MemoryFormat::ChannelsLast));
  EXPECT_TRUE(y.is_contiguous(MemoryFormat::ChannelsLast));
}

TEST(Conv, EmptyAndMeta) {
  Tensor y = conv2d(empty({0, 3, 5, 5}), ones({8, 3, 3, 3}));
  EXPECT_EQ(y.sizes().vec(), (std::vector<int64_t>{0, 8, 3, 3}));
  Tensor m = conv2d(empty({2, 4, 9, 9}, TensorOptions(kFloat32).device(kMeta)),
                    empty({6, 2, 3, 3}, TensorOptions(kFloat32).device(kMeta)), std::nullopt,
                    {2, 2}, {1, 1}, {1, 1}, 2);
  EXPECT_TRUE(m.is_meta());
  EXPECT_EQ(m.sizes().vec(), (std::vector<int64_t>{2, 6, 5, 5}));
  Tensor mt = conv_transpose2d(empty({2, 4, 5, 5}, TensorOptions(kFloat32).device(kMeta)),
                               empty({4, 3, 3, 3}, TensorOptions(kFloat32).device(kMeta)),
                               std::nullopt, {2, 2}, {1, 1}, {1, 1});
  EXPECT_EQ(mt.sizes().vec(), (std::vector<int64_t>{2, 3, 10, 10}));
  auto [gi, gw, gb] = convolution_backward(
      empty({2, 6, 5, 5}, TensorOptions(kFloat32).device(kMeta)),
      empty({2, 4, 9, 9}, TensorOptions(kFloat32).device(kMeta)),
      empty({6, 2, 3, 3}, TensorOptions(kFloat32).device(kMeta)), IntArrayRef({6}), {2, 2},
      {1, 1}, {1, 1}, false, {0, 0}, 2, {true, true, true});
  EXPECT_EQ(gi.sizes().vec(), (std::vector<int64_t>{2, 4, 9, 9}));
  EXPECT_EQ(gw.sizes().vec(), (std::vector<int64_t>{6, 2, 3, 3}));
  EXPECT_EQ(gb.sizes().vec(), (std::vector<int64_t>{6}));
  // a mask leaves gradients undefined
  auto [a, bw, c] = convolution_backward(ones({1, 2, 3, 3}), ones({1, 1, 5, 5}), ones({2, 1, 3, 3}),
                                         std::nullopt, {1, 1}, {0, 0}, {1, 1}, false, {0, 0}, 1,
                                         {false, true, false});
  EXPECT_FALSE(a.defined());
  EXPECT_FALSE(c.defined());
  expect_values(bw.sum({2, 3}), {2, 1}, {81, 81});
}

TEST(Conv, Errors) {
  Tensor x = ones({2, 3, 5, 5}), w = ones({8, 3, 3, 3});
  expect_error([&] { conv2d(ones({2, 3}), w); },
               "Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: [2, 3]");
  expect_error([&] { convolution(ones({3, 5, 5}), w, std::nullopt, {1, 1}, {0, 0}, {1, 1}, false, {0, 0}, 1); },
               "Expected 4-dimensional input for 4-dimensional weight [8, 3, 3, 3], but got "
               "3-dimensional input of size [3, 5, 5] instead");
  expect_error([&] { conv2d(ones({1, 4, 5, 5}), w); },
               "Given groups=1, weight of size [8, 3, 3, 3], expected input[1, 4, 5, 5] to have 3 "
               "channels, but got 4 channels instead");
  expect_error([&] { conv2d(ones({1, 3, 2, 2}), w); },
               "Calculated padded input size per channel: (2 x 2). Kernel size: (3 x 3). Kernel "
               "size can't be greater than actual input size");
  expect_error([&] { conv2d(x, w, std::nullopt, {0, 0}); }, "non-positive stride is not supported");
  expect_error([&] { conv2d(x, w, std::nullopt, {1, 1}, {-1, -1}); }, "negative padding is not supported");
  expect_error([&] { conv2d(x, w, std::nullopt, {1, 1}, {0, 0}, {0, 0}); },
               "non-positive dilation is not supported");
  expect_error([&] { conv2d(x, w, std::nullopt, {1, 1}, {0, 0}, {1, 1}, 0); },
               "non-positive groups is not supported");
  expect_error([&] { conv2d(ones({1, 4, 5, 5}), ones({3, 2, 3, 3}), std::nullopt, {1, 1}, {0, 0}, {1, 1}, 2); },
               "Given groups=2, expected weight to be divisible by 2 at dimension 0, but got weight "
               "of size [[3, 2, 3, 3]] instead");
  expect_error([&] { conv2d(x, w, ones({4})); },
               "Given weight of size [8, 3, 3, 3], expected bias to be 1-dimensional with 8 "
               "elements, but got bias of size [4] instead");
  expect_error([&] { conv2d(x, w, std::nullopt, {1, 1, 1}); },
               "expected stride to be a single integer value or a list of 2 values to match the "
               "convolution dimensions, but got stride=[1, 1, 1]");
  expect_error([&] { conv2d(x.to(kFloat64), w); }, "expected scalar type Double but found Float");
  expect_error([&] { conv2d(x, w.to(kFloat64)); },
               "Input type (ember.FloatTensor) and weight type (ember.DoubleTensor) should be the same");
  expect_error([&] { conv2d(x, w, ones({8}, kFloat64)); },
               "Input type (float) and bias type (double) should be the same");
  expect_error([&] { conv2d(x.to(kFloat16), w.to(kFloat16)); },
               "\"slow_conv2d_cpu\" not implemented for 'Half'", ErrorKind::NotImplemented);
  expect_error([&] { conv2d(x, w, std::nullopt, {2, 2}, "same"); },
               "padding='same' is not supported for strided convolutions");
  expect_error([&] { conv2d(x, w, std::nullopt, {1, 1}, "foo"); }, "Invalid padding string: 'foo'");
  expect_error([&] { conv_transpose2d(ones({1, 4, 5, 5}), ones({3, 2, 3, 3})); },
               "Given transposed=1, weight of size [3, 2, 3, 3], expected input[1, 4, 5, 5] to have "
               "3 channels, but got 4 channels instead");
  expect_error([&] { conv_transpose2d(ones({1, 3, 5, 5}), ones({3, 2, 3, 3}), std::nullopt, {1, 1}, {0, 0}, {1, 1}); },
               "output padding must be smaller than either stride or dilation, but got "
               "output_padding_height: 1 output_padding_width: 1 stride_height: 1 stride_width: 1 "
               "dilation_height: 1 dilation_width: 1");
  expect_error([&] { convolution(x, ones({8}), std::nullopt, {1, 1}, {0, 0}, {1, 1}, false, {0, 0}, 1); },
               "weight should have at least three dimensions");
  // a failing op leaves its inputs unchanged
  EXPECT_EQ(x.version(), 0u);
}

TEST(Conv, SamePaddingEvenKernelWarns) {
  WarningCapture warnings;
  Tensor y = conv2d(ones({1, 3, 5, 5}), ones({2, 3, 2, 4}), std::nullopt, {1, 1}, "same");
  EXPECT_EQ(y.sizes().vec(), (std::vector<int64_t>{1, 2, 5, 5}));
  ASSERT_EQ(warnings.messages.size(), 1u);
  // the corner output sees 2 x 3 of the ones (the rest is padding): 3 channels
  EXPECT_DOUBLE_EQ(y[0][0][0][0].item<double>(), 18.0);
  EXPECT_DOUBLE_EQ(y[0][0][4][4].item<double>(), 6.0);  // 1 x 2 of the ones, 3 channels
}

TEST(Conv, PrimitiveCacheIsReused) {
  Tensor x = randn({1, 8, 12, 12}).contiguous(MemoryFormat::ChannelsLast), w = randn({8, 1, 3, 3});
  conv2d(x, w, std::nullopt, {1, 1}, {1, 1}, {1, 1}, 8);
  const size_t n = cpu::conv_onednn_cache_size();
  for (int i = 0; i < 5; ++i) conv2d(x, w, std::nullopt, {1, 1}, {1, 1}, {1, 1}, 8);
  EXPECT_EQ(cpu::conv_onednn_cache_size(), n);
  // an in-place change of the weight is seen (the cached reordered copy is refreshed)
  Tensor before = conv2d(x, w, std::nullopt, {1, 1}, {1, 1}, {1, 1}, 8);
  w.mul_(2);
  Tensor after = conv2d(x, w, std::nullopt, {1, 1}, {1, 1}, {1, 1}, 8);
  expect_values(after, after.sizes(), values(before * 2), 1e-5, 1e-5);
}

using autograd::tensor_list;

TEST(GradConv, GradcheckAndGradgradcheck) {
  manual_seed(3);
  struct G {
    std::vector<int64_t> in, w, stride, padding, dilation, output_padding;
    int64_t groups;
    bool transposed;
  };
  const std::vector<G> cases{
      {{2, 2, 5, 5}, {3, 2, 3, 3}, {1, 1}, {1, 1}, {1, 1}, {0, 0}, 1, false},
      {{1, 4, 6, 5}, {4, 2, 2, 3}, {2, 1}, {0, 1}, {1, 2}, {0, 0}, 2, false},
      {{1, 3, 4, 4}, {3, 1, 3, 3}, {1, 1}, {1, 1}, {1, 1}, {0, 0}, 3, false},  // depthwise
      {{1, 2, 3, 3}, {2, 2, 3, 3}, {2, 2}, {1, 1}, {1, 1}, {1, 1}, 1, true},
      {{2, 2, 7}, {3, 2, 3}, {2}, {1}, {1}, {0}, 1, false},
  };
  for (const G& c : cases) {
    SCOPED_TRACE(::testing::Message() << IntArrayRef(c.in) << " " << IntArrayRef(c.w));
    Tensor x = randn(c.in, kFloat64).requires_grad_();
    Tensor w = randn(c.w, kFloat64).requires_grad_();
    Tensor b = randn({c.transposed ? c.w[1] * c.groups : c.w[0]}, kFloat64).requires_grad_();
    auto f = [&](const tensor_list& in) {
      return tensor_list{convolution(in[0], in[1], in[2], c.stride, c.padding, c.dilation,
                                     c.transposed, c.output_padding, c.groups)};
    };
    EXPECT_TRUE(autograd::gradcheck(f, {x, w, b}));
    EXPECT_TRUE(autograd::gradgradcheck(f, {x, w, b}));
  }
  // non-contiguous (transposed view) and channels_last inputs, no bias
  Tensor x = randn({1, 2, 4, 5}, kFloat64).transpose(2, 3).requires_grad_();
  Tensor w = randn({2, 2, 2, 2}, kFloat64).contiguous(MemoryFormat::ChannelsLast).requires_grad_();
  auto f = [](const tensor_list& in) { return tensor_list{conv2d(in[0], in[1])}; };
  EXPECT_TRUE(autograd::gradcheck(f, {x, w}));
  EXPECT_TRUE(autograd::gradgradcheck(f, {x, w}));
  // padding "same" with an even kernel (the zero-padded copy is differentiable too)
  Tensor x1 = randn({1, 2, 6}, kFloat64).requires_grad_(), w1 = randn({2, 2, 4}, kFloat64).requires_grad_();
  auto f1 = [](const tensor_list& in) {
    WarningCapture quiet;
    return tensor_list{conv1d(in[0], in[1], std::nullopt, {1}, "same")};
  };
  EXPECT_TRUE(autograd::gradcheck(f1, {x1, w1}));
  EXPECT_TRUE(autograd::gradgradcheck(f1, {x1, w1}));
}

}  // namespace
}  // namespace ember
