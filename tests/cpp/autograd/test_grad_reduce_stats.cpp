// Backward rules of src/ops/reduce_stats.cpp (var, std, norm), src/ops/softmax.cpp (_softmax,
// _log_softmax) and src/ops/sort.cpp (sort, topk): gradcheck and gradgradcheck in float64,
// values printed by PyTorch 1.13, grad_fn names, float32 and saved-output version errors.
#include "grad_reduce_helpers.h"

namespace ember {
namespace {
using namespace grad_testing;
using DimList = std::vector<int64_t>;
using OptDims = std::optional<std::vector<int64_t>>;

const std::vector<OptDims> kVarDims = {std::nullopt, DimList{1}, DimList{-1}, DimList{0, 2},
                                       DimList{}, DimList{-3, -2}};

// ---- var / std ----

TEST(GradReduceVarStd, Names) {
  Tensor x = leaf({2, 3});
  EXPECT_EQ(x.var().grad_fn()->name(), "VarBackward0");
  EXPECT_EQ(x.std(DimList{1}, 0).grad_fn()->name(), "StdBackward0");
}

TEST(GradReduceVarStd, Gradcheck) {
  for (const Tensor& x : {leaf({2, 3, 4}), leaf_transposed({2, 3, 4}), leaf_strided({2, 3, 4})}) {
    for (const OptDims& dims : kVarDims) {
      for (double correction : {1.0, 0.0, 2.5}) {
        for (bool keepdim : {false, true}) {
          EXPECT_TRUE(grad_ok([=](const tensor_list& in) { return tensor_list{in[0].var(dims, correction, keepdim)}; },
                              {x}));
          EXPECT_TRUE(grad_ok([=](const tensor_list& in) { return tensor_list{in[0].std(dims, correction, keepdim)}; },
                              {x}));
        }
      }
    }
  }
  // 0-d: one element, so correction 0.
  Tensor s = leaf({});
  EXPECT_TRUE(grad_ok([](const tensor_list& in) { return tensor_list{in[0].var(std::nullopt, 0)}; }, {s}));
  EXPECT_TRUE(grad_ok([](const tensor_list& in) { return tensor_list{in[0].var(DimList{0}, 0, true)}; }, {s}));
  // The boxed path with correction = None (1).
  EXPECT_TRUE(grad_ok([](const tensor_list& in) { return tensor_list{ember::var(in[0], DimList{1}, std::nullopt)}; },
                      {leaf({2, 3})}));
}

TEST(GradReduceVarStd, ValuesMatchTorch) {
  Tensor x = leaf_of({1, 2, 4, 0, 3, 5}, {2, 3});
  testing::expect_values(grad_of(x.var(DimList{1}), x, testing::from_values({1, 2}, {2}, kFloat64)), {2, 3},
                         {-1.3333333333333335, -0.3333333333333335, 1.6666666666666665, -5.333333333333333,
                          0.666666666666667, 4.666666666666667},
                         1e-14, 0);
  testing::expect_values(grad_of(x.var(std::nullopt, 0), x), {2, 3},
                         {-0.5, -0.16666666666666666, 0.5, -0.8333333333333333, 0.16666666666666666,
                          0.8333333333333333},
                         1e-14, 0);
  // dim = [] reduces every dim, so its gradient is dim = None's (PyTorch 1.13 gives +-inf here).
  testing::expect_values(grad_of(x.var(DimList{}, 0), x), {2, 3},
                         {-0.5, -0.16666666666666666, 0.5, -0.8333333333333333, 0.16666666666666666,
                          0.8333333333333333},
                         1e-14, 0);
  testing::expect_values(grad_of(x.var(DimList{-1}, 2, true), x, testing::from_values({1, -1}, {2, 1}, kFloat64)),
                         {2, 3},
                         {-2.666666666666667, -0.666666666666667, 3.333333333333333, 5.333333333333333,
                          -0.666666666666667, -4.666666666666667},
                         1e-14, 0);
  testing::expect_values(grad_of(x.std(DimList{0}), x, testing::from_values({1, 2, 3}, {3}, kFloat64)), {2, 3},
                         {0.7071067811865475, -1.414213562373095, -2.1213203435596424, -0.7071067811865475,
                          1.414213562373095, 2.1213203435596424},
                         1e-14, 0);
  // A zero std has a zero gradient, not NaN.
  Tensor c = leaf_of({1, 1, 1, 2, 3, 4}, {2, 3});
  testing::expect_values(grad_of(c.std(DimList{1}), c), {2, 3}, {0, 0, 0, -0.5, 0, 0.5}, 1e-14, 0);
  // Negative degrees of freedom (correction above the count) keep the formula, as PyTorch.
  Tensor y = leaf_of({1, 2, 4}, {3});
  testing::expect_values(grad_of(y.var(std::nullopt, 4), y), {3}, {2.6666666666666665, 0.6666666666666667,
                                                                   -3.3333333333333335}, 1e-14, 0);
  // float32
  Tensor f = testing::from_values({1, 2, 4}, {3}, kFloat32).requires_grad_();
  Tensor g = grad_of(f.var(), f);
  EXPECT_EQ(g.dtype(), kFloat32);
  testing::expect_values(g, {3}, {-4. / 3, -1. / 3, 5. / 3}, 1e-6, 0);
}

TEST(GradReduceVarStd, SavedOutputModifiedInPlace) {
  Tensor x = leaf({2, 3});
  Tensor s = x.std(DimList{1});
  s.mul_(2.0);
  testing::expect_error([&] { s.sum().backward(); },
                        "[ember.DoubleTensor [2]], which is output 0 of StdBackward0, is at version 1; "
                        "expected version 0 instead");
}

TEST(GradReduceVarStd, GradGradVar) {
  EMBER_REQUIRE_RULES(OpId::div_Tensor);
  for (const Tensor& x : {leaf({2, 3, 4}), leaf_transposed({2, 3, 4})}) {
    for (const OptDims& dims : kVarDims) {
      for (bool keepdim : {false, true}) {
        EXPECT_TRUE(gradgrad_ok([=](const tensor_list& in) { return tensor_list{in[0].var(dims, 1, keepdim)}; }, {x}));
      }
    }
  }
  EXPECT_TRUE(gradgrad_ok([](const tensor_list& in) { return tensor_list{in[0].var(std::nullopt, 0)}; }, {leaf({})}));
}

TEST(GradReduceVarStd, GradGradStd) {
  EMBER_REQUIRE_RULES(OpId::div_Tensor, OpId::clone, OpId::masked_fill__Scalar);
  for (const Tensor& x : {leaf({2, 3, 4}), leaf_strided({2, 3, 4})}) {
    for (const OptDims& dims : kVarDims) {
      for (bool keepdim : {false, true}) {
        EXPECT_TRUE(gradgrad_ok([=](const tensor_list& in) { return tensor_list{in[0].std(dims, 0.5, keepdim)}; }, {x}));
      }
    }
  }
}

// ---- norm ----

const std::vector<double> kNormPs = {2, 1, INFINITY, -INFINITY, 3, 1.5, 0.5};

TEST(GradReduceNorm, NameAndGradcheck) {
  EXPECT_EQ(leaf({3}).norm().grad_fn()->name(), "NormBackward1");
  for (const Tensor& x : {leaf({2, 3, 4}), leaf_transposed({2, 3, 4}), leaf_strided({2, 3, 4})}) {
    for (double p : kNormPs) {
      for (const DimList& dims : {DimList{1}, DimList{-1, 0}, DimList{}}) {
        for (bool keepdim : {false, true}) {
          EXPECT_TRUE(grad_ok([=](const tensor_list& in) { return tensor_list{ember::norm(in[0], p, dims, keepdim)}; },
                              {x}))
              << "p " << p << " dims " << IntArrayRef(dims) << " keepdim " << keepdim;
        }
      }
    }
  }
  Tensor s = leaf({});
  for (double p : kNormPs) {
    EXPECT_TRUE(grad_ok([=](const tensor_list& in) { return tensor_list{ember::norm(in[0], p, {}, false)}; }, {s}));
    EXPECT_TRUE(grad_ok([=](const tensor_list& in) { return tensor_list{ember::norm(in[0], p, {0}, true)}; }, {s}));
  }
  // p = None means 2.
  EXPECT_TRUE(grad_ok([](const tensor_list& in) { return tensor_list{ember::norm(in[0], std::nullopt, {1}, false)}; },
                      {leaf({2, 3})}));
}

TEST(GradReduceNorm, ValuesMatchTorch) {
  Tensor x = leaf_of({3, -4, 0, 1, 2, -2}, {2, 3});
  const Tensor go = testing::from_values({1, 2}, {2}, kFloat64);
  const std::vector<std::pair<double, std::vector<double>>> cases = {
      {2, {0.6, -0.8, 0, 0.6666666666666666, 1.3333333333333333, -1.3333333333333333}},
      {1, {1, -1, 0, 2, 2, -2}},
      {INFINITY, {0, -1, 0, 0, 1, -1}},
      {-INFINITY, {0, 0, 0, 2, 0, 0}},
      {3, {0.4448513517305356, -0.7908468475209521, 0, 0.3025037165480277, 1.2100148661921108,
           -1.2100148661921108}},
      {1.5, {0.7329564758289748, -0.8463452372482761, 0, 1.0631804438113088, 1.5035642028877994,
             -1.5035642028877994}},
      {0.5, {2.154700538379252, -1.8660254037844386, 0, 7.65685424949238, 5.414213562373094,
             -5.414213562373094}}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.first);
    testing::expect_values(grad_of(ember::norm(x, c.first, {1}, false), x, go), {2, 3}, c.second, 1e-13, 0);
  }
  testing::expect_values(grad_of(ember::norm(x, 2, {}, true), x), {2, 3},
                         {0.5144957554275265, -0.6859943405700353, 0, 0.17149858514250882,
                          0.34299717028501764, -0.34299717028501764},
                         1e-13, 0);
  // float32
  Tensor f = testing::from_values({3, 4}, {2}, kFloat32).requires_grad_();
  Tensor g = grad_of(f.norm(), f);
  EXPECT_EQ(g.dtype(), kFloat32);
  testing::expect_values(g, {2}, {0.6, 0.8}, 1e-6, 0);
}

// At a zero norm the gradient is 0 for every p (PyTorch masks the 0/0).
TEST(GradReduceNorm, ZeroNormHasZeroGradient) {
  for (double p : std::vector<double>{2.0, 3.0, 1.5, 0.5, INFINITY}) {
    Tensor z = leaf_of({0, 0, 0}, {3});
    testing::expect_values(grad_of(ember::norm(z, p, {0}, false), z), {3}, {0, 0, 0}, 0, 0);
  }
}

// p = 0 counts non-zeros: no gradient flows (PyTorch leaves .grad None).
TEST(GradReduceNorm, ZeroPHasNoGradient) {
  Tensor x = leaf_of({3, -4, 0}, {3});
  ember::norm(x, 0, {0}, false).backward();
  EXPECT_FALSE(x.grad().defined());
  auto g = autograd::grad({ember::norm(x, 0, {0}, false)}, {x}, {}, std::nullopt, false, true);
  EXPECT_FALSE(g[0].defined());
}

TEST(GradReduceNorm, GradGrad) {
  EMBER_REQUIRE_RULES(OpId::div_Tensor, OpId::clone, OpId::masked_fill__Scalar, OpId::sign, OpId::abs,
                      OpId::pow_Tensor_Scalar);
  for (const Tensor& x : {leaf({2, 3, 4}), leaf_transposed({2, 3, 4})}) {
    for (double p : kNormPs) {
      for (const DimList& dims : {DimList{1}, DimList{}}) {
        for (bool keepdim : {false, true}) {
          EXPECT_TRUE(gradgrad_ok([=](const tensor_list& in) { return tensor_list{ember::norm(in[0], p, dims, keepdim)}; },
                                  {x}))
              << "p " << p;
        }
      }
    }
  }
}

// ---- softmax / log_softmax ----

TEST(GradReduceSoftmax, Names) {
  Tensor x = leaf({2, 3});
  // softmax and log_softmax are composites: the node is the primitive's, as in PyTorch.
  EXPECT_EQ(x.softmax(1).grad_fn()->name(), "SoftmaxBackward0");
  EXPECT_EQ(x.log_softmax(1).grad_fn()->name(), "LogSoftmaxBackward0");
  EXPECT_EQ(_softmax(x, 0, false).grad_fn()->name(), "SoftmaxBackward0");
}

// softmax(dtype=...) converts first (_to_copy, another family's rule), then records the primitive.
TEST(GradReduceSoftmax, NameWithDtype) {
  EMBER_REQUIRE_RULES(OpId::_to_copy);
  Tensor x = leaf({2, 3});
  EXPECT_EQ(x.softmax(1, kFloat32).grad_fn()->name(), "SoftmaxBackward0");
  EXPECT_EQ(x.log_softmax(1, kFloat32).grad_fn()->name(), "LogSoftmaxBackward0");
  EXPECT_TRUE(grad_ok([](const tensor_list& in) { return tensor_list{in[0].softmax(1, kFloat64)}; },
                      {testing::iota({2, 3}, kFloat32).requires_grad_()},
                      {1e-3, 1e-2, 1e-2}));
}

TEST(GradReduceSoftmax, GradcheckAndGradGrad) {
  for (const Tensor& x : {leaf({2, 3, 4}), leaf_transposed({2, 3, 4}), leaf_strided({2, 3, 4})}) {
    for (int64_t dim : {0, 1, 2, -1}) {
      auto sm = [=](const tensor_list& in) { return tensor_list{in[0].softmax(dim)}; };
      auto lsm = [=](const tensor_list& in) { return tensor_list{in[0].log_softmax(dim)}; };
      EXPECT_TRUE(grad_ok(sm, {x})) << dim;
      EXPECT_TRUE(grad_ok(lsm, {x})) << dim;
      EXPECT_TRUE(gradgrad_ok(sm, {x})) << dim;  // mul, sub and sum: all rules present
    }
  }
  Tensor s = leaf({});
  for (int64_t dim : {0, -1}) {
    EXPECT_TRUE(grad_ok([=](const tensor_list& in) { return tensor_list{in[0].softmax(dim)}; }, {s}));
    EXPECT_TRUE(grad_ok([=](const tensor_list& in) { return tensor_list{in[0].log_softmax(dim)}; }, {s}));
  }
  Tensor e = leaf({0, 3});
  EXPECT_TRUE(grad_ok([](const tensor_list& in) { return tensor_list{in[0].softmax(1)}; }, {e}));
}

TEST(GradReduceSoftmax, LogSoftmaxGradGrad) {
  EMBER_REQUIRE_RULES(OpId::exp);
  for (const Tensor& x : {leaf({2, 3, 4}), leaf_transposed({2, 3, 4})}) {
    for (int64_t dim : {0, -1}) {
      EXPECT_TRUE(gradgrad_ok([=](const tensor_list& in) { return tensor_list{in[0].log_softmax(dim)}; }, {x}));
    }
  }
  EXPECT_TRUE(gradgrad_ok([](const tensor_list& in) { return tensor_list{in[0].log_softmax(0)}; }, {leaf({})}));
}

TEST(GradReduceSoftmax, ValuesMatchTorch) {
  Tensor x = leaf_of({1, 2, 3, 1, 1, 1}, {2, 3});
  const Tensor go = testing::from_values({1, 0, 0, 0, 1, 2}, {2, 3}, kFloat64);
  testing::expect_values(grad_of(x.softmax(1), x, go), {2, 3},
                         {0.08192506906499322, -0.02203304452017429, -0.059892024544818914,
                          -0.3333333333333333, 0, 0.3333333333333333},
                         1e-14, 1e-16);
  testing::expect_values(grad_of(x.log_softmax(1), x, go), {2, 3},
                         {0.9099694268296196, -0.24472847105479764, -0.6652409557748218, -1, 0, 1},
                         1e-14, 1e-15);
  testing::expect_values(grad_of(x.softmax(0), x, go), {2, 3},
                         {0.25, -0.19661193324148185, -0.20998717080701298, -0.25, 0.19661193324148185,
                          0.209987170807013},
                         1e-14, 0);
  // Double backward: d/dx sum(g * g) for g = d softmax.
  Tensor g = grad_of(x.softmax(1), x, go, true);
  testing::expect_values(grad_of((g * g).sum(), x), {2, 3},
                         {0.01768481278579431, -0.00597580165588427, -0.01170901112991003,
                          0.07407407407407407, -0.14814814814814814, 0.07407407407407407},
                         1e-12, 1e-16);
  // float32
  Tensor f = testing::from_values({1, 2, 3}, {3}, kFloat32).requires_grad_();
  Tensor gf = grad_of(f.softmax(0), f, testing::from_values({1, 0, 0}, {3}, kFloat32));
  EXPECT_EQ(gf.dtype(), kFloat32);
  testing::expect_values(gf, {3}, {0.08192506906499322, -0.02203304452017429, -0.059892024544818914}, 1e-5, 1e-7);
  // A float16 input with a float32 result (half_to_float) gets a float16 gradient.
  Tensor h = testing::from_values({1, 2, 3}, {3}, kFloat16).requires_grad_();
  Tensor out = _softmax(h, 0, true);
  EXPECT_EQ(out.dtype(), kFloat32);
  EXPECT_EQ(grad_of(out, h, testing::from_values({1, 0, 0}, {3}, kFloat32)).dtype(), kFloat16);
}

TEST(GradReduceSoftmax, SavedOutputModifiedInPlace) {
  Tensor y = leaf({2, 3}).softmax(1);
  y.mul_(2.0);
  testing::expect_error([&] { y.sum().backward(); },
                        "[ember.DoubleTensor [2, 3]], which is output 0 of SoftmaxBackward0, is at "
                        "version 1; expected version 0 instead");
}

// ---- sort / topk ----

TEST(GradReduceSort, Names) {
  Tensor x = leaf({2, 3});
  // PyTorch names sort.default (stable not given) SortBackward0 and sort.stable SortBackward1.
  auto [v, i] = x.sort(1);
  EXPECT_EQ(v.grad_fn()->name(), "SortBackward0");
  EXPECT_FALSE(i.requires_grad());
  EXPECT_EQ(std::get<0>(x.sort(1, false, true)).grad_fn()->name(), "SortBackward1");
  EXPECT_EQ(std::get<0>(ember::sort(x, std::nullopt, 1, false)).grad_fn()->name(), "SortBackward0");
  EXPECT_EQ(std::get<0>(x.topk(2)).grad_fn()->name(), "TopkBackward0");
}

TEST(GradReduceSort, Gradcheck) {
  for (const Tensor& x : {leaf({2, 3, 4}), leaf_transposed({2, 3, 4}), leaf_strided({2, 3, 4})}) {
    for (int64_t dim : {0, 1, -1}) {
      for (bool flag : {false, true}) {
        EXPECT_TRUE(grad_ok([=](const tensor_list& in) {
          auto [v, i] = in[0].sort(dim, flag);
          return tensor_list{v, i};
        }, {x}));
        EXPECT_TRUE(grad_ok([=](const tensor_list& in) { return tensor_list{std::get<0>(in[0].topk(2, dim, flag))}; },
                            {x}));
      }
    }
    EXPECT_TRUE(grad_ok([](const tensor_list& in) { return tensor_list{std::get<0>(in[0].topk(0, 1))}; }, {x}));
  }
  Tensor s = leaf({});
  EXPECT_TRUE(grad_ok([](const tensor_list& in) { return tensor_list{std::get<0>(in[0].sort(0))}; }, {s}));
  EXPECT_TRUE(grad_ok([](const tensor_list& in) { return tensor_list{std::get<0>(in[0].topk(1, -1))}; }, {s}));
}

TEST(GradReduceSort, ValuesMatchTorch) {
  Tensor x = leaf_of({3, 1, 2}, {3});
  const Tensor go = testing::from_values({1, 2, 3}, {3}, kFloat64);
  testing::expect_values(grad_of(std::get<0>(x.sort()), x, go), {3}, {3, 1, 2}, 0, 0);
  testing::expect_values(grad_of(std::get<0>(x.sort(0, true)), x, go), {3}, {1, 3, 2}, 0, 0);
  Tensor y = leaf_of({1, 4, 2, 3}, {4});
  const Tensor go2 = testing::from_values({10, 20}, {2}, kFloat64);
  testing::expect_values(grad_of(std::get<0>(y.topk(2)), y, go2), {4}, {0, 10, 0, 20}, 0, 0);
  testing::expect_values(grad_of(std::get<0>(y.topk(2, 0, false)), y, go2), {4}, {10, 0, 20, 0}, 0, 0);
  Tensor z = leaf_of({1, 5, 3, 4, 2, 6}, {2, 3});
  testing::expect_values(grad_of(std::get<0>(z.sort(0)), z, testing::from_values({1, 2, 3, 4, 5, 6}, {2, 3}, kFloat64)),
                         {2, 3}, {1, 5, 3, 4, 2, 6}, 0, 0);
  // float32
  Tensor f = testing::from_values({3, 1, 2}, {3}, kFloat32).requires_grad_();
  Tensor g = grad_of(std::get<0>(f.topk(1)), f);
  EXPECT_EQ(g.dtype(), kFloat32);
  testing::expect_values(g, {3}, {1, 0, 0}, 0, 0);
}

TEST(GradReduceSort, GradGrad) {
  EMBER_REQUIRE_RULES(OpId::scatter_src);
  for (const Tensor& x : {leaf({2, 3, 4}), leaf_transposed({2, 3, 4})}) {
    for (int64_t dim : {0, -1}) {
      EXPECT_TRUE(gradgrad_ok([=](const tensor_list& in) { return tensor_list{std::get<0>(in[0].sort(dim, true))}; }, {x}));
      EXPECT_TRUE(gradgrad_ok([=](const tensor_list& in) { return tensor_list{std::get<0>(in[0].topk(2, dim))}; }, {x}));
    }
  }
  EXPECT_TRUE(gradgrad_ok([](const tensor_list& in) { return tensor_list{std::get<0>(in[0].sort(0))}; }, {leaf({})}));
}

}  // namespace
}  // namespace ember
