// Backward rules of the view ops (view.cpp), copies and fills (copy.cpp), and in-place writes
// through views. Index-like ops (indexing.cpp, join.cpp, index_ops.cpp): test_grad_views_index.cpp.
// Expected values were computed with PyTorch 1.13 (the snippet is quoted beside each).
#include <gtest/gtest.h>

#include "../testing.h"
#include "ember/autograd/autograd.h"
#include "ember/autograd/gradcheck.h"
#include "ember/ember.h"

namespace ember {
namespace {

using autograd::tensor_list;

// Distinct, irregular float64 values (so a wrong permutation of gradients shows), as a leaf.
Tensor input(IntArrayRef sizes, double start = 0.5) {
  Tensor t = testing::iota(sizes, kFloat64);
  return (t * 0.731 + start).sin().detach().requires_grad_();
}
// The same values laid out transposed in memory: t is a non-contiguous leaf of `sizes` (2-d).
Tensor transposed_input(int64_t rows, int64_t cols, double start = 0.5) {
  Tensor t = input({cols, rows}, start).detach().t();
  EXPECT_FALSE(t.is_contiguous());
  return t.requires_grad_();
}

void check(const autograd::DifferentiableFn& fn, const tensor_list& inputs) {
  EXPECT_TRUE(autograd::gradcheck(fn, inputs));
  EXPECT_TRUE(autograd::gradgradcheck(fn, inputs));
}

std::string name_of(const Tensor& t) { return t.grad_fn() ? t.grad_fn()->name() : "(none)"; }

// ---- plain views ----

TEST(GradViews, Transposes) {
  Tensor x = input({2, 3});
  EXPECT_EQ(name_of(x.t()), "TBackward0");
  EXPECT_EQ(name_of(x.transpose(0, 1)), "TransposeBackward0");
  EXPECT_EQ(name_of(x.permute({1, 0})), "PermuteBackward0");
  auto t = [](const tensor_list& in) { return tensor_list{in[0].t() * in[0].t()}; };
  check(t, {x});
  check(t, {transposed_input(3, 2)});
  check(t, {input({4})});
  check(t, {input({})});
  auto tr = [](const tensor_list& in) { return tensor_list{in[0].transpose(-1, 0)}; };
  check(tr, {input({2, 3, 4})});
  check(tr, {input({})});
  auto tr_broadcast = [](const tensor_list& in) { return tensor_list{in[0].expand({2, 3}).transpose(0, 1)}; };
  check(tr_broadcast, {input({3})});
  auto perm = [](const tensor_list& in) { return tensor_list{in[0].permute({2, -3, 1})}; };
  check(perm, {input({2, 3, 4})});
  check([](const tensor_list& in) { return tensor_list{in[0].permute({1, 0})}; },
        {transposed_input(2, 3)});
}

TEST(GradViews, TransposeGradientValues) {
  // x = torch.arange(6.).view(2, 3).requires_grad_(); (x.t() * w).sum().backward(); x.grad == w.t()
  Tensor x = testing::iota({2, 3}, kFloat64).requires_grad_();
  Tensor w = testing::iota({3, 2}, kFloat64, 10);
  (x.t() * w).sum().backward();
  testing::expect_values(x.grad(), {2, 3}, {10, 12, 14, 11, 13, 15});
  Tensor y = testing::iota({2, 3, 4}, kFloat64).requires_grad_();
  (y.permute({2, 0, 1}) * testing::iota({4, 2, 3}, kFloat64)).sum().backward();
  // y.grad[i, j, k] = w[k, i, j] = 6k + 3i + j
  testing::expect_values(y.grad().select(0, 1), {3, 4}, {3, 9, 15, 21, 4, 10, 16, 22, 5, 11, 17, 23});
}

TEST(GradViews, Squeeze) {
  Tensor x = input({1, 3, 1, 2});
  EXPECT_EQ(name_of(x.squeeze()), "SqueezeBackward0");
  EXPECT_EQ(name_of(x.squeeze(0)), "SqueezeBackward1");
  EXPECT_EQ(name_of(x.squeeze(1)), "SqueezeBackward1");  // not squeezed, still recorded
  check([](const tensor_list& in) { return tensor_list{in[0].squeeze()}; }, {x});
  check([](const tensor_list& in) { return tensor_list{in[0].squeeze(-2)}; }, {x});
  check([](const tensor_list& in) { return tensor_list{in[0].squeeze(1)}; }, {x});
  check([](const tensor_list& in) { return tensor_list{in[0].squeeze()}; }, {input({})});
  check([](const tensor_list& in) { return tensor_list{in[0].squeeze(0)}; }, {input({})});
  check([](const tensor_list& in) { return tensor_list{in[0].squeeze()}; }, {input({1, 1})});
  check([](const tensor_list& in) { return tensor_list{in[0].unsqueeze(1).squeeze()}; },
        {transposed_input(3, 2)});
  check([](const tensor_list& in) { return tensor_list{in[0].unsqueeze(0).squeeze(0)}; },
        {transposed_input(3, 2)});
  Tensor y = testing::iota({1, 2, 1}, kFloat64).requires_grad_();
  (y.squeeze() * testing::from_values({3, 4}, {2}, kFloat64)).sum().backward();
  testing::expect_values(y.grad(), {1, 2, 1}, {3, 4});
}

TEST(GradViews, SliceAndSelect) {
  Tensor x = input({5, 3});
  EXPECT_EQ(name_of(x.slice(0, 1, 4)), "SliceBackward0");
  EXPECT_EQ(name_of(x.select(1, 0)), "SelectBackward0");
  EXPECT_EQ(name_of(x.narrow(1, 1, 2)), "SliceBackward0");  // narrow is a composite over slice
  check([](const tensor_list& in) { return tensor_list{in[0].slice(0, 1, 5, 2) * in[0].slice(0, 0, 4, 2)}; }, {x});
  check([](const tensor_list& in) { return tensor_list{in[0].slice(1, -2, std::nullopt, 1)}; }, {x});
  check([](const tensor_list& in) { return tensor_list{in[0].slice(0, 4, 2)}; }, {x});  // empty
  check([](const tensor_list& in) { return tensor_list{in[0].slice(1, 1, 3)}; }, {transposed_input(3, 4)});
  check([](const tensor_list& in) { return tensor_list{in[0].select(1, -1)}; }, {x});
  check([](const tensor_list& in) { return tensor_list{in[0].select(0, 2).select(0, 1)}; }, {x});
  check([](const tensor_list& in) { return tensor_list{in[0].select(0, 1)}; }, {input({3})});  // 0-d out
  check([](const tensor_list& in) { return tensor_list{in[0].expand({4, 3}).select(0, 1)}; }, {input({3})});
  // torch: x = torch.arange(10.).view(5, 2).requires_grad_(); (x[1:4:2] * w).sum().backward()
  Tensor y = testing::iota({5, 2}, kFloat64).requires_grad_();
  (y.slice(0, 1, 4, 2) * testing::from_values({1, 2, 3, 4}, {2, 2}, kFloat64)).sum().backward();
  testing::expect_values(y.grad(), {5, 2}, {0, 0, 1, 2, 0, 0, 3, 4, 0, 0});
  y.grad().zero_();
  (y.select(1, 1) * 3.0).sum().backward();
  testing::expect_values(y.grad(), {5, 2}, {0, 3, 0, 3, 0, 3, 0, 3, 0, 3});
}

TEST(GradViews, AsStrided) {
  Tensor x = input({6});
  EXPECT_EQ(name_of(x.as_strided({2, 2}, {2, 1})), "AsStridedBackward0");
  // Overlapping windows: elements read twice get both gradients.
  check([](const tensor_list& in) { return tensor_list{in[0].as_strided({3, 3}, {1, 1}, 1)}; }, {x});
  check([](const tensor_list& in) { return tensor_list{in[0].as_strided({4}, {0})}; }, {x});
  check([](const tensor_list& in) { return tensor_list{in[0].as_strided({}, {}, 3)}; }, {x});
  check([](const tensor_list& in) { return tensor_list{in[0].as_strided({2, 0}, {1, 1})}; }, {x});
  check([](const tensor_list& in) { return tensor_list{in[0].as_strided({2, 2}, {1, 3}, 1)}; },
        {transposed_input(2, 3)});
  // torch: x = torch.arange(1., 7.).requires_grad_()
  //        (x.as_strided((3, 3), (1, 1), 1) * torch.arange(9.).view(3, 3)).sum().backward()
  Tensor y = testing::iota({6}, kFloat64, 1).requires_grad_();
  (y.as_strided({3, 3}, {1, 1}, 1) * testing::iota({3, 3}, kFloat64)).sum().backward();
  testing::expect_values(y.grad(), {6}, {0, 0, 4, 12, 12, 8});
}

TEST(GradViews, AsStridedOfAnExpandedInputCountsEachLocationOnce) {
  // torch: x = torch.tensor([2.], requires_grad=True)
  //        x.expand(3).as_strided((2,), (0,)).sum().backward()   -> x.grad == [2.]
  Tensor x = testing::from_values({2}, {1}, kFloat64).requires_grad_();
  x.expand({3}).as_strided({2}, {0}).sum().backward();
  testing::expect_values(x.grad(), {1}, {2});
  // x.expand(3, 2, 2).as_strided((2, 2), (2, 1), 0) is x itself: its gradient is w.
  Tensor y = testing::iota({2, 2}, kFloat64, 1).requires_grad_();
  (y.expand({3, 2, 2}).as_strided({2, 2}, {2, 1}, 0) * testing::iota({2, 2}, kFloat64, 1)).sum().backward();
  testing::expect_values(y.grad(), {2, 2}, {1, 2, 3, 4});
}

TEST(GradViews, SplitAndUnbind) {
  Tensor x = input({5, 2});
  for (const Tensor& p : x.split(2)) EXPECT_EQ(name_of(p), "SplitBackward0");
  for (const Tensor& p : x.split(std::vector<int64_t>{1, 4})) EXPECT_EQ(name_of(p), "SplitWithSizesBackward0");
  for (const Tensor& p : x.unbind(1)) EXPECT_EQ(name_of(p), "UnbindBackward0");
  EXPECT_EQ(x.split(2)[2].output_nr(), 2u);
  auto all = [](std::vector<Tensor> v) { return tensor_list(v.begin(), v.end()); };
  check([&](const tensor_list& in) { return all(in[0].split(2)); }, {x});
  check([&](const tensor_list& in) { return all(in[0].split(1, 1)); }, {x});
  check([&](const tensor_list& in) { return all(in[0].split(std::vector<int64_t>{0, 3, 2}, 0)); }, {x});
  check([&](const tensor_list& in) { return all(in[0].unbind(0)); }, {x});
  check([&](const tensor_list& in) { return all(in[0].unbind(-1)); }, {transposed_input(2, 3)});
  check([&](const tensor_list& in) { return all(in[0].chunk(2, 1)); }, {x});  // composite over split
  check([&](const tensor_list& in) { return all(in[0].unbind(0)); }, {input({3})});  // 0-d pieces
  // Only one piece used: the others' gradients are zeros.
  // torch: x = torch.arange(10.).view(5, 2).requires_grad_(); a = x.split(2)[1]; (a*a).sum().backward()
  Tensor y = testing::iota({5, 2}, kFloat64).requires_grad_();
  Tensor a = y.split(2)[1];
  (a * a).sum().backward();
  testing::expect_values(y.grad(), {5, 2}, {0, 0, 0, 0, 8, 10, 12, 14, 0, 0});
  Tensor z = testing::iota({2, 3}, kFloat64).requires_grad_();
  (z.unbind(1)[0] * 2.0).sum().backward();
  testing::expect_values(z.grad(), {2, 3}, {2, 0, 0, 2, 0, 0});
}

TEST(GradViews, MultiOutputViewsRefuseInplace) {
  Tensor x = input({4, 2});
  Tensor y = x * 1.0;
  auto pieces = y.split(2);
  testing::expect_error([&] { pieces[0].mul_(2.0); },
                        "Output 0 of SplitBackward0 is a view and is being modified inplace. This view "
                        "is the output of a function that returns multiple views. Such functions do not "
                        "allow the output views to be modified inplace. You should replace the inplace "
                        "operation by an out-of-place one.");
  auto sized = y.split(std::vector<int64_t>{1, 3});
  testing::expect_error([&] { sized[1].zero_(); }, "Output 1 of SplitWithSizesBackward0 is a view");
  auto rows = y.unbind();
  testing::expect_error([&] { rows[3].copy_(ones({2}, kFloat64)); }, "Output 3 of UnbindBackward0 is a view");
  // Nothing was written.
  testing::expect_values(y, {4, 2}, testing::values(x.detach()));
  // Out-of-place use is fine, and a view of a piece is refused too (it inherits the creation).
  (pieces[0] * 2.0).sum().backward();
  // torch: rows[0].select(0, 0).mul_(2) -> "Output 0 of SelectBackward0 is a view and is being
  //        modified inplace. This view is the output of a function that returns multiple views. ..."
  testing::expect_error([&] { rows[0].select(0, 0).mul_(2.0); },
                        "Output 0 of SelectBackward0 is a view and is being modified inplace. This view "
                        "is the output of a function that returns multiple views.");
  testing::expect_error([&] { pieces[1].t().slice(0, 0, 1).zero_(); }, "Output 0 of SliceBackward0 is a view");
  testing::expect_error([&] { alias(rows[2]).fill_(1.0); }, "Output 0 of AliasBackward0 is a view");
}

TEST(GradViews, Alias) {
  Tensor x = input({2, 3});
  Tensor a = alias(x);
  EXPECT_EQ(name_of(a), "AliasBackward0");
  EXPECT_TRUE(a.is_view());
  check([](const tensor_list& in) { return tensor_list{alias(in[0]) * in[0]}; }, {x});
  check([](const tensor_list& in) { return tensor_list{alias(in[0])}; }, {transposed_input(2, 3)});
  check([](const tensor_list& in) { return tensor_list{alias(in[0])}; }, {input({})});
  // An in-place write through an alias rebases its base, as through any view.
  // torch: y = x * 1; a = torch.ops.aten.alias(y); a.mul_(2) -> y.grad_fn is CopySlices
  Tensor y = x * 1.0;
  Tensor b = alias(y);
  b.mul_(2.0);
  EXPECT_EQ(name_of(y), "CopySlices");
  y.sum().backward();
  testing::expect_values(x.grad(), {2, 3}, {2, 2, 2, 2, 2, 2});
  // Tensor::index with an ellipsis is an alias.
  EXPECT_EQ(name_of(x.index({indexing::Ellipsis})), "AliasBackward0");
}

// ---- copies and fills ----

TEST(GradViewsCopy, ToCopy) {
  Tensor x = input({2, 3});
  EXPECT_EQ(name_of(x.to(kFloat32)), "ToCopyBackward0");
  EXPECT_EQ(name_of(x.to(kFloat64, /*copy=*/true)), "ToCopyBackward0");
  EXPECT_TRUE(x.to(kFloat64).is_same(x));  // no copy, no node
  check([](const tensor_list& in) { return tensor_list{_to_copy(in[0], kFloat64) * in[0]}; }, {x});
  check([](const tensor_list& in) { return tensor_list{in[0].to(kFloat64, true)}; }, {transposed_input(2, 3)});
  check([](const tensor_list& in) { return tensor_list{in[0].to(kFloat64, true)}; }, {input({})});
  // torch: x = torch.tensor([1.5, 2.], requires_grad=True); y = x.to(torch.float64)
  //        (y * y).sum().backward()  -> x.grad == [3., 4.], float32
  Tensor f = testing::from_values({1.5, 2}, {2}, kFloat32).requires_grad_();
  Tensor y = f.to(kFloat64);
  (y * y).sum().backward();
  EXPECT_EQ(f.grad().dtype(), kFloat32);
  testing::expect_values(f.grad(), {2}, {3, 4});
  // A conversion to integers is not differentiable.
  EXPECT_FALSE(x.to(kInt64).requires_grad());
  EXPECT_FALSE(x.to(kBool).requires_grad());
}

TEST(GradViewsCopy, CloneAndDetach) {
  Tensor x = input({2, 3});
  EXPECT_EQ(name_of(x.clone()), "CloneBackward0");
  check([](const tensor_list& in) { return tensor_list{in[0].clone() * in[0]}; }, {x});
  check([](const tensor_list& in) { return tensor_list{in[0].clone()}; }, {transposed_input(2, 3)});
  check([](const tensor_list& in) { return tensor_list{in[0].expand({3, 2, 3}).clone()}; }, {x});
  check([](const tensor_list& in) { return tensor_list{in[0].clone()}; }, {input({})});
  check([](const tensor_list& in) { return tensor_list{in[0].contiguous()}; }, {transposed_input(2, 3)});
  EXPECT_FALSE(x.detach().requires_grad());
  EXPECT_FALSE((x * 2.0).detach().requires_grad());
  EXPECT_TRUE((x * 2.0).detach().is_leaf());
}

TEST(GradViewsCopy, CopyInto) {
  // self's old values get zero gradient; src gets the gradient summed over its broadcast.
  auto fn = [](const tensor_list& in) {
    Tensor y = in[0] * in[0];
    y.copy_(in[1]);
    return tensor_list{y * in[0]};
  };
  check(fn, {input({2, 3}), input({3}, 1.0)});
  check(fn, {input({2, 3}), transposed_input(2, 3, 1.0)});
  check(fn, {input({}), input({}, 1.0)});
  auto into_view = [](const tensor_list& in) {
    Tensor y = in[0] * 1.0;
    y.slice(1, 0, 2).copy_(in[1]);
    return tensor_list{y * y};
  };
  check(into_view, {input({2, 3}), input({2, 1}, 1.0)});
  // torch: s = torch.tensor([1., 2., 3.], requires_grad=True)
  //        y = torch.zeros(2, 3, dtype=torch.float64, requires_grad=True) * 1; y.copy_(s)
  //        (y * torch.arange(6.).view(2, 3)).sum().backward()  -> s.grad == [3., 5., 7.] (float32)
  Tensor s = testing::from_values({1, 2, 3}, {3}, kFloat32).requires_grad_();
  Tensor base = zeros({2, 3}, kFloat64).requires_grad_();
  Tensor y = base * 1.0;
  y.copy_(s);
  EXPECT_EQ(name_of(y), "CopyBackwards");
  (y * testing::iota({2, 3}, kFloat64)).sum().backward();
  EXPECT_EQ(s.grad().dtype(), kFloat32);
  testing::expect_values(s.grad(), {3}, {3, 5, 7});
  testing::expect_values(base.grad(), {2, 3}, {0, 0, 0, 0, 0, 0});
  // An integer destination records nothing (torch: yi.copy_(s); yi.requires_grad == False).
  Tensor yi = zeros({3}, kInt64);
  yi.copy_(s);
  EXPECT_FALSE(yi.requires_grad());
  testing::expect_values(yi, {3}, {1, 2, 3});
}

TEST(GradViewsCopy, CopyIntoPlainTensorMakesItRequireGrad) {
  Tensor w = testing::from_values({5, 7}, {2}, kFloat64).requires_grad_();
  Tensor b = zeros({2}, kFloat64);
  b.copy_(w);
  EXPECT_TRUE(b.requires_grad());
  EXPECT_FALSE(b.is_leaf());
  (b * testing::from_values({2, 3}, {2}, kFloat64)).sum().backward();
  testing::expect_values(w.grad(), {2}, {2, 3});
}

TEST(GradViewsCopy, FillAndZero) {
  Tensor x = input({2, 3});
  Tensor y = x * 1.0;
  y.fill_(2.0);
  EXPECT_EQ(name_of(y), "FillBackward2");  // PyTorch 1.13's name for fill_.Scalar
  Tensor z = x * 1.0;
  z.zero_();
  EXPECT_EQ(name_of(z), "ZeroBackward0");
  auto fill_row = [](const tensor_list& in) {
    Tensor t = in[0] * 1.0;
    t.select(0, 1).fill_(1.5);
    return tensor_list{t * t};
  };
  check(fill_row, {x});
  check(fill_row, {transposed_input(2, 3)});
  auto zero_col = [](const tensor_list& in) {
    Tensor t = in[0] * in[0];
    t.slice(1, 1, 2).zero_();
    return tensor_list{t};
  };
  check(zero_col, {x});
  auto zero_all = [](const tensor_list& in) {
    Tensor t = in[0] * 1.0;
    t.zero_();
    return tensor_list{t + in[0]};
  };
  check(zero_all, {input({})});
  // torch: x = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True); y = x * 1; y[1].fill_(5)
  //        (y * y).sum().backward()  -> x.grad == [[2., 4.], [0., 0.]]
  Tensor a = testing::from_values({1, 2, 3, 4}, {2, 2}, kFloat64).requires_grad_();
  Tensor b = a * 1.0;
  b.select(0, 1).fill_(5.0);
  (b * b).sum().backward();
  testing::expect_values(a.grad(), {2, 2}, {2, 4, 0, 0});
  // The whole tensor overwritten: a zero gradient (defined, as PyTorch's zeros_like).
  Tensor c = a * 1.0;
  c.zero_();
  auto g = autograd::grad({c.sum()}, {a});
  testing::expect_values(g[0], {2, 2}, {0, 0, 0, 0});
}

TEST(GradViewsCopy, InplaceErrors) {
  Tensor x = input({3});
  const std::string leaf = "a leaf Variable that requires grad is being used in an in-place operation.";
  testing::expect_error([&] { x.fill_(1.0); }, leaf);
  testing::expect_error([&] { x.zero_(); }, leaf);
  testing::expect_error([&] { x.copy_(ones({3}, kFloat64)); }, leaf);
  testing::expect_error([&] { x.select(0, 0).zero_(); },
                        "a view of a leaf Variable that requires grad is being used in an in-place operation.");
  testing::expect_values(x, {3}, testing::values(input({3}).detach()));  // unchanged
  // A write after the value was saved: clone saves nothing, but mul does.
  Tensor y = x * 1.0;
  Tensor z = y * y;
  y.zero_();
  testing::expect_error([&] { z.sum().backward(); },
                        "one of the variables needed for gradient computation has been modified by an "
                        "inplace operation: [ember.DoubleTensor [3]], which is output 0 of ZeroBackward0, "
                        "is at version 1; expected version 0 instead.");
  Tensor w = x * 1.0;
  Tensor v = w.t().clone();
  w.zero_();
  v.sum().backward();  // views and clone save no tensor
  testing::expect_values(x.grad(), {3}, {1, 1, 1});
}

// ---- in-place writes through views ----

TEST(GradViewsInplace, WriteThroughSelect) {
  // torch: leaf = torch.tensor([1., 2., 3.], requires_grad=True); x = leaf * 1; x[0].mul_(2)
  //        x.sum().backward()  -> leaf.grad == [2., 1., 1.]
  Tensor leaf = testing::from_values({1, 2, 3}, {3}, kFloat64).requires_grad_();
  Tensor x = leaf * 1.0;
  Tensor v = x.select(0, 0);
  v.mul_(2.0);
  EXPECT_EQ(name_of(x), "CopySlices");
  EXPECT_EQ(name_of(v), "AsStridedBackward0");
  testing::expect_values(x, {3}, {2, 2, 3});
  x.sum().backward();
  testing::expect_values(leaf.grad(), {3}, {2, 1, 1});
  // Through Python-style indexing, two levels of views deep.
  Tensor m = testing::iota({2, 3}, kFloat64, 1).requires_grad_();
  Tensor y = m * 1.0;
  // (mul_ saves its other operand: read through a view of y, y's next write would invalidate it,
  // as in PyTorch, so it is cloned.)
  y.index({1}).slice(0, 1, 3).mul_(y.index({0}).slice(0, 0, 2).clone());
  (y * 1.0).sum().backward();
  // y[1, 1:] *= y[0, :2]: d/dm00 = 1 + m11 = 6, d/dm01 = 1 + m12 = 7, d/dm11 = m00 = 1, d/dm12 = m01 = 2
  testing::expect_values(m.grad(), {2, 3}, {6, 7, 1, 1, 1, 2});
}

TEST(GradViewsInplace, GradcheckThroughViews) {
  // gradcheck differentiates with autograd::grad (an inputs= task): CopySlices must add its
  // inner node's edges to the task's exec_info, or the view's old elements get zeros.
  auto fn = [](const tensor_list& in) {
    Tensor y = in[0] * in[0];
    y.select(0, 1).copy_(in[1] * in[0].select(0, 0));
    Tensor col = y.t().select(0, 0);
    index_put_(col, {testing::from_values({2}, {1}, kInt64)}, in[1].sum().view({1}));
    y.t().slice(0, 1, 2).scatter_add_(1, testing::from_values({0, 0}, {1, 2}, kInt64), in[1].view({1, 2}));
    return tensor_list{y * in[0]};
  };
  check(fn, {input({3, 2}), input({2}, 1.0)});
  check(fn, {transposed_input(3, 2), input({2}, 1.0)});
  // mul_ through a view, under backward() (every node runs).
  Tensor x = input({3, 2});
  Tensor w = input({2}, 1.0);
  Tensor y = x * 1.0;
  y.select(0, 1).mul_(w);
  (y * y).sum().backward();
  std::vector<double> xv = testing::values(x.detach()), wv = testing::values(w.detach());
  testing::expect_values(x.grad(), {3, 2}, {2 * xv[0], 2 * xv[1], 2 * xv[2] * wv[0] * wv[0],
                                            2 * xv[3] * wv[1] * wv[1], 2 * xv[4], 2 * xv[5]});
  testing::expect_values(w.grad(), {2}, {2 * xv[2] * xv[2] * wv[0], 2 * xv[3] * xv[3] * wv[1]});
}

TEST(GradViewsInplace, BaseModifiedAfterTheViewWasTaken) {
  // torch: leaf = torch.tensor([1., 2., 3.], requires_grad=True); x = leaf * 1; v = x[0:2]
  //        x.mul_(3); v.grad_fn.name() == 'AsStridedBackward0'
  //        (v * torch.tensor([1., 10.])).sum().backward()  -> leaf.grad == [3., 30., 0.]
  Tensor leaf = testing::from_values({1, 2, 3}, {3}, kFloat64).requires_grad_();
  Tensor x = leaf * 1.0;
  Tensor v = x.slice(0, 0, 2);
  EXPECT_EQ(name_of(v), "SliceBackward0");
  x.mul_(3.0);
  EXPECT_EQ(name_of(v), "AsStridedBackward0");
  testing::expect_values(v, {2}, {3, 6});
  (v * testing::from_values({1, 10}, {2}, kFloat64)).sum().backward();
  testing::expect_values(leaf.grad(), {3}, {3, 30, 0});
  // A view of a view, the base written through a sibling view.
  Tensor y = leaf * 1.0;
  Tensor row = y.select(0, 2);
  y.slice(0, 1, 3).zero_();
  EXPECT_EQ(name_of(row), "AsStridedBackward0");
  auto g = autograd::grad({(row + y.select(0, 0)) * 1.0}, {leaf});
  testing::expect_values(g[0], {3}, {1, 0, 0});
}

TEST(GradViewsInplace, ViewsMadeWithoutGradRefuseRecordedWrites) {
  Tensor x = input({3});
  Tensor y = x * 1.0;
  Tensor v;
  {
    NoGradGuard no_grad;
    v = y.slice(0, 0, 2);
  }
  testing::expect_error([&] { v.mul_(2.0); }, "A view was created in no_grad mode and is being modified "
                                              "inplace with grad mode enabled.");
  {
    NoGradGuard no_grad;
    v.mul_(2.0);  // both inside no_grad: fine, not recorded
  }
  testing::expect_values(y, {3}, {2 * testing::values(x.detach())[0], 2 * testing::values(x.detach())[1],
                                  testing::values(x.detach())[2]});
}

TEST(GradViewsInplace, IndexAssignmentIntoPlainTensor) {
  // torch: b = torch.zeros(3, dtype=torch.float64); w = torch.tensor([5., 7.], requires_grad=True)
  //        b[torch.tensor([0, 2])] = w; b.grad_fn.name() == 'IndexPutBackward0'
  //        (b * torch.tensor([1., 2., 3.])).sum().backward()  -> w.grad == [1., 3.]
  Tensor w = testing::from_values({5, 7}, {2}, kFloat64).requires_grad_();
  Tensor b = zeros({3}, kFloat64);
  b.index_put_({testing::from_values({0, 2}, {2}, kInt64)}, w);
  EXPECT_TRUE(b.requires_grad());
  EXPECT_EQ(name_of(b), "IndexPutBackward0");
  testing::expect_values(b, {3}, {5, 0, 7});
  (b * testing::from_values({1, 2, 3}, {3}, kFloat64)).sum().backward();
  testing::expect_values(w.grad(), {2}, {1, 3});
  // Basic indexing: b[0:2] = s (0-d) is a fill through a view; the base becomes CopySlices.
  // torch: b = torch.zeros(3); s = torch.tensor(5., requires_grad=True); b[0:2] = s
  //        (b * torch.tensor([1., 2., 3.])).sum().backward()  -> s.grad == 3.
  Tensor s = scalar_tensor(5.0, kFloat64).requires_grad_();
  Tensor c = zeros({3}, kFloat64);
  c.index_put_({indexing::Slice(0, 2)}, s);
  EXPECT_EQ(name_of(c), "CopySlices");
  testing::expect_values(c, {3}, {5, 5, 0});
  (c * testing::from_values({1, 2, 3}, {3}, kFloat64)).sum().backward();
  testing::expect_values(s.grad(), {}, {3});
  // Mixed basic and advanced: d[1, [0, 2]] = w.
  Tensor d = zeros({2, 3}, kFloat64);
  d.index_put_({1, testing::from_values({0, 2}, {2}, kInt64)}, w);
  EXPECT_EQ(name_of(d), "CopySlices");
  auto g = autograd::grad({(d * testing::iota({2, 3}, kFloat64)).sum()}, {w});
  testing::expect_values(g[0], {2}, {3, 5});
}

TEST(GradViews, MetaTensors) {
  // The rules run on meta tensors too: shapes only.
  Tensor x = empty({2, 3}, TensorOptions(kFloat64).device(kMeta)).requires_grad_();
  Tensor y = x.t().slice(0, 1, 3).select(1, 0).to(kFloat32).clone();
  EXPECT_EQ(name_of(y), "CloneBackward0");
  auto g = autograd::grad({y}, {x}, {empty({2}, TensorOptions(kFloat32).device(kMeta))});
  EXPECT_TRUE(g[0].is_meta());
  EXPECT_EQ(g[0].sizes().vec(), std::vector<int64_t>({2, 3}));
  EXPECT_EQ(g[0].dtype(), kFloat64);
  auto pieces = x.split(1, 1);
  auto gs = autograd::grad({pieces[2]}, {x}, {empty({2, 1}, TensorOptions(kFloat64).device(kMeta))});
  EXPECT_EQ(gs[0].sizes().vec(), std::vector<int64_t>({2, 3}));
}

}  // namespace
}  // namespace ember
