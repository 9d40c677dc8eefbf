// Scalar special functions of ember.special that PyTorch 1.13 added with its "special_functions"
// set: the Bessel functions of integer order (j0 j1 y0 y1, modified i0 i1 k0 k1, scaled k0 k1,
// spherical j0), Airy Ai, the orthogonal polynomials (Chebyshev T U V W and their shifted forms,
// Hermite H / He, Laguerre L, Legendre P) and the regularized incomplete gamma functions.
//
// Note [Special functions: algorithms]
// Everything computes in double (the kernels round once into the tensor's dtype).
// - j0 j1 y0 y1 are the C library's (POSIX), k0 k1 libstdc++'s std::cyl_bessel_k, with the
//   asymptotic Hankel series for the scaled k's where e^x k(x) would overflow the product.
// - Airy Ai: its Maclaurin series near 0, K_{1/3} for x > 0 and J_{1/3} / Y_{1/3} for x < 0.
// - The polynomials follow PyTorch's definitions exactly where they matter for results: n is
//   truncated to an integer, n < 0 gives 0, the values at the ends of the interval are exact, and
//   large n inside (-1, 1) use the trigonometric closed forms (the three-term recurrence
//   elsewhere).
// - P(a, x) and Q(a, x): Cephes' case split (the power series of P, the continued fraction of Q,
//   the alternating series of Q for small x) with the prefactor x^a e^-x / Gamma(a) in logs.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

namespace ember::cpu::special {

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
inline constexpr double kInf = std::numeric_limits<double>::infinity();
inline constexpr double kPi = 3.14159265358979323846;

// ---- Bessel functions ----
double bessel_j0(double x);
double bessel_j1(double x);
double bessel_y0(double x);
double bessel_y1(double x);
double modified_bessel_i0(double x);
double modified_bessel_i1(double x);
double modified_bessel_k0(double x);
double modified_bessel_k1(double x);
double scaled_modified_bessel_k0(double x);
double scaled_modified_bessel_k1(double x);
double spherical_bessel_j0(double x);
double airy_ai(double x);

// ---- orthogonal polynomials (n truncated to an integer, as PyTorch's kernels do) ----
double chebyshev_t(double x, int64_t n);
double chebyshev_u(double x, int64_t n);
double chebyshev_v(double x, int64_t n);
double chebyshev_w(double x, int64_t n);
double shifted_chebyshev_t(double x, int64_t n);
double shifted_chebyshev_u(double x, int64_t n);
double shifted_chebyshev_v(double x, int64_t n);
double shifted_chebyshev_w(double x, int64_t n);
double hermite_h(double x, int64_t n);
double hermite_he(double x, int64_t n);
double laguerre_l(double x, int64_t n);
double legendre_p(double x, int64_t n);

// The integer n of a floating n: truncation, and NaN / out-of-range values read as "negative"
// (the polynomials are then 0, as PyTorch's int64 conversion gives on x86).
inline int64_t poly_degree(double n) {
  if (!(n > -9.2e18 && n < 9.2e18)) return -1;
  return static_cast<int64_t>(n);
}


}  // namespace ember::cpu::special
