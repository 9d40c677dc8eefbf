// ember.special's Bessel functions, Airy Ai, orthogonal polynomials (with their Scalar
// overloads) and special_gammainc(c), PyTorch's aliases of igamma / igammac (math_more.cpp).
//
// Type promotion as PyTorch 1.13: the Bessel functions and polynomials are "float ops" (integer
// operands compute in the default floating dtype). 16-bit floats compute in float (PyTorch 1.13
// lacks those CPU kernels for the Bessel functions and polynomials).
#include "ember/ops/special_functions.h"

#include "../autograd/record.h"
#include "../backends/cpu/special_kernels.h"
#include "../dispatch/boxing.h"
#include "elementwise.h"
#include "ember/ops/math.h"
#include "ember/ops/math_more.h"
#include "ember/ops/pointwise.h"
#include "pointwise_helpers.h"

namespace ember {

using cpu::SpecialBinaryOp;
using cpu::SpecialUnaryOp;
using dispatch::OpId;

namespace {

ScalarType float_op_dtype(ScalarType t) {
  return is_floating(t) || is_complex(t) ? t : default_dtype();
}

template <SpecialUnaryOp Op>
Tensor special_unary_impl(const Tensor& self) {
  ops::check_not_quantized(cpu::special_op_name(Op), {self});
  const ScalarType dtype = float_op_dtype(self.dtype());
  Tensor out = ops::new_output(self.sizes(), dtype, self.device(), {self});
  if (!out.is_meta()) cpu::special_unary_kernel(Op, out, ops::cast(self, dtype));
  return out;
}

ScalarType binary_dtype(SpecialBinaryOp, const Tensor& a, const Tensor& b) {
  return float_op_dtype(result_type(a, b));
}

template <SpecialBinaryOp Op>
Tensor special_binary_impl(const Tensor& self, const Tensor& other) {
  const char* name = cpu::special_op_name(Op);
  const ScalarType dtype = binary_dtype(Op, self, other);
  ops::check_not_quantized(name, {self, other});
  const Device device = ops::common_device(name, {self, other});
  const Tensor a = ops::cast(self, dtype), b = ops::cast(other, dtype);
  Tensor out = ops::new_output(broadcast_shapes(self.sizes(), other.sizes()), dtype, device, {a, b});
  if (!out.is_meta()) cpu::special_binary_kernel(Op, out, a, b);
  return out;
}

Tensor w(const Scalar& s) { return wrapped_scalar_tensor(s); }

}  // namespace

#define EMBER_SPECIAL_UNARY(name, Op)                                                 \
  Tensor name(const Tensor& self) {                                                   \
    return dispatch::call<special_unary_impl<SpecialUnaryOp::Op>>(OpId::name, self);  \
  }                                                                                   \
  EMBER_REGISTER_OP(name, &ember::name);
EMBER_SPECIAL_UNARY(special_airy_ai, AiryAi)
EMBER_SPECIAL_UNARY(special_bessel_j0, BesselJ0)
EMBER_SPECIAL_UNARY(special_bessel_j1, BesselJ1)
EMBER_SPECIAL_UNARY(special_bessel_y0, BesselY0)
EMBER_SPECIAL_UNARY(special_bessel_y1, BesselY1)
EMBER_SPECIAL_UNARY(special_modified_bessel_i0, ModifiedI0)
EMBER_SPECIAL_UNARY(special_modified_bessel_i1, ModifiedI1)
EMBER_SPECIAL_UNARY(special_modified_bessel_k0, ModifiedK0)
EMBER_SPECIAL_UNARY(special_modified_bessel_k1, ModifiedK1)
EMBER_SPECIAL_UNARY(special_scaled_modified_bessel_k0, ScaledK0)
EMBER_SPECIAL_UNARY(special_scaled_modified_bessel_k1, ScaledK1)
EMBER_SPECIAL_UNARY(special_spherical_bessel_j0, SphericalJ0)
#undef EMBER_SPECIAL_UNARY

// The Scalar overloads are Composite rows over the Tensor one (the Scalar a wrapped number).
#define EMBER_SPECIAL_POLY(name, Op)                                                        \
  Tensor name(const Tensor& x, const Tensor& n) {                                           \
    return dispatch::call<special_binary_impl<SpecialBinaryOp::Op>>(OpId::name, x, n);      \
  }                                                                                         \
  namespace {                                                                               \
  Tensor name##_xs_impl(const Scalar& x, const Tensor& n) { return name(w(x), n); }         \
  Tensor name##_ns_impl(const Tensor& x, const Scalar& n) { return name(x, w(n)); }         \
  }                                                                                         \
  Tensor name(const Scalar& x, const Tensor& n) {                                           \
    return dispatch::call<name##_xs_impl>(OpId::name##_x_scalar, x, n);                     \
  }                                                                                         \
  Tensor name(const Tensor& x, const Scalar& n) {                                           \
    return dispatch::call<name##_ns_impl>(OpId::name##_n_scalar, x, n);                     \
  }                                                                                         \
  EMBER_REGISTER_OP(name, static_cast<Tensor (*)(const Tensor&, const Tensor&)>(&ember::name)); \
  EMBER_REGISTER_OP(name##_x_scalar, static_cast<Tensor (*)(const Scalar&, const Tensor&)>(&ember::name)); \
  EMBER_REGISTER_OP(name##_n_scalar, static_cast<Tensor (*)(const Tensor&, const Scalar&)>(&ember::name));
EMBER_SPECIAL_POLY(special_chebyshev_polynomial_t, ChebyshevT)
EMBER_SPECIAL_POLY(special_chebyshev_polynomial_u, ChebyshevU)
EMBER_SPECIAL_POLY(special_chebyshev_polynomial_v, ChebyshevV)
EMBER_SPECIAL_POLY(special_chebyshev_polynomial_w, ChebyshevW)
EMBER_SPECIAL_POLY(special_shifted_chebyshev_polynomial_t, ShiftedT)
EMBER_SPECIAL_POLY(special_shifted_chebyshev_polynomial_u, ShiftedU)
EMBER_SPECIAL_POLY(special_shifted_chebyshev_polynomial_v, ShiftedV)
EMBER_SPECIAL_POLY(special_shifted_chebyshev_polynomial_w, ShiftedW)
EMBER_SPECIAL_POLY(special_hermite_polynomial_h, HermiteH)
EMBER_SPECIAL_POLY(special_hermite_polynomial_he, HermiteHe)
EMBER_SPECIAL_POLY(special_laguerre_polynomial_l, LaguerreL)
EMBER_SPECIAL_POLY(special_legendre_polynomial_p, LegendreP)
#undef EMBER_SPECIAL_POLY

namespace {
Tensor gammainc_impl(const Tensor& self, const Tensor& other) { return igamma(self, other); }
Tensor gammaincc_impl(const Tensor& self, const Tensor& other) { return igammac(self, other); }
}  // namespace
Tensor special_gammainc(const Tensor& self, const Tensor& other) {
  return dispatch::call<gammainc_impl>(OpId::special_gammainc, self, other);
}
Tensor special_gammaincc(const Tensor& self, const Tensor& other) {
  return dispatch::call<gammaincc_impl>(OpId::special_gammaincc, self, other);
}

EMBER_REGISTER_OP(special_gammainc, &ember::special_gammainc);
EMBER_REGISTER_OP(special_gammaincc, &ember::special_gammaincc);

}  // namespace ember
