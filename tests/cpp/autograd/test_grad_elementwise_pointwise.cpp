// Backward rules of clamp / clamp_, where, masked_fill_ (pointwise.cpp) and native_dropout
// (random.cpp): gradcheck and gradgradcheck in float64 with broadcast, 0-d and non-contiguous
// operands, values against torch 1.13, grad_fn names, in-place rules, the float32 path.
#include <gtest/gtest.h>

#include "dispatch/dispatcher.h"
#include "grad_elementwise_util.h"

namespace ember {
namespace {

using grad_testing::expect_gradchecks;
using grad_testing::leaf;
using grad_testing::tensor_list;

const std::vector<double> kX6{0.7, -1.3, 2.1, 1.6, -0.45, 1.15};
Tensor go6() { return testing::from_values({1, 2, 3, 4, 5, 6}, {2, 3}, kFloat64); }
Tensor bool_tensor(const std::vector<double>& v, IntArrayRef sizes) {
  return testing::from_values(v, sizes, kBool);
}

TEST(GradElementwisePointwise, Clamp) {
  // Limits away from every point (the gradient jumps there).
  const std::vector<std::pair<std::optional<Scalar>, std::optional<Scalar>>> limits{
      {-1.0, 1.5}, {0.0, std::nullopt}, {std::nullopt, 1.0}, {int64_t{-1}, int64_t{2}}};
  for (const auto& [lo, hi] : limits) {
    auto f = [lo, hi](const tensor_list& in) { return tensor_list{in[0].clamp(lo, hi)}; };
    auto f_ = [lo, hi](const tensor_list& in) {
      Tensor y = in[0] * 1.0;
      return tensor_list{y.clamp_(lo, hi)};
    };
    expect_gradchecks(f, {leaf(kX6, {2, 3})}, "clamp");
    expect_gradchecks(f, {grad_testing::transposed_leaf(kX6, 2, 3)}, "clamp transposed");
    expect_gradchecks(f, {leaf({0.7}, {})}, "clamp 0-d");
    expect_gradchecks(
        [lo, hi](const tensor_list& in) {
          return tensor_list{in[0].expand({2, 3}).clamp(lo, hi)};
        },
        {leaf({0.7, -1.3, 2.1}, {3})}, "clamp expanded");
    expect_gradchecks(f_, {grad_testing::strided_leaf(kX6)}, "clamp_ strided");
  }
  // torch 1.13: x.clamp(-1, 1.5).backward(go) and (x * 1).clamp_(min=0).backward(go).
  Tensor x = leaf(kX6, {2, 3});
  Tensor y = x.clamp(-1.0, 1.5);
  EXPECT_EQ(y.grad_fn()->name(), "ClampBackward1");
  y.backward(go6());
  testing::expect_values(x.grad(), {2, 3}, {1, 0, 0, 0, 5, 6});
  x.set_grad(Tensor());
  Tensor z = x * 1.0;
  z.clamp_(0.0);
  EXPECT_EQ(z.grad_fn()->name(), "ClampBackward1");
  z.backward(go6());
  testing::expect_values(x.grad(), {2, 3}, {1, 0, 3, 4, 0, 6});
  // The limits themselves pass the gradient; NaN does not.
  Tensor b = leaf({-1.0, 1.0, std::nan(""), 0.5}, {4});
  b.clamp(-1.0, 1.0).sum().backward();
  testing::expect_values(b.grad(), {4}, {1, 1, 0, 1});
  testing::expect_error(
      [&] { b.clamp_(0.0); },
      "a leaf Variable that requires grad is being used in an in-place operation.");
  // float32 in, float32 grad.
  Tensor f32 = testing::from_values(kX6, {2, 3}, kFloat32).requires_grad_();
  f32.clamp(-1.0, 1.5).backward(go6().to(kFloat32));
  EXPECT_EQ(f32.grad().dtype(), kFloat32);
  testing::expect_values(f32.grad(), {2, 3}, {1, 0, 0, 0, 5, 6});
}

TEST(GradElementwisePointwise, Where) {
  const Tensor cond = bool_tensor({1, 0, 1, 0, 0, 1}, {2, 3});
  auto f = [cond](const tensor_list& in) { return tensor_list{where(cond, in[0], in[1])}; };
  expect_gradchecks(f, {leaf(kX6, {2, 3}), leaf({1.5, -2.5, 0.8}, {3})}, "where broadcast other");
  expect_gradchecks(f, {leaf({0.3}, {}), grad_testing::transposed_leaf(kX6, 2, 3)},
                    "where 0-d self");
  expect_gradchecks(f, {leaf({1.5, -2.5, 0.8}, {3}), testing::from_values(kX6, {2, 3}, kFloat64)},
                    "where self only");
  const Tensor row = bool_tensor({1, 0, 1}, {3});
  expect_gradchecks([row](const tensor_list& in) { return tensor_list{where(row, in[0], in[1])}; },
                    {grad_testing::strided_leaf(kX6).view({2, 3}), leaf({0.25}, {})},
                    "where broadcast condition");
  // torch 1.13: where(cond, x, w).backward(go).
  Tensor x = leaf(kX6, {2, 3}), w = leaf({1.5, -2.5, 0.8}, {3});
  Tensor y = where(cond, x, w);
  EXPECT_EQ(y.grad_fn()->name(), "WhereBackward0");
  y.backward(go6());
  testing::expect_values(x.grad(), {2, 3}, {1, 0, 3, 0, 0, 6});
  testing::expect_values(w.grad(), {3}, {4, 7, 0});
  // A uint8 condition (deprecated in PyTorch, still read) works the same.
  Tensor x2 = leaf(kX6, {2, 3});
  where(cond.to(kUInt8), x2, w).backward(go6());
  testing::expect_values(x2.grad(), {2, 3}, {1, 0, 3, 0, 0, 6});
  // Mixed dtypes: each operand's gradient in its own dtype.
  Tensor a32 = testing::from_values(kX6, {2, 3}, kFloat32).requires_grad_();
  Tensor y2 = where(cond, a32, w);
  EXPECT_EQ(y2.dtype(), kFloat64);
  y2.backward(go6());
  EXPECT_EQ(a32.grad().dtype(), kFloat32);
  testing::expect_values(a32.grad(), {2, 3}, {1, 0, 3, 0, 0, 6});
}

TEST(GradElementwisePointwise, MaskedFill) {
  const Tensor mask = bool_tensor({1, 0, 1}, {3});  // broadcast over the rows
  auto scalar_fill = [mask](const tensor_list& in) {
    Tensor y = in[0] * 1.0;
    return tensor_list{y.masked_fill_(mask, 2.5)};
  };
  auto tensor_fill = [mask](const tensor_list& in) {
    Tensor y = in[0] * 1.0;
    return tensor_list{y.masked_fill_(mask, in[1])};
  };
  expect_gradchecks(scalar_fill, {leaf(kX6, {2, 3})}, "masked_fill_.Scalar");
  expect_gradchecks(scalar_fill, {grad_testing::transposed_leaf(kX6, 2, 3)},
                    "masked_fill_.Scalar transposed");
  expect_gradchecks(tensor_fill, {leaf(kX6, {2, 3}), leaf({-0.5}, {})}, "masked_fill_.Tensor");
  expect_gradchecks(tensor_fill, {grad_testing::transposed_leaf(kX6, 2, 3), leaf({-0.5}, {})},
                    "masked_fill_.Tensor transposed");
  expect_gradchecks(tensor_fill, {testing::from_values(kX6, {2, 3}, kFloat64), leaf({-0.5}, {})},
                    "masked_fill_.Tensor value only");
  // On a view (CopySlices); second derivatives through CopySlices need copy_/clone rules.
  auto on_view = [mask](const tensor_list& in) {
    Tensor y = in[0] * 1.0;
    Tensor v = y.unsqueeze(0);
    v.masked_fill_(mask, in[1]);
    return tensor_list{y};
  };
  EXPECT_TRUE(autograd::gradcheck(on_view, {leaf(kX6, {2, 3}), leaf({-0.5}, {})}));
  {
    Tensor x = leaf(kX6, {2, 3});
    Tensor y = x * 1.0;
    Tensor row = y.slice(0, 1, 2);  // slice has no rule of its own yet
    row.masked_fill_(mask, 7.0);
    y.backward(go6());
    testing::expect_values(x.grad(), {2, 3}, {1, 2, 3, 0, 5, 0});
  }
  // torch 1.13: (x * 1).masked_fill_(mask, v).backward(go) -> x.grad, v.grad == 14.
  Tensor x = leaf(kX6, {2, 3}), v = leaf({-0.5}, {});
  Tensor y = x * 1.0;
  y.masked_fill_(mask, v);
  EXPECT_EQ(y.grad_fn()->name(), "MaskedFillBackward1");
  y.backward(go6());
  testing::expect_values(x.grad(), {2, 3}, {0, 2, 0, 0, 5, 0});
  testing::expect_values(v.grad(), {}, {14});
  Tensor z = x * 1.0;
  z.masked_fill_(mask, 0.0);
  EXPECT_EQ(z.grad_fn()->name(), "MaskedFillBackward0");
  testing::expect_error(
      [&] { x.masked_fill_(mask, 1.0); },
      "a leaf Variable that requires grad is being used in an in-place operation.");
  // A plain tensor filled with a value that requires grad joins the graph.
  Tensor plain = zeros({2, 3}, kFloat64);
  plain.masked_fill_(mask, v);
  EXPECT_TRUE(plain.requires_grad());
  v.set_grad(Tensor());
  plain.sum().backward();
  testing::expect_values(v.grad(), {}, {4});
  // The mask is saved: writing it afterwards fails the backward.
  Tensor m = mask.clone();
  Tensor w = x * 1.0;
  w.masked_fill_(m, 1.0);
  m.logical_not_();
  testing::expect_error([&] { w.sum().backward(); },
                        "[ember.BoolTensor [3]] is at version 1; expected version 0 instead.");
}

// masked_fill is a composite: clone (broadcast) then masked_fill_, which records.
TEST(GradElementwisePointwise, MaskedFillComposite) {
  if (!dispatch::autograd_slot(dispatch::OpId::clone).fn) {
    GTEST_SKIP() << "clone has no backward rule yet (the copy family's), so masked_fill's copy "
                    "carries no history";
  }
  const Tensor mask = bool_tensor({1, 0, 1}, {3});
  expect_gradchecks(
      [mask](const tensor_list& in) { return tensor_list{in[0].masked_fill(mask, in[1])}; },
      {leaf({0.7, -1.3, 2.1}, {3}), leaf({-0.5}, {})}, "masked_fill");
  expect_gradchecks(
      [mask](const tensor_list& in) { return tensor_list{in[0].masked_fill(mask, 2.0)}; },
      {leaf({0.25}, {})}, "masked_fill broadcast 0-d self");
  Tensor x = leaf(kX6, {2, 3});
  Tensor y = x.masked_fill(mask, 0.0);
  ASSERT_TRUE(y.grad_fn());
  EXPECT_EQ(y.grad_fn()->name(), "MaskedFillBackward0");
  y.backward(go6());
  testing::expect_values(x.grad(), {2, 3}, {0, 2, 0, 0, 5, 0});
}

// native_dropout's forward is random, so gradcheck draws the same mask each call (re-seeded).
TEST(GradElementwisePointwise, NativeDropout) {
  for (double p : {0.0, 0.3, 0.6, 1.0}) {
    for (std::optional<bool> train : {std::optional<bool>(true), std::optional<bool>(false)}) {
      auto f = [p, train](const tensor_list& in) {
        manual_seed(1234);
        return tensor_list{std::get<0>(native_dropout(in[0], p, train))};
      };
      expect_gradchecks(f, {leaf(kX6, {2, 3})}, "native_dropout");
      expect_gradchecks(f, {grad_testing::transposed_leaf(kX6, 2, 3)}, "native_dropout transposed");
      expect_gradchecks(f, {leaf({0.7}, {})}, "native_dropout 0-d");
    }
  }
  // grad = grad_output * mask / (1 - p); the mask is not differentiable.
  Tensor x =
      testing::from_values(std::vector<double>(200, 1.5), {10, 20}, kFloat32).requires_grad_();
  auto [out, mask] = native_dropout(x, 0.4, true);
  EXPECT_EQ(out.grad_fn()->name(), "NativeDropoutBackward0");
  EXPECT_FALSE(mask.requires_grad());
  EXPECT_EQ(mask.dtype(), kBool);
  out.backward(ones({10, 20}, kFloat32) * 2.0);
  EXPECT_EQ(x.grad().dtype(), kFloat32);
  auto m = testing::values(mask), g = testing::values(x.grad());
  int kept = 0;
  for (size_t i = 0; i < m.size(); ++i) {
    EXPECT_NEAR(g[i], m[i] * 2.0 / 0.6, 1e-6);
    kept += m[i] != 0;
  }
  EXPECT_GT(kept, 0);
  EXPECT_LT(kept, 200);
  // Eval mode: identity; p == 1: no gradient.
  Tensor e = leaf(kX6, {2, 3});
  std::get<0>(native_dropout(e, 0.5, false)).backward(go6());
  testing::expect_values(e.grad(), {2, 3}, {1, 2, 3, 4, 5, 6});
  e.set_grad(Tensor());
  std::get<0>(native_dropout(e, 1.0, true)).backward(go6());
  testing::expect_values(e.grad(), {2, 3}, {0, 0, 0, 0, 0, 0});
  // dropout (a composite) records through native_dropout.
  e.set_grad(Tensor());
  manual_seed(3);
  Tensor d = dropout(e, 0.5, true);
  d.sum().backward();
  auto dv = testing::values(d), ev = testing::values(e.grad());
  for (size_t i = 0; i < dv.size(); ++i) EXPECT_EQ(ev[i], dv[i] == 0 ? 0.0 : 2.0);
  // The saved mask is checked for in-place changes.
  Tensor x2 = leaf(kX6, {2, 3});
  auto [o2, m2] = native_dropout(x2, 0.5, true);
  m2.logical_not_();
  testing::expect_error([&] { o2.sum().backward(); },
                        "[ember.BoolTensor [2, 3]] is at version 1; expected version 0 instead.");
}

// An empty input comes back from the forward as itself; recording must leave the input a leaf.
TEST(GradElementwisePointwise, NativeDropoutEmptyInput) {
  Tensor x = empty({0, 4}, kFloat64).requires_grad_();
  auto [out, mask] = native_dropout(x, 0.5, true);
  EXPECT_TRUE(x.is_leaf());
  EXPECT_FALSE(x.grad_fn());
  EXPECT_EQ(out.grad_fn()->name(), "NativeDropoutBackward0");
  EXPECT_FALSE(mask.requires_grad());
  out.sum().backward();
  EXPECT_EQ(x.grad().sizes(), IntArrayRef({0, 4}));
}

}  // namespace
}  // namespace ember
