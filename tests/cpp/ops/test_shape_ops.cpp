// The shape, indexing, scatter and sorting ops of include/ember/ops/shape.h from C++: values
// against hand-computed references (PyTorch 1.13's outputs) on 0-d, empty and non-contiguous
// inputs, views sharing storage, in-place version bumps, meta shapes, error texts, and
// gradcheck of the backward rules.
#include "ember/autograd/gradcheck.h"
#include "testing.h"

namespace ember {
namespace {

using testing::expect_error;
using testing::expect_values;
using testing::from_values;
using testing::iota;
using testing::values;

TEST(ShapeViews, DiagonalIsAViewWithPyTorchsGeometry) {
  Tensor t = iota({2, 3, 4});
  Tensor d = t.diagonal(1, -1, 1);  // dims 2 and 1, offset 1 along dim 1
  expect_values(d, {2, 2}, {4, 9, 16, 21});
  EXPECT_EQ(d.impl()->storage().get(), t.impl()->storage().get());
  expect_values(t.diagonal(5), {4, 0}, {});
  d.add_(from_values({0}, {}));
  EXPECT_EQ(d._version(), t._version());
  expect_error([&] { t.diagonal(0, 1, -2); }, "diagonal dimensions cannot be identical 1, -2");
}

TEST(ShapeViews, SqueezeDimsMovedimBroadcastTo) {
  Tensor t = iota({1, 3, 1});
  EXPECT_EQ(squeeze(t, IntArrayRef{0, 1}).sizes().vec(), (std::vector<int64_t>{3, 1}));
  EXPECT_EQ(movedim(iota({2, 3, 4}), {0, 1}, {2, 0}).sizes().vec(), (std::vector<int64_t>{3, 4, 2}));
  Tensor b = broadcast_to(iota({3, 1}), {2, 3, 4});
  EXPECT_EQ(b.strides().vec(), (std::vector<int64_t>{0, 1, 0}));
  expect_error([&] { movedim(iota({2, 3}), {0, 0}, {1, 0}); }, "movedim: repeated dim in `source` ([0, 0])");
}

TEST(ShapeCopies, FlipRollRepeatTril) {
  Tensor t = iota({2, 3});
  expect_values(t.flip({0, 1}), {2, 3}, {5, 4, 3, 2, 1, 0});
  expect_values(t.t().flip({0}), {3, 2}, {2, 5, 1, 4, 0, 3});  // non-contiguous input
  expect_values(t.roll({1}, {1}), {2, 3}, {2, 0, 1, 5, 3, 4});
  expect_values(t.roll({-1}), {2, 3}, {1, 2, 3, 4, 5, 0});
  expect_values(t.repeat({2, 1}), {4, 3}, {0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5});
  expect_values(from_values({7}, {}).repeat({3}), {3}, {7, 7, 7});
  expect_values(iota({3, 3}).tril(-1), {3, 3}, {0, 0, 0, 3, 0, 0, 6, 7, 0});
  expect_values(iota({2, 3}).triu(1), {2, 3}, {0, 1, 2, 0, 0, 5});
  Tensor m = iota({2, 2});
  const int64_t v = m._version();
  m.tril_();
  EXPECT_GT(m._version(), v);
  expect_values(m, {2, 2}, {0, 0, 2, 3});
  expect_error([&] { iota({3}).tril(); }, "Dimension out of range (expected to be in range of [-1, 0], but got -2)",
               ErrorKind::Index);
  expect_error([&] { t.repeat({2}); },
               "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor");
  expect_values(tril_indices(3, 3), {2, 6}, {0, 1, 1, 2, 2, 2, 0, 0, 1, 0, 1, 2});
}

TEST(ShapeCopies, MetaShapes) {
  Tensor m = empty({3, 4}, TensorOptions(kFloat32).device(kMeta));
  EXPECT_TRUE(m.flip({0}).is_meta());
  EXPECT_EQ(m.repeat({2, 2}).sizes().vec(), (std::vector<int64_t>{6, 8}));
  EXPECT_EQ(diag_embed(m).sizes().vec(), (std::vector<int64_t>{3, 4, 4}));
  EXPECT_EQ(einsum("ij,jk->ik", {m, empty({4, 2}, TensorOptions(kFloat32).device(kMeta))}).sizes().vec(),
            (std::vector<int64_t>{3, 2}));
}

TEST(ShapeJoin, EinsumKronTensordot) {
  Tensor a = iota({2, 3}), b = iota({3, 2});
  expect_values(einsum("ij,jk->ik", {a, b}), {2, 2}, {10, 13, 28, 40});
  expect_values(einsum("ii->i", {iota({2, 2})}), {2}, {0, 3});
  expect_values(einsum("ij->ji", {a}), {3, 2}, {0, 3, 1, 4, 2, 5});
  expect_values(einsum("i,i", {iota({3}), iota({3})}), {}, {5});
  expect_values(tensordot(a, b, {1}, {0}), {2, 2}, {10, 13, 28, 40});
  expect_values(kron(iota({2}, kFloat32, 1), iota({2})), {4}, {0, 1, 0, 2});
  expect_error([&] { einsum("ij,jk", {a}); }, "einsum(): fewer operands were provided than specified in the equation");
}

TEST(IndexMore, AccumulatingIndexAddAndPut) {
  Tensor t = zeros({3});
  t.index_add_(0, from_values({0, 0, 2}, {3}, kInt64), from_values({1, 2, 3}, {3}), 2);
  expect_values(t, {3}, {6, 0, 6});
  Tensor p = zeros({2, 2}).t();
  put_(p, from_values({0, 0, 3}, {3}, kInt64), from_values({1, 2, 3}, {3}), true);
  expect_values(p, {2, 2}, {3, 0, 0, 3});
  expect_values(masked_select(iota({2, 2}), from_values({1, 0}, {2}, kBool)), {2}, {0, 2});
  expect_values(take(iota({2, 3}), from_values({-1, 0}, {2}, kInt64)), {2}, {5, 0});
  Tensor before = iota({3});
  expect_error([&] { before.index_add_(0, from_values({5}, {1}, kInt64), ones({1})); },
               "index out of range in self", ErrorKind::Index);
  expect_values(before, {3}, {0, 1, 2});
}

TEST(ScatterMore, ScatterReduceModes) {
  Tensor self = from_values({1, 2, 3}, {3});
  Tensor idx = from_values({0, 0, 2, 2}, {4}, kInt64);
  Tensor src = from_values({4, 5, 6, 7}, {4});
  expect_values(scatter_reduce(self, 0, idx, src, "sum"), {3}, {10, 2, 16});
  expect_values(scatter_reduce(self, 0, idx, src, "prod", false), {3}, {20, 2, 42});
  expect_values(scatter_reduce(self, 0, idx, src, "mean"), {3}, {10.0 / 3, 2, 16.0 / 3});
  expect_values(scatter_reduce(self, 0, idx, src, "amax"), {3}, {5, 2, 7});
  expect_values(scatter_reduce(self, 0, idx, src, "amin", false), {3}, {4, 2, 6});
  expect_error([&] { scatter_reduce(self, 0, idx, src, "max"); },
               "reduce argument must be either sum, prod, mean, amax or amin.");
  expect_values(slice_scatter(zeros({4}), ones({2}), 0, 1, 3), {4}, {0, 1, 1, 0});
  expect_values(select_scatter(zeros({2, 2}), ones({2}), 1, 0), {2, 2}, {1, 0, 1, 0});
}

TEST(SortMore, UniqueModeSearchsorted) {
  auto [u, inv, cnt] = unique(from_values({3, 1, 3, 2}, {4}, kInt64), true, true, true);
  expect_values(u, {3}, {1, 2, 3});
  expect_values(inv, {4}, {2, 0, 2, 1});
  expect_values(cnt, {3}, {1, 1, 2});
  auto [uc, ic, cc] = unique_consecutive(from_values({1, 1, 2, 1}, {4}), true, true);
  expect_values(uc, {3}, {1, 2, 1});
  expect_values(cc, {3}, {2, 1, 1});
  auto [mv, mi] = mode(from_values({1, 2, 2, 1, 3}, {5}, kInt64));
  expect_values(mv, {}, {1});
  expect_values(mi, {}, {3});
  expect_values(searchsorted(from_values({1, 3, 5}, {3}), from_values({3, 6, 0}, {3}), false, true), {3}, {2, 3, 0});
  expect_values(bincount(from_values({0, 2, 2}, {3}, kInt64)), {3}, {1, 0, 2});
  expect_values(histc(from_values({0, 1, 1, 3}, {4}), 3, 0, 3), {3}, {1, 2, 1});
}

TEST(ShapeGrad, GradcheckRules) {
  auto x = [](IntArrayRef s) { return testing::iota(s, kFloat64).mul(Scalar(0.37)).sin().requires_grad_(true); };
  EXPECT_TRUE(autograd::gradcheck([](const autograd::tensor_list& in) { return autograd::tensor_list{in[0].flip({0, 1})}; }, {x({2, 3})}));
  EXPECT_TRUE(autograd::gradcheck([](const autograd::tensor_list& in) { return autograd::tensor_list{in[0].roll({1}, {1})}; }, {x({2, 3})}));
  EXPECT_TRUE(autograd::gradcheck([](const autograd::tensor_list& in) { return autograd::tensor_list{in[0].repeat({2, 1, 2})}; }, {x({2, 3})}));
  EXPECT_TRUE(autograd::gradcheck([](const autograd::tensor_list& in) { return autograd::tensor_list{in[0].diagonal(1)}; }, {x({3, 4})}));
  EXPECT_TRUE(autograd::gradcheck([](const autograd::tensor_list& in) { return autograd::tensor_list{in[0].tril(-1)}; }, {x({3, 4})}));
  EXPECT_TRUE(autograd::gradcheck(
      [](const autograd::tensor_list& in) {
        return autograd::tensor_list{scatter_reduce(in[0], 0, from_values({0, 0, 2}, {3}, kInt64), in[1], "amax")};
      },
      {x({3}), x({3}).add(Scalar(0.1))}));
  EXPECT_TRUE(autograd::gradcheck(
      [](const autograd::tensor_list& in) { return autograd::tensor_list{einsum("ij,jk->ik", {in[0], in[1]})}; }, {x({2, 3}), x({3, 2})}));
  EXPECT_TRUE(autograd::gradcheck(
      [](const autograd::tensor_list& in) { return autograd::tensor_list{masked_scatter(in[0], from_values({1, 0, 1}, {3}, kBool), in[1])}; },
      {x({2, 3}), x({5})}));
}

}  // namespace
}  // namespace ember
