// Scalar special functions of the pointwise math ops (digamma, erfinv, erfcx, the normal
// distribution's ndtr / ndtri / log_ndtr, the modified Bessel functions i0 / i1 and their scaled
// forms, the Hurwitz zeta function, sinc, entr). Each is evaluated in double and rounded once to
// the op's dtype; the edge values (0, ±inf, NaN, poles) are PyTorch 1.13's.
//
// Note [Special function algorithms]
// ember writes its own evaluations rather than porting a library: power series where they
// converge without cancellation (i0, i1 for |x| <= 30), the asymptotic expansion of Hankel beyond,
// the recurrence plus Stirling-type series for digamma, the Euler-Maclaurin sum for zeta,
// a single-precision starting guess refined by Newton steps on erf / erfc for erfinv, and the
// continued fraction of erfc for erfcx at large arguments. All reach full double precision on
// the ranges tests/cpp/ops/test_math_special.cpp checks against values computed elsewhere.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

namespace ember::cpu::math {

inline constexpr double kPi = 3.14159265358979323846;
inline constexpr double kInf = std::numeric_limits<double>::infinity();
inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// psi(x) = d/dx log Gamma(x). Poles: digamma(±0) = ∓inf (as PyTorch: -inf at +0), NaN at the
/// negative integers.
inline double digamma(double x) {
  if (x == 0) return std::signbit(x) ? kInf : -kInf;
  if (std::isnan(x)) return x;
  if (x == -kInf) return kNaN;
  if (x < 0) {
    if (x == std::floor(x)) return kNaN;
    // reflection: psi(1 - x) - psi(x) = pi / tan(pi x)
    const double r = std::fmod(x, 1.0);  // tan(pi x) from the fractional part keeps precision
    return digamma(1 - x) - kPi / std::tan(kPi * r);
  }
  double result = 0;
  while (x < 10) {
    result -= 1 / x;
    x += 1;
  }
  if (x == kInf) return kInf;
  const double f = 1 / (x * x);
  // -sum_k B_2k / (2k x^2k), k = 1..7
  const double series =
      f * (-1.0 / 12 +
           f * (1.0 / 120 +
                f * (-1.0 / 252 + f * (1.0 / 240 + f * (-1.0 / 132 + f * (691.0 / 32760 + f * (-1.0 / 12)))))));
  return result + std::log(x) - 0.5 / x + series;
}

/// erfc(x) e^{x^2}, finite where erfc underflows.
inline double erfcx(double x) {
  if (std::isnan(x)) return x;
  if (x < 0) {
    if (x < -26.7) return kInf;
    return 2 * std::exp(x * x) - erfcx(-x);
  }
  if (x < 10) return std::exp(x * x) * std::erfc(x);
  if (x == kInf) return 0;
  // erfc(x) e^{x^2} = 1/sqrt(pi) * 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + ...)))), summed backwards
  double t = x;
  for (int k = 60; k >= 1; --k) t = x + (k / 2.0) / t;
  return 1 / (std::sqrt(kPi) * t);
}

/// The inverse of erfc on (0, 2): erfc(erfcinv(q)) = q.
inline double erfcinv(double q) {
  if (std::isnan(q) || q < 0 || q > 2) return kNaN;
  if (q == 0) return kInf;
  if (q == 2) return -kInf;
  if (q > 1) return -erfcinv(2 - q);
  // Starting point: Giles' single-precision approximation of erfinv(1 - q), with its
  // w = -log((1 - y)(1 + y)) written in q so that small q keep their precision.
  const double w0 = -std::log(q * (2 - q));
  double x;
  if (w0 < 5) {
    const double w = w0 - 2.5;
    double p = 2.81022636e-08;
    p = 3.43273939e-07 + p * w;
    p = -3.5233877e-06 + p * w;
    p = -4.39150654e-06 + p * w;
    p = 0.00021858087 + p * w;
    p = -0.00125372503 + p * w;
    p = -0.00417768164 + p * w;
    p = 0.246640727 + p * w;
    p = 1.50140941 + p * w;
    x = p * (1 - q);
  } else if (w0 < 36) {
    const double w = std::sqrt(w0) - 3;
    double p = -0.000200214257;
    p = 0.000100950558 + p * w;
    p = 0.00134934322 + p * w;
    p = -0.00367342844 + p * w;
    p = 0.00573950773 + p * w;
    p = -0.0076224613 + p * w;
    p = 0.00943887047 + p * w;
    p = 1.00167406 + p * w;
    p = 2.83297682 + p * w;
    x = p * (1 - q);
  } else {
    // erfc(x) ~ e^{-x^2} / (x sqrt(pi)): x^2 = -log(q) - log(x sqrt(pi))
    const double l = -std::log(q);
    x = std::sqrt(l);
    for (int i = 0; i < 3; ++i) x = std::sqrt(l - std::log(x * std::sqrt(kPi)));
  }
  // Newton steps on log(erfc(x)) - log(q) = log(erfcx(x)) - x^2 - log(q): well conditioned down
  // to the smallest q, where erfc itself underflows.
  const double lq = std::log(q);
  for (int i = 0; i < 4; ++i) {
    const double e = erfcx(x);
    const double g = std::log(e) - x * x - lq;
    const double dg = -2 / (std::sqrt(kPi) * e);
    const double step = g / dg;
    x -= step;
    if (std::abs(step) <= 1e-17 * std::abs(x)) break;
  }
  return x;
}

/// The inverse of erf on (-1, 1); ±inf at ±1, NaN outside.
inline double erfinv(double y) {
  if (std::isnan(y) || y < -1 || y > 1) return kNaN;
  if (y == 1) return kInf;
  if (y == -1) return -kInf;
  if (y == 0) return y;  // keeps -0.0
  if (std::abs(y) > 0.5) return y > 0 ? erfcinv(1 - y) : -erfcinv(1 + y);
  // |y| <= 0.5: Giles' central branch, then Newton on erf (no cancellation here).
  const double w = -std::log((1 - y) * (1 + y)) - 2.5;
  double p = 2.81022636e-08;
  p = 3.43273939e-07 + p * w;
  p = -3.5233877e-06 + p * w;
  p = -4.39150654e-06 + p * w;
  p = 0.00021858087 + p * w;
  p = -0.00125372503 + p * w;
  p = -0.00417768164 + p * w;
  p = 0.246640727 + p * w;
  p = 1.50140941 + p * w;
  double x = p * y;
  for (int i = 0; i < 3; ++i) {
    const double step = (std::erf(x) - y) / (2 / std::sqrt(kPi) * std::exp(-x * x));
    x -= step;
  }
  return x;
}

/// The standard normal distribution function.
inline double ndtr(double x) {
  if (std::isnan(x)) return x;
  const double t = x * 0.70710678118654752440;
  if (std::abs(t) < 0.70710678118654752440) return 0.5 + 0.5 * std::erf(t);
  const double y = 0.5 * std::erfc(std::abs(t));
  return t > 0 ? 1 - y : y;
}

/// Its inverse: ndtri(p) = -sqrt(2) erfcinv(2p); ∓inf at 0 and 1, NaN outside [0, 1].
inline double ndtri(double p) {
  if (std::isnan(p) || p < 0 || p > 1) return kNaN;
  if (p == 0) return -kInf;
  if (p == 1) return kInf;
  return -1.41421356237309504880 * erfcinv(2 * p);
}

/// log(ndtr(x)), accurate in both tails.
inline double log_ndtr(double x) {
  if (std::isnan(x)) return x;
  const double t = x * 0.70710678118654752440;
  if (x < -1) return std::log(0.5 * erfcx(-t)) - t * t;
  if (x < 0) return std::log(0.5 * std::erfc(-t));
  return std::log1p(-0.5 * std::erfc(t));
}

namespace detail {
// sum_k a_k / x^k of the Hankel expansion of I_nu(x) e^{-x} sqrt(2 pi x), x > 30.
inline double bessel_i_asymptotic(double mu4, double x) {  // mu4 = 4 nu^2
  double term = 1, sum = 1;
  for (int k = 1; k < 30; ++k) {
    const double odd = 2.0 * k - 1;
    term *= -(mu4 - odd * odd) / (k * 8.0 * x);
    sum += term;
    if (std::abs(term) < 1e-17 * std::abs(sum)) break;
  }
  return sum;
}
// sum_k (x/2)^(2k + nu) / (k! (k + nu)!), nu in {0, 1}: all terms positive for x >= 0.
inline double bessel_i_series(int nu, double x) {
  const double h = x / 2, h2 = h * h;
  double term = nu == 0 ? 1 : h, sum = term;
  for (int k = 1; k < 500; ++k) {
    term *= h2 / (static_cast<double>(k) * (k + nu));
    sum += term;
    if (term < 1e-17 * sum) break;
  }
  return sum;
}
}  // namespace detail

/// Modified Bessel functions of the first kind, orders 0 and 1, and their exponentially scaled
/// forms i0e(x) = e^{-|x|} i0(x), i1e(x) = e^{-|x|} i1(x).
inline double i0e(double x) {
  if (std::isnan(x)) return x;
  const double a = std::abs(x);
  if (a == kInf) return 0;
  if (a <= 30) return detail::bessel_i_series(0, a) * std::exp(-a);
  return detail::bessel_i_asymptotic(0, a) / std::sqrt(2 * kPi * a);
}
inline double i0(double x) {
  if (std::isnan(x)) return x;
  if (std::isinf(x)) return kNaN;  // PyTorch's (Cephes') e^x * chbevl(...) / sqrt(x) at inf
  const double a = std::abs(x);
  if (a <= 30) return detail::bessel_i_series(0, a);
  if (a > 713) return kInf;
  // e^a split in two so that the product does not overflow before the scale is applied
  const double h = std::exp(a / 2);
  return h * (detail::bessel_i_asymptotic(0, a) / std::sqrt(2 * kPi * a)) * h;
}
inline double i1e(double x) {
  if (std::isnan(x)) return x;
  const double a = std::abs(x);
  double r;
  if (a == kInf) r = 0;
  else if (a <= 30) r = detail::bessel_i_series(1, a) * std::exp(-a);
  else r = detail::bessel_i_asymptotic(4, a) / std::sqrt(2 * kPi * a);
  return x < 0 ? -r : r;
}
inline double i1(double x) {
  if (std::isnan(x)) return x;
  if (std::isinf(x)) return kNaN;  // as i0
  const double a = std::abs(x);
  double r;
  if (a <= 30) r = detail::bessel_i_series(1, a);
  else if (a > 713) r = kInf;
  else {
    const double h = std::exp(a / 2);
    r = h * (detail::bessel_i_asymptotic(4, a) / std::sqrt(2 * kPi * a)) * h;
  }
  return x < 0 ? -r : r;
}

/// The Hurwitz zeta function sum_k (k + q)^-x, with Cephes' conventions: inf at x == 1 and at
/// non-positive integer q, NaN for x < 1 and for non-positive q with non-integer x.
inline double zeta(double x, double q) {
  if (x == 1) return kInf;  // whatever q is (NaN included), as Cephes' order of checks
  if (x < 1 || std::isnan(x) || std::isnan(q)) return kNaN;
  if (q <= 0) {
    if (q == std::floor(q)) return kInf;
    if (x != std::floor(x)) return kNaN;
  }
  if (q == kInf) return kNaN;  // as Cephes' (the Euler-Maclaurin terms are inf * 0 there)
  // Euler-Maclaurin: direct terms until a = q + N > 9, then the integral, the half term and the
  // Bernoulli corrections B_2j / (2j)! x (x+1) ... (x+2j-2) a^{-x-2j+1}.
  static constexpr double kB[] = {1.0 / 12,
                                  -1.0 / 720,
                                  1.0 / 30240,
                                  -1.0 / 1209600,
                                  1.0 / 47900160,
                                  -691.0 / 1307674368000.0,
                                  1.0 / 74724249600.0,
                                  -3617.0 / 10670622842880000.0,
                                  43867.0 / 5109094217170944000.0,
                                  -174611.0 / 802857662698291200000.0};
  double s = std::pow(q, -x);
  double a = q;
  int i = 0;
  while (i < 9 || a <= 9) {
    ++i;
    a += 1;
    const double b = std::pow(a, -x);
    s += b;
    if (std::abs(b / s) < 1e-17) return s;
  }
  s += a * std::pow(a, -x) / (x - 1) - 0.5 * std::pow(a, -x);
  double fac = x * std::pow(a, -x - 1);  // x a^{-x-1}
  for (int j = 0; j < 10; ++j) {
    const double t = kB[j] * fac;
    s += t;
    if (std::abs(t / s) < 1e-17) break;
    fac *= (x + 2 * j + 1) * (x + 2 * j + 2) / (a * a);
  }
  return s;
}

/// polygamma(n, x) = (-1)^(n+1) n! zeta(n + 1, x), n >= 1 (n = 0 is digamma).
inline double polygamma(int64_t n, double x) {
  if (n == 0) return digamma(x);
  double fact = 1;
  for (int64_t k = 2; k <= n; ++k) fact *= static_cast<double>(k);
  return ((n % 2) ? 1.0 : -1.0) * fact * zeta(static_cast<double>(n + 1), x);
}

/// -x log(x) for x > 0, 0 at 0, -inf below.
inline double entr(double x) {
  if (std::isnan(x)) return x;
  if (x > 0) return -x * std::log(x);
  if (x == 0) return 0;
  return -kInf;
}

}  // namespace ember::cpu::math
