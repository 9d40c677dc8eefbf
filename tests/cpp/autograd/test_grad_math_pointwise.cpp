// Backward rules of the pointwise math (unary_math.cpp, rounding.cpp, binary_math.cpp) and the
// scans (cumulative.cpp): gradcheck and gradgradcheck in float64 on contiguous, transposed and
// strided inputs and through the in-place forms, grad_fn names as torch 1.13's, and the zeros
// path of cumprod's rule.
#include <gtest/gtest.h>

#include "ember/ops/math.h"
#include "grad_elementwise_util.h"

namespace ember {
namespace {

using grad_testing::expect_gradchecks;
using grad_testing::leaf;
using grad_testing::strided_leaf;
using grad_testing::tensor_list;
using grad_testing::transposed_leaf;

using UnaryFn = Tensor (*)(const Tensor&);
using InplaceFn = Tensor& (*)(Tensor&);

struct Case {
  const char* name;
  UnaryFn fn;
  InplaceFn fn_;
  const char* grad_fn;
  std::vector<double> x;
};

const std::vector<double> kGen{-1.3, -0.4, 0.6, 1.7, 0.2, -0.9};
const std::vector<double> kPos{0.3, 0.7, 1.2, 2.5, 1.9, 0.45};
const std::vector<double> kUnit{-0.8, -0.3, 0.1, 0.55, 0.7, -0.6};
const std::vector<double> kAbove1{1.3, 1.7, 2.2, 3.5, 2.9, 1.45};

std::vector<Case> cases() {
  return {
      {"acos", &acos, &acos_, "AcosBackward0", kUnit},
      {"asin", &asin, &asin_, "AsinBackward0", kUnit},
      {"atan", &atan, &atan_, "AtanBackward0", kGen},
      {"acosh", &acosh, &acosh_, "AcoshBackward0", kAbove1},
      {"asinh", &asinh, &asinh_, "AsinhBackward0", kGen},
      {"atanh", &atanh, &atanh_, "AtanhBackward0", kUnit},
      {"cosh", &cosh, &cosh_, "CoshBackward0", kGen},
      {"sinh", &sinh, &sinh_, "SinhBackward0", kGen},
      {"tan", &tan, &tan_, "TanBackward0", kUnit},
      {"erf", &erf, &erf_, "ErfBackward0", kGen},
      {"erfc", &erfc, &erfc_, "ErfcBackward0", kGen},
      {"erfinv", &erfinv, &erfinv_, "ErfinvBackward0", kUnit},
      {"log10", &log10, &log10_, "Log10Backward0", kPos},
      {"log2", &log2, &log2_, "Log2Backward0", kPos},
      {"exp2", &exp2, &exp2_, "Exp2Backward0", kGen},
      {"reciprocal", &reciprocal, &reciprocal_, "ReciprocalBackward0", kGen},
      {"lgamma", &lgamma, &lgamma_, "LgammaBackward0", kPos},
      {"digamma", &digamma, &digamma_, "DigammaBackward0", kPos},
      {"i0", &i0, &i0_, "I0Backward0", kGen},
      {"sinc", &sinc, &sinc_, "SincBackward0", kGen},
      {"special_entr", &special_entr, nullptr, "SpecialEntrBackward0", kPos},
      {"special_erfcx", &special_erfcx, nullptr, "SpecialErfcxBackward0", kGen},
      {"special_i0e", &special_i0e, nullptr, "SpecialI0EBackward0", kGen},
      {"special_i1", &special_i1, nullptr, "SpecialI1Backward0", kGen},
      {"special_i1e", &special_i1e, nullptr, "SpecialI1EBackward0", kGen},
      {"special_ndtr", &special_ndtr, nullptr, "SpecialNdtrBackward0", kGen},
      {"special_ndtri", &special_ndtri, nullptr, "SpecialNdtriBackward0", {0.1, 0.3, 0.5, 0.7, 0.9, 0.45}},
      {"special_log_ndtr", &special_log_ndtr, nullptr, "SpecialLogNdtrBackward0", kGen},
      {"frac", &frac, &frac_, "FracBackward0", kGen},
  };
}

TEST(GradMathPointwise, UnaryRules) {
  for (const Case& c : cases()) {
    auto f = [&](const tensor_list& in) { return tensor_list{c.fn(in[0])}; };
    expect_gradchecks(f, {leaf(c.x, {6})}, c.name);
    expect_gradchecks(f, {transposed_leaf(c.x, 2, 3)}, std::string(c.name) + " transposed");
    expect_gradchecks(f, {strided_leaf(c.x)}, std::string(c.name) + " strided");
    Tensor x = leaf(c.x, {6});
    EXPECT_EQ(c.fn(x).grad_fn()->name(), c.grad_fn);
    if (c.fn_) {
      auto g = [&](const tensor_list& in) {
        Tensor t = in[0] * 1.0;
        return tensor_list{c.fn_(t)};
      };
      expect_gradchecks(g, {leaf(c.x, {6})}, std::string(c.name) + "_");
    }
  }
}

TEST(GradMathPointwise, RoundingIsFlat) {
  Tensor x = leaf({0.4, 1.6, -2.3}, {3});
  Tensor y = (ceil(x) + floor(x) + round(x) + trunc(x) + round(x, 1)).sum();
  y.backward();
  testing::expect_values(x.grad(), {3}, {0, 0, 0});
  EXPECT_EQ(round(x, 1).grad_fn()->name(), "RoundBackward1");
}

TEST(GradMathPointwise, BinaryRules) {
  const std::vector<double> a{-1.3, -0.4, 0.6, 1.7, 0.2, -0.9}, b{0.8, -1.1, 0.35, 2.2, -0.6, 1.4};
  const std::vector<double> pa{0.3, 0.7, 1.2, 2.5, 1.9, 0.45}, pb{1.3, 0.2, 0.6, 1.1, 2.4, 0.9};
  using B = Tensor (*)(const Tensor&, const Tensor&);
  struct BCase {
    const char* name;
    B fn;
    std::vector<double> a, b;
    const char* grad_fn;
  };
  const std::vector<BCase> bcases = {
      {"atan2", static_cast<B>(&atan2), a, b, "Atan2Backward0"},
      {"hypot", static_cast<B>(&hypot), a, b, "HypotBackward0"},
      {"copysign", static_cast<B>(&copysign), a, b, "CopysignBackward0"},
      {"logaddexp", static_cast<B>(&logaddexp), a, b, "LogaddexpBackward0"},
      {"logaddexp2", static_cast<B>(&logaddexp2), a, b, "Logaddexp2Backward0"},
      {"xlogy", static_cast<B>(&xlogy), a, pb, "XlogyBackward0"},
      {"xlog1py", static_cast<B>(&special_xlog1py), a, pb, "SpecialXlog1PyBackward0"},
      {"fmod", static_cast<B>(&fmod), a, b, "FmodBackward1"},
  };
  for (const BCase& c : bcases) {
    auto f = [&](const tensor_list& in) { return tensor_list{c.fn(in[0], in[1])}; };
    expect_gradchecks(f, {leaf(c.a, {6}), leaf(c.b, {6})}, c.name);
    expect_gradchecks(f, {transposed_leaf(c.a, 2, 3), leaf({c.b[0], c.b[1], c.b[2]}, {3})},
                      std::string(c.name) + " broadcast");
    EXPECT_EQ(c.fn(leaf(c.a, {6}), leaf(c.b, {6})).grad_fn()->name(), c.grad_fn);
  }
  // zeta: the gradient in q only
  const Tensor zx = leaf(pb, {6}).detach() + 2.0;
  auto z = [&](const tensor_list& in) { return tensor_list{special_zeta(zx, in[0])}; };
  expect_gradchecks(z, {leaf(pa, {6})}, "zeta");
  // polygamma, through zeta's rule
  auto pg = [&](const tensor_list& in) { return tensor_list{polygamma(2, in[0])}; };
  expect_gradchecks(pg, {leaf(pa, {6})}, "polygamma");
}

TEST(GradMathPointwise, Scans) {
  const std::vector<double> v{0.8, -1.1, 0.35, 2.2, -0.6, 1.4, 0.5, -0.75, 1.9, 0.3, -1.6, 0.45};
  auto cp = [](const tensor_list& in) { return tensor_list{cumprod(in[0], 1)}; };
  expect_gradchecks(cp, {leaf(v, {3, 4})}, "cumprod");
  expect_gradchecks(cp, {transposed_leaf(v, 3, 4)}, "cumprod transposed");
  // with zeros: the direct sum (one zero, two zeros in a row)
  const std::vector<double> z{0.8, 0.0, 0.35, 2.2, 0.0, 1.4, 0.0, -0.75, 1.9, 0.3, -1.6, 0.45};
  expect_gradchecks(cp, {leaf(z, {3, 4})}, "cumprod with zeros");
  auto lc = [](const tensor_list& in) { return tensor_list{logcumsumexp(in[0], 0)}; };
  expect_gradchecks(lc, {leaf(v, {3, 4})}, "logcumsumexp");
  auto cm = [](const tensor_list& in) { return tensor_list{std::get<0>(cummax(in[0], 1))}; };
  expect_gradchecks(cm, {leaf(v, {3, 4})}, "cummax");
  auto cn = [](const tensor_list& in) { return tensor_list{std::get<0>(cummin(in[0], 0))}; };
  expect_gradchecks(cn, {leaf(v, {3, 4})}, "cummin");
  Tensor x = leaf(v, {3, 4});
  EXPECT_EQ(cumprod(x, 0).grad_fn()->name(), "CumprodBackward0");
  auto [values, indices] = cummax(x, 0);
  EXPECT_EQ(values.grad_fn()->name(), "CummaxBackward0");
  EXPECT_FALSE(indices.requires_grad());
  EXPECT_EQ(logcumsumexp(x, 0).grad_fn()->name(), "LogcumsumexpBackward0");
  // composites: their bodies' ops record
  auto lse = [](const tensor_list& in) { return tensor_list{logsumexp(in[0], std::vector<int64_t>{1}, false)}; };
  expect_gradchecks(lse, {leaf(v, {3, 4})}, "logsumexp");
  auto rn = [](const tensor_list& in) { return tensor_list{renorm(in[0], 2, 0, 1.5)}; };
  expect_gradchecks(rn, {leaf(v, {3, 4})}, "renorm");
}

}  // namespace
}  // namespace ember
