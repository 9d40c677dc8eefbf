// The scalar special functions of special_functions.h (Note [Special functions: algorithms]).
#include "special_functions.h"

#include <cmath>

namespace ember::cpu::special {

// ---- Bessel functions ----
// PyTorch's Cephes-derived kernels give NaN at +-inf for j and y (the C library gives 0).

double bessel_j0(double x) { return std::isinf(x) ? kNaN : ::j0(x); }
double bessel_j1(double x) { return std::isinf(x) ? kNaN : ::j1(x); }

double bessel_y0(double x) {
  if (std::isnan(x) || x < 0 || std::isinf(x)) return kNaN;
  if (x == 0) return -kInf;
  return ::y0(x);
}

double bessel_y1(double x) {
  if (std::isnan(x) || x < 0 || std::isinf(x)) return kNaN;
  if (x == 0) return -kInf;
  return ::y1(x);
}

namespace {

// e^{-|x|} I_nu(|x|) for nu = 0, 1 by the power series (|x| <= 30) or Hankel's asymptotic series.
double scaled_i(int nu, double ax) {
  if (ax <= 30.0) {
    // sum_k (x/2)^{2k+nu} / (k! (k+nu)!)
    const double q = 0.25 * ax * ax;
    double term = nu == 0 ? 1.0 : 0.5 * ax, sum = term;
    for (int k = 1; k < 500; ++k) {
      term *= q / (static_cast<double>(k) * static_cast<double>(k + nu));
      sum += term;
      if (term < sum * 1e-17) break;
    }
    return sum * std::exp(-ax);
  }
  // e^{-x} I_nu(x) ~ 1/sqrt(2 pi x) sum_k (-1)^k a_k(nu) / x^k, a_k = prod (4nu^2 - (2j-1)^2) / (k! 8^k)
  const double mu = 4.0 * nu * nu;
  double term = 1.0, sum = 1.0;
  for (int k = 1; k < 60; ++k) {
    const double odd = 2.0 * k - 1.0;
    const double next = -term * (mu - odd * odd) / (static_cast<double>(k) * 8.0 * ax);
    if (std::fabs(next) >= std::fabs(term)) break;
    term = next;
    sum += term;
    if (std::fabs(term) < 1e-17 * std::fabs(sum)) break;
  }
  return sum / std::sqrt(2.0 * kPi * ax);
}

// e^{x} K_nu(x) for x > 0: std::cyl_bessel_k while the product is finite, Hankel's series beyond.
double scaled_k(int nu, double x) {
  if (x < 600.0) return std::exp(x) * std::cyl_bessel_k(static_cast<double>(nu), x);
  const double mu = 4.0 * nu * nu;
  double term = 1.0, sum = 1.0;
  for (int k = 1; k < 60; ++k) {
    const double odd = 2.0 * k - 1.0;
    const double next = term * (mu - odd * odd) / (static_cast<double>(k) * 8.0 * x);
    if (std::fabs(next) >= std::fabs(term)) break;
    term = next;
    sum += term;
    if (std::fabs(term) < 1e-17 * std::fabs(sum)) break;
  }
  return sum * std::sqrt(kPi / (2.0 * x));
}

}  // namespace

double modified_bessel_i0(double x) {
  if (std::isnan(x) || std::isinf(x)) return kNaN;
  const double ax = std::fabs(x);
  if (ax > 713.0) return kInf;  // e^x alone overflows
  return scaled_i(0, ax) * std::exp(ax);
}

double modified_bessel_i1(double x) {
  if (std::isnan(x) || std::isinf(x)) return kNaN;
  const double ax = std::fabs(x);
  const double v = ax > 713.0 ? kInf : scaled_i(1, ax) * std::exp(ax);
  return x < 0 ? -v : v;
}

double modified_bessel_k0(double x) {
  if (std::isnan(x) || x < 0) return kNaN;
  if (x == 0) return kInf;
  if (std::isinf(x)) return 0.0;
  return x > 745.0 ? 0.0 : std::cyl_bessel_k(0.0, x);
}

double modified_bessel_k1(double x) {
  if (std::isnan(x) || x < 0) return kNaN;
  if (x == 0) return kInf;
  if (std::isinf(x)) return 0.0;
  return x > 745.0 ? 0.0 : std::cyl_bessel_k(1.0, x);
}

double scaled_modified_bessel_k0(double x) {
  if (std::isnan(x) || x < 0) return kNaN;
  if (x == 0) return kInf;
  if (std::isinf(x)) return 0.0;
  return scaled_k(0, x);
}

double scaled_modified_bessel_k1(double x) {
  if (std::isnan(x) || x < 0) return kNaN;
  if (x == 0) return kInf;
  if (std::isinf(x)) return 0.0;
  return scaled_k(1, x);
}

double spherical_bessel_j0(double x) {
  if (std::isinf(x)) return 0.0;
  if (std::fabs(x) < 0.5) {
    // sin(x)/x by its Taylor series (no cancellation near 0)
    const double x2 = x * x;
    return 1.0 + x2 * (-1.0 / 6 + x2 * (1.0 / 120 + x2 * (-1.0 / 5040 + x2 * (1.0 / 362880 +
                 x2 * (-1.0 / 39916800 + x2 * (1.0 / 6227020800.0))))));
  }
  return std::sin(x) / x;
}

double airy_ai(double x) {
  if (std::isnan(x) || std::isinf(x)) return kNaN;
  if (x > 104.0) return 0.0;  // below the smallest double
  if (std::fabs(x) <= 2.0) {
    // Ai(x) = c1 f(x) - c2 g(x), f = sum 3^k (1/3)_k x^{3k} / (3k)!, g = sum 3^k (2/3)_k x^{3k+1} / (3k+1)!
    const double c1 = 0.355028053887817239260, c2 = 0.258819403792806798405;
    const double x3 = x * x * x;
    double f = 1.0, g = x, tf = 1.0, tg = x;
    for (int k = 1; k < 200; ++k) {
      tf *= x3 / ((3.0 * k - 1.0) * (3.0 * k));
      tg *= x3 / ((3.0 * k) * (3.0 * k + 1.0));
      f += tf;
      g += tg;
      if (std::fabs(tf) < 1e-18 * std::fabs(f) && std::fabs(tg) < 1e-18 * (std::fabs(g) + 1e-300)) break;
    }
    return c1 * f - c2 * g;
  }
  const double r = std::sqrt(std::fabs(x));
  const double zeta = 2.0 / 3.0 * r * r * r;
  if (x > 0) return r / (kPi * std::sqrt(3.0)) * std::cyl_bessel_k(1.0 / 3.0, zeta);
  // Ai(-r^2) = r/3 [J_{1/3} + J_{-1/3}](zeta), J_{-1/3} = cos(pi/3) J_{1/3} - sin(pi/3) Y_{1/3}
  const double j = std::cyl_bessel_j(1.0 / 3.0, zeta), y = std::cyl_neumann(1.0 / 3.0, zeta);
  return r / 3.0 * (1.5 * j - 0.5 * std::sqrt(3.0) * y);
}

// ---- orthogonal polynomials ----

// PyTorch switches to the trigonometric forms for n above a threshold that differs between
// the plain and the shifted polynomials (which matters only at the forms' singular points).
namespace {
// The recurrence all four Chebyshev kinds share, P(k) = 2x P(k-1) - P(k-2) from P(0) = 1 and
// P(1) = `p1` (x, 2x, 2x - 1 or 2x + 1 for T, U, V, W).
double chebyshev_recurrence(double x, int64_t n, double p1) {
  if (n == 0) return 1.0;
  if (n == 1) return p1;
  double p = 1.0, q = p1, r = 0.0;
  for (int64_t k = 2; k <= n; ++k) {
    r = (x + x) * q - p;
    p = q;
    q = r;
  }
  return r;
}

double chebyshev_t_from(double x, int64_t n, int64_t trig_above) {
  if (n < 0) return 0.0;
  if (std::fabs(x) == 1.0) return (x > 0 || n % 2 == 0) ? 1.0 : -1.0;
  if (n > trig_above && std::fabs(x) < 1.0) return std::cos(static_cast<double>(n) * std::acos(x));
  return chebyshev_recurrence(x, n, x);
}

double chebyshev_u_from(double x, int64_t n, int64_t trig_above) {
  if (n < 0) return 0.0;
  const double n1 = static_cast<double>(n + 1);
  if (std::fabs(x) == 1.0) return (x > 0 || n % 2 == 0) ? n1 : -n1;
  if (n > trig_above && std::fabs(x) < 1.0) {
    const double t = std::acos(x);
    if (std::sin(t) != 0.0) return std::sin(n1 * t) / std::sin(t);
    return n1 * std::cos(n1 * t) / x;
  }
  return chebyshev_recurrence(x, n, x + x);
}

double chebyshev_v_from(double x, int64_t n, int64_t trig_above) {
  if (n < 0) return 0.0;
  const double odd = static_cast<double>(n + n + 1);
  if (std::fabs(x) == 1.0) {
    if (x > 0) return 1.0;
    return n % 2 == 0 ? odd : -odd;
  }
  if (n > trig_above && std::fabs(x) < 1.0) {
    const double t = std::acos(x);
    if (std::sin(t / 2) != 1.0) return std::cos((static_cast<double>(n) + 0.5) * t) / std::cos(t / 2);
    return n % 2 == 0 ? odd : -odd;
  }
  return chebyshev_recurrence(x, n, x + x - 1.0);
}

double chebyshev_w_from(double x, int64_t n, int64_t trig_above) {
  if (n < 0) return 0.0;
  const double odd = static_cast<double>(n + n + 1);
  if (std::fabs(x) == 1.0) {
    if (x > 0) return odd;
    return n % 2 == 0 ? 1.0 : -1.0;
  }
  if (n > trig_above && std::fabs(x) < 1.0) {
    const double t = std::acos(x);
    if (std::cos(t / 2) != 1.0) return std::sin((static_cast<double>(n) + 0.5) * t) / std::sin(t / 2);
    if (x > 0) return odd;
    return n % 2 == 0 ? 1.0 : -1.0;
  }
  return chebyshev_recurrence(x, n, x + x + 1.0);
}

}  // namespace

double chebyshev_t(double x, int64_t n) { return chebyshev_t_from(x, n, 6); }
double chebyshev_u(double x, int64_t n) { return chebyshev_u_from(x, n, 8); }
double chebyshev_v(double x, int64_t n) { return chebyshev_v_from(x, n, 8); }
double chebyshev_w(double x, int64_t n) { return chebyshev_w_from(x, n, 8); }

// The shifted polynomials are the unshifted ones at 2x - 1, with the ends x = 0, 1 exact.
double shifted_chebyshev_t(double x, int64_t n) {
  if (n < 0) return 0.0;
  if (x == 1.0) return 1.0;
  if (x == 0.0) return n % 2 == 0 ? 1.0 : -1.0;
  return chebyshev_t_from(x + x - 1.0, n, 6);
}

double shifted_chebyshev_u(double x, int64_t n) {
  if (n < 0) return 0.0;
  const double n1 = static_cast<double>(n + 1);
  if (x == 1.0) return n1;
  if (x == 0.0) return n % 2 == 0 ? n1 : -n1;
  return chebyshev_u_from(x + x - 1.0, n, 6);
}

double shifted_chebyshev_v(double x, int64_t n) {
  if (n < 0) return 0.0;
  const double odd = static_cast<double>(n + n + 1);
  if (x == 1.0) return 1.0;
  if (x == 0.0) return n % 2 == 0 ? odd : -odd;
  return chebyshev_v_from(x + x - 1.0, n, 6);
}

double shifted_chebyshev_w(double x, int64_t n) {
  if (n < 0) return 0.0;
  if (x == 1.0) return static_cast<double>(n + n + 1);
  if (x == 0.0) return n % 2 == 0 ? 1.0 : -1.0;
  return chebyshev_w_from(x + x - 1.0, n, 4);
}

double hermite_h(double x, int64_t n) {
  if (n < 0) return 0.0;
  if (n == 0) return 1.0;
  if (n == 1) return x + x;
  double p = 1.0, q = x + x, r = 0.0;
  for (int64_t k = 1; k < n; ++k) {  // H_{k+1} = 2x H_k - 2k H_{k-1}
    r = (x + x) * q - 2.0 * static_cast<double>(k) * p;
    p = q;
    q = r;
  }
  return r;
}

double hermite_he(double x, int64_t n) {
  if (n < 0) return 0.0;
  if (n == 0) return 1.0;
  if (n == 1) return x;
  double p = 1.0, q = x, r = 0.0;
  for (int64_t k = 1; k < n; ++k) {  // He_{k+1} = x He_k - k He_{k-1}
    r = x * q - static_cast<double>(k) * p;
    p = q;
    q = r;
  }
  return r;
}

double laguerre_l(double x, int64_t n) {
  if (n < 0) return 0.0;
  if (std::fabs(x) == 0.0) return 1.0;
  if (n == 0) return 1.0;
  if (n == 1) return 1.0 - x;
  double p = 1.0, q = 1.0 - x, r = 0.0;
  for (int64_t k = 1; k < n; ++k) {  // (k+1) L_{k+1} = (2k+1-x) L_k - k L_{k-1}
    const double kd = static_cast<double>(k);
    r = ((kd + kd + 1.0 - x) * q - kd * p) / (kd + 1.0);
    p = q;
    q = r;
  }
  return r;
}

double legendre_p(double x, int64_t n) {
  if (n < 0) return 0.0;
  if (std::fabs(x) == 1.0) return (x > 0 || n % 2 == 0) ? 1.0 : -1.0;
  if (n == 0) return 1.0;
  if (n == 1) return x;
  double p = 1.0, q = x, r = 0.0;
  for (int64_t k = 1; k < n; ++k) {  // (k+1) P_{k+1} = (2k+1) x P_k - k P_{k-1}
    const double kd = static_cast<double>(k);
    r = ((kd + kd + 1.0) * x * q - kd * p) / (kd + 1.0);
    p = q;
    q = r;
  }
  return r;
}

}  // namespace ember::cpu::special
