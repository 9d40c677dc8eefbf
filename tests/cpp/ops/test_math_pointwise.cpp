// Pointwise math (unary_math.cpp, rounding.cpp, binary_math.cpp, pointwise_scalar.cpp,
// pointwise_misc.cpp): harness rows against float64 references on every dtype and layout, the
// special functions against values torch 1.13 computes in float64, edge values, kernels against
// their scalar references, meta tensors, error texts and version bumps.
#include <cmath>
#include <limits>

#include "../../src/backends/cpu/math_functions.h"
#include "../../src/backends/cpu/math_kernels.h"
#include "ember/dispatch.h"
#include "ember/ops/math.h"
#include "ops/elementwise_harness.h"

namespace ember {
namespace {

using testing::Domain;
using testing::expect_error;
using testing::expect_values;
using testing::tensor_of;
using testing::UnaryRow;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

ScalarType float_compute(ScalarType t) { return is_floating(t) ? t : default_dtype(); }

UnaryRow float_row(const std::string& name, Tensor (*fn)(const Tensor&), Tensor& (*inplace)(Tensor&),
                   double (*ref)(double), Domain domain) {
  UnaryRow row;
  row.name = name;
  row.fn = fn;
  if (inplace) row.inplace = inplace;
  row.ref = ref;
  row.dtypes = testing::kFloatDtypes;
  row.domain = domain;
  row.compute_dtype = float_compute;
  return row;
}

TEST(MathUnary, HarnessRows) {
  using F = Tensor (*)(const Tensor&);
  using F_ = Tensor& (*)(Tensor&);
  run_unary_row(float_row("acos", static_cast<F>(&acos), static_cast<F_>(&acos_), [](double x) { return std::acos(x); }, {-1, 1}));
  run_unary_row(float_row("asin", static_cast<F>(&asin), static_cast<F_>(&asin_), [](double x) { return std::asin(x); }, {-1, 1}));
  run_unary_row(float_row("atan", static_cast<F>(&atan), static_cast<F_>(&atan_), [](double x) { return std::atan(x); }, {-5, 5}));
  run_unary_row(float_row("acosh", static_cast<F>(&acosh), static_cast<F_>(&acosh_), [](double x) { return std::acosh(x); }, {1, 6}));
  run_unary_row(float_row("asinh", static_cast<F>(&asinh), static_cast<F_>(&asinh_), [](double x) { return std::asinh(x); }, {-5, 5}));
  run_unary_row(float_row("atanh", static_cast<F>(&atanh), static_cast<F_>(&atanh_), [](double x) { return std::atanh(x); }, {-0.9, 0.9}));
  run_unary_row(float_row("cosh", static_cast<F>(&cosh), static_cast<F_>(&cosh_), [](double x) { return std::cosh(x); }, {-4, 4}));
  run_unary_row(float_row("sinh", static_cast<F>(&sinh), static_cast<F_>(&sinh_), [](double x) { return std::sinh(x); }, {-4, 4}));
  run_unary_row(float_row("tan", static_cast<F>(&tan), static_cast<F_>(&tan_), [](double x) { return std::tan(x); }, {-1.2, 1.2}));
  run_unary_row(float_row("erf", static_cast<F>(&erf), static_cast<F_>(&erf_), [](double x) { return std::erf(x); }, {-3, 3}));
  run_unary_row(float_row("erfc", static_cast<F>(&erfc), static_cast<F_>(&erfc_), [](double x) { return std::erfc(x); }, {-3, 3}));
  run_unary_row(float_row("log10", static_cast<F>(&log10), static_cast<F_>(&log10_), [](double x) { return std::log10(x); }, {0.1, 50}));
  run_unary_row(float_row("log2", static_cast<F>(&log2), static_cast<F_>(&log2_), [](double x) { return std::log2(x); }, {0.1, 50}));
  run_unary_row(float_row("exp2", static_cast<F>(&exp2), static_cast<F_>(&exp2_), [](double x) { return std::exp2(x); }, {-5, 5}));
  run_unary_row(float_row("reciprocal", static_cast<F>(&reciprocal), static_cast<F_>(&reciprocal_), [](double x) { return 1 / x; }, {-5, 5, true}));
  run_unary_row(float_row("lgamma", static_cast<F>(&lgamma), static_cast<F_>(&lgamma_), [](double x) { return std::lgamma(x); }, {0.1, 8}));
  // erfinv's reference: its inverse, through erf (exact to a few ulp on (-0.99, 0.99))
  run_unary_row(float_row("erfinv", static_cast<F>(&erfinv), static_cast<F_>(&erfinv_), [](double y) {
    if (std::abs(y) >= 1) return y == 1 ? kInf : y == -1 ? -kInf : kNaN;
    double lo = -6, hi = 6;  // bisection on erf, independent of the Newton steps it checks
    for (int i = 0; i < 200; ++i) {
      const double mid = (lo + hi) / 2;
      (std::erf(mid) < y ? lo : hi) = mid;
    }
    return (lo + hi) / 2;
  }, {-0.99, 0.99}));
}

TEST(MathUnary, SpecialFunctionsAgainstTorchFloat64) {
  auto check = [](Tensor (*fn)(const Tensor&), std::vector<double> x, std::vector<double> expected) {
    Tensor t = tensor_of(x, kFloat64, {static_cast<int64_t>(x.size())});
    // (erfinv near 1 is ill-conditioned: 1e-11 relative is the rounding of y itself)
    expect_values(fn(t), {static_cast<int64_t>(x.size())}, expected, 5e-12, 1e-300);
  };
  using F = Tensor (*)(const Tensor&);
  check(static_cast<F>(&digamma), {0.5, 3.7, -2.5, 25.0, 1e-3},
        {-1.9635100260214229, 1.1671535393615111, 1.1031566406452433, 3.198742512851974, -1000.5755719318104});
  check(static_cast<F>(&erfinv), {0.3, -0.9, 0.999999, 1e-10, -0.5},
        {0.2724627147267544, -1.1630871536766743, 3.458910737283175, 8.862269254527581e-11, -0.4769362762044699});
  check(&special_erfcx, {-3.0, 0.5, 12.0, 1e5, 30.0},
        {16205.988853999586, 0.6156903441929258, 0.04685422101489376, 5.6418958351954685e-06, 0.018795888861416754});
  check(static_cast<F>(&i0), {0.5, -7.0, 35.0, 100.0},
        {1.0634833707413236, 168.59390851028968, 107338818494514.08, 1.0737517071310738e+42});
  check(&special_i0e, {0.5, -7.0, 35.0, 100.0},
        {0.6450352704491501, 0.15373774467288123, 0.06767837835041363, 0.03994437929909668});
  check(&special_i1, {0.5, -7.0, 35.0, 100.0},
        {0.25789430539089636, -156.03909286995534, 105794126051896.27, 1.0683693903381625e+42});
  check(&special_i1e, {0.5, -7.0, 35.0, 100.0},
        {0.15642080318487173, -0.1422892347095986, 0.06670443172949143, 0.03974415302513025});
  check(&special_ndtri, {0.025, 0.5, 1e-20, 0.9999, 0.3},
        {-1.9599639845400545, 0.0, -9.262340089798409, 3.7190164854557084, -0.5244005127080409});
  check(&special_log_ndtr, {-40.0, -2.0, -0.5, 0.5, 8.0},
        {-804.6084420137539, -3.7831843336820317, -1.1759117615936185, -0.36894641528865635, -6.220960574271758e-16});
  check(&special_ndtr, {-3.0, 0.2, 5.0}, {0.0013498980316301035, 0.579259709439103, 0.9999997133484282});
  check(&special_entr, {0.5, 2.0, 0.0, -1.0}, {0.34657359027997264, -1.3862943611198906, 0.0, -kInf});
  Tensor x = tensor_of({2., 3.5, 2., 4., 1.5}, kFloat64, {5});
  Tensor q = tensor_of({1., 0.3, -1.5, 20., 2.}, kFloat64, {5});
  expect_values(special_zeta(x, q), {5},
                {1.6449340668482266, 68.10265605243227, 9.379246644989124, 4.489570355660649e-05, 1.6123753486854886},
                1e-12, 0);
  expect_values(polygamma(3, tensor_of({0.5, 4.}, kFloat64, {2})), {2}, {97.40909103400242, 0.04486532819275508},
                1e-12, 0);
}

TEST(MathUnary, EdgeValuesAsTorch) {
  const Tensor e = tensor_of({0.0, -0.0, -1.0, kInf, -kInf, kNaN}, kFloat32, {6});
  expect_values(digamma(e), {6}, {-kInf, kInf, kNaN, kInf, kNaN, kNaN});
  expect_values(lgamma(e), {6}, {kInf, kInf, kInf, kInf, kInf, kNaN});
  expect_values(erfinv(tensor_of({-1., 1., 2., 0.}, kFloat32, {4})), {4}, {-kInf, kInf, kNaN, 0});
  EXPECT_TRUE(std::signbit(erfinv(tensor_of({-0.0}, kFloat64, {1})).item<double>()));
  expect_values(special_ndtri(tensor_of({0., 1., 2.}, kFloat64, {3})), {3}, {-kInf, kInf, kNaN});
  expect_values(sinc(tensor_of({0., 1., -0.5}, kFloat32, {3})), {3}, {1.0, -2.7827534e-08, 0.63661975}, 1e-6, 1e-12);
  expect_values(special_zeta(tensor_of({1., 0.5, 2.}, kFloat64, {3}), tensor_of({1., 1., 0.}, kFloat64, {3})),
                {3}, {kInf, kNaN, kInf});
}

TEST(MathUnary, PromotesIntegersAndRefusesThemInPlace) {
  Tensor i = tensor_of({1, 2}, kInt64, {2});
  EXPECT_EQ(acos(i).dtype(), kFloat32);
  EXPECT_EQ(special_ndtr(tensor_of({1, 0}, kBool, {2})).dtype(), kFloat32);
  expect_error([&] { acos_(i); }, "result type Float can't be cast to the desired output type Long");
  Tensor m = empty({2, 3}, TensorOptions(kFloat64).device(Device("meta")));
  Tensor r = erfinv(m);
  EXPECT_TRUE(r.is_meta());
  EXPECT_EQ(r.sizes().vec(), (std::vector<int64_t>{2, 3}));
}

TEST(MathUnary, KernelsMatchScalarReferences) {
  using cpu::MathUnaryOp;
  const Tensor x = tensor_of({-3.5, -1.0, -0.25, 0.0, 0.3, 0.9, 2.5, 31.0, 700.0}, kFloat64, {9});
  for (MathUnaryOp op : {MathUnaryOp::Digamma, MathUnaryOp::Erfcx, MathUnaryOp::I0, MathUnaryOp::I0e,
                         MathUnaryOp::I1, MathUnaryOp::I1e, MathUnaryOp::Ndtr, MathUnaryOp::LogNdtr,
                         MathUnaryOp::Sinc, MathUnaryOp::Entr, MathUnaryOp::Round, MathUnaryOp::Frac}) {
    Tensor out = empty({9}, TensorOptions(kFloat64));
    cpu::math_unary_kernel(op, out, x);
    for (int64_t k = 0; k < 9; ++k) {
      const double got = out.select(0, k).item<double>();
      const double want = cpu::math_unary_ref(op, x.select(0, k).item<double>());
      if (std::isnan(want)) EXPECT_TRUE(std::isnan(got));
      else EXPECT_EQ(got, want) << cpu::math_unary_kernel_name(op) << " at " << k;
    }
  }
}

TEST(Rounding, ValuesDtypesAndErrors) {
  const Tensor h = tensor_of({0.5, 1.5, 2.5, -0.5, -1.7}, kFloat32, {5});
  expect_values(round(h), {5}, {0, 2, 2, -0.0, -2});
  expect_values(ceil(h), {5}, {1, 2, 3, -0.0, -1});
  expect_values(floor(h), {5}, {0, 1, 2, -1, -2});
  expect_values(trunc(h), {5}, {0, 1, 2, -0.0, -1});
  expect_values(frac(h), {5}, {0.5, 0.5, 0.5, -0.5, -0.7}, 1e-6, 1e-6);
  expect_values(round(tensor_of({1.2345, 1234.5}, kFloat64, {2}), 2), {2}, {1.23, 1234.5}, 1e-12, 0);
  expect_values(round(tensor_of({1234.5, 1250.}, kFloat32, {2}), -2), {2}, {1200, 1200});
  const Tensor i = tensor_of({3, -4}, kInt64, {2});
  EXPECT_EQ(ceil(i).dtype(), kInt64);
  expect_values(floor(i), {2}, {3, -4});
  expect_error([&] { ceil(tensor_of({1}, kBool, {1})); }, "\"ceil_vml_cpu\" not implemented for 'Bool'");
  expect_error([&] { frac(i); }, "\"frac_cpu\" not implemented for 'Long'");
  expect_error([&] { round(i, 1); }, "\"round_cpu\" not implemented for 'Long'");
  Tensor t = tensor_of({1.5}, kFloat32, {1});
  const auto v = t.version();
  floor_(t);
  EXPECT_GT(t.version(), v);
  expect_values(t, {1}, {1});
}

TEST(Predicates, EveryDtype) {
  const Tensor e = tensor_of({1.0, kNaN, kInf, -kInf, -0.0}, kFloat16, {5});
  expect_values(isnan(e), {5}, {0, 1, 0, 0, 0});
  expect_values(isinf(e), {5}, {0, 0, 1, 1, 0});
  expect_values(isfinite(e), {5}, {1, 0, 0, 0, 1});
  expect_values(isposinf(e), {5}, {0, 0, 1, 0, 0});
  expect_values(isneginf(e), {5}, {0, 0, 0, 1, 0});
  expect_values(signbit(e), {5}, {0, 0, 0, 1, 1});
  const Tensor i = tensor_of({-2, 0, 3}, kInt8, {3});
  EXPECT_EQ(isnan(i).dtype(), kBool);
  expect_values(signbit(i), {3}, {1, 0, 0});
  expect_values(isfinite(i), {3}, {1, 1, 1});
  expect_values(isreal(i), {3}, {1, 1, 1});
}

TEST(MathBinary, ValuesPromotionAndErrors) {
  const Tensor a = tensor_of({1, 2}, kInt64, {2}), b = tensor_of({3, 4}, kInt64, {2});
  Tensor r = atan2(a, b);
  EXPECT_EQ(r.dtype(), kFloat32);
  expect_values(r, {2}, {std::atan2(1., 3.), std::atan2(2., 4.)});
  expect_values(copysign(a, tensor_of({-3, 4}, kInt64, {2})), {2}, {-1, 2});
  expect_values(copysign(tensor_of({1., 2.}, kFloat32, {2}), Scalar(-0.0)), {2}, {-1, -2});
  expect_error([&] { hypot(a, b); }, "\"hypot_cpu\" not implemented for 'Long'");
  expect_error([&] { nextafter(a, b); }, "\"nextafter_cpu\" not implemented for 'Long'");
  expect_error([&] { heaviside(a, tensor_of({1.}, kFloat32, {1})); },
               "heaviside is not yet implemented for tensors with different dtypes.");
  expect_error([&] { fmod(a, tensor_of({0, 3}, kInt64, {2})); }, "ZeroDivisionError");
  expect_values(fmod(tensor_of({5., -5., -0.}, kFloat64, {3}), tensor_of({0., 3., 2.}, kFloat64, {3})), {3},
                {kNaN, -2, -0.0});
  expect_values(gcd(tensor_of({0, -4, 6}, kInt32, {3}), tensor_of({0, 6, -4}, kInt32, {3})), {3}, {0, 2, 2});
  expect_values(lcm(tensor_of({0, -4, 6}, kInt32, {3}), tensor_of({0, 6, -4}, kInt32, {3})), {3}, {0, 12, 12});
  const Tensor s8 = tensor_of({1, -2, 3}, kInt8, {3}), sh = tensor_of({1, 9, -1}, kInt8, {3});
  expect_values(bitwise_left_shift(s8, sh), {3}, {2, 0, 0});
  expect_values(bitwise_right_shift(tensor_of({-128, -2, 3}, kInt8, {3}), sh), {3}, {-64, -1, 0});
  expect_values(xlogy(tensor_of({0., 1., 0.}, kFloat64, {3}), tensor_of({0., kNaN, kNaN}, kFloat64, {3})), {3},
                {0, kNaN, kNaN});
  expect_values(logaddexp(tensor_of({kInf, -kInf, 1.}, kFloat64, {3}), tensor_of({kInf, -kInf, 2.}, kFloat64, {3})),
                {3}, {kInf, -kInf, 2 + std::log1p(std::exp(-1.0))}, 1e-14, 0);
  expect_values(heaviside(tensor_of({-1., 0., 2., kNaN}, kFloat32, {4}), tensor_of({0.5}, kFloat32, {1})), {4},
                {0, 0.5, 1, 0});
  expect_values(nextafter(tensor_of({1.}, kFloat32, {1}), tensor_of({2.}, kFloat32, {1})), {1},
                {static_cast<double>(std::nextafter(1.0f, 2.0f))}, 0, 0);
}

TEST(MathBinary, InPlaceAndOut) {
  Tensor s = tensor_of({1., -2.}, kFloat32, {2});
  const auto v = s.version();
  copysign_(s, tensor_of({-1., 1.}, kFloat32, {2}));
  EXPECT_GT(s.version(), v);
  expect_values(s, {2}, {-1, 2});
  Tensor i = tensor_of({1, 2}, kInt64, {2});
  expect_error([&] { atan2_(i, i); }, "result type Float can't be cast to the desired output type Long");
  expect_values(i, {2}, {1, 2});
  Tensor out = empty({0}, TensorOptions(kFloat64));
  atan2_out(tensor_of({1., 1.}, kFloat32, {2}), tensor_of({1., -1.}, kFloat32, {2}), out);
  expect_values(out, {2}, {std::atan2(1., 1.), std::atan2(1., -1.)}, 1e-6, 0);
}

TEST(MathBinary, KernelsMatchScalarReferences) {
  using cpu::MathBinaryOp;
  const Tensor a = tensor_of({-2.5, -1.0, 0.0, 0.5, 3.0, 7.25}, kFloat64, {6});
  const Tensor b = tensor_of({1.5, 2.0, -0.5, 4.0, 0.25, 3.0}, kFloat64, {6});
  for (MathBinaryOp op : {MathBinaryOp::Atan2, MathBinaryOp::Hypot, MathBinaryOp::Copysign, MathBinaryOp::Logaddexp,
                          MathBinaryOp::Logaddexp2, MathBinaryOp::Xlogy, MathBinaryOp::Xlog1py,
                          MathBinaryOp::Zeta, MathBinaryOp::Fmod, MathBinaryOp::Heaviside}) {
    Tensor out = empty({6}, TensorOptions(kFloat64));
    cpu::math_binary_kernel(op, out, a, b);
    for (int64_t k = 0; k < 6; ++k) {
      const double got = out.select(0, k).item<double>();
      const double want = cpu::math_binary_ref(op, a.select(0, k).item<double>(), b.select(0, k).item<double>());
      if (std::isnan(want)) EXPECT_TRUE(std::isnan(got));
      else EXPECT_EQ(got, want) << cpu::math_binary_kernel_name(op) << " at " << k;
    }
  }
}

TEST(PointwiseScalar, OverloadsPromoteWeakly) {
  const Tensor h = tensor_of({1., 2.}, kFloat16, {2});
  EXPECT_EQ(add(h, Scalar(2.5)).dtype(), kFloat16);
  EXPECT_EQ(eq(tensor_of({1, 2}, kInt32, {2}), Scalar(2.0)).dtype(), kBool);
  expect_values(eq(tensor_of({1, 2}, kInt32, {2}), Scalar(2.0)), {2}, {0, 1});
  const Tensor p = pow(Scalar(int64_t{2}), tensor_of({1, 3}, kInt64, {2}));
  EXPECT_EQ(p.dtype(), kInt64);
  expect_values(p, {2}, {2, 8});
  EXPECT_EQ(fmod(tensor_of({5, -5}, kInt64, {2}), Scalar(2.5)).dtype(), kFloat32);
  expect_values(remainder(Scalar(int64_t{5}), tensor_of({3, -3}, kInt64, {2})), {2}, {2, -1});
  expect_values(div(tensor_of({7, -7}, kInt64, {2}), Scalar(int64_t{2}), std::string("floor")), {2}, {3, -4});
  expect_values(float_power(tensor_of({2}, kInt32, {1}), Scalar(int64_t{3})), {1}, {8});
  EXPECT_EQ(float_power(tensor_of({2}, kInt32, {1}), Scalar(int64_t{3})).dtype(), kFloat64);
  Tensor f = tensor_of({2.}, kFloat32, {1});
  expect_error([&] { float_power_(f, Scalar(2.0)); },
               "the base given to float_power_ has dtype Float but the operation's result requires dtype Double");
}

TEST(PointwiseMisc, Composites) {
  const auto& st = find_op("aten::scalar_tensor");
  Stack r = st.call({Value(Scalar(int64_t{3})), Value(), Value(), Value(), Value()});
  EXPECT_EQ(r[0].to_tensor().dtype(), kFloat32);
  EXPECT_EQ(_local_scalar_dense(tensor_of({4}, kInt64, {1})).to_int(), 4);
  expect_error([&] { _local_scalar_dense(tensor_of({1, 2}, kInt64, {2})); },
               "a Tensor with 2 elements cannot be converted to Scalar");
  const Tensor x = tensor_of({1., kNaN, kInf, -kInf}, kFloat16, {4});
  expect_values(nan_to_num(x), {4}, {1, 0, 65504, -65504});
  expect_values(nan_to_num(x, 2.0, 3.0, -3.0), {4}, {1, 2, 3, -3});
  expect_values(logit(tensor_of({0., 0.5, 1.}, kFloat32, {3})), {3}, {-kInf, 0, kInf});
  expect_values(logit(tensor_of({0., 0.5, 1.}, kFloat32, {3}), 0.1), {3}, {-2.1972246, 0, 2.1972246});
  const Tensor a = tensor_of({1., 2.}, kFloat32, {2}), b = tensor_of({3., 6.}, kFloat32, {2});
  expect_values(lerp(a, b, Scalar(0.25)), {2}, {1.5, 3});
  expect_values(lerp(a, b, Scalar(1.0)), {2}, {3, 6}, 0, 0);
  expect_error([&] { lerp(a, tensor_of({1., 2.}, kFloat64, {2}), Scalar(0.5)); },
               "expected dtype float for `end` but got dtype double");
  expect_values(mvlgamma(tensor_of({2.5, 3.}, kFloat64, {2}), 3), {2}, {1.8810, 2.6949}, 1e-4, 0);
  expect_error([&] { mvlgamma(a, 0); }, "p has to be greater than or equal to 1");
  expect_error([&] { polygamma(-1, a); }, "polygamma(n, x) does not support negative n.");
  expect_values(isclose(a, tensor_of({1., 2.1}, kFloat32, {2})), {2}, {1, 0});
  expect_error([&] { isclose(a, tensor_of({1., 2.}, kFloat64, {2})); }, "Float did not match Double");
  expect_values(deg2rad(tensor_of({180}, kInt64, {1})), {1}, {3.14159265});
  EXPECT_TRUE(positive(a).is_same(a));
  expect_error([&] { positive(tensor_of({1}, kBool, {1})); }, "The `+` operator, on a bool tensor is not supported.");
}

}  // namespace
}  // namespace ember
