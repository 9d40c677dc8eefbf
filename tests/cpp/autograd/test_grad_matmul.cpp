// Backward rules of src/ops/matmul.cpp (mm, bmm, addmm) and, end to end, the composites matmul
// and linear whose bodies call views and those products: gradcheck and gradgradcheck in float64,
// non-contiguous operands, broadcast bias and batch dims, beta / alpha, values printed by
// PyTorch 1.13, float32, the gradient's layout for column-major inputs.
#include "grad_reduce_helpers.h"

namespace ember {
namespace {
using namespace grad_testing;

auto mm_fn = [](const tensor_list& in) { return tensor_list{in[0].mm(in[1])}; };
auto bmm_fn = [](const tensor_list& in) { return tensor_list{in[0].bmm(in[1])}; };
auto matmul_fn = [](const tensor_list& in) { return tensor_list{in[0].matmul(in[1])}; };

// ---- mm ----

TEST(GradMatmulMm, NameAndGradcheck) {
  EXPECT_EQ(leaf({2, 3}).mm(leaf({3, 4})).grad_fn()->name(), "MmBackward0");
  EXPECT_TRUE(grad_ok(mm_fn, {leaf({3, 4}), leaf({4, 5})}));
  EXPECT_TRUE(grad_ok(mm_fn, {leaf_transposed({3, 4}), leaf_strided({4, 5})}));
  EXPECT_TRUE(grad_ok(mm_fn, {leaf_strided({3, 4}), leaf_transposed({4, 5})}));
  // Only one operand requires grad.
  EXPECT_TRUE(grad_ok(mm_fn, {leaf({3, 4}), random64({4, 5}, 7)}));
  EXPECT_TRUE(grad_ok(mm_fn, {random64({3, 4}, 7), leaf_transposed({4, 5})}));
  // Empty products.
  EXPECT_TRUE(grad_ok(mm_fn, {leaf({0, 3}), leaf({3, 2})}));
  Tensor a = leaf({2, 0}), b = leaf({0, 3});
  auto g = autograd::grad({a.mm(b)}, {a, b}, {ones({2, 3}, kFloat64)});
  EXPECT_EQ(g[0].sizes(), IntArrayRef({2, 0}));
  EXPECT_EQ(g[1].sizes(), IntArrayRef({0, 3}));
}

TEST(GradMatmulMm, ValuesMatchTorch) {
  Tensor a = leaf_of({1, 2, 3, 4}, {2, 2}), b = leaf_of({5, 6, 7, 8, 9, 10}, {2, 3});
  auto g = autograd::grad({a.mm(b).sum()}, {a, b});
  testing::expect_values(g[0], {2, 2}, {18, 27, 18, 27}, 0, 0);
  testing::expect_values(g[1], {2, 3}, {4, 4, 4, 6, 6, 6}, 0, 0);
  // float32
  Tensor af = testing::from_values({1, 2, 3, 4}, {2, 2}, kFloat32).requires_grad_();
  Tensor bf = testing::from_values({5, 6, 7, 8, 9, 10}, {2, 3}, kFloat32).requires_grad_();
  auto gf = autograd::grad({af.mm(bf).sum()}, {af, bf});
  EXPECT_EQ(gf[0].dtype(), kFloat32);
  testing::expect_values(gf[0], {2, 2}, {18, 27, 18, 27}, 0, 0);
  testing::expect_values(gf[1], {2, 3}, {4, 4, 4, 6, 6, 6}, 0, 0);
}

// As PyTorch, a column-major operand gets a column-major gradient.
TEST(GradMatmulMm, ColumnMajorInputGetsColumnMajorGradient) {
  Tensor a = leaf_transposed({3, 4}), b = leaf({4, 5});
  auto g = autograd::grad({a.mm(b).sum()}, {a, b});
  EXPECT_EQ(g[0].strides(), IntArrayRef({1, 3}));
  EXPECT_EQ(g[1].strides(), IntArrayRef({5, 1}));
  Tensor bt = leaf_transposed({4, 5});
  EXPECT_EQ(grad_of(random64({3, 4}, 5).mm(bt).sum(), bt).strides(), IntArrayRef({1, 4}));
}

TEST(GradMatmulMm, SavedInputModifiedInPlace) {
  Tensor a = leaf({2, 3});
  Tensor b = leaf({3, 2}) * 1.0;
  Tensor out = a.mm(b);
  b.mul_(2.0);
  testing::expect_error([&] { out.sum().backward(); },
                        "[ember.DoubleTensor [3, 2]], which is output 0 of MulBackward0, is at "
                        "version 1; expected version 0 instead");
}

// mm's gradients use t() (and t() of t()), whose rule the views branch adds.
TEST(GradMatmulMm, GradGrad) {
  EMBER_REQUIRE_RULES(OpId::t);
  EXPECT_TRUE(gradgrad_ok(mm_fn, {leaf({3, 4}), leaf({4, 5})}));
  EXPECT_TRUE(gradgrad_ok(mm_fn, {leaf_transposed({3, 4}), leaf_transposed({4, 5})}));
  EXPECT_TRUE(gradgrad_ok(mm_fn, {leaf_strided({3, 4}), random64({4, 5}, 7)}));
}

// ---- bmm ----

TEST(GradMatmulBmm, NameAndGradcheck) {
  EXPECT_EQ(leaf({2, 2, 3}).bmm(leaf({2, 3, 4})).grad_fn()->name(), "BmmBackward0");
  EXPECT_TRUE(grad_ok(bmm_fn, {leaf({2, 3, 4}), leaf({2, 4, 5})}));
  EXPECT_TRUE(grad_ok(bmm_fn, {leaf_transposed({2, 3, 4}), leaf_strided({2, 4, 5})}));
  EXPECT_TRUE(grad_ok(bmm_fn, {random64({2, 3, 4}, 7), leaf_transposed({2, 4, 5})}));
  EXPECT_TRUE(grad_ok(bmm_fn, {leaf({0, 3, 4}), leaf({0, 4, 5})}));
}

TEST(GradMatmulBmm, ValuesMatchTorch) {
  Tensor x = leaf_of({1, 2, 3, 4, 0, 1, 1, 0}, {2, 2, 2});
  Tensor y = leaf_of({1, 2, 3, 4, 1, 2, 3, 4}, {2, 2, 2});
  auto g = autograd::grad({x.bmm(y).sum()}, {x, y});
  testing::expect_values(g[0], {2, 2, 2}, {3, 7, 3, 7, 3, 7, 3, 7}, 0, 0);
  testing::expect_values(g[1], {2, 2, 2}, {4, 4, 6, 6, 1, 1, 1, 1}, 0, 0);
}

TEST(GradMatmulBmm, GradGrad) {
  EMBER_REQUIRE_RULES(OpId::transpose_int);
  EXPECT_TRUE(gradgrad_ok(bmm_fn, {leaf({2, 3, 4}), leaf({2, 4, 5})}));
  EXPECT_TRUE(gradgrad_ok(bmm_fn, {leaf_transposed({2, 3, 4}), leaf_strided({2, 4, 5})}));
}

// ---- addmm ----

TEST(GradMatmulAddmm, NameAndGradcheck) {
  EXPECT_EQ(leaf({3}).addmm(leaf({2, 4}), leaf({4, 3})).grad_fn()->name(), "AddmmBackward0");
  const std::vector<std::pair<Scalar, Scalar>> coefficients = {{1, 1}, {0.5, 2.0}, {0, 1}, {2, 3}, {1, -1.5}};
  for (const std::vector<int64_t>& bias_shape :
       {std::vector<int64_t>{3, 5}, {5}, {1, 5}, {3, 1}, {}}) {
    for (const auto& coefficient : coefficients) {
      const Scalar beta = coefficient.first, alpha = coefficient.second;
      EXPECT_TRUE(grad_ok([=](const tensor_list& in) { return tensor_list{in[0].addmm(in[1], in[2], beta, alpha)}; },
                          {leaf(bias_shape), leaf({3, 4}), leaf_transposed({4, 5})}))
          << "bias " << IntArrayRef(bias_shape) << " beta " << beta.to_double() << " alpha " << alpha.to_double();
    }
  }
  EXPECT_TRUE(grad_ok([](const tensor_list& in) { return tensor_list{in[0].addmm(in[1], in[2], 0.5, 2.0)}; },
                      {leaf_transposed({3, 5}), leaf_transposed({3, 4}), leaf_strided({4, 5})}));
  // Some operands without grad.
  EXPECT_TRUE(grad_ok([](const tensor_list& in) { return tensor_list{in[0].addmm(in[1], in[2])}; },
                      {random64({5}, 4), leaf({3, 4}), random64({4, 5}, 5)}));
  EXPECT_TRUE(grad_ok([](const tensor_list& in) { return tensor_list{in[0].addmm(in[1], in[2], 2)}; },
                      {leaf({5}), random64({3, 4}, 4), random64({4, 5}, 5)}));
}

TEST(GradMatmulAddmm, ValuesMatchTorch) {
  Tensor bias = leaf_of({1, 2, 3}, {3});
  Tensor a = leaf_of({1, 2, 3, 4}, {2, 2}), b = leaf_of({5, 6, 7, 8, 9, 10}, {2, 3});
  const Tensor go = testing::from_values({1, 2, 3, 4, 5, 6}, {2, 3}, kFloat64);
  auto g = autograd::grad({bias.addmm(a, b, 0.5, 2)}, {bias, a, b}, {go});
  testing::expect_values(g[0], {3}, {2.5, 3.5, 4.5}, 0, 0);
  testing::expect_values(g[1], {2, 2}, {76, 112, 184, 274}, 0, 0);
  testing::expect_values(g[2], {2, 3}, {26, 34, 42, 36, 48, 60}, 0, 0);
  g = autograd::grad({bias.addmm(a, b, 0, 1)}, {bias, a, b}, {go});
  testing::expect_values(g[0], {3}, {0, 0, 0}, 0, 0);
  testing::expect_values(g[1], {2, 2}, {38, 56, 92, 137}, 0, 0);
  Tensor scalar_bias = leaf_of({2}, {});
  testing::expect_values(grad_of(scalar_bias.addmm(a, b, 3).sum(), scalar_bias), {}, {18}, 0, 0);
}

TEST(GradMatmulAddmm, GradGrad) {
  EMBER_REQUIRE_RULES(OpId::t);
  for (const std::vector<int64_t>& bias_shape : {std::vector<int64_t>{3, 5}, {5}, {}}) {
    EXPECT_TRUE(gradgrad_ok([](const tensor_list& in) { return tensor_list{in[0].addmm(in[1], in[2], 0.5, 2.0)}; },
                            {leaf(bias_shape), leaf_transposed({3, 4}), leaf({4, 5})}));
  }
}

// ---- matmul (composite): every shape combination, through the views and products it calls ----

struct MatmulCase {
  std::vector<int64_t> a, b;
  bool transposed;  // operands laid out column-major
};

// Shapes whose forward needs only rules present on every branch: dot (unsqueeze, mm, view),
// mm, a contiguous batch folded into one mm (view, mm, _unsafe_view), and same-batch bmm.
TEST(GradMatmulMatmul, GradcheckWithoutViewRules) {
  for (const MatmulCase& c : std::vector<MatmulCase>{{{4}, {4}, false},
                                                     {{3, 4}, {4, 5}, false},
                                                     {{3, 4}, {4, 5}, true},
                                                     {{2, 3, 4}, {4, 5}, false},
                                                     {{2, 3, 4}, {2, 4, 5}, false},
                                                     {{2, 2, 3, 4}, {2, 2, 4, 5}, false}}) {
    Tensor a = c.transposed ? leaf_transposed(c.a) : leaf(c.a);
    Tensor b = c.transposed ? leaf_transposed(c.b, 4) : leaf(c.b, 4);
    EXPECT_TRUE(grad_ok(matmul_fn, {a, b})) << IntArrayRef(c.a) << " @ " << IntArrayRef(c.b);
  }
  // A batch of transposed matrices (permute(0, 2, 1) layout) goes to bmm unfolded.
  Tensor batch_t = empty_strided({2, 3, 4}, {12, 1, 3}, kFloat64);
  batch_t.copy_(random64({2, 3, 4}, 9));
  batch_t.requires_grad_();
  EXPECT_TRUE(grad_ok(matmul_fn, {batch_t, leaf({4, 5}, 4)}));
  EXPECT_EQ(leaf({2, 3, 4}).matmul(leaf({4, 5})).grad_fn()->name(), "UnsafeViewBackward0");
  EXPECT_EQ(leaf({3, 4}).matmul(leaf({4, 5})).grad_fn()->name(), "MmBackward0");
}

// 1-d operands squeeze the product back, a batch on the right is folded transposed, a batch
// broadcast against another is expanded and copied.
const std::vector<MatmulCase> kViewCases = {
    {{4}, {4, 5}, false},       {{3, 4}, {4}, false},        {{3, 4}, {4}, true},
    {{2, 3, 4}, {4}, false},    {{4}, {2, 4, 5}, false},     {{3, 4}, {2, 4, 5}, false},
    {{2, 3, 4}, {4, 5}, true},  {{2, 3, 4}, {2, 4, 5}, true}, {{2, 1, 3, 4}, {3, 4, 5}, false},
    {{3, 4}, {2, 1, 4, 5}, true}, {{1, 3, 4}, {2, 4, 5}, false}};

TEST(GradMatmulMatmul, GradcheckThroughViews) {
  EMBER_REQUIRE_RULES(OpId::squeeze_dim, OpId::transpose_int, OpId::t, OpId::clone, OpId::copy_);
  for (const MatmulCase& c : kViewCases) {
    Tensor a = c.transposed ? leaf_transposed(c.a) : leaf(c.a);
    Tensor b = c.transposed ? leaf_transposed(c.b, 4) : leaf(c.b, 4);
    EXPECT_TRUE(grad_ok(matmul_fn, {a, b})) << IntArrayRef(c.a) << " @ " << IntArrayRef(c.b);
  }
}

TEST(GradMatmulMatmul, ValuesMatchTorch) {
  // dot and a batch folded into mm need no view rule.
  Tensor v = leaf_of({1, -1}, {2});
  Tensor x = leaf_of({1, 2, 3, 4, 0, 1, 1, 0}, {2, 2, 2}), y = leaf_of({1, 2, 3, 4}, {2, 2});
  auto g = autograd::grad({x.matmul(y).sum()}, {x, y});
  testing::expect_values(g[0], {2, 2, 2}, {3, 7, 3, 7, 3, 7, 3, 7}, 0, 0);
  testing::expect_values(g[1], {2, 2}, {5, 5, 7, 7}, 0, 0);
  Tensor w = leaf_of({3, 4}, {2});
  g = autograd::grad({v.matmul(w)}, {v, w});
  testing::expect_values(g[0], {2}, {3, 4}, 0, 0);
  testing::expect_values(g[1], {2}, {1, -1}, 0, 0);
}

TEST(GradMatmulMatmul, ValuesThroughViewsMatchTorch) {
  EMBER_REQUIRE_RULES(OpId::squeeze_dim, OpId::transpose_int, OpId::t, OpId::clone, OpId::copy_);
  Tensor v = leaf_of({1, -1}, {2});
  Tensor b = leaf_of({5, 6, 7, 8, 9, 10}, {2, 3});
  const Tensor go = testing::from_values({1, 2, 3}, {3}, kFloat64);
  auto g = autograd::grad({v.matmul(b)}, {v, b}, {go});
  testing::expect_values(g[0], {2}, {38, 56}, 0, 0);
  testing::expect_values(g[1], {2, 3}, {1, 2, 3, -1, -2, -3}, 0, 0);
  Tensor x4 = leaf_of({1, 2, 3, 4}, {2, 1, 1, 2}), y3 = leaf_of({1, 2, 3, 4, 5, 6}, {3, 2, 1});
  Tensor out = x4.matmul(y3);
  EXPECT_EQ(out.sizes(), IntArrayRef({2, 3, 1, 1}));
  g = autograd::grad({out.sum()}, {x4, y3});
  testing::expect_values(g[0], {2, 1, 1, 2}, {9, 12, 9, 12}, 0, 0);
  testing::expect_values(g[1], {3, 2, 1}, {4, 6, 4, 6, 4, 6}, 0, 0);
}

TEST(GradMatmulMatmul, GradGrad) {
  EMBER_REQUIRE_RULES(OpId::squeeze_dim, OpId::transpose_int, OpId::t, OpId::clone, OpId::copy_);
  for (const MatmulCase& c : kViewCases) {
    Tensor a = c.transposed ? leaf_transposed(c.a) : leaf(c.a);
    Tensor b = c.transposed ? leaf_transposed(c.b, 4) : leaf(c.b, 4);
    EXPECT_TRUE(gradgrad_ok(matmul_fn, {a, b})) << IntArrayRef(c.a) << " @ " << IntArrayRef(c.b);
  }
  EXPECT_TRUE(gradgrad_ok(matmul_fn, {leaf({4}), leaf({4}, 4)}));
  EXPECT_TRUE(gradgrad_ok(matmul_fn, {leaf({2, 3, 4}), leaf({2, 4, 5}, 4)}));
}

// ---- linear (composite): addmm with t(weight), or matmul then add ----

TEST(GradMatmulLinear, Gradcheck) {
  EMBER_REQUIRE_RULES(OpId::t, OpId::transpose_int, OpId::squeeze_dim, OpId::clone, OpId::copy_);
  auto with_bias = [](const tensor_list& in) { return tensor_list{linear(in[0], in[1], in[2])}; };
  auto without_bias = [](const tensor_list& in) { return tensor_list{linear(in[0], in[1], std::nullopt)}; };
  for (const std::vector<int64_t>& input_shape : {std::vector<int64_t>{3, 4}, {2, 3, 4}, {4}, {2, 1, 3, 4}}) {
    EXPECT_TRUE(grad_ok(with_bias, {leaf(input_shape), leaf({5, 4}, 4), leaf({5}, 5)})) << IntArrayRef(input_shape);
    EXPECT_TRUE(grad_ok(without_bias, {leaf(input_shape), leaf_transposed({5, 4}, 4)})) << IntArrayRef(input_shape);
    EXPECT_TRUE(gradgrad_ok(with_bias, {leaf(input_shape), leaf({5, 4}, 4), leaf({5}, 5)}))
        << IntArrayRef(input_shape);
  }
  EXPECT_TRUE(grad_ok(with_bias, {leaf_transposed({2, 3, 4}), leaf({5, 4}, 4), leaf({5}, 5)}));
  EXPECT_EQ(linear(leaf({3, 4}), leaf({5, 4}), leaf({5})).grad_fn()->name(), "AddmmBackward0");
}

TEST(GradMatmulMeta, BackwardRunsOnMeta) {
  const TensorOptions meta = TensorOptions(kFloat64).device(kMeta);
  Tensor a = empty({2, 3}, meta).requires_grad_(), b = empty({3, 4}, meta).requires_grad_();
  Tensor bias = empty({4}, meta).requires_grad_();
  auto g = autograd::grad({bias.addmm(a, b, 0.5, 2)}, {bias, a, b}, {empty({2, 4}, meta)});
  for (size_t i = 0; i < g.size(); ++i) EXPECT_TRUE(g[i].is_meta()) << i;
  EXPECT_EQ(g[0].sizes(), IntArrayRef({4}));
  g = autograd::grad({a.mm(b)}, {a, b}, {empty({2, 4}, meta)});
  EXPECT_EQ(g[1].sizes(), IntArrayRef({3, 4}));
  Tensor x = empty({2, 2, 3}, meta).requires_grad_();
  EXPECT_EQ(grad_of(x.bmm(empty({2, 3, 4}, meta)), x, empty({2, 2, 4}, meta)).sizes(), IntArrayRef({2, 2, 3}));
}

}  // namespace
}  // namespace ember
