// Backward rules of the index-like ops: advanced indexing (indexing.cpp), cat (join.cpp),
// index_select / gather / scatter / embedding (index_ops.cpp). Views and copies:
// test_grad_views.cpp. Expected values were computed with PyTorch 1.13 (quoted beside each).
#include <gtest/gtest.h>

#include "../testing.h"
#include "ember/autograd/autograd.h"
#include "ember/autograd/gradcheck.h"
#include "ember/ember.h"

namespace ember {
namespace {

using autograd::tensor_list;
using OptionalTensorList = std::vector<std::optional<Tensor>>;

Tensor input(IntArrayRef sizes, double start = 0.5) {
  Tensor t = testing::iota(sizes, kFloat64);
  return (t * 0.731 + start).sin().detach().requires_grad_();
}
Tensor transposed_input(int64_t rows, int64_t cols, double start = 0.5) {
  Tensor t = input({cols, rows}, start).detach().t();
  EXPECT_FALSE(t.is_contiguous());
  return t.requires_grad_();
}
Tensor longs(const std::vector<double>& v, IntArrayRef sizes) { return testing::from_values(v, sizes, kInt64); }

void check(const autograd::DifferentiableFn& fn, const tensor_list& inputs) {
  EXPECT_TRUE(autograd::gradcheck(fn, inputs));
  EXPECT_TRUE(autograd::gradgradcheck(fn, inputs));
}

std::string name_of(const Tensor& t) { return t.grad_fn() ? t.grad_fn()->name() : "(none)"; }

const char* kModified =
    "one of the variables needed for gradient computation has been modified by an inplace "
    "operation: [ember.DoubleTensor [2, 3]], which is output 0 of ";
const char* kLeaf = "a leaf Variable that requires grad is being used in an in-place operation.";

// ---- index / index_put_ ----

TEST(GradViewsIndex, Index) {
  Tensor x = input({4, 3});
  Tensor rows = longs({0, 2, 0}, {3});  // repeated: gradients add up
  EXPECT_EQ(name_of(index(x, {rows})), "IndexBackward0");
  check([&](const tensor_list& in) { return tensor_list{index(in[0], {rows})}; }, {x});
  check([&](const tensor_list& in) { return tensor_list{index(in[0], {std::nullopt, longs({2, 2, 1, 0}, {2, 2})})}; },
        {x});
  check([&](const tensor_list& in) { return tensor_list{index(in[0], {rows, longs({1}, {1})})}; },
        {transposed_input(4, 3)});
  Tensor mask = testing::from_values({1, 0, 1, 0, 0, 1, 0, 0, 0, 1, 1, 1}, {4, 3}, kBool);
  check([&](const tensor_list& in) { return tensor_list{index(in[0], {mask})}; }, {x});
  // Non-adjacent indexed dims move to the front.
  check([&](const tensor_list& in) { return tensor_list{index(in[0], {longs({1, 0}, {2}), std::nullopt, longs({3, 3}, {2})})}; },
        {input({2, 3, 4})});
  // A broadcast operand and an empty result.
  check([&](const tensor_list& in) { return tensor_list{index(in[0].expand({2, 3}), {longs({1, 1, 0}, {3})})}; },
        {input({3})});
  check([&](const tensor_list& in) { return tensor_list{index(in[0], {longs({}, {0})})}; }, {x});
  // torch: x = torch.arange(12.).view(4, 3).requires_grad_(); y = x[torch.tensor([0, 2, 0])]
  //        (y * torch.arange(9.).view(3, 3)).sum().backward()
  Tensor y = testing::iota({4, 3}, kFloat64).requires_grad_();
  (index(y, {rows}) * testing::iota({3, 3}, kFloat64)).sum().backward();
  testing::expect_values(y.grad(), {4, 3}, {6, 8, 10, 0, 0, 0, 3, 4, 5, 0, 0, 0});
  // torch: x[mask] with mask above, (y * torch.arange(1., 7.)).sum().backward()
  y.grad().zero_();
  (index(y, {mask}) * testing::iota({6}, kFloat64, 1)).sum().backward();
  testing::expect_values(y.grad(), {4, 3}, {1, 0, 2, 0, 0, 3, 0, 0, 0, 4, 5, 6});
  // The index is saved: writing it in place before the backward is an error.
  Tensor idx = longs({0, 1}, {2});
  Tensor out = index(y * 1.0, {idx});
  idx.zero_();
  testing::expect_error([&] { out.sum().backward(); }, "modified by an inplace operation");
}

TEST(GradViewsIndex, IndexPut) {
  Tensor rows = longs({2, 0}, {2});
  Tensor target = input({3, 3}).detach() * 1.0;
  EXPECT_EQ(name_of(index_put_(target, {rows}, input({3}))), "IndexPutBackward0");
  for (bool accumulate : {false, true}) {
    auto fn = [&](const tensor_list& in) {
      Tensor y = in[0] * in[0];
      index_put_(y, {rows}, in[1], accumulate);
      return tensor_list{y * in[0]};
    };
    check(fn, {input({3, 3}), input({2, 3}, 1.0)});
    check(fn, {input({3, 3}), input({3}, 1.0)});  // broadcast values
    check(fn, {transposed_input(3, 3), input({1}, 1.0)});
    check(fn, {input({3, 3}), input({}, 1.0)});
  }
  // Repeated indices with accumulate; a mask; writes through a view.
  check([](const tensor_list& in) {
    Tensor y = in[0] * 1.0;
    index_put_(y, {longs({1, 1, 0, 1}, {4})}, in[1], true);
    return tensor_list{y};
  }, {input({2}), input({4}, 1.0)});
  Tensor mask = testing::from_values({1, 0, 1}, {3}, kBool);
  check([&](const tensor_list& in) {
    Tensor y = in[0] * 1.0;
    index_put_(y, {mask}, in[1]);
    return tensor_list{y};
  }, {input({3}), input({2}, 1.0)});
  check([&](const tensor_list& in) {
    Tensor y = in[0] * 1.0;
    Tensor view = y.select(1, 1);
    index_put_(view, {longs({0, 2}, {2})}, in[1]);
    return tensor_list{y};
  }, {input({3, 2}), input({2}, 1.0)});
  // torch: v = torch.tensor([1., 2., 3.], requires_grad=True); xx = torch.ones(3, 3, requires_grad=True)
  //        y = xx * 1; y.index_put_((torch.tensor([0, 2]),), v)
  //        (y * torch.arange(9.).view(3, 3)).sum().backward()
  //        -> xx.grad == [[0, 0, 0], [3, 4, 5], [0, 0, 0]], v.grad == [6, 8, 10]
  Tensor v = testing::from_values({1, 2, 3}, {3}, kFloat64).requires_grad_();
  Tensor xx = ones({3, 3}, kFloat64).requires_grad_();
  Tensor y = xx * 1.0;
  index_put_(y, {longs({0, 2}, {2})}, v);
  (y * testing::iota({3, 3}, kFloat64)).sum().backward();
  testing::expect_values(xx.grad(), {3, 3}, {0, 0, 0, 3, 4, 5, 0, 0, 0});
  testing::expect_values(v.grad(), {3}, {6, 8, 10});
  // torch: accumulate=True with indices [0, 0]: xx.grad == [1, 2, 3], v.grad == [1, 1];
  //        accumulate=False: xx.grad == [0, 2, 3], v.grad == [1, 1]
  Tensor w = testing::from_values({1, 2}, {2}, kFloat64).requires_grad_();
  Tensor x3 = ones({3}, kFloat64).requires_grad_();
  for (bool accumulate : {true, false}) {
    Tensor z = x3 * 1.0;
    index_put_(z, {longs({0, 0}, {2})}, w, accumulate);
    auto g = autograd::grad({(z * testing::from_values({1, 2, 3}, {3}, kFloat64)).sum()}, {x3, w});
    testing::expect_values(g[0], {3}, {accumulate ? 1.0 : 0.0, 2, 3});
    testing::expect_values(g[1], {2}, {1, 1});
  }
}

TEST(GradViewsIndex, IndexPutErrors) {
  Tensor x = input({3});
  testing::expect_error([&] { index_put_(x, {longs({0}, {1})}, input({1})); }, kLeaf);
  Tensor y = input({2, 3}) * 1.0;
  Tensor z = y * y;
  index_put_(y, {longs({0}, {1})}, input({3}));
  testing::expect_error([&] { z.sum().backward(); },
                        std::string(kModified) + "IndexPutBackward0, is at version 1; expected "
                        "version 0 instead.");
  // A failing write records nothing and leaves self as it was.
  Tensor a = input({2, 3}) * 1.0;
  Tensor before = a.detach().clone();
  testing::expect_error([&] { index_put_(a, {longs({5}, {1})}, input({3})); },
                        "index 5 is out of bounds for dimension 0 with size 2", ErrorKind::Index);
  EXPECT_EQ(name_of(a), "MulBackward0");
  testing::expect_values(a, {2, 3}, testing::values(before));
}

// ---- cat ----

TEST(GradViewsIndex, Cat) {
  EXPECT_EQ(name_of(cat({input({2, 3}), input({1, 3})})), "CatBackward0");
  check([](const tensor_list& in) { return tensor_list{cat({in[0], in[1], in[0]}, 0)}; },
        {input({2, 3}), input({1, 3}, 1.0)});
  check([](const tensor_list& in) { return tensor_list{cat({in[0], in[1]}, -1)}; },
        {transposed_input(2, 3), input({2, 1}, 1.0)});
  check([](const tensor_list& in) { return tensor_list{cat({in[0].expand({2, 3}), in[1]}, 1)}; },
        {input({3}), input({2, 2}, 1.0)});
  check([](const tensor_list& in) { return tensor_list{cat({in[0], in[1]}, 0)}; },
        {input({0, 3}), input({2, 3}, 1.0)});
  check([](const tensor_list& in) { return tensor_list{stack({in[0], in[1]}, 1)}; },  // stack: unsqueeze + cat
        {input({3}), input({3}, 1.0)});
  check([](const tensor_list& in) { return tensor_list{stack({in[0], in[1]})}; }, {input({}), input({}, 1.0)});
  // torch: a = torch.tensor([[1., 2.]], requires_grad=True)   (float32)
  //        b = torch.tensor([[3., 4.], [5., 6.]], dtype=torch.float64, requires_grad=True)
  //        e = torch.zeros(0, requires_grad=True)             (a legacy empty input, skipped)
  //        c = torch.cat([a, e, b]); (c * torch.arange(6.).view(3, 2)).sum().backward()
  //        -> a.grad == [[0, 1]] (float32), b.grad == [[2, 3], [4, 5]], e.grad == []
  Tensor a = testing::from_values({1, 2}, {1, 2}, kFloat32).requires_grad_();
  Tensor b = testing::from_values({3, 4, 5, 6}, {2, 2}, kFloat64).requires_grad_();
  Tensor e = zeros({0}, kFloat32).requires_grad_();
  Tensor c = cat({a, e, b});
  EXPECT_EQ(c.dtype(), kFloat64);
  (c * testing::iota({3, 2}, kFloat64)).sum().backward();
  EXPECT_EQ(a.grad().dtype(), kFloat32);
  testing::expect_values(a.grad(), {1, 2}, {0, 1});
  testing::expect_values(b.grad(), {2, 2}, {2, 3, 4, 5});
  testing::expect_values(e.grad(), {0}, {});
  // An integer input takes part in the value, not in the gradient.
  Tensor f = testing::iota({2}, kFloat64).requires_grad_();
  Tensor mixed = cat({longs({7}, {1}), f});
  mixed.sum().backward();
  testing::expect_values(f.grad(), {2}, {1, 1});
}

// ---- index_select / gather ----

TEST(GradViewsIndex, IndexSelect) {
  Tensor x = input({3, 4});
  Tensor idx = longs({3, 0, 3}, {3});
  EXPECT_EQ(name_of(x.index_select(1, idx)), "IndexSelectBackward0");
  check([&](const tensor_list& in) { return tensor_list{in[0].index_select(1, idx)}; }, {x});
  check([&](const tensor_list& in) { return tensor_list{in[0].index_select(0, longs({2, 2}, {2}))}; },
        {transposed_input(3, 4)});
  check([&](const tensor_list& in) { return tensor_list{in[0].index_select(0, longs({1}, {}))}; }, {x});
  check([&](const tensor_list& in) { return tensor_list{in[0].index_select(0, longs({}, {0}))}; }, {x});
  check([&](const tensor_list& in) { return tensor_list{in[0].index_select(0, longs({0}, {1}))}; }, {input({})});
  check([&](const tensor_list& in) { return tensor_list{in[0].expand({2, 4}).index_select(1, idx)}; }, {input({4})});
  // torch: x = torch.arange(12.).view(3, 4).requires_grad_()
  //        y = x.index_select(1, torch.tensor([3, 0, 3], dtype=torch.int32))
  //        (y * torch.arange(1., 10.).view(3, 3)).sum().backward()
  Tensor y = testing::iota({3, 4}, kFloat64).requires_grad_();
  (y.index_select(1, idx.to(kInt32)) * testing::iota({3, 3}, kFloat64, 1)).sum().backward();
  testing::expect_values(y.grad(), {3, 4}, {2, 0, 0, 4, 5, 0, 0, 10, 8, 0, 0, 16});
}

TEST(GradViewsIndex, Gather) {
  Tensor x = input({2, 3});
  Tensor idx = longs({0, 0, 2, 1}, {2, 2});
  EXPECT_EQ(name_of(x.gather(1, idx)), "GatherBackward0");
  check([&](const tensor_list& in) { return tensor_list{in[0].gather(1, idx)}; }, {x});
  check([&](const tensor_list& in) { return tensor_list{in[0].gather(0, longs({1, 0, 1}, {1, 3}))}; },
        {transposed_input(2, 3)});
  check([&](const tensor_list& in) { return tensor_list{in[0].gather(0, longs({0}, {}))}; }, {input({})});
  check([&](const tensor_list& in) { return tensor_list{in[0].gather(1, longs({}, {2, 0}))}; }, {x});
  check([&](const tensor_list& in) { return tensor_list{in[0].expand({2, 3}).gather(1, idx)}; }, {input({3})});
  // torch: x = torch.zeros(2, 3, requires_grad=True); y = x.gather(1, torch.tensor([[0, 0], [2, 1]]))
  //        (y * torch.tensor([[1., 2.], [3., 4.]])).sum().backward()
  Tensor z = zeros({2, 3}, kFloat64).requires_grad_();
  (z.gather(1, idx) * testing::from_values({1, 2, 3, 4}, {2, 2}, kFloat64)).sum().backward();
  testing::expect_values(z.grad(), {2, 3}, {3, 0, 0, 0, 4, 3});
  // gather saves self (PyTorch does): a write to it before the backward is an error.
  Tensor y = x * 1.0;
  Tensor g = y.gather(1, idx);
  y.mul_(2.0);
  testing::expect_error([&] { g.sum().backward(); }, kModified);
}

// ---- scatter / scatter_add ----

TEST(GradViewsIndex, Scatter) {
  Tensor idx = longs({2, 0}, {2, 1});  // distinct targets: the result does not depend on write order
  Tensor x = input({2, 3});
  EXPECT_EQ(name_of(x.scatter(1, idx, input({2, 1}))), "ScatterBackward0");
  EXPECT_EQ(name_of(x.scatter(1, idx, 2.0)), "ScatterBackward1");
  check([&](const tensor_list& in) { return tensor_list{in[0].scatter(1, idx, in[1])}; }, {x, input({2, 1}, 1.0)});
  // src larger than index: only its leading block is read.
  check([&](const tensor_list& in) { return tensor_list{in[0].scatter(1, idx, in[1])}; },
        {transposed_input(2, 3), input({3, 2}, 1.0)});
  check([&](const tensor_list& in) { return tensor_list{in[0].scatter(0, longs({1, 0, 1}, {1, 3}), in[1].expand({2, 3}))}; },
        {x, input({3}, 1.0)});
  check([&](const tensor_list& in) { return tensor_list{in[0].scatter(0, longs({0}, {}), in[1])}; },
        {input({}), input({}, 1.0)});
  check([&](const tensor_list& in) { return tensor_list{in[0].scatter(1, idx, 2.5) * in[0]}; }, {x});
  check([&](const tensor_list& in) {
    Tensor y = in[0] * 1.0;
    y.scatter_(1, idx, in[1]);
    return tensor_list{y * y};
  }, {x, input({2, 2}, 1.0)});
  check([&](const tensor_list& in) {
    Tensor y = in[0] * in[0];
    y.t().scatter_(0, longs({1, 2}, {1, 2}), -1.0);
    return tensor_list{y};
  }, {x});
  // torch: x = torch.ones(2, 3, requires_grad=True); s = torch.arange(1., 7.).view(2, 3).requires_grad_()
  //        y = x.scatter(1, torch.tensor([[2], [0]]), s[:, :1])
  //        (y * torch.arange(6.).view(2, 3)).sum().backward()
  //        -> x.grad == [[0, 1, 0], [0, 4, 5]], s.grad == [[2, 0, 0], [3, 0, 0]]
  Tensor o = ones({2, 3}, kFloat64).requires_grad_();
  Tensor s = testing::iota({2, 3}, kFloat64, 1).requires_grad_();
  Tensor y = o.scatter(1, idx, s);
  (y * testing::iota({2, 3}, kFloat64)).sum().backward();
  testing::expect_values(o.grad(), {2, 3}, {0, 1, 0, 0, 4, 5});
  testing::expect_values(s.grad(), {2, 3}, {2, 0, 0, 3, 0, 0});
  // Value form and in-place forms: same gradients for self.
  o.grad().zero_();
  Tensor z = o * 1.0;
  z.scatter_(1, idx, 7.0);
  EXPECT_EQ(name_of(z), "ScatterBackward1");
  (z * testing::iota({2, 3}, kFloat64)).sum().backward();
  testing::expect_values(o.grad(), {2, 3}, {0, 1, 0, 0, 4, 5});
  Tensor w = o * 1.0;
  w.scatter_(1, idx, s);
  EXPECT_EQ(name_of(w), "ScatterBackward0");
  testing::expect_error([&] { o.scatter_(1, idx, s); }, kLeaf);
  testing::expect_error([&] { o.scatter_(1, idx, 1.0); }, kLeaf);
}

TEST(GradViewsIndex, ScatterAdd) {
  Tensor idx = longs({2, 2, 0, 1}, {2, 2});  // repeated targets add up
  Tensor x = input({2, 3});
  EXPECT_EQ(name_of(x.scatter_add(1, idx, input({2, 2}))), "ScatterAddBackward0");
  check([&](const tensor_list& in) { return tensor_list{in[0].scatter_add(1, idx, in[1]) * in[0]}; },
        {x, input({2, 2}, 1.0)});
  check([&](const tensor_list& in) { return tensor_list{in[0].scatter_add(1, idx, in[1])}; },
        {transposed_input(2, 3), transposed_input(3, 3, 1.0)});
  check([&](const tensor_list& in) { return tensor_list{in[0].expand({2, 3}).scatter_add(0, longs({1, 1, 1}, {1, 3}), in[1])}; },
        {input({3}), input({1, 3}, 1.0)});
  check([&](const tensor_list& in) { return tensor_list{in[0].scatter_add(0, longs({0}, {}), in[1])}; },
        {input({}), input({}, 1.0)});
  check([&](const tensor_list& in) {
    Tensor y = in[0] * 1.0;
    y.scatter_add_(1, idx, in[1]);
    return tensor_list{y * y};
  }, {x, input({2, 2}, 1.0)});
  // torch: s = torch.arange(1., 7.).view(2, 3).requires_grad_(); x = torch.ones(2, 3, requires_grad=True)
  //        y = x.scatter_add(1, torch.tensor([[2, 2], [0, 1]]), s[:, :2])
  //        (y * torch.arange(6.).view(2, 3)).sum().backward()
  //        -> x.grad == arange(6).view(2, 3), s.grad == [[2, 2, 0], [3, 4, 0]]
  Tensor o = ones({2, 3}, kFloat64).requires_grad_();
  Tensor s = testing::iota({2, 3}, kFloat64, 1).requires_grad_();
  Tensor y = o * 1.0;
  y.scatter_add_(1, idx, s);
  EXPECT_EQ(name_of(y), "ScatterAddBackward0");
  (y * testing::iota({2, 3}, kFloat64)).sum().backward();
  testing::expect_values(o.grad(), {2, 3}, {0, 1, 2, 3, 4, 5});
  testing::expect_values(s.grad(), {2, 3}, {2, 2, 0, 3, 4, 0});
  testing::expect_error([&] { o.scatter_add_(1, idx, s); }, kLeaf);
}

// ---- embedding ----

TEST(GradViewsIndex, Embedding) {
  Tensor w = input({4, 2});
  Tensor idx = longs({0, 2, 0, 2, 3, 0}, {2, 3});
  EXPECT_EQ(name_of(embedding(w, idx)), "EmbeddingBackward0");
  check([&](const tensor_list& in) { return tensor_list{embedding(in[0], idx)}; }, {w});
  // padding_idx and scale_grad_by_freq make the gradient differ from the derivative on purpose
  // (torch's gradcheck fails them too), but the backward is linear in grad and must itself
  // differentiate consistently.
  for (int64_t padding_idx : {int64_t{-1}, int64_t{0}, int64_t{2}}) {
    for (bool freq : {false, true}) {
      EXPECT_TRUE(autograd::gradgradcheck(
          [&](const tensor_list& in) { return tensor_list{embedding(in[0], idx, padding_idx, freq)}; }, {w}));
    }
  }
  check([&](const tensor_list& in) { return tensor_list{embedding(in[0], longs({3, 1, 3}, {3}))}; },
        {transposed_input(4, 2)});
  check([&](const tensor_list& in) { return tensor_list{embedding(in[0], longs({1}, {}))}; }, {w});
  check([&](const tensor_list& in) { return tensor_list{embedding(in[0], longs({}, {0, 2}))}; }, {w});
  check([&](const tensor_list& in) { return tensor_list{embedding(in[0].expand({4, 2}), idx.to(kInt32))}; },
        {input({2})});
  // torch: w = torch.arange(8.).view(4, 2).requires_grad_(); idx = torch.tensor([[0, 2, 0], [2, 3, 0]])
  //        g = torch.arange(12.).view(2, 3, 2)
  //        (torch.embedding(w, idx, -1, True) * g).sum().backward()
  //        -> [[14/3, 17/3], [0, 0], [4, 5], [8, 9]]
  //        (torch.embedding(w, idx, 2, False) * g).sum().backward() -> [[14, 17], [0, 0], [0, 0], [8, 9]]
  Tensor v = testing::iota({4, 2}, kFloat64).requires_grad_();
  Tensor ids = longs({0, 2, 0, 2, 3, 0}, {2, 3});
  Tensor g = testing::iota({2, 3, 2}, kFloat64);
  (embedding(v, ids, -1, true) * g).sum().backward();
  testing::expect_values(v.grad(), {4, 2}, {14.0 / 3, 17.0 / 3, 0, 0, 4, 5, 8, 9});
  v.grad().zero_();
  (embedding(v, ids, 2, false) * g).sum().backward();
  testing::expect_values(v.grad(), {4, 2}, {14, 17, 0, 0, 0, 0, 8, 9});
  // A negative padding_idx other than -1 masks nothing in aten::embedding (torch: same as -1).
  v.grad().zero_();
  (embedding(v, ids, -2, false) * g).sum().backward();
  testing::expect_values(v.grad(), {4, 2}, {14, 17, 0, 0, 8, 10, 8, 9});
  // The weight is saved (PyTorch does): a write to it before the backward is an error.
  Tensor u = input({2, 3}) * 1.0;
  Tensor e = embedding(u, longs({1}, {1}));
  u.mul_(2.0);
  testing::expect_error([&] { e.sum().backward(); }, kModified);
  // sparse=true still gives the dense gradient (ember has no sparse layout).
  v.grad().zero_();
  embedding(v, ids, -1, false, /*sparse=*/true).sum().backward();
  testing::expect_values(v.grad(), {4, 2}, {3, 3, 0, 0, 2, 2, 1, 1});
}

}  // namespace
}  // namespace ember
