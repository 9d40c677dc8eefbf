// batch_norm / native_batch_norm and group_norm against torch 1.13 (values pasted in
// normpool_expected.h by gen_normpool_expected.py): outputs, running-stat updates, saved
// statistics, gradients (fused path and create_graph path), layouts, dtypes, meta, errors.
#include <gtest/gtest.h>

#include "../dispatch/subclasses.h"
#include "ember/autograd/autograd.h"
#include "ember/grad_mode.h"
#include "normpool_testing.h"

namespace ember {
namespace {

namespace E = normpool_expected;
using namespace normpool_testing;

struct BnParams {
  Tensor w = wave({3}, kFloat64, 0.9, 0.3, 1.0) + 1.5;
  Tensor b = wave({3}, kFloat64, 0.5, 0.2, 1.0);
  Tensor rm = wave({3}, kFloat64, 1.1, 0.0, 0.5);
  Tensor rv = wave({3}, kFloat64, 0.7, 0.0, 0.3) + 1.0;
};

TEST(BatchNorm, TrainingValuesRunningStatsAndGradients) {
  BnParams p;
  Tensor rm = p.rm.clone(), rv = p.rv.clone();
  const uint32_t v0 = rm.version();
  expect_forward_backward(
      [&](const tensor_list& in) { return batch_norm(in[0], in[1], in[2], rm, rv, true, 0.1, 1e-5); },
      {wave({2, 3, 4, 5}), p.w, p.b}, E::bn_train_out, {E::bn_train_g0, E::bn_train_g1, E::bn_train_g2});
  testing::expect_values(rm, {3}, E::bn_train_rm, 1e-12, 1e-12);
  testing::expect_values(rv, {3}, E::bn_train_rv, 1e-12, 1e-12);
  EXPECT_GT(rm.version(), v0);  // an in-place update, as PyTorch's
}

TEST(BatchNorm, SavedStatisticsAndGradFnNames) {
  BnParams p;
  auto [out, mean, invstd] = native_batch_norm(wave({2, 3, 4, 5}), p.w, p.b, std::nullopt, std::nullopt,
                                               true, 0.1, 1e-5);
  testing::expect_values(mean, {3}, E::bn_save_mean, 1e-12, 1e-12);
  testing::expect_values(invstd, {3}, E::bn_save_invstd, 1e-10, 1e-10);
  // eval: empty saved statistics, as PyTorch 1.13
  auto ev = native_batch_norm(wave({2, 3}), std::nullopt, std::nullopt, p.rm, p.rv, false, 0.1, 1e-5);
  EXPECT_EQ(std::get<1>(ev).sizes().vec(), std::vector<int64_t>{0});
  Tensor x = wave({2, 3, 4}).requires_grad_();
  Tensor y = batch_norm(x, std::nullopt, std::nullopt, std::nullopt, std::nullopt, true, 0.1, 1e-5);
  EXPECT_EQ(y.grad_fn()->name(), "NativeBatchNormBackward0");
}

TEST(BatchNorm, EvalValuesAndGradients) {
  BnParams p;
  expect_forward_backward(
      [&](const tensor_list& in) { return batch_norm(in[0], in[1], in[2], p.rm, p.rv, false, 0.1, 1e-5); },
      {wave({2, 3, 4, 5}), p.w, p.b}, E::bn_eval_out, {E::bn_eval_g0, E::bn_eval_g1, E::bn_eval_g2});
}

TEST(BatchNorm, LayoutsAgree) {
  BnParams p;
  for (bool training : {false, true}) {
    SCOPED_TRACE(training ? "training" : "eval");
    for (ScalarType dt : {kFloat32, kFloat64}) {
      Tensor x = wave({2, 3, 4, 5}, dt);
      const auto w = p.w.to(dt), b = p.b.to(dt);
      Tensor rm = p.rm.to(dt), rv = p.rv.to(dt);
      Tensor ref = batch_norm(x, w, b, rm.clone(), rv.clone(), training, 0.1, 1e-5);
      const double tol = dt == kFloat32 ? 1e-5 : 1e-12;
      Tensor cl = channels_last(x);
      Tensor ycl = batch_norm(cl, w, b, rm.clone(), rv.clone(), training, 0.1, 1e-5);
      EXPECT_EQ(ycl.strides().vec(), cl.strides().vec());  // stays channels_last
      testing::expect_values(ycl, ref.sizes(), testing::values(ref), tol, tol);
      Tensor ys = batch_norm(strided(x), w, b, rm.clone(), rv.clone(), training, 0.1, 1e-5);
      testing::expect_values(ys, ref.sizes(), testing::values(ref), tol, tol);
      // as_strided: C fastest but N outermost with a gap (not collapsible into [N, C, S])
      Tensor buf = zeros({2 * 4 * 6 * 3}, TensorOptions(dt));
      Tensor odd = buf.as_strided({2, 3, 4, 5}, {72, 1, 18, 3});
      odd.copy_(x);
      Tensor yo = batch_norm(odd, w, b, rm.clone(), rv.clone(), training, 0.1, 1e-5);
      testing::expect_values(yo, ref.sizes(), testing::values(ref), tol, tol);
    }
  }
}

TEST(BatchNorm, FastPathsMatchReference) {
  // The eval fast paths (NCHW planes, channels_last rows) against x * w + b.
  for (bool cl : {false, true}) {
    Tensor x = wave({3, 5, 6, 7}, kFloat32);
    if (cl) x = channels_last(x);
    std::vector<double> a{0.5, -1.0, 2.0, 0.25, 3.0}, b{1.0, 0.0, -2.0, 0.5, 0.1};
    Tensor rm = zeros({5}), rv = full({5}, 1.0 - 1e-5);
    Tensor w = testing::from_values(a, {5}), bb = testing::from_values(b, {5});
    Tensor fast = batch_norm(x, w, bb, rm, rv, false, 0.1, 1e-5);
    Tensor ref = x * w.view({1, 5, 1, 1}) + bb.view({1, 5, 1, 1});
    testing::expect_values(fast, x.sizes(), testing::values(ref), 1e-5, 1e-5);
  }
}

TEST(BatchNorm, ReducedPrecisionAndMixedParameters) {
  BnParams p;
  for (ScalarType dt : {kBFloat16, kFloat16}) {
    Tensor x = wave({2, 3, 4, 5}, dt);
    Tensor rm = p.rm.to(kFloat32), rv = p.rv.to(kFloat32);
    auto [y, mean, invstd] = native_batch_norm(x, p.w.to(kFloat32), p.b.to(kFloat32), rm, rv, true, 0.1, 1e-5);
    EXPECT_EQ(y.dtype(), dt);
    EXPECT_EQ(mean.dtype(), kFloat32);
    testing::expect_values(y, y.sizes(), E::bn_train_out, 0.02, 0.05);
    testing::expect_values(rm, {3}, E::bn_train_rm, 0.01, 0.01);
    auto same = native_batch_norm(x, std::nullopt, std::nullopt, std::nullopt, std::nullopt, true, 0.1, 1e-5);
    EXPECT_EQ(std::get<1>(same).dtype(), dt);
  }
}

TEST(BatchNorm, EmptyAndMeta) {
  BnParams p;
  Tensor rm = p.rm.clone();
  Tensor e = batch_norm(empty({0, 3, 2}, kFloat64), p.w, p.b, rm, p.rv.clone(), true, 0.1, 1e-5);
  EXPECT_EQ(e.sizes().vec(), (std::vector<int64_t>{0, 3, 2}));
  testing::expect_values(rm, {3}, testing::values(p.rm));  // untouched, as PyTorch's
  Tensor m = empty({2, 3, 4, 5}, TensorOptions(kFloat32).device(kMeta));
  auto [y, mean, invstd] = native_batch_norm(m, std::nullopt, std::nullopt, std::nullopt, std::nullopt, true, 0.1, 1e-5);
  EXPECT_TRUE(y.is_meta());
  EXPECT_EQ(y.sizes().vec(), m.sizes().vec());
  EXPECT_EQ(mean.sizes().vec(), std::vector<int64_t>{3});
  Tensor g = group_norm(m, 3);
  EXPECT_TRUE(g.is_meta());
}

TEST(BatchNorm, Errors) {
  using testing::expect_error;
  BnParams p;
  expect_error([] { batch_norm(wave({3}), std::nullopt, std::nullopt, std::nullopt, std::nullopt, true, 0.1, 1e-5); },
               "Dimension out of range (expected to be in range of [-1, 0], but got 1)", ErrorKind::Index);
  expect_error([&] { batch_norm(wave({2, 3}), std::nullopt, std::nullopt, zeros({4}), ones({3}), true, 0.1, 1e-5); },
               "running_mean should contain 3 elements not 4");
  expect_error([&] { batch_norm(wave({2, 3}), ones({4}), std::nullopt, std::nullopt, std::nullopt, true, 0.1, 1e-5); },
               "weight should contain 3 elements not 4");
  expect_error([&] { batch_norm(wave({2, 3}), std::nullopt, std::nullopt, std::nullopt, std::nullopt, false, 0.1, 1e-5); },
               "running_mean must be defined in evaluation mode");
  expect_error([&] { batch_norm(wave({2, 3}).to(kInt64), std::nullopt, std::nullopt, std::nullopt, std::nullopt, true, 0.1, 1e-5); },
               "\"batch_norm\" not implemented for 'Long'");
  expect_error([&] { batch_norm(wave({2, 3}, kFloat32), ones({3}, kFloat64), std::nullopt, std::nullopt, std::nullopt, true, 0.1, 1e-5); },
               "mixed dtype (CPU): expect parameter to have scalar type of Float");
  // a failing training call leaves the running statistics alone
  Tensor rm = p.rm.clone();
  expect_error([&] { batch_norm(wave({2, 3}), ones({4}), std::nullopt, rm, p.rv, true, 0.1, 1e-5); },
               "weight should contain 3 elements not 4");
  testing::expect_values(rm, {3}, testing::values(p.rm));
}

TEST(GradBatchNorm, GradcheckTrainingAndEval) {
  BnParams p;
  for (bool training : {true, false}) {
    SCOPED_TRACE(training ? "training" : "eval");
    expect_gradchecks([&](const tensor_list& in) {
      return tensor_list{batch_norm(in[0], in[1], in[2], p.rm.clone(), p.rv.clone(), training, 0.1, 1e-5)};
    }, {wave({2, 3, 2, 2}), p.w, p.b});
    // channels_last and non-contiguous inputs, no affine parameters
    expect_gradchecks([&](const tensor_list& in) {
      return tensor_list{batch_norm(in[0], std::nullopt, std::nullopt, p.rm.clone(), p.rv.clone(), training, 0.1, 1e-5)};
    }, {channels_last(wave({2, 3, 2, 2}))});
    expect_gradchecks([&](const tensor_list& in) {
      return tensor_list{batch_norm(in[0], in[1], std::nullopt, p.rm.clone(), p.rv.clone(), training, 0.1, 1e-5)};
    }, {strided(wave({3, 3})), p.w});
  }
}

TEST(GradBatchNorm, FusedAndGraphPathsAgree) {
  // The fused native_batch_norm_backward (no create_graph) and the Tensor-op formula (with).
  BnParams p;
  Tensor x = wave({2, 3, 4}).requires_grad_(), w = p.w.clone().requires_grad_();
  Tensor y = batch_norm(x, w, p.b, std::nullopt, std::nullopt, true, 0.1, 1e-5);
  Tensor go = gwave(y.sizes());
  auto fused = autograd::grad({y}, {x, w}, {go}, true, false);
  auto graph = autograd::grad({y}, {x, w}, {go}, true, true);
  EXPECT_TRUE(graph[0].requires_grad());
  testing::expect_values(graph[0], x.sizes(), testing::values(fused[0]), 1e-10, 1e-10);
  testing::expect_values(graph[1], w.sizes(), testing::values(fused[1]), 1e-10, 1e-10);
}

TEST(GroupNorm, ValuesGradientsAndErrors) {
  Tensor w = wave({6}, kFloat64, 0.9, 0.3, 1.0) + 1.5, b = wave({6}, kFloat64, 0.5, 0.2, 1.0);
  expect_forward_backward([&](const tensor_list& in) { return group_norm(in[0], 3, in[1], in[2], 1e-5); },
                          {wave({2, 6, 3, 3}), w, b}, E::gn_out, {E::gn_g0, E::gn_g1, E::gn_g2});
  // channels_last input, float32
  Tensor y = group_norm(channels_last(wave({2, 6, 3, 3}, kFloat32)), 3, w.to(kFloat32), b.to(kFloat32));
  testing::expect_values(y, y.sizes(), E::gn_out, 1e-5, 1e-5);
  Tensor x = wave({2, 6, 3}).requires_grad_();
  EXPECT_EQ(group_norm(x, 2).grad_fn()->name(), "NativeGroupNormBackward0");
  expect_gradchecks([](const tensor_list& in) { return tensor_list{group_norm(in[0], 2, in[1], in[2])}; },
                    {wave({2, 4, 3}), wave({4}, kFloat64, 0.9, 0.3, 1.0), wave({4}, kFloat64, 0.5, 0.2, 1.0)});
  expect_gradchecks([](const tensor_list& in) { return tensor_list{group_norm(in[0], 2)}; }, {strided(wave({2, 4, 3}))});
  testing::expect_error([] { group_norm(wave({2, 6, 3}), 4); },
                        "Expected number of channels in input to be divisible by num_groups, but got input of shape [2, 6, 3] and num_groups=4");
  testing::expect_error([] { group_norm(wave({2, 6, 3}), 3, ones({5}, kFloat64)); },
                        "Expected weight to be a vector of size equal to the number of channels in input, but got weight of shape [5] and input of shape [2, 6, 3]");
}

// Note [Batch norm backward]: the backward is the op aten::native_batch_norm_backward, so a
// dispatch mode sees it (as PyTorch's); called directly, its fused kernel and its autograd
// (Tensor-op) form give the same values; bad arguments are refused with what was expected.
TEST(BatchNorm, BackwardIsAnOpModesSee) {
  BnParams p;
  Tensor x = wave({2, 3, 4}).requires_grad_();
  Tensor y = batch_norm(x, p.w, p.b, std::nullopt, std::nullopt, true, 0.1, 1e-5);
  testing::dispatch_log().clear();
  {
    DispatchModeGuard g(make_intrusive<testing::LogDispatchMode>("mode"));
    y.sum().backward();
  }
  const auto& log = testing::dispatch_log();
  EXPECT_NE(std::find(log.begin(), log.end(), "mode:aten::native_batch_norm_backward"), log.end());
  testing::dispatch_log().clear();

  for (bool train : {true, false}) {
    SCOPED_TRACE(train ? "train" : "eval");
    const Tensor xin = wave({2, 3, 4, 5});
    auto [out, mean, invstd] = native_batch_norm(xin, p.w, p.b, p.rm.clone(), p.rv.clone(), train,
                                                 0.1, 1e-5);
    const Tensor g = wave({2, 3, 4, 5}, kFloat64, 0.3, 0.1, 2.0);
    auto fused = native_batch_norm_backward(g, xin, p.w, p.rm, p.rv, mean, invstd, train, 1e-5,
                                            {true, true, true});
    Tensor xg = xin.clone().requires_grad_();  // needs grad: the autograd (Tensor-op) form
    auto graph = native_batch_norm_backward(g, xg, p.w, p.rm, p.rv, mean, invstd, train, 1e-5,
                                            {true, true, true});
    // a graph to x: through the batch statistics in training, through x_hat for the weight's
    ASSERT_TRUE(std::get<1>(graph).requires_grad());
    EXPECT_EQ(std::get<0>(graph).requires_grad(), train);
    testing::expect_values(std::get<0>(graph), xin.sizes(), testing::values(std::get<0>(fused)),
                           1e-10, 1e-10);
    testing::expect_values(std::get<1>(graph), {3}, testing::values(std::get<1>(fused)), 1e-10, 1e-10);
    testing::expect_values(std::get<2>(graph), {3}, testing::values(std::get<2>(fused)), 1e-10, 1e-10);
    auto partial = native_batch_norm_backward(g, xin, p.w, p.rm, p.rv, mean, invstd, train, 1e-5,
                                              {false, true, false});
    EXPECT_FALSE(std::get<0>(partial).defined());
    EXPECT_FALSE(std::get<2>(partial).defined());
  }
  testing::expect_error(
      [&] {
        native_batch_norm_backward(wave({2, 3}), wave({2, 3, 4}), std::nullopt, std::nullopt,
                                   std::nullopt, wave({3}), wave({3}), true, 1e-5, {true, true, true});
      },
      "grad_out of size [2, 3] does not match the input's size [2, 3, 4]");
  testing::expect_error(
      [&] {
        native_batch_norm_backward(wave({2, 3}), wave({2, 3}), std::nullopt, std::nullopt,
                                   std::nullopt, std::nullopt, std::nullopt, false, 1e-5,
                                   {true, true, true});
      },
      "train=False needs running_mean and running_var");
}

}  // namespace
}  // namespace ember
