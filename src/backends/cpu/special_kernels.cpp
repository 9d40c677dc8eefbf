#include "special_kernels.h"

#include <string>

#include "dtype_lists.h"
#include "loop.h"
#include "special_functions.h"

namespace ember::cpu {

const char* special_op_name(SpecialUnaryOp op) {
  switch (op) {
    case SpecialUnaryOp::AiryAi: return "airy_ai";
    case SpecialUnaryOp::BesselJ0: return "bessel_j0";
    case SpecialUnaryOp::BesselJ1: return "bessel_j1";
    case SpecialUnaryOp::BesselY0: return "bessel_y0";
    case SpecialUnaryOp::BesselY1: return "bessel_y1";
    case SpecialUnaryOp::ModifiedI0: return "modified_bessel_i0";
    case SpecialUnaryOp::ModifiedI1: return "modified_bessel_i1";
    case SpecialUnaryOp::ModifiedK0: return "modified_bessel_k0";
    case SpecialUnaryOp::ModifiedK1: return "modified_bessel_k1";
    case SpecialUnaryOp::ScaledK0: return "scaled_modified_bessel_k0";
    case SpecialUnaryOp::ScaledK1: return "scaled_modified_bessel_k1";
    case SpecialUnaryOp::SphericalJ0: return "spherical_bessel_j0";
  }
  return "";
}

const char* special_op_name(SpecialBinaryOp op) {
  switch (op) {
    case SpecialBinaryOp::ChebyshevT: return "chebyshev_polynomial_t";
    case SpecialBinaryOp::ChebyshevU: return "chebyshev_polynomial_u";
    case SpecialBinaryOp::ChebyshevV: return "chebyshev_polynomial_v";
    case SpecialBinaryOp::ChebyshevW: return "chebyshev_polynomial_w";
    case SpecialBinaryOp::ShiftedT: return "shifted_chebyshev_polynomial_t";
    case SpecialBinaryOp::ShiftedU: return "shifted_chebyshev_polynomial_u";
    case SpecialBinaryOp::ShiftedV: return "shifted_chebyshev_polynomial_v";
    case SpecialBinaryOp::ShiftedW: return "shifted_chebyshev_polynomial_w";
    case SpecialBinaryOp::HermiteH: return "hermite_polynomial_h";
    case SpecialBinaryOp::HermiteHe: return "hermite_polynomial_he";
    case SpecialBinaryOp::LaguerreL: return "laguerre_polynomial_l";
    case SpecialBinaryOp::LegendreP: return "legendre_polynomial_p";
  }
  return "";
}

double special_unary_ref(SpecialUnaryOp op, double x) {
  namespace s = special;
  switch (op) {
    case SpecialUnaryOp::AiryAi: return s::airy_ai(x);
    case SpecialUnaryOp::BesselJ0: return s::bessel_j0(x);
    case SpecialUnaryOp::BesselJ1: return s::bessel_j1(x);
    case SpecialUnaryOp::BesselY0: return s::bessel_y0(x);
    case SpecialUnaryOp::BesselY1: return s::bessel_y1(x);
    case SpecialUnaryOp::ModifiedI0: return s::modified_bessel_i0(x);
    case SpecialUnaryOp::ModifiedI1: return s::modified_bessel_i1(x);
    case SpecialUnaryOp::ModifiedK0: return s::modified_bessel_k0(x);
    case SpecialUnaryOp::ModifiedK1: return s::modified_bessel_k1(x);
    case SpecialUnaryOp::ScaledK0: return s::scaled_modified_bessel_k0(x);
    case SpecialUnaryOp::ScaledK1: return s::scaled_modified_bessel_k1(x);
    case SpecialUnaryOp::SphericalJ0: return s::spherical_bessel_j0(x);
  }
  return x;
}

double special_binary_ref(SpecialBinaryOp op, double a, double b) {
  namespace s = special;
  const int64_t n = s::poly_degree(b);
  switch (op) {
    case SpecialBinaryOp::ChebyshevT: return s::chebyshev_t(a, n);
    case SpecialBinaryOp::ChebyshevU: return s::chebyshev_u(a, n);
    case SpecialBinaryOp::ChebyshevV: return s::chebyshev_v(a, n);
    case SpecialBinaryOp::ChebyshevW: return s::chebyshev_w(a, n);
    case SpecialBinaryOp::ShiftedT: return s::shifted_chebyshev_t(a, n);
    case SpecialBinaryOp::ShiftedU: return s::shifted_chebyshev_u(a, n);
    case SpecialBinaryOp::ShiftedV: return s::shifted_chebyshev_v(a, n);
    case SpecialBinaryOp::ShiftedW: return s::shifted_chebyshev_w(a, n);
    case SpecialBinaryOp::HermiteH: return s::hermite_h(a, n);
    case SpecialBinaryOp::HermiteHe: return s::hermite_he(a, n);
    case SpecialBinaryOp::LaguerreL: return s::laguerre_l(a, n);
    case SpecialBinaryOp::LegendreP: return s::legendre_p(a, n);
  }
  return a;
}

void special_unary_kernel(SpecialUnaryOp op, const Tensor& out, const Tensor& in) {
  const std::string kernel = std::string(special_op_name(op)) + "_cpu";
  dispatch_types(kFloatTypes, out.dtype(), kernel.c_str(), [&]<class T>() {
    using M = opmath_t<T>;
    ElementwiseLoop({out, in}).run<T, T>([op](T x) { return T(special_unary_ref(op, double(M(x)))); });
  });
}

void special_binary_kernel(SpecialBinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b) {
  const std::string kernel = std::string(special_op_name(op)) + "_cpu";
  auto run = [&]<class T>() {
    using M = opmath_t<T>;
    ElementwiseLoop({out, a, b}).run<T, T, T>([op](T x, T y) {
      return T(special_binary_ref(op, double(M(x)), double(M(y))));
    });
  };
  dispatch_types(kFloatTypes, out.dtype(), kernel.c_str(), run);
}

}  // namespace ember::cpu
