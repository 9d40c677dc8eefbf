// ember.special's Bessel functions, Airy Ai, orthogonal polynomials and incomplete gamma
// functions (PyTorch 1.13's torch.special set), with PyTorch's names and schemas.
//
//   auto j = ember::special_bessel_j0(x);
//   auto t = ember::special_chebyshev_polynomial_t(x, n);      // n: a tensor (or a Scalar)
//   auto p = ember::special_gammainc(a, x);                    // regularized lower, P(a, x)
//
// The Bessel functions and polynomials compute every floating dtype (integer inputs in the
// default floating dtype) and have no derivative, as in PyTorch; special_gammainc(c) are
// igamma / igammac (ember/ops/math_more.h).
#pragma once

#include "ember/scalar.h"
#include "ember/tensor.h"

namespace ember {

Tensor special_airy_ai(const Tensor& x);
Tensor special_bessel_j0(const Tensor& self);
Tensor special_bessel_j1(const Tensor& self);
Tensor special_bessel_y0(const Tensor& self);
Tensor special_bessel_y1(const Tensor& self);
Tensor special_modified_bessel_i0(const Tensor& self);
Tensor special_modified_bessel_i1(const Tensor& self);
Tensor special_modified_bessel_k0(const Tensor& self);
Tensor special_modified_bessel_k1(const Tensor& self);
Tensor special_scaled_modified_bessel_k0(const Tensor& x);
Tensor special_scaled_modified_bessel_k1(const Tensor& x);
Tensor special_spherical_bessel_j0(const Tensor& x);

#define EMBER_SPECIAL_POLY_FNS(name)                    \
  Tensor name(const Tensor& x, const Tensor& n);        \
  Tensor name(const Scalar& x, const Tensor& n);        \
  Tensor name(const Tensor& x, const Scalar& n);
EMBER_SPECIAL_POLY_FNS(special_chebyshev_polynomial_t)
EMBER_SPECIAL_POLY_FNS(special_chebyshev_polynomial_u)
EMBER_SPECIAL_POLY_FNS(special_chebyshev_polynomial_v)
EMBER_SPECIAL_POLY_FNS(special_chebyshev_polynomial_w)
EMBER_SPECIAL_POLY_FNS(special_shifted_chebyshev_polynomial_t)
EMBER_SPECIAL_POLY_FNS(special_shifted_chebyshev_polynomial_u)
EMBER_SPECIAL_POLY_FNS(special_shifted_chebyshev_polynomial_v)
EMBER_SPECIAL_POLY_FNS(special_shifted_chebyshev_polynomial_w)
EMBER_SPECIAL_POLY_FNS(special_hermite_polynomial_h)
EMBER_SPECIAL_POLY_FNS(special_hermite_polynomial_he)
EMBER_SPECIAL_POLY_FNS(special_laguerre_polynomial_l)
EMBER_SPECIAL_POLY_FNS(special_legendre_polynomial_p)
#undef EMBER_SPECIAL_POLY_FNS

Tensor special_gammainc(const Tensor& self, const Tensor& other);
Tensor special_gammaincc(const Tensor& self, const Tensor& other);

}  // namespace ember
