// nn::Conv1d, Conv2d, ConvTranspose2d: reprs and state_dict keys as torch 1.13, constructor
// errors, default-init bounds, padding modes and "same", output_size, meta construction, and
// outputs for fixed weights against values computed with torch.
#include <gtest/gtest.h>

#include <cmath>

#include "../testing.h"
#include "ember/nn.h"

namespace ember {
namespace {

using testing::expect_error;
using testing::expect_values;
using KS = std::vector<std::pair<std::string, std::vector<int64_t>>>;

KS keys_and_shapes(const nn::StateDict& sd) {
  KS out;
  for (const auto& [k, v] : sd.items()) out.emplace_back(k, v.to_tensor().sizes().vec());
  return out;
}

// The deterministic weights of the torch reference script: (i % 7 - 3) * 0.1, bias i * 0.5 - 0.5.
void set_weights(nn::ConvNd& m) {
  const int64_t n = m.weight().numel();
  std::vector<double> w;
  for (int64_t i = 0; i < n; ++i) w.push_back(static_cast<double>(i % 7 - 3) * 0.1);
  m.weight().detach().copy_(testing::from_values(w, m.weight().sizes()));
  if (m.bias().defined()) {
    std::vector<double> b;
    for (int64_t i = 0; i < m.bias().numel(); ++i) b.push_back(static_cast<double>(i) * 0.5 - 0.5);
    m.bias().detach().copy_(testing::from_values(b, m.bias().sizes()));
  }
}

// ((i % 5) - 2) * 0.25, as the reference script's inputs.
Tensor input(IntArrayRef sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  std::vector<double> v;
  for (int64_t i = 0; i < n; ++i) v.push_back(static_cast<double>(i % 5 - 2) * 0.25);
  return testing::from_values(v, sizes);
}

TEST(ConvLayers, ReprMatchesTorch) {
  EXPECT_EQ(nn::Conv1d(2, 4, 3).repr(), "Conv1d(2, 4, kernel_size=(3,), stride=(1,))");
  EXPECT_EQ(nn::Conv2d(3, 8, 3, 2, 1, 1, 1, false).repr(),
            "Conv2d(3, 8, kernel_size=(3, 3), stride=(2, 2), padding=(1, 1), bias=False)");
  EXPECT_EQ(nn::Conv2d(4, 4, {3, 5}, 1, "same", 2, 2).repr(),
            "Conv2d(4, 4, kernel_size=(3, 5), stride=(1, 1), padding=same, dilation=(2, 2), "
            "groups=2)");
  EXPECT_EQ(nn::Conv2d(4, 4, 3, 1, "valid").repr(),
            "Conv2d(4, 4, kernel_size=(3, 3), stride=(1, 1), padding=valid)");
  EXPECT_EQ(nn::Conv2d(3, 8, 1).repr(), "Conv2d(3, 8, kernel_size=(1, 1), stride=(1, 1))");
  EXPECT_EQ(nn::Conv2d(3, 8, 3, 1, 0, 1, 1, true, "reflect").repr(),
            "Conv2d(3, 8, kernel_size=(3, 3), stride=(1, 1), padding_mode=reflect)");
  EXPECT_EQ(nn::ConvTranspose2d(4, 2, 3, 2, 1, 1).repr(),
            "ConvTranspose2d(4, 2, kernel_size=(3, 3), stride=(2, 2), padding=(1, 1), "
            "output_padding=(1, 1))");
  EXPECT_EQ(nn::ConvTranspose2d(4, 2, 3).repr(),
            "ConvTranspose2d(4, 2, kernel_size=(3, 3), stride=(1, 1))");
  EXPECT_EQ(nn::ConvTranspose2d(4, 2, 3, 1, 0, 0, 2, false, 2).repr(),
            "ConvTranspose2d(4, 2, kernel_size=(3, 3), stride=(1, 1), dilation=(2, 2), groups=2, "
            "bias=False)");
}

TEST(ConvLayers, StateDictKeysAndShapes) {
  nn::Conv2d c(3, 8, 3);
  EXPECT_EQ(keys_and_shapes(c.state_dict()), (KS{{"weight", {8, 3, 3, 3}}, {"bias", {8}}}));
  nn::Conv2d nobias(4, 6, {1, 3}, 1, 0, 1, 2, false);
  EXPECT_EQ(keys_and_shapes(nobias.state_dict()), (KS{{"weight", {6, 2, 1, 3}}}));
  EXPECT_TRUE(nobias.has_parameter("bias"));
  EXPECT_FALSE(nobias.bias().defined());
  nn::ConvTranspose2d t(4, 2, 3, 1, 0, 0, 2);
  EXPECT_EQ(keys_and_shapes(t.state_dict()), (KS{{"weight", {4, 1, 3, 3}}, {"bias", {2}}}));
  nn::Conv1d c1(2, 4, 5);
  EXPECT_EQ(keys_and_shapes(c1.state_dict()), (KS{{"weight", {4, 2, 5}}, {"bias", {4}}}));
  EXPECT_EQ(c.kernel_size, (std::vector<int64_t>{3, 3}));
  EXPECT_EQ(c.stride, (std::vector<int64_t>{1, 1}));
  EXPECT_TRUE(nn::is_parameter(c.weight()));
  EXPECT_TRUE(c.weight().requires_grad());
  // A checkpoint moves by key, as between ember and torch.
  nn::Conv2d other(3, 8, 3);
  EXPECT_EQ(other.load_state_dict(c.state_dict()).to_string(), "<All keys matched successfully>");
  EXPECT_EQ(testing::values(other.weight()), testing::values(c.weight()));
}

TEST(ConvLayers, ConstructorErrorsAreTorchs) {
  expect_error([] { nn::Conv2d(4, 4, 3, 1, 0, 1, 0); }, "groups must be a positive integer",
               ErrorKind::Value);
  expect_error([] { nn::Conv2d(3, 4, 3, 1, 0, 1, 2); }, "in_channels must be divisible by groups",
               ErrorKind::Value);
  expect_error([] { nn::Conv2d(4, 3, 3, 1, 0, 1, 2); }, "out_channels must be divisible by groups",
               ErrorKind::Value);
  expect_error([] { nn::Conv2d(2, 2, 3, 1, "foo"); },
               "Invalid padding string 'foo', should be one of", ErrorKind::Value);
  expect_error([] { nn::Conv2d(2, 2, 3, 2, "same"); },
               "padding='same' is not supported for strided convolutions", ErrorKind::Value);
  expect_error([] { nn::Conv2d(2, 2, 3, 1, 0, 1, 1, true, "mirror"); },
               "padding_mode must be one of {'zeros', 'reflect', 'replicate', 'circular'}, but "
               "got padding_mode='mirror'",
               ErrorKind::Value);
  expect_error([] { nn::ConvTranspose2d(2, 2, 3, 1, 0, 0, 1, true, 1, "reflect"); },
               "Only \"zeros\" padding mode is supported for ConvTranspose2d", ErrorKind::Value);
}

TEST(ConvLayers, DefaultInitWithinTorchsBounds) {
  manual_seed(0);
  nn::Conv2d c(16, 32, 3);  // fan_in 144: U(-1/12, 1/12) for weight and bias
  const double bound = 1.0 / 12.0;
  double wmax = 0;
  for (double v : testing::values(c.weight())) {
    EXPECT_LE(std::abs(v), bound);
    wmax = std::max(wmax, std::abs(v));
  }
  EXPECT_GT(wmax, 0.95 * bound);  // 4608 draws reach near the bound
  for (double v : testing::values(c.bias())) EXPECT_LE(std::abs(v), bound);
  // Transposed: fan_in is weight.size(1) * k * k = (out / groups) * 9.
  nn::ConvTranspose2d t(8, 4, 3);
  for (double v : testing::values(t.bias())) EXPECT_LE(std::abs(v), 1.0 / 6.0);
}

TEST(ConvLayers, ForwardMatchesTorch) {
  nn::Conv2d c(2, 3, 3, 1, 1);
  set_weights(c);
  expect_values(c(input({1, 2, 3, 4})), {1, 3, 3, 4},
                {-0.69999999, -0.19999996, -0.20000002, -0.69999999, -0.60000002, -0.32499999,
                 -0.22499999, -0.5, -0.5, -0.69999999, -0.47499999, -0.39999998, 0.024999991,
                 0.025000006, -0.125, 0.10000001, -0.22500001, -0.47499996, 0.10000004,
                 0.44999999, -0.1, -0.32499999, -0.25, 0.099999994, 0.22499999, 0.25, 0.82500005,
                 0.89999998, 0.5, 0.42499998, 0.25, 0.52499998, 0.82500005, 0.39999998, 0.5,
                 0.42500001},
                1e-5, 1e-6);
  nn::Conv2d g(4, 4, 2, 2, 0, 1, 2);
  set_weights(g);
  expect_values(g(input({2, 4, 4, 4})), {2, 4, 2, 2},
                {-0.44999999, -0.47499999, -0.80000001, -0.44999999, 0.22500001, 0.12500001,
                 -0.30000001, 0.22500001, 0.375, 0.44999999, 0.55000001, 0.375, 0.80000001, 1.3,
                 1.05, 0.80000001, -0.375, -0.40000001, -0.47499999, -0.375, -0.22500002,
                 0.17500001, 0.12500001, -0.22500002, 0.39999998, 0.72500002, 0.44999999,
                 0.39999998, 0.80000001, 1.05, 1.3, 0.80000001},
                1e-5, 1e-6);
  nn::Conv1d c1(2, 2, 3, 1, 2, 2);
  set_weights(c1);
  expect_values(c1(input({1, 2, 5})), {1, 2, 5},
                {-0.44999999, -0.44999999, -0.29999998, -0.44999999, -0.55000001, 0.15000001,
                 0.050000004, -0.15000001, -0.125, -0.15000001},
                1e-5, 1e-6);
}

TEST(ConvLayers, PaddingModesAndSame) {
  // reflect: F.pad(x, (1, 1, 1, 1), "reflect") then an unpadded convolution.
  nn::Conv2d r(2, 2, 3, 1, 1, 1, 1, false, "reflect");
  set_weights(r);
  expect_values(r(input({1, 2, 3, 3})), {1, 2, 3, 3},
                {-0.22500001, -0.075000025, -0.074999996, 0.47500008, 1.8626451e-09, 0.25,
                 -0.47500002, -0.20000003, 0.049999993, 0.57499999, -0.20000002, 0.25000006,
                 -0.80000013, 0.04999999, -0.12499997, 0.42500001, -0.22500002, 0.10000001},
                1e-5, 1e-6);
  // "same" with an even kernel: the odd extra padding goes to the right / bottom.
  nn::Conv2d s(1, 1, {2, 4}, 1, "same");
  set_weights(s);
  expect_values(s(input({1, 1, 3, 5})), {1, 1, 3, 5},
                {-0.55000001, -0.47499999, -0.55000001, -0.39999998, -0.55000001, -0.55000001,
                 -0.47499999, -0.55000001, -0.39999998, -0.55000001, -0.375, -0.30000001,
                 -0.44999999, -0.60000002, -0.67500001},
                1e-5, 1e-6);
  nn::Conv2d v(1, 1, 3, 1, "valid");
  EXPECT_EQ(v(input({1, 1, 5, 6})).sizes().vec(), (std::vector<int64_t>{1, 1, 3, 4}));
}

TEST(ConvLayers, TransposedOutputSize) {
  nn::ConvTranspose2d t(2, 1, 3, 2, 1);
  set_weights(t);
  const Tensor x = input({1, 2, 2, 2});
  expect_values(t(x), {1, 1, 3, 3},
                {-0.39999998, -0.85000002, -0.67500001, -0.39999998, -0.47499999, -0.42500001,
                 -0.57499999, -0.42500001, -0.47499999},
                1e-5, 1e-6);
  // output_size picks output_padding 1 (as the full [N, C, H, W] size or the spatial one).
  const std::vector<double> want{-0.39999998, -0.85000002, -0.67500001, -0.39999998,
                                 -0.39999998, -0.47499999, -0.42500001, -0.47499999,
                                 -0.57499999, -0.42500001, -0.47499999, -0.44999999,
                                 -0.47499999, -0.42500001, -0.57499999, -0.55000001};
  expect_values(t.forward(x, std::vector<int64_t>{4, 4}), {1, 1, 4, 4}, want, 1e-5, 1e-6);
  expect_values(t.call({x, Value(std::vector<int64_t>{1, 1, 4, 4})}).to_tensor(), {1, 1, 4, 4},
                want, 1e-5, 1e-6);
  expect_error([&] { t.forward(x, std::vector<int64_t>{20, 20}); },
               "requested an output size of [20, 20], but valid sizes range from [3, 3] to [4, 4] "
               "(for an input of ember.Size([2, 2]))",
               ErrorKind::Value);
  expect_error([&] { t.forward(x, std::vector<int64_t>{1, 2, 3}); },
               "ConvTranspose2D: for 4D input, output_size must have 2 or 4 elements (got 3)",
               ErrorKind::Value);
  expect_error([&] { t.call({x, Value(), Value()}); },
               "ConvTranspose2d.forward() takes from 2 to 3 positional arguments but 4 were given",
               ErrorKind::Type);
}

TEST(ConvLayers, MetaAndDtype) {
  nn::Conv2d m(3, 8, 3, 1, 1, 1, 1, true, "zeros", kMeta);
  EXPECT_TRUE(m.weight().is_meta());
  const Tensor y = m(empty({2, 3, 10, 10}, kMeta));
  EXPECT_TRUE(y.is_meta());
  EXPECT_EQ(y.sizes().vec(), (std::vector<int64_t>{2, 8, 10, 10}));
  nn::Conv2d d(2, 3, 3, 1, 1, 1, 1, true, "zeros", kFloat64);
  EXPECT_EQ(d.weight().dtype(), kFloat64);
  EXPECT_EQ(d(ones({1, 2, 4, 4}, kFloat64)).dtype(), kFloat64);
  // Gradients reach the parameters.
  nn::Conv2d c(2, 3, 3);
  c(ones({1, 2, 5, 5})).sum().backward();
  ASSERT_TRUE(c.weight().grad().defined());
  EXPECT_EQ(c.weight().grad().sizes().vec(), (std::vector<int64_t>{3, 2, 3, 3}));
  expect_values(c.bias().grad(), {3}, {9, 9, 9});
}

}  // namespace
}  // namespace ember
