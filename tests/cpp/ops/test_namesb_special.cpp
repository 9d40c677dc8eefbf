// ember.special's Bessel functions, Airy Ai, orthogonal polynomials and igamma / igammac
// (src/ops/special_functions.cpp): exact values (scipy's / mpmath's where torch 1.13's
// approximations of j0 j1 y0 y1 Ai and of P(a, x) near a ~ x lose digits; torch's elsewhere),
// edge values, the kernels against their scalar references on strided inputs, dtypes, meta,
// in-place forms.
#include <cmath>
#include <limits>

#include "../../src/backends/cpu/special_kernels.h"
#include "ember/ops/factory.h"
#include "ember/ops/math_more.h"
#include "ember/ops/special_functions.h"
#include "testing.h"

namespace ember {
namespace {

using testing::expect_error;
using testing::expect_values;
using testing::from_values;
using testing::values;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

Tensor f64(const std::vector<double>& v) { return from_values(v, {static_cast<int64_t>(v.size())}, kFloat64); }

TEST(NamesbSpecial, BesselValuesFromTorch) {
  const Tensor x = f64({0.0, 1.0, -2.5, 5.0, 30.0, kInf, kNaN});
  expect_values(special_bessel_j0(x), {7},
                {1.0, 0.7651976865579665, -0.04838377646819804, -0.1775967713143383,
                 -0.08636798358104031, kNaN, kNaN}, 1e-12, 1e-14);
  expect_values(special_bessel_y1(x), {7},
                {-kInf, -0.7812128213002888, kNaN, 0.14786314339122691, 0.08442557066174713, kNaN, kNaN},
                1e-12, 1e-14);
  expect_values(special_modified_bessel_k0(x), {7},
                {kInf, 0.4210244382407082, kNaN, 0.0036910983340425942, 2.1324774964630563e-14, 0.0, kNaN},
                1e-12, 0);
  expect_values(special_scaled_modified_bessel_k1(f64({1.0, 800.0, 1e5})), {3},
                {1.636153486263258, 0.04433210911141211, 0.003963342160036932}, 1e-12, 0);
  expect_values(special_modified_bessel_i1(f64({-1.0, 30.0, 800.0})), {3},
                {-0.5651591039924851, 768532038938.9569, kInf}, 1e-12, 0);
  expect_values(special_airy_ai(f64({0.0, 1.0, -1.0, -2.5, 30.0, 200.0, kInf})), {7},
                {0.3550280538878172, 0.13529241631288147, 0.5355608832923522, -0.11232506769296623,
                 3.2082175915505258e-49, 0.0, kNaN}, 1e-10, 0);
  expect_values(special_spherical_bessel_j0(f64({0.0, 0.3, -5.0, kInf})), {4},
                {1.0, 0.9850673555377986, -0.1917848549326277, 0.0}, 1e-14, 0);
}

TEST(NamesbSpecial, PolynomialsMatchClosedForms) {
  const Tensor x = f64({-1.0, -0.3, 0.0, 0.7, 1.0, 2.0});
  for (int64_t n : {0, 1, 2, 5, 9, 12}) {
    const auto t = values(special_chebyshev_polynomial_t(x, Scalar(n)));
    const auto u = values(special_chebyshev_polynomial_u(x, Scalar(n)));
    const auto xs = values(x);
    for (size_t i = 0; i < xs.size(); ++i) {
      if (std::fabs(xs[i]) <= 1) {
        const double th = std::acos(xs[i]);
        EXPECT_NEAR(t[i], std::cos(n * th), 1e-12) << n << " " << xs[i];
        if (std::fabs(xs[i]) < 1) {
          EXPECT_NEAR(u[i], std::sin((n + 1) * th) / std::sin(th), 1e-10);
        }
      } else {
        EXPECT_NEAR(t[i], std::cosh(n * std::acosh(xs[i])), 1e-9 * std::fabs(t[i]));
      }
    }
    const auto p = values(special_legendre_polynomial_p(x, Scalar(n)));
    const auto h = values(special_hermite_polynomial_h(x, Scalar(n)));
    const auto l = values(special_laguerre_polynomial_l(x, Scalar(n)));
    for (size_t i = 0; i < xs.size(); ++i) {
      if (std::fabs(xs[i]) <= 1) {
        EXPECT_NEAR(p[i], std::legendre(static_cast<unsigned>(n), xs[i]), 1e-12);
      }
      EXPECT_NEAR(h[i], std::hermite(static_cast<unsigned>(n), xs[i]), 1e-9 * (1 + std::fabs(h[i])));
      if (xs[i] >= 0) {  // (std::laguerre takes x >= 0)
        EXPECT_NEAR(l[i], std::laguerre(static_cast<unsigned>(n), xs[i]), 1e-9 * (1 + std::fabs(l[i])));
      }
    }
  }
  // n < 0 (and a non-integer n truncates): PyTorch's conventions
  expect_values(special_chebyshev_polynomial_t(f64({0.5}), f64({-1.0})), {1}, {0.0});
  expect_values(special_chebyshev_polynomial_t(f64({0.5}), f64({2.9})), {1}, {-0.5});
  expect_values(special_shifted_chebyshev_polynomial_w(f64({0.0, 1.0}), Scalar(3)), {2}, {-1.0, 7.0});
}

TEST(NamesbSpecial, IncompleteGammaValuesFromTorch) {
  const Tensor a = f64({1.0, 0.5, 3.0, 100.0, 1e-3, 0.0, 2.0, 2.0, -1.0, kInf});
  const Tensor x = f64({2.0, 0.1, 10.0, 95.0, 0.3, 1.0, 0.0, kInf, 1.0, 3.0});
  const auto p = values(igamma(a, x)), q = values(igammac(a, x));
  const std::vector<double> p_ref{0.8646647167633873, 0.34527915398142317, 0.9972306042844884,
                                  0.3173568111698001, 0.9990941619116935, 1.0, 0.0, 1.0, kNaN, 0.0};
  for (size_t i = 0; i < p.size(); ++i) {
    if (std::isnan(p_ref[i])) {
      EXPECT_TRUE(std::isnan(p[i]) && std::isnan(q[i]));
      continue;
    }
    EXPECT_NEAR(p[i], p_ref[i], 1e-12) << i;
    EXPECT_NEAR(q[i], 1 - p_ref[i], 1e-12) << i;
  }
  // small x and tiny a: Q keeps its relative accuracy (no 1 - P cancellation)
  EXPECT_NEAR(values(igammac(f64({1e-3}), f64({0.3})))[0] / 0.0009058380883066471, 1.0, 1e-9);
  // in place, bumping the version
  Tensor s = f64({1.0});
  const auto v = s.impl()->version();
  igamma_(s, f64({2.0}));
  EXPECT_NEAR(values(s)[0], 0.8646647167633873, 1e-14);
  EXPECT_GT(s.impl()->version(), v);
}

TEST(NamesbSpecial, KernelsMatchTheirReferencesOnStridedInputs) {
  const Tensor base = linspace(Scalar(-6.0), Scalar(6.0), 24, TensorOptions(kFloat32)).reshape({4, 6});
  const Tensor x = base.t();  // non-contiguous
  for (int k = 0; k <= static_cast<int>(cpu::SpecialUnaryOp::SphericalJ0); ++k) {
    const auto op = static_cast<cpu::SpecialUnaryOp>(k);
    Tensor out = empty({6, 4}, TensorOptions(kFloat32));
    cpu::special_unary_kernel(op, out, x);
    const auto got = values(out), in = values(x.contiguous());
    for (size_t i = 0; i < got.size(); ++i) {
      const double ref = static_cast<float>(cpu::special_unary_ref(op, static_cast<float>(in[i])));
      if (std::isnan(ref)) {
        EXPECT_TRUE(std::isnan(got[i]));
      } else {
        EXPECT_EQ(got[i], ref) << cpu::special_op_name(op) << " at " << in[i];
      }
    }
  }
  const Tensor n = full({1, 4}, Scalar(4.0), TensorOptions(kFloat64)).expand({6, 4});  // expanded
  const Tensor xd = x.to(kFloat64).div(Scalar(6.0));
  for (int k = 0; k <= static_cast<int>(cpu::SpecialBinaryOp::LegendreP); ++k) {
    const auto op = static_cast<cpu::SpecialBinaryOp>(k);
    Tensor out = empty({6, 4}, TensorOptions(kFloat64));
    cpu::special_binary_kernel(op, out, xd.abs(), n);
    const auto got = values(out), in = values(xd.abs().contiguous());
    for (size_t i = 0; i < got.size(); ++i) {
      EXPECT_EQ(got[i], cpu::special_binary_ref(op, in[i], 4.0)) << cpu::special_op_name(op);
    }
  }
}

TEST(NamesbSpecial, DtypesMetaAndErrors) {
  const Tensor i = from_values({1, 2}, {2}, kInt64);
  EXPECT_EQ(special_bessel_j0(i).dtype(), kFloat32);
  EXPECT_EQ(special_chebyshev_polynomial_t(i, i).dtype(), kFloat32);
  EXPECT_EQ(special_hermite_polynomial_h(Scalar(2), f64({1.0})).dtype(), kFloat64);
  EXPECT_EQ(special_bessel_j0(i.to(kFloat16)).dtype(), kFloat16);  // (torch 1.13 lacks it; computed in float)
  expect_error([&] { igamma(i, i); }, "\"igamma_cpu\" not implemented for 'Long'");
  EXPECT_EQ(igamma(i.to(kFloat16), i.to(kFloat16)).dtype(), kFloat16);
  const Tensor m = empty({3, 1}, TensorOptions(kFloat32).device(kMeta));
  const Tensor r = special_laguerre_polynomial_l(m, empty({4}, TensorOptions(kFloat64).device(kMeta)));
  EXPECT_TRUE(r.is_meta());
  EXPECT_EQ(r.sizes().vec(), (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(r.dtype(), kFloat64);
}

}  // namespace
}  // namespace ember
