// Kernels of the BLAS-family extras and of fmax / fmin, frexp and the incomplete gamma functions.
#include "math_more_kernels.h"

#include <cmath>
#include <limits>

#include "dtype_lists.h"
#include "loop.h"

namespace ember::cpu {

void addr_kernel(const Tensor& out, const Tensor& self, const Tensor& v1, const Tensor& v2,
                 const Scalar& beta, const Scalar& alpha) {
  dispatch_types(kAllTypesAndComplex, out.dtype(), "addr_cpu", [&]<class T>() {
    if constexpr (std::is_same_v<T, bool>) {
      const bool b = beta.to_bool(), a = alpha.to_bool();
      if (!b) {
        ElementwiseLoop({out, v1, v2}).run<bool, bool, bool>([a](bool x, bool y) { return a && x && y; });
      } else {
        ElementwiseLoop({out, self, v1, v2}).run<bool, bool, bool, bool>(
            [a](bool s, bool x, bool y) { return s || (a && x && y); });
      }
    } else {
      using M = opmath_t<T>;
      const M b = beta.to<M>(), a = alpha.to<M>();
      if (b == M(0)) {
        ElementwiseLoop({out, v1, v2}).run<T, T, T>([a](T x, T y) {
          return T(wrap_mul(a, wrap_mul(M(x), M(y))));
        });
      } else {
        ElementwiseLoop({out, self, v1, v2}).run<T, T, T, T>([a, b](T s, T x, T y) {
          return T(wrap_add(wrap_mul(b, M(s)), wrap_mul(a, wrap_mul(M(x), M(y)))));
        });
      }
    }
  });
}

void scale_kernel(const Tensor& out, const Scalar& s) {
  dispatch_types(kAllTypesAndComplex, out.dtype(), "mul_cpu", [&]<class T>() {
    if constexpr (std::is_same_v<T, bool>) {
      const bool v = s.to_bool();
      ElementwiseLoop({out, out}).run<bool, bool>([v](bool x) { return x && v; });
    } else {
      using M = opmath_t<T>;
      const M v = s.to<M>();
      ElementwiseLoop({out, out}).run<T, T>([v](T x) { return T(wrap_mul(M(x), v)); });
    }
  });
}

void fmax_fmin_kernel(const Tensor& out, const Tensor& a, const Tensor& b, bool is_max) {
  dispatch_types(kAllTypes, out.dtype(), is_max ? "fmax_cpu" : "fmin_cpu", [&]<class T>() {
    ElementwiseLoop loop({out, a, b});
    if constexpr (std::is_integral_v<T>) {
      if (is_max) loop.run<T, T, T>([](T x, T y) { return x < y ? y : x; });
      else loop.run<T, T, T>([](T x, T y) { return y < x ? y : x; });
    } else {
      using M = opmath_t<T>;
      if (is_max) loop.run<T, T, T>([](T x, T y) { return T(std::fmax(M(x), M(y))); });
      else loop.run<T, T, T>([](T x, T y) { return T(std::fmin(M(x), M(y))); });
    }
  });
}

void frexp_kernel(const Tensor& mantissa, const Tensor& exponent, const Tensor& self) {
  // Two outputs: one pass writing the mantissa, the exponent read back from the same frexp.
  dispatch_types(kFloatTypes, self.dtype(), "frexp_cpu", [&]<class T>() {
    using M = opmath_t<T>;
    ElementwiseLoop({mantissa, self}).run<T, T>([](T x) {
      int e = 0;
      return T(std::frexp(M(x), &e));
    });
    ElementwiseLoop({exponent, self}).run<int32_t, T>([](T x) {
      int e = 0;
      std::frexp(M(x), &e);
      return static_cast<int32_t>(e);
    });
  });
}

// ---- the regularized incomplete gamma functions ----
// Note [Incomplete gamma]
// P(a, x) = gamma(a, x) / Gamma(a) and Q = 1 - P, with PyTorch's (Cephes') conventions for the
// edges: NaN for a < 0 or x < 0, a == 0 gives P = 1 (x > 0), x == 0 gives P = 0 (a > 0), an
// infinite a gives P = 0 and an infinite x P = 1 (both infinite: NaN). Away from the edges, the
// smaller of P and Q is computed directly and the other as its complement: the power series
// for P where x < a + 1, the Legendre continued fraction (modified Lentz) for Q elsewhere, and
// for small x Q's own series (x^a / Gamma(a+1) - sum), so neither loses digits to cancellation.
// The common factor x^a e^-x / Gamma(a) is evaluated as a * log1pmx((x - a) / a) plus
// Stirling's correction for large a, which keeps full precision where a and x are both large
// (a log x - x - lgamma(a) would cancel there). Everything runs in double.
namespace {

constexpr double kEps = std::numeric_limits<double>::epsilon();
constexpr int kMaxIter = 100000;

// log(1 + d) - d, accurate for small d.
double log1pmx(double d) {
  if (std::fabs(d) > 0.25) return std::log1p(d) - d;
  double term = d, sum = 0;
  for (int k = 2; k < 200; ++k) {
    term *= -d;
    const double t = term / k;
    sum += t;
    if (std::fabs(t) < kEps * std::fabs(sum)) break;
  }
  return sum;
}

// lgamma(a) - ((a - 0.5) log a - a + 0.5 log(2 pi)), for a >= 10 by its asymptotic series.
double stirling_error(double a) {
  const double a2 = a * a;
  return (1.0 / 12 - (1.0 / 360 - (1.0 / 1260 - (1.0 / 1680 - 1.0 / (1188 * a2)) / a2) / a2) / a2) / a;
}

// x^a e^-x / Gamma(a)
double igam_factor(double a, double x) {
  if (a < 10.0) {
    const double l = a * std::log(x) - x - std::lgamma(a);
    return std::exp(l);
  }
  // x^a e^-x / Gamma(a) = sqrt(a / 2pi) exp(a (log(x/a) - (x-a)/a) - stirling_error(a)); near
  // x == a through log1pmx, far from it through log(x/a) (1 + (x-a)/a would round x/a there)
  const double d = (x - a) / a;
  const double l = (std::fabs(d) < 0.5 ? a * log1pmx(d) : a * std::log(x / a) + (a - x)) - stirling_error(a);
  return std::sqrt(a / (2 * M_PI)) * std::exp(l);
}

// P by its series: factor / a * sum_n x^n / ((a+1)...(a+n)).
double igam_series(double a, double x) {
  const double f = igam_factor(a, x);
  if (f == 0.0) return 0.0;
  double r = a, c = 1.0, sum = 1.0;
  for (int i = 0; i < kMaxIter; ++i) {
    r += 1.0;
    c *= x / r;
    sum += c;
    if (c <= kEps * sum) break;
  }
  return sum * f / a;
}

// Q by the continued fraction (modified Lentz).
double igamc_fraction(double a, double x) {
  const double f = igam_factor(a, x);
  if (f == 0.0) return 0.0;
  constexpr double tiny = 1e-300;
  double b = x + 1.0 - a, c = 1.0 / tiny, d = 1.0 / b, h = d;
  for (int i = 1; i < kMaxIter; ++i) {
    const double an = -i * (i - a);
    b += 2.0;
    d = an * d + b;
    if (std::fabs(d) < tiny) d = tiny;
    c = b + an / c;
    if (std::fabs(c) < tiny) c = tiny;
    d = 1.0 / d;
    const double del = d * c;
    h *= del;
    if (std::fabs(del - 1.0) <= kEps) break;
  }
  return f * h;
}

// Q for small x: 1 - x^a / Gamma(a + 1) + x^a / Gamma(a) * sum_{n>=1} (-x)^n / (n! (a + n)).
double igamc_small_x(double a, double x) {
  double fac = 1.0, sum = 0.0;
  for (int n = 1; n < kMaxIter; ++n) {
    fac *= -x / n;
    const double term = fac / (a + n);
    sum += term;
    if (std::fabs(term) <= kEps * std::fabs(sum)) break;
  }
  const double logx = std::log(x);
  const double lead = -std::expm1(a * logx - std::lgamma(a + 1.0));
  return lead - std::exp(a * logx - std::lgamma(a)) * sum;
}

}  // namespace

// The edge cases in PyTorch's order (calc_igamma): a NaN operand still gives the value an edge
// case of the other one fixes, e.g. P(nan, 0) = 0 and P(inf, nan) = 0.
double igamma_ref(double a, double x) {
  constexpr double nan = std::numeric_limits<double>::quiet_NaN();
  if (x < 0 || a < 0) return nan;
  if (a == 0) return x > 0 ? 1.0 : nan;
  if (x == 0) return 0.0;
  if (std::isinf(a)) return std::isinf(x) ? nan : 0.0;
  if (std::isinf(x)) return 1.0;
  if (std::isnan(a) || std::isnan(x)) return nan;
  if (x <= 1.0 || x < a + 1.0) return igam_series(a, x);
  return 1.0 - igamc_fraction(a, x);
}

double igammac_ref(double a, double x) {
  constexpr double nan = std::numeric_limits<double>::quiet_NaN();
  if (x < 0 || a < 0) return nan;
  if (a == 0) return x > 0 ? 0.0 : nan;
  if (x == 0) return 1.0;
  if (std::isinf(a)) return std::isinf(x) ? nan : 1.0;
  if (std::isinf(x)) return 0.0;
  if (std::isnan(a) || std::isnan(x)) return nan;
  if (x < 1.0 && a < 1.0) return igamc_small_x(a, x);
  if (x < a + 1.0) return 1.0 - igam_series(a, x);
  return igamc_fraction(a, x);
}

void igamma_kernel(const Tensor& out, const Tensor& a, const Tensor& x, bool upper) {
  dispatch_types(kFloatTypes, out.dtype(), upper ? "igammac_cpu" : "igamma_cpu", [&]<class T>() {
    using M = opmath_t<T>;
    ElementwiseLoop loop({out, a, x});
    if (upper) loop.run<T, T, T>([](T p, T q) { return T(static_cast<M>(igammac_ref(double(M(p)), double(M(q))))); });
    else loop.run<T, T, T>([](T p, T q) { return T(static_cast<M>(igamma_ref(double(M(p)), double(M(q))))); });
  });
}

}  // namespace ember::cpu
