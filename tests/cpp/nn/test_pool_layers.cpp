// nn::MaxPool2d, AvgPool2d, AdaptiveAvgPool2d, AdaptiveMaxPool2d, Upsample, Dropout2d: reprs as
// torch 1.13 prints them (ints kept as ints), return_indices through the boxed forward, None
// output sizes, and outputs against values computed with torch.
#include <gtest/gtest.h>

#include "../testing.h"
#include "ember/nn.h"
#include "ember/warning.h"

namespace ember {
namespace {

using testing::expect_error;
using testing::expect_values;

// (i * 7) % 11 over [1, 2, 5, 6], as the torch reference script.
Tensor input() { return (testing::iota({1, 2, 5, 6}) * 7).remainder(11); }

TEST(PoolLayers, ReprMatchesTorch) {
  EXPECT_EQ(nn::MaxPool2d(2).repr(),
            "MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)");
  EXPECT_EQ(nn::MaxPool2d(3, 2, 1, 1, false, true).repr(),
            "MaxPool2d(kernel_size=3, stride=2, padding=1, dilation=1, ceil_mode=True)");
  EXPECT_EQ(nn::MaxPool2d({3, 2}, std::nullopt, 0, 2, true).repr(),
            "MaxPool2d(kernel_size=(3, 2), stride=(3, 2), padding=0, dilation=2, "
            "ceil_mode=False)");
  EXPECT_EQ(nn::AvgPool2d(2).repr(), "AvgPool2d(kernel_size=2, stride=2, padding=0)");
  EXPECT_EQ(nn::AvgPool2d(3, 1, 1, true, false, 2).repr(),
            "AvgPool2d(kernel_size=3, stride=1, padding=1)");
  EXPECT_EQ(nn::AdaptiveAvgPool2d({1, 1}).repr(), "AdaptiveAvgPool2d(output_size=(1, 1))");
  EXPECT_EQ(nn::AdaptiveAvgPool2d(7).repr(), "AdaptiveAvgPool2d(output_size=7)");
  EXPECT_EQ(nn::AdaptiveAvgPool2d({std::nullopt, 3}).repr(),
            "AdaptiveAvgPool2d(output_size=(None, 3))");
  EXPECT_EQ(nn::AdaptiveMaxPool2d(2).repr(), "AdaptiveMaxPool2d(output_size=2)");
  EXPECT_EQ(nn::Dropout2d().repr(), "Dropout2d(p=0.5, inplace=False)");
  EXPECT_EQ(nn::Dropout2d(0.3, true).repr(), "Dropout2d(p=0.3, inplace=True)");
  EXPECT_EQ(nn::Upsample(std::nullopt, std::vector<double>{2}).repr(),
            "Upsample(scale_factor=2.0, mode=nearest)");
  EXPECT_EQ(nn::Upsample(nn::IntOrTuple{4, 5}, std::nullopt, "bilinear", true).repr(),
            "Upsample(size=(4, 5), mode=bilinear)");
  EXPECT_EQ(nn::Upsample(std::nullopt, std::vector<double>{2.0, 1.5}, "bilinear").repr(),
            "Upsample(scale_factor=(2.0, 1.5), mode=bilinear)");
  EXPECT_EQ(nn::Upsample(4).repr(), "Upsample(size=4, mode=nearest)");
  // No parameters or buffers anywhere.
  EXPECT_TRUE(nn::MaxPool2d(2).state_dict().empty());
}

TEST(PoolLayers, MaxPoolValuesAndIndices) {
  nn::MaxPool2d m(3, 2, 1, 1, /*return_indices=*/true);
  const std::vector<double> want_v{9, 10, 10, 9, 10, 9, 10, 10, 9, 10, 9, 9, 10, 9, 10, 6, 9, 10};
  const std::vector<double> want_i{6, 3, 3, 6, 14, 17, 25, 25, 28, 6, 9, 9, 6, 9, 17, 18, 20, 28};
  expect_values(m.forward(input()), {1, 2, 3, 3}, want_v);  // the typed forward: values only
  const auto out = m.call({input()}).to_tensor_list();  // PyTorch's (values, indices)
  ASSERT_EQ(out.size(), 2u);
  expect_values(out[0], {1, 2, 3, 3}, want_v);
  EXPECT_EQ(out[1].dtype(), kInt64);
  expect_values(out[1], {1, 2, 3, 3}, want_i);
  EXPECT_EQ(nn::MaxPool2d(2, std::nullopt, 0, 1, false, true)(input()).sizes().vec(),
            (std::vector<int64_t>{1, 2, 3, 3}));
  EXPECT_TRUE(nn::MaxPool2d(2).call({input()}).is_tensor());
}

TEST(PoolLayers, AvgAndAdaptivePools) {
  nn::AvgPool2d a(3, 1, 1, false, /*count_include_pad=*/false);
  expect_values(a(input()).select(0, 0).select(0, 0).slice(0, 0, 2), {2, 6},
                {5.25, 4.1666665, 5.6666665, 5.3333335, 5, 3, 5.1666665, 5, 5.8888888, 5.5555553,
                 5.2222223, 3.8333333},
                1e-6);
  // None keeps the input's height.
  nn::AdaptiveAvgPool2d rows({std::nullopt, 2});
  expect_values(rows(input()), {1, 2, 5, 2},
                {3.3333333, 6, 5, 4, 6.6666665, 5.6666665, 4.6666665, 3.6666667, 6.3333335,
                 5.3333335, 4.3333335, 3.3333333, 6, 5, 4, 6.6666665, 5.6666665, 4.6666665,
                 3.6666667, 6.3333335},
                1e-6);
  nn::AdaptiveAvgPool2d gap(1);
  EXPECT_EQ(gap(input()).sizes().vec(), (std::vector<int64_t>{1, 2, 1, 1}));
  expect_error([&] { rows(ones({2})); }, "Input dimension should be at least 3",
               ErrorKind::Value);
  nn::AdaptiveMaxPool2d mx(2, true);
  const auto out = mx.call({input()}).to_tensor_list();
  expect_values(out[0], {1, 2, 2, 2}, {10, 10, 10, 9, 10, 10, 9, 10});
  expect_values(out[1], {1, 2, 2, 2}, {14, 3, 14, 17, 6, 17, 20, 17});
  expect_values(nn::AdaptiveMaxPool2d(2)(input()), {1, 2, 2, 2}, {10, 10, 10, 9, 10, 10, 9, 10});
}

TEST(PoolLayers, Upsample) {
  const Tensor x = input().slice(2, 0, 2).slice(3, 0, 2);
  nn::Upsample up(std::nullopt, std::vector<double>{2});
  expect_values(up(x).select(0, 0).select(0, 0), {4, 4},
                {0, 0, 7, 7, 0, 0, 7, 7, 9, 9, 5, 5, 9, 9, 5, 5});
  nn::Upsample bil(nn::IntOrTuple{3, 3}, std::nullopt, "bilinear", true);
  expect_values(bil(x.slice(1, 0, 1)), {1, 1, 3, 3}, {0, 3.5, 7, 4.5, 5.25, 6, 9, 7, 5}, 1e-6);
  nn::Upsample sized(3);
  EXPECT_EQ(sized(x).sizes().vec(), (std::vector<int64_t>{1, 2, 3, 3}));
}

TEST(PoolLayers, Dropout2dDropsWholeChannels) {
  manual_seed(1);
  nn::Dropout2d d(0.5);
  const Tensor x = ones({8, 16, 3, 3});
  const Tensor y = d(x);
  int dropped = 0;
  for (int64_t n = 0; n < 8; ++n) {
    for (int64_t c = 0; c < 16; ++c) {
      const auto v = testing::values(y.select(0, n).select(0, c));
      // Each plane is all 0 or all 1 / (1 - p).
      for (double e : v) EXPECT_EQ(e, v[0]);
      EXPECT_TRUE(v[0] == 0.0 || v[0] == 2.0) << v[0];
      dropped += v[0] == 0.0;
    }
  }
  EXPECT_GT(dropped, 32);
  EXPECT_LT(dropped, 96);
  d.eval();
  EXPECT_TRUE(d(x).is_same(x));  // the identity in eval, as F.dropout2d returns its input
  nn::Dropout2d all(1.0);
  expect_values(all(ones({1, 2, 1, 1})), {1, 2, 1, 1}, {0, 0});
  Tensor z = ones({2, 2, 2, 2});
  nn::Dropout2d inplace(0.5, true);
  EXPECT_TRUE(inplace(z).is_same(z));
  expect_error([] { nn::Dropout2d(1.5); },
               "dropout probability has to be between 0 and 1, but got 1.5", ErrorKind::Value);
}

TEST(PoolLayers, Dropout2dWarnsOnOtherRanks) {
  WarningCapture capture;
  nn::functional::dropout2d(ones({2, 3, 4}), 0.5, true);
  nn::functional::dropout2d(ones({2, 3}), 0.5, true);
  ASSERT_EQ(capture.messages.size(), 2u);
  EXPECT_NE(capture.messages[0].find("dropout2d: Received a 3D input to dropout2d and assuming "
                                     "that channel-wise 1D dropout behavior is desired"),
            std::string::npos);
  EXPECT_NE(capture.messages[1].find("dropout2d: Received a 2-D input to dropout2d, which is "
                                     "deprecated"),
            std::string::npos);
}

}  // namespace
}  // namespace ember
