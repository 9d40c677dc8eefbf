// Backward rules of src/ops/reduce.cpp: mean, prod, max / min (full and along a dim), amax /
// amin, cumsum (sum's are exercised in test_engine.cpp). gradcheck and gradgradcheck in float64
// over keepdim, negative and several dims, non-contiguous, 0-d and empty inputs; gradients
// against values printed by PyTorch 1.13; float32; saved-tensor version errors.
#include "grad_reduce_helpers.h"

namespace ember {
namespace {
using namespace grad_testing;
using DimList = std::vector<int64_t>;

// Inputs in three layouts: contiguous, column-major, with gaps.
std::vector<Tensor> layouts(IntArrayRef sizes) {
  return {leaf(sizes), leaf_transposed(sizes), leaf_strided(sizes)};
}

const std::vector<DimList> kDimLists = {{1}, {-1}, {0, 2}, {}, {-3, -1}, {2, 0, 1}};

// ---- mean ----

TEST(GradReduceMean, Names) {
  Tensor x = leaf({2, 3});
  EXPECT_EQ(x.mean().grad_fn()->name(), "MeanBackward0");
  EXPECT_EQ(x.mean({1}).grad_fn()->name(), "MeanBackward1");
  EXPECT_EQ(ember::mean(x, std::nullopt, true).grad_fn()->name(), "MeanBackward1");
}

TEST(GradReduceMean, Gradcheck) {
  for (const Tensor& x : layouts({2, 3, 4})) {
    EXPECT_TRUE(grad_ok([](const tensor_list& in) { return tensor_list{in[0].mean()}; }, {x}));
    for (const DimList& dims : kDimLists) {
      for (bool keepdim : {false, true}) {
        EXPECT_TRUE(grad_ok([=](const tensor_list& in) { return tensor_list{in[0].mean(dims, keepdim)}; },
                            {x}))
            << "dims " << IntArrayRef(dims) << " keepdim " << keepdim;
      }
    }
    EXPECT_TRUE(grad_ok([](const tensor_list& in) { return tensor_list{ember::mean(in[0], std::nullopt, true)}; },
                        {x}));
  }
  Tensor s = leaf({});
  EXPECT_TRUE(grad_ok([](const tensor_list& in) { return tensor_list{in[0].mean()}; }, {s}));
  EXPECT_TRUE(grad_ok([](const tensor_list& in) { return tensor_list{in[0].mean({-1}, true)}; }, {s}));
  Tensor e = leaf({0, 3});
  EXPECT_TRUE(grad_ok([](const tensor_list& in) { return tensor_list{in[0].mean({1})}; }, {e}));
  EXPECT_EQ(grad_of(e.mean({0}), e).sizes(), IntArrayRef({0, 3}));
}

TEST(GradReduceMean, GradGrad) {
  EMBER_REQUIRE_RULES(OpId::div_Tensor);
  for (const Tensor& x : {leaf({2, 3, 4}), leaf_transposed({2, 3, 4})}) {
    EXPECT_TRUE(gradgrad_ok([](const tensor_list& in) { return tensor_list{in[0].mean()}; }, {x}));
    for (const DimList& dims : kDimLists) {
      for (bool keepdim : {false, true}) {
        EXPECT_TRUE(gradgrad_ok(
            [=](const tensor_list& in) { return tensor_list{in[0].mean(dims, keepdim)}; }, {x}));
      }
    }
  }
  EXPECT_TRUE(gradgrad_ok([](const tensor_list& in) { return tensor_list{in[0].mean({0})}; }, {leaf({})}));
}

TEST(GradReduceMean, ValuesAndFloat32) {
  Tensor x = leaf_of({1, 2, 3, 4, 5, 6}, {2, 3});
  testing::expect_values(grad_of(x.mean({1}), x, testing::from_values({1, 2}, {2}, kFloat64)), {2, 3},
                         {1. / 3, 1. / 3, 1. / 3, 2. / 3, 2. / 3, 2. / 3}, 1e-15, 0);
  // float32 input, float64 result: the gradient comes back in float32.
  Tensor f = testing::from_values({1, 2, 3, 4}, {4}, kFloat32).requires_grad_();
  Tensor g = grad_of(f.mean(kFloat64), f);
  EXPECT_EQ(g.dtype(), kFloat32);
  testing::expect_values(g, {4}, {0.25, 0.25, 0.25, 0.25}, 0, 0);
  g = grad_of(f.mean({0}, true), f);
  EXPECT_EQ(g.dtype(), kFloat32);
  testing::expect_values(g, {4}, {0.25, 0.25, 0.25, 0.25}, 0, 0);
}

// ---- prod ----

TEST(GradReduceProd, Names) {
  Tensor x = leaf({2, 3});
  EXPECT_EQ(x.prod().grad_fn()->name(), "ProdBackward0");
  EXPECT_EQ(x.prod(1).grad_fn()->name(), "ProdBackward1");
}

TEST(GradReduceProd, GradcheckWithoutZeros) {
  for (const Tensor& x : layouts({2, 3, 4})) {
    EXPECT_TRUE(grad_ok([](const tensor_list& in) { return tensor_list{in[0].prod()}; }, {x}));
    for (int64_t dim : {0, 1, 2, -1, -3}) {
      for (bool keepdim : {false, true}) {
        EXPECT_TRUE(grad_ok([=](const tensor_list& in) { return tensor_list{in[0].prod(dim, keepdim)}; }, {x}))
            << "dim " << dim << " keepdim " << keepdim;
      }
    }
  }
  Tensor s = leaf({});
  EXPECT_TRUE(grad_ok([](const tensor_list& in) { return tensor_list{in[0].prod()}; }, {s}));
  EXPECT_TRUE(grad_ok([](const tensor_list& in) { return tensor_list{in[0].prod(-1, true)}; }, {s}));
  Tensor e = leaf({0, 3});
  EXPECT_TRUE(grad_ok([](const tensor_list& in) { return tensor_list{in[0].prod(0)}; }, {e}));
  EXPECT_EQ(grad_of(e.prod(), e).sizes(), IntArrayRef({0, 3}));
  EXPECT_EQ(grad_of(e.prod(1), e).sizes(), IntArrayRef({0, 3}));
}

// Rows with one, two and no zeros; the full product with one, two, three zeros.
TEST(GradReduceProd, GradcheckWithZeros) {
  Tensor x = leaf_of({2, 0, 3, 0, 0, 4, 1, 2, 3}, {3, 3});
  for (int64_t dim : {1, 0, -1}) {
    for (bool keepdim : {false, true}) {
      EXPECT_TRUE(grad_ok([=](const tensor_list& in) { return tensor_list{in[0].prod(dim, keepdim)}; }, {x}));
    }
  }
  Tensor xt = leaf_transposed({3, 3});
  {
    NoGradGuard no_grad;
    xt.copy_(x);
  }
  EXPECT_TRUE(grad_ok([](const tensor_list& in) { return tensor_list{in[0].prod(1)}; }, {xt}));
  for (const auto& v : {std::vector<double>{2, 0, 3, 4}, {2, 0, 3, 0}, {2, 0, 0, 0}, {0, 0, 0, 0}}) {
    EXPECT_TRUE(grad_ok([](const tensor_list& in) { return tensor_list{in[0].prod()}; }, {leaf_of(v, {2, 2})}));
  }
}

TEST(GradReduceProd, ValuesMatchTorch) {
  Tensor x = leaf_of({2, 0, 3, 0, 0, 4, 1, 2, 3}, {3, 3});
  testing::expect_values(grad_of(x.prod(1), x), {3, 3}, {0, 6, 0, 0, 0, 0, 6, 3, 2}, 0, 0);
  Tensor y = leaf_of({2, 0, 3, 4}, {4});
  testing::expect_values(grad_of(y.prod(), y), {4}, {0, 24, 0, 0}, 0, 0);
  Tensor z = leaf_of({2, 0, 3, 0}, {4});
  testing::expect_values(grad_of(z.prod(), z), {4}, {0, 0, 0, 0}, 0, 0);
  Tensor w = leaf_of({1.5, -2, 3, 0.5, 4, -1}, {2, 3});
  testing::expect_values(grad_of(w.prod(0, true), w, testing::from_values({1, 2, 3}, {1, 3}, kFloat64)),
                         {2, 3}, {0.5, 8, -3, 1.5, -4, 9}, 1e-15, 0);
  // float32 input with a float64 product: float32 gradient.
  Tensor f = testing::from_values({2, 0, 3}, {3}, kFloat32).requires_grad_();
  Tensor g = grad_of(f.prod(kFloat64), f);
  EXPECT_EQ(g.dtype(), kFloat32);
  testing::expect_values(g, {3}, {0, 6, 0}, 0, 0);
}

TEST(GradReduceProd, GradGradWithoutZeros) {
  EMBER_REQUIRE_RULES(OpId::div_Tensor);
  for (const Tensor& x : {leaf({2, 3, 4}), leaf_transposed({2, 3, 4})}) {
    EXPECT_TRUE(gradgrad_ok([](const tensor_list& in) { return tensor_list{in[0].prod()}; }, {x}));
    for (int64_t dim : {0, -1}) {
      for (bool keepdim : {false, true}) {
        EXPECT_TRUE(gradgrad_ok([=](const tensor_list& in) { return tensor_list{in[0].prod(dim, keepdim)}; }, {x}));
      }
    }
  }
  EXPECT_TRUE(gradgrad_ok([](const tensor_list& in) { return tensor_list{in[0].prod()}; }, {leaf({})}));
}

// Double backward at zeros is the polynomial's: with two zeros the first derivatives are all 0,
// the second are not. (PyTorch 1.13's full prod returns constant zeros there, so its second
// derivative is 0; these expectations come from torch differentiating x0*x1*x2*x3 instead.)
TEST(GradReduceProd, GradGradWithZeros) {
  EMBER_REQUIRE_RULES(OpId::slice_Tensor, OpId::cat);
  Tensor x = leaf_of({2, 0, 3, 0, 0, 4, 1, 2, 3}, {3, 3});
  for (int64_t dim : {1, 0}) {
    for (bool keepdim : {false, true}) {
      EXPECT_TRUE(gradgrad_ok([=](const tensor_list& in) { return tensor_list{in[0].prod(dim, keepdim)}; }, {x}));
    }
  }
  Tensor w = testing::from_values({1, 2, 3, 4, 5, 6, 7, 8, 9}, {3, 3}, kFloat64);
  Tensor g = grad_of(x.prod(1), x, {}, true);
  testing::expect_values(grad_of((g * w).sum(), x), {3, 3}, {6, 9, 4, 20, 16, 0, 42, 30, 22}, 0, 0);
  const Tensor w4 = testing::from_values({1, 2, 3, 4}, {4}, kFloat64);
  const std::vector<std::pair<std::vector<double>, std::vector<double>>> cases = {
      {{2, 0, 3, 4}, {24, 60, 16, 12}}, {{2, 0, 3, 0}, {0, 24, 0, 12}}, {{2, 0, 0, 0}, {0, 0, 0, 0}}};
  for (const auto& c : cases) {
    const std::vector<double>& expected = c.second;
    Tensor y = leaf_of(c.first, {4});
    EXPECT_TRUE(gradgrad_ok([](const tensor_list& in) { return tensor_list{in[0].prod()}; }, {y}));
    Tensor gy = grad_of(y.prod(), y, {}, true);
    testing::expect_values(grad_of((gy * w4).sum(), y), {4}, expected, 0, 0);
  }
}

// Two zeros without create_graph: zeros at once (no exclusive products), as PyTorch.
TEST(GradReduceProd, TwoZerosWithoutCreateGraph) {
  Tensor x = leaf_of({0, 5, 0, 7}, {2, 2});
  Tensor g = grad_of(x.prod(), x);
  testing::expect_values(g, {2, 2}, {0, 0, 0, 0}, 0, 0);
  EXPECT_FALSE(g.requires_grad());
}

TEST(GradReduceProd, SavedInputModifiedInPlace) {
  Tensor x = leaf({2, 3});
  Tensor y = x * 1.0;
  Tensor p = y.prod();
  y.mul_(2.0);
  testing::expect_error([&] { p.backward(); },
                        "[ember.DoubleTensor [2, 3]], which is output 0 of MulBackward0, is at "
                        "version 1; expected version 0 instead");
}

// ---- max / min ----

TEST(GradReduceMax, Names) {
  Tensor x = leaf({2, 3});
  EXPECT_EQ(x.max().grad_fn()->name(), "MaxBackward1");
  EXPECT_EQ(x.min().grad_fn()->name(), "MinBackward1");
  auto [v, i] = x.max(1);
  EXPECT_EQ(v.grad_fn()->name(), "MaxBackward0");
  EXPECT_FALSE(i.requires_grad());
  EXPECT_EQ(std::get<0>(x.min(0)).grad_fn()->name(), "MinBackward0");
  EXPECT_EQ(x.amax({1}).grad_fn()->name(), "AmaxBackward0");
  EXPECT_EQ(x.amin().grad_fn()->name(), "AminBackward0");
}

TEST(GradReduceMax, GradcheckFull) {
  for (const Tensor& x : layouts({2, 3, 4})) {
    EXPECT_TRUE(grad_ok([](const tensor_list& in) { return tensor_list{in[0].max()}; }, {x}));
    EXPECT_TRUE(grad_ok([](const tensor_list& in) { return tensor_list{in[0].min()}; }, {x}));
  }
  EXPECT_TRUE(grad_ok([](const tensor_list& in) { return tensor_list{in[0].max()}; }, {leaf({})}));
}

TEST(GradReduceMax, FullSharesTiesAndNaNs) {
  Tensor x = leaf_of({1, 3, 3, 2}, {4});
  testing::expect_values(grad_of(x.max(), x, testing::from_values({2}, {}, kFloat64)), {4}, {0, 1, 1, 0}, 0, 0);
  Tensor y = leaf_of({2, 1, 1, 5}, {4});
  testing::expect_values(grad_of(y.min(), y), {4}, {0, 0.5, 0.5, 0}, 0, 0);
  Tensor n = leaf_of({1, NAN, NAN}, {3});
  testing::expect_values(grad_of(n.max(), n), {3}, {0, 0.5, 0.5}, 0, 0);
}

TEST(GradReduceMax, GradcheckDim) {
  for (const Tensor& x : layouts({2, 3, 4})) {
    for (int64_t dim : {0, 1, 2, -1}) {
      for (bool keepdim : {false, true}) {
        EXPECT_TRUE(grad_ok([=](const tensor_list& in) {
          auto [v, i] = in[0].max(dim, keepdim);
          return tensor_list{v, i};
        }, {x}));
        EXPECT_TRUE(grad_ok([=](const tensor_list& in) { return tensor_list{std::get<0>(in[0].min(dim, keepdim))}; },
                            {x}));
      }
    }
  }
  Tensor s = leaf({});
  for (int64_t dim : {0, -1}) {
    for (bool keepdim : {false, true}) {
      EXPECT_TRUE(grad_ok([=](const tensor_list& in) { return tensor_list{std::get<0>(in[0].max(dim, keepdim))}; }, {s}));
    }
  }
}

TEST(GradReduceMax, DimValuesMatchTorch) {
  Tensor x = leaf_of({1, 3, 3, 2, 2, 0}, {2, 3});
  auto [v, i] = x.max(1);
  testing::expect_values(i, {2}, {1, 0});
  testing::expect_values(grad_of(v, x, testing::from_values({1, 2}, {2}, kFloat64)), {2, 3}, {0, 1, 0, 2, 0, 0}, 0, 0);
  auto [mv, mi] = x.min(1, true);
  testing::expect_values(mi, {2, 1}, {0, 2});
  testing::expect_values(grad_of(mv, x, testing::from_values({1, 2}, {2, 1}, kFloat64)), {2, 3},
                         {1, 0, 0, 0, 0, 2}, 0, 0);
}

TEST(GradReduceMax, SavedIndicesModifiedInPlace) {
  Tensor x = leaf({2, 3});
  auto [v, i] = x.max(1);
  i.add_(1);
  testing::expect_error([&] { v.sum().backward(); },
                        "[ember.LongTensor [2]] is at version 1; expected version 0 instead");
}

TEST(GradReduceMax, GradcheckAmaxAmin) {
  for (const Tensor& x : layouts({2, 3, 4})) {
    for (const DimList& dims : kDimLists) {
      for (bool keepdim : {false, true}) {
        EXPECT_TRUE(grad_ok([=](const tensor_list& in) { return tensor_list{in[0].amax(dims, keepdim)}; }, {x}));
        EXPECT_TRUE(grad_ok([=](const tensor_list& in) { return tensor_list{in[0].amin(dims, keepdim)}; }, {x}));
      }
    }
  }
  Tensor s = leaf({});
  EXPECT_TRUE(grad_ok([](const tensor_list& in) { return tensor_list{in[0].amax()}; }, {s}));
  EXPECT_TRUE(grad_ok([](const tensor_list& in) { return tensor_list{in[0].amin({0}, true)}; }, {s}));
}

TEST(GradReduceMax, AmaxAminTiesShareEqually) {
  Tensor x = leaf_of({1, 3, 3, 2, 2, 0}, {2, 3});
  testing::expect_values(grad_of(x.amax({1}), x, testing::from_values({1, 2}, {2}, kFloat64)), {2, 3},
                         {0, 0.5, 0.5, 1, 1, 0}, 0, 0);
  testing::expect_values(grad_of(x.amin({0, 1}), x), {2, 3}, {0, 0, 0, 0, 0, 1}, 0, 0);
  testing::expect_values(grad_of(x.amin(), x), {2, 3}, {0, 0, 0, 0, 0, 1}, 0, 0);
  testing::expect_values(grad_of(x.amax({-2}, true), x, testing::from_values({1, 2, 3}, {1, 3}, kFloat64)),
                         {2, 3}, {0, 2, 3, 1, 0, 0}, 0, 0);
  // float32
  Tensor f = testing::from_values({4, 4, 1}, {3}, kFloat32).requires_grad_();
  Tensor g = grad_of(f.amax(), f);
  EXPECT_EQ(g.dtype(), kFloat32);
  testing::expect_values(g, {3}, {0.5, 0.5, 0}, 0, 0);
}

TEST(GradReduceMax, GradGradFull) {
  EMBER_REQUIRE_RULES(OpId::div_Tensor, OpId::clone, OpId::masked_fill__Tensor);
  EXPECT_TRUE(gradgrad_ok([](const tensor_list& in) { return tensor_list{in[0].max()}; }, {leaf({2, 3})}));
  EXPECT_TRUE(gradgrad_ok([](const tensor_list& in) { return tensor_list{in[0].min()}; }, {leaf_transposed({2, 3})}));
  EXPECT_TRUE(gradgrad_ok([](const tensor_list& in) { return tensor_list{in[0].max()}; }, {leaf({})}));
}

TEST(GradReduceMax, GradGradDim) {
  EMBER_REQUIRE_RULES(OpId::scatter_src);
  for (const Tensor& x : {leaf({2, 3, 4}), leaf_transposed({2, 3, 4})}) {
    for (int64_t dim : {0, -1}) {
      for (bool keepdim : {false, true}) {
        EXPECT_TRUE(gradgrad_ok([=](const tensor_list& in) { return tensor_list{std::get<0>(in[0].max(dim, keepdim))}; }, {x}));
        EXPECT_TRUE(gradgrad_ok([=](const tensor_list& in) { return tensor_list{std::get<0>(in[0].min(dim, keepdim))}; }, {x}));
      }
    }
  }
  EXPECT_TRUE(gradgrad_ok([](const tensor_list& in) { return tensor_list{std::get<0>(in[0].max(0))}; }, {leaf({})}));
}

TEST(GradReduceMax, GradGradAmaxAmin) {
  EMBER_REQUIRE_RULES(OpId::div_Tensor);
  for (const Tensor& x : {leaf({2, 3, 4}), leaf_strided({2, 3, 4})}) {
    for (const DimList& dims : kDimLists) {
      for (bool keepdim : {false, true}) {
        EXPECT_TRUE(gradgrad_ok([=](const tensor_list& in) { return tensor_list{in[0].amax(dims, keepdim)}; }, {x}));
        EXPECT_TRUE(gradgrad_ok([=](const tensor_list& in) { return tensor_list{in[0].amin(dims, keepdim)}; }, {x}));
      }
    }
  }
}

// ---- cumsum ----

TEST(GradReduceCumsum, NameAndGradcheck) {
  EXPECT_EQ(leaf({3}).cumsum(0).grad_fn()->name(), "CumsumBackward0");
  for (const Tensor& x : layouts({3, 4, 2})) {
    for (int64_t dim : {0, 1, 2, -1, -3}) {
      EXPECT_TRUE(grad_ok([=](const tensor_list& in) { return tensor_list{in[0].cumsum(dim)}; }, {x})) << dim;
    }
  }
  for (int64_t dim : {0, -1}) {
    EXPECT_TRUE(grad_ok([=](const tensor_list& in) { return tensor_list{in[0].cumsum(dim)}; }, {leaf({})}));
  }
  EXPECT_TRUE(grad_ok([](const tensor_list& in) { return tensor_list{in[0].cumsum(0)}; }, {leaf({1, 3})}));
  Tensor e = leaf({0, 3});
  EXPECT_TRUE(grad_ok([](const tensor_list& in) { return tensor_list{in[0].cumsum(0)}; }, {e}));
  EXPECT_EQ(grad_of(e.cumsum(1), e).sizes(), IntArrayRef({0, 3}));
}

TEST(GradReduceCumsum, ValuesMatchTorch) {
  Tensor x = leaf_of({1, 2, 3, 4}, {4});
  testing::expect_values(grad_of(x.cumsum(0), x, testing::from_values({1, 2, 3, 4}, {4}, kFloat64)), {4},
                         {10, 9, 7, 4}, 0, 0);
  Tensor y = leaf_of({1, 2, 3, 4, 5, 6}, {3, 2});
  testing::expect_values(grad_of(y.cumsum(-2), y, testing::from_values({1, 2, 3, 4, 5, 6}, {3, 2}, kFloat64)),
                         {3, 2}, {9, 12, 8, 10, 5, 6}, 0, 0);
  // float32 summed in float64: the gradient is float32.
  Tensor f = testing::from_values({1, 2, 3}, {3}, kFloat32).requires_grad_();
  Tensor g = grad_of(f.cumsum(0, kFloat64), f);
  EXPECT_EQ(g.dtype(), kFloat32);
  testing::expect_values(g, {3}, {3, 2, 1}, 0, 0);
}

TEST(GradReduceCumsum, GradGrad) {
  EMBER_REQUIRE_RULES(OpId::index_select);
  for (const Tensor& x : {leaf({3, 4}), leaf_transposed({3, 4})}) {
    for (int64_t dim : {0, -1}) {
      EXPECT_TRUE(gradgrad_ok([=](const tensor_list& in) { return tensor_list{in[0].cumsum(dim)}; }, {x}));
    }
  }
  EXPECT_TRUE(gradgrad_ok([](const tensor_list& in) { return tensor_list{in[0].cumsum(0)}; }, {leaf({})}));
}

// ---- meta tensors: every rule runs on shapes alone ----

TEST(GradReduceMeta, BackwardRunsOnMeta) {
  const TensorOptions meta = TensorOptions(kFloat64).device(kMeta);
  const std::vector<std::pair<const char*, std::function<Tensor(const Tensor&)>>> cases = {
      {"mean", [](const Tensor& x) { return x.mean(); }},
      {"mean.dim", [](const Tensor& x) { return x.mean({1}); }},
      {"prod", [](const Tensor& x) { return x.prod(); }},
      {"prod.dim_int", [](const Tensor& x) { return x.prod(1); }},
      {"max", [](const Tensor& x) { return x.max(); }},
      {"max.dim", [](const Tensor& x) { return std::get<0>(x.max(1)); }},
      {"amin", [](const Tensor& x) { return x.amin({0}); }},
      {"var", [](const Tensor& x) { return x.var(); }},
      {"std", [](const Tensor& x) { return x.std(DimList{1}); }},
      {"norm 2", [](const Tensor& x) { return x.norm(); }},
      {"norm inf", [](const Tensor& x) { return x.norm(INFINITY); }},
      {"norm 3", [](const Tensor& x) { return x.norm(3); }},
      {"cumsum", [](const Tensor& x) { return x.cumsum(1); }},
      {"softmax", [](const Tensor& x) { return x.softmax(1); }},
      {"log_softmax", [](const Tensor& x) { return x.log_softmax(0); }},
      {"sort", [](const Tensor& x) { return std::get<0>(x.sort(1)); }},
      {"topk", [](const Tensor& x) { return std::get<0>(x.topk(2)); }}};
  for (const auto& [name, f] : cases) {
    Tensor x = empty({2, 3}, meta).requires_grad_();
    Tensor g = grad_of(f(x), x);
    EXPECT_TRUE(g.is_meta()) << name;
    EXPECT_EQ(g.sizes(), IntArrayRef({2, 3})) << name;
  }
}

}  // namespace
}  // namespace ember
