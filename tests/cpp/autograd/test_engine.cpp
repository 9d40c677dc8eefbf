// The engine: accumulation, broadcasting, retain_graph, grad(), errors.
#include <gtest/gtest.h>

#include "../testing.h"
#include "ember/autograd/autograd.h"
#include "ember/ember.h"

namespace ember {
namespace {

TEST(AutogradEngine, MulSumAccumulatesIntoLeaves) {
  Tensor x = testing::from_values({1.0, 2.0, 3.0}, {3}, kFloat64).requires_grad_();
  Tensor y = testing::from_values({4.0, 5.0, 6.0}, {3}, kFloat64).requires_grad_();
  Tensor loss = (x * y).sum();
  EXPECT_EQ(loss.grad_fn()->name(), "SumBackward0");
  EXPECT_TRUE(x.is_leaf());
  EXPECT_FALSE(loss.is_leaf());
  loss.backward();
  testing::expect_values(x.grad(), {3}, {4.0, 5.0, 6.0});
  testing::expect_values(y.grad(), {3}, {1.0, 2.0, 3.0});
  // A second graph accumulates.
  (x * y).sum().backward();
  testing::expect_values(x.grad(), {3}, {8.0, 10.0, 12.0});
}

TEST(AutogradEngine, BroadcastGradientsAreSummedDown) {
  Tensor x = ones({2, 3}, kFloat64).requires_grad_();
  Tensor b = ones({3}, kFloat64).requires_grad_();
  (x + b).sum().backward();
  testing::expect_values(b.grad(), {3}, {2.0, 2.0, 2.0});
  EXPECT_EQ(x.grad().sizes(), IntArrayRef({2, 3}));
}

TEST(AutogradEngine, SecondBackwardWithoutRetainGraphFails) {
  Tensor x = ones({3}, kFloat64).requires_grad_();
  Tensor z = (x * x).sum();
  z.backward();
  testing::expect_error([&] { z.backward(); }, "Trying to backward through the graph a second time");
}

TEST(AutogradEngine, GradDoesNotTouchDotGrad) {
  Tensor x = testing::from_values({1.0, 2.0}, {2}, kFloat64).requires_grad_();
  auto g = autograd::grad({(x * x).sum()}, {x});
  testing::expect_values(g[0], {2}, {2.0, 4.0});
  EXPECT_FALSE(x.grad().defined());
}

TEST(AutogradEngine, DoubleBackward) {
  Tensor x = testing::from_values({1.0, 2.0}, {2}, kFloat64).requires_grad_();
  Tensor y = (x * x * x).sum();
  auto g = autograd::grad({y}, {x}, {}, std::nullopt, /*create_graph=*/true);
  testing::expect_values(g[0], {2}, {3.0, 12.0});
  auto gg = autograd::grad({g[0].sum()}, {x});
  testing::expect_values(gg[0], {2}, {6.0, 12.0});
}

TEST(AutogradEngine, InplaceOnViewRebasesBase) {
  Tensor leaf = testing::from_values({1.0, 2.0, 3.0}, {3}, kFloat64).requires_grad_();
  Tensor a = leaf * 1.0;
  Tensor v = a.slice(0, 0, 2);
  v.mul_(2.0);
  EXPECT_EQ(a.grad_fn()->name(), "CopySlices");
  EXPECT_EQ(v.grad_fn()->name(), "AsStridedBackward0");
  a.sum().backward();
  testing::expect_values(leaf.grad(), {3}, {2.0, 2.0, 1.0});
}

TEST(AutogradEngine, CopyIntoViewOfPlainTensorMakesBaseRequireGrad) {
  Tensor w = testing::from_values({5.0, 7.0}, {2}, kFloat64).requires_grad_();
  Tensor b = zeros({3}, kFloat64);
  Tensor v = b.slice(0, 0, 2);
  v.mul_(w);
  EXPECT_TRUE(b.requires_grad());
  (b * 1.0).sum().backward();
  testing::expect_values(w.grad(), {2}, {0.0, 0.0});
}

TEST(AutogradEngine, InplaceErrors) {
  Tensor x = ones({3}, kFloat64).requires_grad_();
  testing::expect_error([&] { x.mul_(2.0); },
                        "a leaf Variable that requires grad is being used in an in-place operation.");
  testing::expect_error([&] { x.slice(0, 0, 1).mul_(2.0); },
                        "a view of a leaf Variable that requires grad is being used in an in-place operation.");
  Tensor y = x * 1.0;
  Tensor z = (y * y).sum();
  y.mul_(2.0);
  testing::expect_error([&] { z.backward(); },
                        "one of the variables needed for gradient computation has been modified by an "
                        "inplace operation: [ember.DoubleTensor [3]], which is output 0 of MulBackward0, "
                        "is at version 1; expected version 0 instead.");
}

}  // namespace
}  // namespace ember

#include "ember/autograd/gradcheck.h"

namespace ember {
namespace {
TEST(Gradcheck, MulSumPassesAndWrongRuleFails) {
  Tensor x = testing::iota({3}, kFloat64, 1).requires_grad_();
  Tensor y = testing::iota({2, 3}, kFloat64, -2).requires_grad_();
  auto f = [](const autograd::tensor_list& in) { return autograd::tensor_list{in[0] * in[1] + in[0]}; };
  EXPECT_TRUE(autograd::gradcheck(f, {x, y}));
  EXPECT_TRUE(autograd::gradgradcheck(f, {x, y}));
  autograd::GradcheckOptions fast;
  fast.fast_mode = true;
  EXPECT_TRUE(autograd::gradcheck(f, {x, y}, fast));
}
}  // namespace
}  // namespace ember

namespace ember {
namespace {
// CopySlices asks the running grad() to include its inner node's view edge; it must not make a
// grad() accumulate into a leaf that was not requested (found as a reference-cycle leak by LSan).
TEST(AutogradEngine, GradThroughCopySlicesLeavesOtherLeavesAlone) {
  Tensor x = ones({2, 3}, kFloat64).requires_grad_();
  Tensor s = ones({2, 1}, kFloat64).requires_grad_();
  Tensor y = x * 1.0;
  y.slice(1, 0, 2).copy_(s);
  auto g = autograd::grad({(y * y).sum()}, {x}, {}, true, /*create_graph=*/true);
  testing::expect_values(g[0], {2, 3}, {0, 0, 2, 0, 0, 2});
  EXPECT_FALSE(s.grad().defined());
}
}  // namespace
}  // namespace ember
