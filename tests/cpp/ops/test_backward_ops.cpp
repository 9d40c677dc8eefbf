// PyTorch's backward ops as rows of their own (activation_backward.cpp, binary_scalar.cpp,
// softmax.cpp, index_ops.cpp, factory.cpp, view.cpp): values against float64 references on
// broadcast, transposed and 0-d inputs, meta, dtype errors, the forward rules calling them (a
// dispatch handler sees PyTorch's op names), and gradcheck + gradgradcheck of each.
#include <gtest/gtest.h>

#include <cmath>

#include "../autograd/grad_elementwise_util.h"
#include "../testing.h"
#include "ember/ember.h"

namespace ember {
namespace {

using autograd::tensor_list;
using grad_testing::expect_gradchecks;
using testing::expect_error;
using testing::expect_values;
using testing::from_values;
using testing::values;

const std::vector<double> kX{-2.5, -1, -0.25, 0, 0.5, 1, 1.5, 3};
const std::vector<double> kG{1, -2, 3, 0.5, -1, 2, 0.25, 4};

// Each elementwise backward op against its formula in double, on a transposed self and a
// broadcast grad.
TEST(BackwardOps, ElementwiseValuesAgainstDoubleReference) {
  struct Case {
    const char* name;
    std::function<Tensor(const Tensor&, const Tensor&)> op;
    std::function<double(double, double)> ref;
  };
  const double kBeta = M_2_SQRTPI * M_SQRT1_2 * 0.5;
  const std::vector<Case> cases = {
      {"threshold_backward", [](auto& g, auto& x) { return threshold_backward(g, x, 0.5); },
       [](double g, double x) { return x <= 0.5 ? 0.0 : g; }},
      {"tanh_backward", [](auto& g, auto& y) { return tanh_backward(g, y); },
       [](double g, double y) { return g * (1 - y * y); }},
      {"sigmoid_backward", [](auto& g, auto& y) { return sigmoid_backward(g, y); },
       [](double g, double y) { return g * (1 - y) * y; }},
      {"hardtanh_backward", [](auto& g, auto& x) { return hardtanh_backward(g, x, -1, 1); },
       [](double g, double x) { return x > -1 && x < 1 ? g : 0.0; }},
      {"gelu_backward", [](auto& g, auto& x) { return gelu_backward(g, x); },
       [kBeta](double g, double x) {
         return g * (0.5 * (1 + std::erf(x * M_SQRT1_2)) + x * kBeta * std::exp(-0.5 * x * x));
       }},
  };
  for (ScalarType dt : {kFloat32, kFloat64}) {
    // self: (2, 4) stored transposed; grad: (4,) broadcast over rows.
    Tensor x = from_values(kX, {2, 4}, dt).t().contiguous().t();
    ASSERT_FALSE(x.is_contiguous());
    Tensor g = from_values({1, -2, 3, 0.5}, {4}, dt);
    for (const Case& c : cases) {
      Tensor out = c.op(g, x);
      EXPECT_EQ(out.dtype(), dt) << c.name;
      std::vector<double> expect;
      for (size_t i = 0; i < kX.size(); ++i) expect.push_back(c.ref(values(g)[i % 4], kX[i]));
      expect_values(out, {2, 4}, expect, dt == kFloat32 ? 1e-6 : 1e-12, 1e-6);
      // 0-d and meta.
      Tensor s = c.op(from_values({2}, {}, dt), from_values({0.75}, {}, dt));
      EXPECT_EQ(s.dim(), 0) << c.name;
      Tensor m = c.op(g.to(Device("meta")), x.to(Device("meta")));
      EXPECT_TRUE(m.is_meta()) << c.name;
      EXPECT_EQ(m.sizes().vec(), (std::vector<int64_t>{2, 4})) << c.name;
    }
  }
}

TEST(BackwardOps, ThresholdBackwardKeepsIntegersAndPassesNaN) {
  Tensor g = from_values({1, 2, 3}, {3}, kInt64), x = from_values({0, 1, 2}, {3}, kInt64);
  Tensor out = threshold_backward(g, x, 1);
  EXPECT_EQ(out.dtype(), kInt64);
  expect_values(out, {3}, {0, 0, 3}, 0, 0);
  // relu's rule: a NaN result is not <= 0, so it passes the gradient (as PyTorch).
  Tensor nan = threshold_backward(from_values({5, 6}, {2}, kFloat32),
                                  from_values({std::nan(""), 0}, {2}, kFloat32), 0);
  expect_values(nan, {2}, {5, 0}, 0, 0);
}

TEST(BackwardOps, DtypeErrorsNameTheKernels) {
  Tensor i = from_values({1, 2}, {2}, kInt64);
  expect_error([&] { tanh_backward(i, i); }, "\"tanh_backward_cpu\" not implemented for 'Long'");
  expect_error([&] { sigmoid_backward(i, i); }, "\"sigmoid_backward_cpu\" not implemented for 'Long'");
  expect_error([&] { hardtanh_backward(i, i, -1, 1); },
               "\"hardshrink_backward_cpu\" not implemented for 'Long'");
  expect_error([&] { gelu_backward(i, i); }, "\"GeluBackwardKernelImpl\" not implemented for 'Long'");
  Tensor b = from_values({1, 0}, {2}, kBool);
  expect_error([&] { threshold_backward(b, b, 0); }, "\"threshold_cpu\" not implemented for 'Bool'");
  Tensor f = from_values({1, 2}, {2}, kFloat32);
  expect_error([&] { gelu_backward(f, f, "x"); }, "approximate argument must be either none or tanh.");
  expect_error([&] { _softmax_backward_data(f, f.reshape({2, 1}), 0, kFloat32); },
               "to have same size as tensor for argument #2 'output'");
}

TEST(BackwardOps, ScalarMulDivAndSoftmaxBackwardData) {
  Tensor x = from_values({1, -2, 3, 4}, {2, 2}, kFloat32);
  expect_values(mul(x, 3), {2, 2}, {3, -6, 9, 12}, 0, 0);
  expect_values(div(x, 2), {2, 2}, {0.5, -1, 1.5, 2}, 0, 0);
  EXPECT_EQ(div(from_values({3}, {1}, kInt64), 2).dtype(), kFloat32);  // true division
  // softmax: y (g - sum(g y)); log_softmax: g - exp(y) sum(g); rows sum along dim 1.
  Tensor y = x.softmax(1), g = from_values({1, 0, 0.5, 2}, {2, 2}, kFloat32);
  std::vector<double> yv = values(y), gv = values(g), expect, expect_log;
  Tensor ly = x.log_softmax(1);
  std::vector<double> lyv = values(ly);
  for (int r = 0; r < 2; ++r) {
    const double s = gv[2 * r] * yv[2 * r] + gv[2 * r + 1] * yv[2 * r + 1];
    const double sg = gv[2 * r] + gv[2 * r + 1];
    for (int c = 0; c < 2; ++c) {
      expect.push_back(yv[2 * r + c] * (gv[2 * r + c] - s));
      expect_log.push_back(gv[2 * r + c] - std::exp(lyv[2 * r + c]) * sg);
    }
  }
  expect_values(_softmax_backward_data(g, y, 1, kFloat32), {2, 2}, expect);
  expect_values(_log_softmax_backward_data(g, ly, 1, kFloat32), {2, 2}, expect_log);
  // The result is contiguous, whatever the inputs' layout.
  EXPECT_TRUE(_softmax_backward_data(g.t(), y.t(), 1, kFloat32).is_contiguous());
}

TEST(BackwardOps, EmbeddingDenseBackwardAccumulatesScalesAndSkipsPadding) {
  Tensor idx = from_values({0, 2, 2, 1}, {2, 2}, kInt64);
  Tensor g = testing::iota({2, 2, 3}, kFloat64, 1.0);  // rows 1..12 by threes
  Tensor out = embedding_dense_backward(g, idx, 4, -1, false);
  expect_values(out, {4, 3}, {1, 2, 3, 10, 11, 12, 4 + 7, 5 + 8, 6 + 9, 0, 0, 0}, 0, 0);
  Tensor scaled = embedding_dense_backward(g, idx, 4, 1, true);
  expect_values(scaled, {4, 3}, {1, 2, 3, 0, 0, 0, 5.5, 6.5, 7.5, 0, 0, 0}, 0, 0);
}

TEST(BackwardOps, NewEmptyStridedAndReshapeAlias) {
  Tensor x = from_values({1, 2, 3, 4, 5, 6}, {2, 3}, kFloat64);
  Tensor e = new_empty_strided(x, {3, 2}, {1, 3});
  EXPECT_EQ(e.dtype(), kFloat64);
  EXPECT_EQ(e.strides().vec(), (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(new_empty_strided(x, {2}, {1}, TensorOptions(kInt32)).dtype(), kInt32);
  Tensor r = _reshape_alias(x, {3, 2}, {2, 1});
  EXPECT_EQ(r.data_ptr(), x.data_ptr());  // a view
  expect_values(r, {3, 2}, {1, 2, 3, 4, 5, 6}, 0, 0);
}

// The forward rules call the backward ops, so their nodes' gradients come from them; each new
// row is differentiable twice.
TEST(BackwardOps, GradcheckAndGradgradcheck) {
  auto leaf = [](std::vector<double> v, std::vector<int64_t> s) { return grad_testing::leaf(v, s); };
  const std::vector<int64_t> s{2, 4};
  Tensor yt = from_values(kX, s, kFloat64).tanh();
  Tensor ys = from_values(kX, s, kFloat64).sigmoid();
  expect_gradchecks([](const tensor_list& t) { return tensor_list{threshold_backward(t[0], t[1], 0.2)}; },
                    {leaf(kG, s), leaf(kX, s)}, "threshold_backward");
  expect_gradchecks([](const tensor_list& t) { return tensor_list{hardtanh_backward(t[0], t[1], -1, 1)}; },
                    {leaf(kG, s), leaf({-2.5, -0.9, -0.25, 0.1, 0.5, 0.9, 1.5, 3}, s)}, "hardtanh_backward");
  expect_gradchecks([](const tensor_list& t) { return tensor_list{tanh_backward(t[0], t[1])}; },
                    {leaf(kG, s), leaf(values(yt), s)}, "tanh_backward");
  expect_gradchecks([](const tensor_list& t) { return tensor_list{sigmoid_backward(t[0], t[1])}; },
                    {leaf(kG, s), leaf(values(ys), s)}, "sigmoid_backward");
  for (const char* a : {"none", "tanh"}) {
    expect_gradchecks([a](const tensor_list& t) { return tensor_list{gelu_backward(t[0], t[1], a)}; },
                      {leaf(kG, s), leaf(kX, s)}, std::string("gelu_backward ") + a);
  }
  // hardswish and silu: kX scaled off the kinks at +-3; hardsigmoid_backward is linear in grad.
  const std::vector<double> x3{-3.5, -2, -0.75, 0.1, 1.5, 2.9, 4.5, 9};
  expect_gradchecks([](const tensor_list& t) { return tensor_list{hardswish_backward(t[0], t[1])}; },
                    {leaf(kG, s), leaf(x3, s)}, "hardswish_backward");
  expect_gradchecks([](const tensor_list& t) { return tensor_list{silu_backward(t[0], t[1])}; },
                    {leaf(kG, s), leaf(kX, s)}, "silu_backward");
  Tensor x3t = from_values(x3, s, kFloat64);
  expect_gradchecks([x3t](const tensor_list& t) { return tensor_list{hardsigmoid_backward(t[0], x3t)}; },
                    {leaf(kG, s)}, "hardsigmoid_backward");
  expect_gradchecks([](const tensor_list& t) { return tensor_list{mul(t[0], 3)}; }, {leaf(kX, s)}, "mul.Scalar");
  expect_gradchecks([](const tensor_list& t) { return tensor_list{div(t[0], -0.5)}; }, {leaf(kX, s)}, "div.Scalar");
  Tensor sm = from_values(kX, s, kFloat64).softmax(1), lsm = from_values(kX, s, kFloat64).log_softmax(0);
  expect_gradchecks([](const tensor_list& t) { return tensor_list{_softmax_backward_data(t[0], t[1], 1, kFloat64)}; },
                    {leaf(kG, s), leaf(values(sm), s)}, "_softmax_backward_data");
  expect_gradchecks([](const tensor_list& t) { return tensor_list{_log_softmax_backward_data(t[0], t[1], 0, kFloat64)}; },
                    {leaf(kG, s), leaf(values(lsm), s)}, "_log_softmax_backward_data");
  Tensor idx = from_values({0, 2, 2, 1}, {4}, kInt64);
  for (bool scale : {false, true}) {
    expect_gradchecks([idx, scale](const tensor_list& t) {
      return tensor_list{embedding_dense_backward(t[0], idx, 3, scale ? 1 : -1, scale)};
    }, {leaf(kX, {4, 2})}, "embedding_dense_backward");
  }
  expect_gradchecks([](const tensor_list& t) { return tensor_list{_reshape_alias(t[0], {4, 2}, {2, 1})}; },
                    {leaf(kX, s)}, "_reshape_alias");
  // Forward rules that now go through them.
  Tensor x = leaf(kX, s);
  EXPECT_EQ(x.relu().grad_fn()->name(), "ReluBackward0");
  auto [g1, unused] = grad_testing::first_and_second(x.relu(), x, ones_like(x));
  (void)unused;
  EXPECT_EQ(values(g1), (std::vector<double>{0, 0, 0, 0, 1, 1, 1, 1}));
  Tensor gx = autograd::grad({x.tanh()}, {x}, {ones_like(x)}, std::nullopt, true)[0];
  EXPECT_EQ(gx.grad_fn()->name(), "TanhBackwardBackward0");
  EXPECT_EQ(x.reshape({8}).grad_fn()->name(), "ReshapeAliasBackward0");
  EXPECT_EQ(mul(x, 2).grad_fn()->name(), "MulBackward1");
  EXPECT_EQ((x * 2).grad_fn()->name(), "MulBackward0");  // operators are mul.Tensor
}

}  // namespace
}  // namespace ember

namespace ember {
namespace {

// mse_loss and nll_loss's primitives (src/nn/functional/loss.cpp, loss_nll.cpp).
TEST(BackwardOps, LossBackwardOps) {
  Tensor x = from_values({1, -2, 3, 0.5}, {2, 2}, kFloat64), t = from_values({0, 1, 1, 1}, {2, 2}, kFloat64);
  // norm (x - t) grad, norm = 2 / numel for the mean.
  expect_values(mse_loss_backward(from_values({2}, {}, kFloat64), x, t, 1), {2, 2},
                {1, -3, 2, -0.5}, 1e-15, 0);
  expect_values(mse_loss_backward(from_values({1, 2, 3, 4}, {2, 2}, kFloat64), x, t, 0), {2, 2},
                {2, -12, 12, -4}, 1e-15, 0);
  // nll: (loss, total_weight); the gradient -weight[target] grad / total_weight at the target.
  Tensor lp = from_values({-1, -2, -3, -0.5, -0.25, -4}, {2, 3}, kFloat64);
  Tensor target = from_values({2, 0}, {2}, kInt64), w = from_values({1, 2, 4}, {3}, kFloat64);
  auto [loss, total] = nll_loss_forward(lp, target, w, 1, -100);
  expect_values(loss, {}, {(3 * 4 + 0.5 * 1) / 5.0}, 1e-15, 0);
  expect_values(total, {}, {5}, 0, 0);
  expect_values(nll_loss_backward(from_values({1}, {}, kFloat64), lp, target, w, 1, -100, total),
                {2, 3}, {0, 0, -0.8, -0.2, 0, 0}, 1e-15, 0);
  // reduction none: total_weight 0, per-sample gradients; ignore_index rows get none.
  auto [none, zero] = nll_loss_forward(lp, target, std::nullopt, 0, 0);
  expect_values(none, {2}, {3, 0}, 0, 0);
  expect_values(zero, {}, {0}, 0, 0);
  expect_values(nll_loss_backward(from_values({5, 7}, {2}, kFloat64), lp, target, std::nullopt, 0, 0, zero),
                {2, 3}, {0, 0, -5, 0, 0, 0}, 0, 0);
  // Rules: MseLossBackward0 / NllLossBackward0, and their backward ops differentiate again.
  Tensor xl = grad_testing::leaf(values(x), {2, 2});
  EXPECT_EQ(mse_loss(xl, t).grad_fn()->name(), "MseLossBackward0");
  Tensor lpl = grad_testing::leaf(values(lp), {2, 3});
  EXPECT_EQ(std::get<0>(nll_loss_forward(lpl, target, w, 1, -100)).grad_fn()->name(), "NllLossBackward0");
  EXPECT_FALSE(std::get<1>(nll_loss_forward(lpl, target, w, 1, -100)).requires_grad());
  expect_gradchecks([t](const tensor_list& in) { return tensor_list{mse_loss_backward(in[0], in[1], t, 1)}; },
                    {grad_testing::leaf({1.5}, {}), xl}, "mse_loss_backward");
  expect_gradchecks([&](const tensor_list& in) {
    return tensor_list{nll_loss_backward(in[0], in[1], target, w, 0, -100, zero)};
  }, {grad_testing::leaf({0.5, -2}, {2}), lpl}, "nll_loss_backward");
  // weight has no derivative formula: PyTorch refuses it requiring grad.
  expect_error([&] { nll_loss_forward(lpl, target, w.clone().requires_grad_(), 1, -100); },
               "The function 'nll_loss_forward' is not differentiable with respect to argument 'weight'");
}

}  // namespace
}  // namespace ember
