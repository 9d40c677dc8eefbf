// max_pool2d (with indices), avg_pool2d, adaptive_avg_pool2d and adaptive_max_pool2d against
// torch 1.13 (normpool_expected.h): values, indices, gradients, layouts, meta, errors, gradcheck.
#include <gtest/gtest.h>

#include "normpool_testing.h"

namespace ember {
namespace {

namespace E = normpool_expected;
using namespace normpool_testing;

std::vector<double> as_doubles(const Tensor& t) { return testing::values(t); }

TEST(Pooling, MaxPoolValuesIndicesGradients) {
  expect_forward_backward([](const tensor_list& in) { return max_pool2d(in[0], {3}, {2}, {1}); },
                          {wave({2, 2, 7, 7})}, E::maxpool_out, {E::maxpool_g0});
  auto [y, idx] = max_pool2d_with_indices(wave({2, 2, 7, 7}), {3, 3}, {2, 2}, {1, 1});
  EXPECT_EQ(idx.dtype(), kInt64);
  testing::expect_values(idx, idx.sizes(), E::maxpool_idx, 0, 0);
  expect_forward_backward(
      [](const tensor_list& in) { return max_pool2d(in[0], {3, 2}, {2, 1}, {1, 0}, {2, 1}, true); },
      {wave({2, 2, 7, 7})}, E::maxpool_dil_out, {E::maxpool_dil_g0});
  auto d = max_pool2d_with_indices(wave({2, 2, 7, 7}), {3, 2}, {2, 1}, {1, 0}, {2, 1}, true);
  testing::expect_values(std::get<1>(d), std::get<1>(d).sizes(), E::maxpool_dil_idx, 0, 0);
  Tensor x = wave({1, 1, 4, 4}).requires_grad_();
  EXPECT_EQ(max_pool2d(x, {2}).grad_fn()->name(), "MaxPool2DWithIndicesBackward0");
}

TEST(Pooling, AvgPoolVariants) {
  expect_forward_backward([](const tensor_list& in) { return avg_pool2d(in[0], {3}, {2}, {1}); },
                          {wave({2, 2, 7, 7})}, E::avgpool_out, {E::avgpool_g0});
  expect_forward_backward([](const tensor_list& in) { return avg_pool2d(in[0], {3}, {2}, {1}, true, false); },
                          {wave({2, 2, 7, 7})}, E::avgpool_ceil_out, {E::avgpool_ceil_g0});
  expect_forward_backward(
      [](const tensor_list& in) { return avg_pool2d(in[0], {2, 3}, {2, 2}, {1, 1}, true, true, 5); },
      {wave({2, 2, 7, 7})}, E::avgpool_div_out, {E::avgpool_div_g0});
  Tensor x = wave({1, 1, 4, 4}).requires_grad_();
  EXPECT_EQ(avg_pool2d(x, {2}).grad_fn()->name(), "AvgPool2DBackward0");
}

TEST(Pooling, AdaptiveValuesAndGradients) {
  expect_forward_backward([](const tensor_list& in) { return adaptive_avg_pool2d(in[0], {3, 2}); },
                          {wave({2, 2, 7, 5})}, E::aavg_out, {E::aavg_g0});
  expect_forward_backward([](const tensor_list& in) { return std::get<0>(adaptive_max_pool2d(in[0], {3, 2})); },
                          {wave({2, 2, 7, 5})}, E::amax_out, {E::amax_g0});
  auto [y, idx] = adaptive_max_pool2d(wave({2, 2, 7, 5}), {3, 2});
  testing::expect_values(idx, idx.sizes(), E::amax_idx, 0, 0);
  // 1x1: the mean over H and W, as PyTorch (MeanBackward1)
  Tensor x = wave({2, 3, 4, 5}).requires_grad_();
  Tensor m = adaptive_avg_pool2d(x, {1, 1});
  EXPECT_EQ(m.sizes().vec(), (std::vector<int64_t>{2, 3, 1, 1}));
  EXPECT_EQ(m.grad_fn()->name(), "MeanBackward1");
  testing::expect_values(m, m.sizes(), as_doubles(x.detach().mean({2, 3}, true)), 1e-12, 1e-12);
  EXPECT_EQ(adaptive_avg_pool2d(x, {2, 2}).grad_fn()->name(), "AdaptiveAvgPool2DBackward0");
  EXPECT_EQ(std::get<0>(adaptive_max_pool2d(x, {2, 2})).grad_fn()->name(), "AdaptiveMaxPool2DBackward0");
  Tensor p = _adaptive_avg_pool2d(wave({2, 3, 4, 5}), {1, 1});
  testing::expect_values(p, p.sizes(), as_doubles(x.detach().mean({2, 3}, true)), 1e-12, 1e-12);
}

// Every op on channels_last, strided, unbatched and float32 inputs agrees with the contiguous
// float64 result; channels_last outputs stay channels_last.
TEST(Pooling, LayoutsDtypesAndUnbatched) {
  using Fn = std::function<Tensor(const Tensor&)>;
  const std::vector<std::pair<const char*, Fn>> ops = {
      {"max", [](const Tensor& x) { return max_pool2d(x, {3}, {2}, {1}); }},
      {"max_ceil", [](const Tensor& x) { return max_pool2d(x, {2}, {2}, {0}, {1}, true); }},
      {"avg", [](const Tensor& x) { return avg_pool2d(x, {3}, {2}, {1}, false, false); }},
      {"aavg", [](const Tensor& x) { return adaptive_avg_pool2d(x, {3, 2}); }},
      {"amax", [](const Tensor& x) { return std::get<0>(adaptive_max_pool2d(x, {3, 2})); }},
  };
  for (const auto& [name, fn] : ops) {
    SCOPED_TRACE(name);
    Tensor x = wave({2, 3, 7, 6});
    const auto ref = as_doubles(fn(x));
    Tensor ycl = fn(channels_last(x));
    EXPECT_TRUE(ycl.permute({0, 2, 3, 1}).is_contiguous());
    testing::expect_values(ycl, fn(x).sizes(), ref, 1e-12, 1e-12);
    testing::expect_values(fn(strided(x)), fn(x).sizes(), ref, 1e-12, 1e-12);
    testing::expect_values(fn(x.to(kFloat32)), fn(x).sizes(), ref, 1e-5, 1e-5);
    testing::expect_values(fn(x.to(kBFloat16)), fn(x).sizes(), as_doubles(fn(x.to(kBFloat16).to(kFloat64))), 1e-2, 1e-2);
    Tensor u = fn(x.select(0, 1));
    testing::expect_values(u, u.sizes(), as_doubles(fn(x).select(0, 1)), 1e-12, 1e-12);
    // meta
    Tensor m = fn(empty({2, 3, 7, 6}, TensorOptions(kFloat32).device(kMeta)));
    EXPECT_TRUE(m.is_meta());
    EXPECT_EQ(m.sizes().vec(), fn(x).sizes().vec());
    // empty batch
    EXPECT_EQ(fn(empty({0, 3, 7, 6}, kFloat64)).size(0), 0);
  }
}

TEST(Pooling, Errors) {
  using testing::expect_error;
  Tensor x = wave({1, 2, 5, 5});
  expect_error([&] { max_pool2d(x, {2, 2, 2}); }, "max_pool2d: kernel_size must either be a single int, or a tuple of two ints");
  expect_error([&] { max_pool2d(x, {2}, {1, 1, 1}); }, "max_pool2d: stride must either be omitted, a single int, or a tuple of two ints");
  expect_error([&] { max_pool2d(x, {2}, {0}); }, "stride should not be zero");
  expect_error([&] { max_pool2d(x, {2}, {2}, {0}, {0}); }, "dilation should be greater than zero, but got dilationH: 0 dilationW: 0");
  expect_error([&] { max_pool2d(x, {2}, {2}, {2}); }, "pad should be at most half of kernel size, but got pad=2 and kernel_size=2");
  expect_error([&] { max_pool2d(wave({2, 5}), {2}); }, "non-empty 3D or 4D (batch mode) tensor expected for input");
  expect_error([&] { max_pool2d(wave({1, 2, 1, 1}), {2}); }, "Given input size: (2x1x1). Calculated output size: (2x0x0). Output size is too small");
  expect_error([&] { max_pool2d(wave({1, 0, 4, 4}), {2}); },
               "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:[1, 0, 4, 4]");
  expect_error([&] { max_pool2d(x.to(kInt64), {2}); }, "\"max_pool2d\" not implemented for 'Long'");
  expect_error([&] { avg_pool2d(x, {2}, {}, {0}, false, true, 0); }, "divisor must be not zero");
  expect_error([&] { adaptive_avg_pool2d(x, {1, 1, 1}); }, "adaptive_avg_pool2d: output_size must be 2");
  expect_error([&] { adaptive_avg_pool2d(x, {-1, 1}); },
               "adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 but received {-1, 1}");
  expect_error([&] { adaptive_max_pool2d(wave({2, 5}), {1, 1}); }, "adaptive_max_pool2d(): Expected 3D or 4D tensor, but got: [2, 5]");
  expect_error([&] { adaptive_max_pool2d(wave({1, 2, 0, 4}), {1, 1}); },
               "adaptive_max_pool2d(): Expected input to have non-zero size for non-batch dimensions, but input has sizes [1, 2, 0, 4] with dimension 2 being empty");
}

TEST(GradPooling, GradcheckAndDoubleBackward) {
  const std::vector<std::function<Tensor(const Tensor&)>> fns = {
      [](const Tensor& x) { return max_pool2d(x, {3}, {2}, {1}); },
      [](const Tensor& x) { return max_pool2d(x, {2, 3}, {1, 2}, {1, 1}, {2, 1}, true); },
      [](const Tensor& x) { return avg_pool2d(x, {3}, {2}, {1}, true, false); },
      [](const Tensor& x) { return avg_pool2d(x, {2}, {1}, {1}, false, true, 3); },
      [](const Tensor& x) { return adaptive_avg_pool2d(x, {2, 3}); },
      [](const Tensor& x) { return std::get<0>(adaptive_max_pool2d(x, {2, 3})); },
  };
  for (size_t i = 0; i < fns.size(); ++i) {
    SCOPED_TRACE("case " + std::to_string(i));
    const auto& f = fns[i];
    auto g = [&](const tensor_list& in) { return tensor_list{f(in[0])}; };
    expect_gradchecks(g, {wave({1, 2, 5, 5})});
    expect_gradchecks(g, {channels_last(wave({2, 2, 5, 4}))});
    expect_gradchecks(g, {strided(wave({2, 5, 4}))});
  }
  // the backward ops' own rules are exercised by gradgradcheck above; their names:
  Tensor x = wave({1, 1, 4, 4}).requires_grad_();
  Tensor gx = autograd::grad({max_pool2d(x, {2})}, {x}, {ones({1, 1, 2, 2}, kFloat64).requires_grad_()},
                             std::nullopt, true)[0];
  EXPECT_EQ(gx.grad_fn()->name(), "MaxPool2DWithIndicesBackwardBackward0");
}

}  // namespace
}  // namespace ember
