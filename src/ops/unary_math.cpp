// Unary floating functions: acos asin atan acosh asinh atanh cosh sinh tan erf erfc erfinv log10
// log2 exp2 reciprocal lgamma digamma i0 sinc (each with its in-place form) and the special_*
// functions of ember.special (entr erfcx i0e i1 i1e ndtr ndtri log_ndtr), with their backward
// rules.
//
// As unary.cpp's floating functions: integer and bool inputs compute in the default floating
// dtype (so the in-place forms refuse integer tensors with PyTorch's "result type Float can't be
// cast to the desired output type Long"), 16-bit floats compute in float.
#include <cmath>
#include <string>

#include "../autograd/record.h"
#include "../backends/cpu/complex2_kernels.h"
#include "../backends/cpu/copy_kernel.h"
#include "../backends/cpu/math_kernels.h"
#include "../dispatch/boxing.h"
#include "elementwise.h"
#include "ember/ops/complex.h"
#include "ember/ops/factory.h"
#include "ember/ops/math.h"
#include "ember/ops/pointwise.h"
#include "pointwise_helpers.h"

namespace ember {

using cpu::MathUnaryOp;
using dispatch::OpId;

namespace {

constexpr double kPi = 3.14159265358979323846;

struct MathUnaryInfo {
  const char* name;
  const char* inplace_name;
  const char* grad_fn;  // PyTorch 1.13's node name
  bool saves_result;    // the rule reads the result (else self)
};

constexpr MathUnaryInfo info_of(MathUnaryOp op) {
  switch (op) {
    case MathUnaryOp::Acos: return {"acos", "acos_", "AcosBackward0", false};
    case MathUnaryOp::Asin: return {"asin", "asin_", "AsinBackward0", false};
    case MathUnaryOp::Atan: return {"atan", "atan_", "AtanBackward0", false};
    case MathUnaryOp::Acosh: return {"acosh", "acosh_", "AcoshBackward0", false};
    case MathUnaryOp::Asinh: return {"asinh", "asinh_", "AsinhBackward0", false};
    case MathUnaryOp::Atanh: return {"atanh", "atanh_", "AtanhBackward0", false};
    case MathUnaryOp::Cosh: return {"cosh", "cosh_", "CoshBackward0", false};
    case MathUnaryOp::Sinh: return {"sinh", "sinh_", "SinhBackward0", false};
    case MathUnaryOp::Tan: return {"tan", "tan_", "TanBackward0", true};
    case MathUnaryOp::Erf: return {"erf", "erf_", "ErfBackward0", false};
    case MathUnaryOp::Erfc: return {"erfc", "erfc_", "ErfcBackward0", false};
    case MathUnaryOp::Erfinv: return {"erfinv", "erfinv_", "ErfinvBackward0", false};
    case MathUnaryOp::Log10: return {"log10", "log10_", "Log10Backward0", false};
    case MathUnaryOp::Log2: return {"log2", "log2_", "Log2Backward0", false};
    case MathUnaryOp::Exp2: return {"exp2", "exp2_", "Exp2Backward0", true};
    case MathUnaryOp::Reciprocal: return {"reciprocal", "reciprocal_", "ReciprocalBackward0", true};
    case MathUnaryOp::Lgamma: return {"lgamma", "lgamma_", "LgammaBackward0", false};
    case MathUnaryOp::Digamma: return {"digamma", "digamma_", "DigammaBackward0", false};
    case MathUnaryOp::I0: return {"i0", "i0_", "I0Backward0", false};
    case MathUnaryOp::Sinc: return {"sinc", "sinc_", "SincBackward0", false};
    case MathUnaryOp::Entr: return {"special_entr", "", "SpecialEntrBackward0", false};
    case MathUnaryOp::Erfcx: return {"special_erfcx", "", "SpecialErfcxBackward0", true};
    case MathUnaryOp::I0e: return {"special_i0e", "", "SpecialI0EBackward0", true};
    case MathUnaryOp::I1: return {"special_i1", "", "SpecialI1Backward0", true};
    case MathUnaryOp::I1e: return {"special_i1e", "", "SpecialI1EBackward0", true};
    case MathUnaryOp::Ndtr: return {"special_ndtr", "", "SpecialNdtrBackward0", false};
    case MathUnaryOp::Ndtri: return {"special_ndtri", "", "SpecialNdtriBackward0", true};
    case MathUnaryOp::LogNdtr: return {"special_log_ndtr", "", "SpecialLogNdtrBackward0", true};
    default: break;
  }
  return {"", "", "", false};
}

ScalarType floating_result(ScalarType in) { return is_floating(in) ? in : default_dtype(); }

// The kernel PyTorch names when a quantized tensor reaches the op: its structured out= kernel,
// for the functional and the in-place form alike ("aten::acos.out").
template <MathUnaryOp Op>
const char* quantized_name() {
  static const std::string name = std::string("aten::") + info_of(Op).name + ".out";
  return name.c_str();
}

template <MathUnaryOp Op>
Tensor math_unary_impl(const Tensor& self) {
  ops::check_not_quantized(quantized_name<Op>(), {self});
  if (self.is_complex()) {
    // Reciprocal (1 / z through div's kernel) and the functions with a complex kernel
    // (cpu::math_unary_has_complex); the rest raise as PyTorch's kernels do for a dtype they
    // lack (exp2's text names no _vml kernel there).
    const bool has = Op == MathUnaryOp::Reciprocal || cpu::math_unary_has_complex(static_cast<int>(Op));
    EMBER_CHECK(has, "\"", Op == MathUnaryOp::Exp2 ? "exp2" : cpu::math_unary_kernel_name(Op), "\" not implemented for '",
                scalar_type_name(self.dtype()), "'");
    Tensor out = ops::new_output(self.sizes(), self.dtype(), self.device(), {self});
    if (out.is_meta()) return out;
    if (Op == MathUnaryOp::Reciprocal) out.copy_(div(wrapped_scalar_tensor(Scalar(1.0)), self));
    else cpu::math_unary_complex_kernel(static_cast<int>(Op), out, self);
    return out;
  }
  const ScalarType dtype = floating_result(self.dtype());
  Tensor out = ops::new_output(self.sizes(), dtype, self.device(), {self});
  if (!out.is_meta()) cpu::math_unary_kernel(Op, out, ops::cast(self, dtype));
  return out;
}

template <MathUnaryOp Op>
Tensor math_unary__impl(const Tensor& self) {
  constexpr MathUnaryInfo info = info_of(Op);
  ops::check_not_quantized(quantized_name<Op>(), {self});
  ops::check_inplace_elementwise(info.inplace_name, self, self.sizes(), floating_result(self.dtype()));
  if (self.is_complex() && Op == MathUnaryOp::Reciprocal) {
    if (!self.is_meta()) cpu::copy_kernel(self, div(wrapped_scalar_tensor(Scalar(1.0)), self));
    return ops::mark_written(self);
  }
  if (self.is_complex() && cpu::math_unary_has_complex(static_cast<int>(Op))) {
    if (!self.is_meta()) cpu::math_unary_complex_kernel(static_cast<int>(Op), self, self);
    return ops::mark_written(self);
  }
  if (!self.is_meta()) cpu::math_unary_kernel(Op, self, self);
  return ops::mark_written(self);
}

// ---- autograd ----
using autograd::OpNode;
using autograd::tensor_list;

Tensor sq(const Tensor& x) { return x * x; }

// d op(x) for incoming gradient g, with x the input and y the result (whichever the rule saved;
// the other is undefined).
template <MathUnaryOp Op>
Tensor math_unary_backward(const Tensor& g, const Tensor& x, const Tensor& y) {
  const double two_over_sqrt_pi = 2 / std::sqrt(kPi);
  switch (Op) {
    case MathUnaryOp::Acos: return g * -(add(neg(sq(x)), 1).rsqrt());
    case MathUnaryOp::Asin: return g * add(neg(sq(x)), 1).rsqrt();
    case MathUnaryOp::Atan: return g / add(sq(x), 1);
    case MathUnaryOp::Acosh:
      // On complex numbers 1 / sqrt(z^2 - 1) takes the other branch where acosh's derivative
      // is 1 / (sqrt(z - 1) sqrt(z + 1)) (PyTorch's form); equal on reals.
      if (x.is_complex()) return g * (sub(x, 1).rsqrt() * add(x, 1).rsqrt());
      return g * sub(sq(x), 1).rsqrt();
    case MathUnaryOp::Asinh: return g * add(sq(x), 1).rsqrt();
    case MathUnaryOp::Atanh: return g / add(neg(sq(x)), 1);
    case MathUnaryOp::Cosh: return g * sinh(x);
    case MathUnaryOp::Sinh: return g * cosh(x);
    case MathUnaryOp::Tan: return g * add(sq(y), 1);
    case MathUnaryOp::Erf: return mul(g * neg(sq(x)).exp(), two_over_sqrt_pi);
    case MathUnaryOp::Erfc: return mul(g * neg(sq(x)).exp(), -two_over_sqrt_pi);
    // (as PyTorch, from self: its node saves self, and recomputes erfinv)
    case MathUnaryOp::Erfinv: return mul(g * sq(erfinv(x)).exp(), 0.5 * std::sqrt(kPi));
    case MathUnaryOp::Log10: return g / mul(x, std::log(10.0));
    case MathUnaryOp::Log2: return g / mul(x, std::log(2.0));
    case MathUnaryOp::Exp2: return g * mul(y, std::log(2.0));
    case MathUnaryOp::Reciprocal: return g * conj(neg(sq(y)));  // conj: Note [Complex autograd]
    case MathUnaryOp::Lgamma: return g * digamma(x);
    case MathUnaryOp::Digamma: return g * polygamma(1, x);
    case MathUnaryOp::I0: return g * special_i1(x);
    case MathUnaryOp::Sinc: {
      const Tensor px = mul(x, kPi);
      const Tensor d = (px * cos(px) - sin(px)) / (px * x);
      return g * where(eq(x, 0), wrapped_scalar_tensor(0.0), d);
    }
    case MathUnaryOp::Entr: return g * neg(add(log(x), 1));
    case MathUnaryOp::Erfcx: return g * sub(mul(x * y, 2), two_over_sqrt_pi);
    case MathUnaryOp::I0e: return g * (special_i1e(x) - sgn(x) * y);
    case MathUnaryOp::I1: {
      const Tensor d = i0(x) - y / x;
      return g * where(eq(x, 0), wrapped_scalar_tensor(0.5), d);
    }
    case MathUnaryOp::I1e: {
      const Tensor d = special_i0e(x) - y * (sgn(x) + reciprocal(x));
      return g * where(eq(x, 0), wrapped_scalar_tensor(0.5), d);
    }
    case MathUnaryOp::Ndtr: return mul(g * mul(sq(x), -0.5).exp(), 1 / std::sqrt(2 * kPi));
    case MathUnaryOp::Ndtri: return mul(g * mul(sq(y), 0.5).exp(), std::sqrt(2 * kPi));
    case MathUnaryOp::LogNdtr:
      return mul(g * neg(add(y, mul(sq(x), 0.5))).exp(), 1 / std::sqrt(2 * kPi));
    default: break;
  }
  return Tensor();
}

// log_ndtr's rule reads both self and the result; the others one of them.
template <MathUnaryOp Op>
constexpr bool saves_self() {
  return !info_of(Op).saves_result || Op == MathUnaryOp::LogNdtr || Op == MathUnaryOp::Erfcx ||
         Op == MathUnaryOp::I0e || Op == MathUnaryOp::I1 || Op == MathUnaryOp::I1e;
}

template <MathUnaryOp Op>
OpNode::Formula math_unary_formula(size_t self_, size_t result_) {
  return [=](OpNode& n, const tensor_list& g) {
    const Tensor x = saves_self<Op>() ? n.saved(self_) : Tensor();
    const Tensor y = info_of(Op).saves_result ? n.saved(result_) : Tensor();
    if (Op != MathUnaryOp::Reciprocal && (x.defined() ? x : y).is_complex()) {
      // Complex (Note [Complex autograd]): grad times the conjugate derivative, the rules above
      // being of the form grad * f'(x) or grad / (1 / f'(x)).
      return tensor_list{g[0] * conj_physical(math_unary_backward<Op>(ones_like(g[0]), x, y))};
    }
    return tensor_list{math_unary_backward<Op>(g[0], x, y)};
  };
}

template <MathUnaryOp Op, OpId id>
Tensor math_unary_autograd(const Tensor& self) {
  constexpr MathUnaryInfo info = info_of(Op);
  autograd::Recorder r(info.grad_fn, self);
  Tensor out = r.forward([&] { return dispatch::call<math_unary_impl<Op>>(id, self); });
  if (!r) return out;
  const size_t self_ = saves_self<Op>() ? r.save(self, "self") : 0;
  const size_t result_ = saves_self<Op>() ? 1 : 0;
  r.finish(out, math_unary_formula<Op>(self_, result_));
  if (info.saves_result) r.save_output(out, "result");
  return out;
}

template <MathUnaryOp Op, OpId id>
Tensor math_unary__autograd(const Tensor& self) {
  constexpr MathUnaryInfo info = info_of(Op);
  autograd::Recorder r(info.grad_fn, self);
  autograd::check_inplace_if(r, self);
  const size_t self_ = r && saves_self<Op>() ? r.save(ops::original_self(self), "self") : 0;
  const size_t result_ = saves_self<Op>() ? 1 : 0;
  r.forward([&] { return dispatch::call<math_unary__impl<Op>>(id, self); });
  if (!r) return self;
  r.finish_inplace(self, math_unary_formula<Op>(self_, result_));
  if (info.saves_result) r.save_output(self, "result");
  return self;
}

}  // namespace

#define EMBER_MATH_UNARY_OP(name, Op)                                               \
  Tensor name(const Tensor& self) {                                                 \
    return dispatch::call<math_unary_impl<MathUnaryOp::Op>>(OpId::name, self);      \
  }                                                                                 \
  Tensor& name##_(Tensor& self) {                                                   \
    dispatch::call<math_unary__impl<MathUnaryOp::Op>>(OpId::name##_, self);         \
    return self;                                                                    \
  }                                                                                 \
  EMBER_REGISTER_OP(name, static_cast<Tensor (*)(const Tensor&)>(&ember::name));    \
  EMBER_REGISTER_OP(name##_, static_cast<Tensor& (*)(Tensor&)>(&ember::name##_));

EMBER_MATH_UNARY_OP(acos, Acos)
EMBER_MATH_UNARY_OP(asin, Asin)
EMBER_MATH_UNARY_OP(atan, Atan)
EMBER_MATH_UNARY_OP(acosh, Acosh)
EMBER_MATH_UNARY_OP(asinh, Asinh)
EMBER_MATH_UNARY_OP(atanh, Atanh)
EMBER_MATH_UNARY_OP(cosh, Cosh)
EMBER_MATH_UNARY_OP(sinh, Sinh)
EMBER_MATH_UNARY_OP(tan, Tan)
EMBER_MATH_UNARY_OP(erf, Erf)
EMBER_MATH_UNARY_OP(erfc, Erfc)
EMBER_MATH_UNARY_OP(erfinv, Erfinv)
EMBER_MATH_UNARY_OP(log10, Log10)
EMBER_MATH_UNARY_OP(log2, Log2)
EMBER_MATH_UNARY_OP(exp2, Exp2)
EMBER_MATH_UNARY_OP(reciprocal, Reciprocal)
EMBER_MATH_UNARY_OP(lgamma, Lgamma)
EMBER_MATH_UNARY_OP(digamma, Digamma)
EMBER_MATH_UNARY_OP(i0, I0)
EMBER_MATH_UNARY_OP(sinc, Sinc)
#undef EMBER_MATH_UNARY_OP

#define EMBER_SPECIAL_UNARY_OP(name, Op)                                          \
  Tensor name(const Tensor& self) {                                               \
    return dispatch::call<math_unary_impl<MathUnaryOp::Op>>(OpId::name, self);    \
  }                                                                               \
  EMBER_REGISTER_OP(name, &ember::name);

EMBER_SPECIAL_UNARY_OP(special_entr, Entr)
EMBER_SPECIAL_UNARY_OP(special_erfcx, Erfcx)
EMBER_SPECIAL_UNARY_OP(special_i0e, I0e)
EMBER_SPECIAL_UNARY_OP(special_i1, I1)
EMBER_SPECIAL_UNARY_OP(special_i1e, I1e)
EMBER_SPECIAL_UNARY_OP(special_ndtr, Ndtr)
EMBER_SPECIAL_UNARY_OP(special_ndtri, Ndtri)
EMBER_SPECIAL_UNARY_OP(special_log_ndtr, LogNdtr)
#undef EMBER_SPECIAL_UNARY_OP

// One registration per line (EMBER_REGISTER_AUTOGRAD names its variable by __LINE__).
#define EMBER_MATH_AUTOGRAD(name, Op) \
  EMBER_REGISTER_AUTOGRAD(name, (&math_unary_autograd<MathUnaryOp::Op, OpId::name>));
#define EMBER_MATH_AUTOGRAD_(name, Op) \
  EMBER_REGISTER_AUTOGRAD(name##_, (&math_unary__autograd<MathUnaryOp::Op, OpId::name##_>));
EMBER_MATH_AUTOGRAD(acos, Acos)
EMBER_MATH_AUTOGRAD_(acos, Acos)
EMBER_MATH_AUTOGRAD(asin, Asin)
EMBER_MATH_AUTOGRAD_(asin, Asin)
EMBER_MATH_AUTOGRAD(atan, Atan)
EMBER_MATH_AUTOGRAD_(atan, Atan)
EMBER_MATH_AUTOGRAD(acosh, Acosh)
EMBER_MATH_AUTOGRAD_(acosh, Acosh)
EMBER_MATH_AUTOGRAD(asinh, Asinh)
EMBER_MATH_AUTOGRAD_(asinh, Asinh)
EMBER_MATH_AUTOGRAD(atanh, Atanh)
EMBER_MATH_AUTOGRAD_(atanh, Atanh)
EMBER_MATH_AUTOGRAD(cosh, Cosh)
EMBER_MATH_AUTOGRAD_(cosh, Cosh)
EMBER_MATH_AUTOGRAD(sinh, Sinh)
EMBER_MATH_AUTOGRAD_(sinh, Sinh)
EMBER_MATH_AUTOGRAD(tan, Tan)
EMBER_MATH_AUTOGRAD_(tan, Tan)
EMBER_MATH_AUTOGRAD(erf, Erf)
EMBER_MATH_AUTOGRAD_(erf, Erf)
EMBER_MATH_AUTOGRAD(erfc, Erfc)
EMBER_MATH_AUTOGRAD_(erfc, Erfc)
EMBER_MATH_AUTOGRAD(erfinv, Erfinv)
EMBER_MATH_AUTOGRAD_(erfinv, Erfinv)
EMBER_MATH_AUTOGRAD(log10, Log10)
EMBER_MATH_AUTOGRAD_(log10, Log10)
EMBER_MATH_AUTOGRAD(log2, Log2)
EMBER_MATH_AUTOGRAD_(log2, Log2)
EMBER_MATH_AUTOGRAD(exp2, Exp2)
EMBER_MATH_AUTOGRAD_(exp2, Exp2)
EMBER_MATH_AUTOGRAD(reciprocal, Reciprocal)
EMBER_MATH_AUTOGRAD_(reciprocal, Reciprocal)
EMBER_MATH_AUTOGRAD(lgamma, Lgamma)
EMBER_MATH_AUTOGRAD_(lgamma, Lgamma)
EMBER_MATH_AUTOGRAD(digamma, Digamma)
EMBER_MATH_AUTOGRAD_(digamma, Digamma)
EMBER_MATH_AUTOGRAD(i0, I0)
EMBER_MATH_AUTOGRAD_(i0, I0)
EMBER_MATH_AUTOGRAD(sinc, Sinc)
EMBER_MATH_AUTOGRAD_(sinc, Sinc)
EMBER_MATH_AUTOGRAD(special_entr, Entr)
EMBER_MATH_AUTOGRAD(special_erfcx, Erfcx)
EMBER_MATH_AUTOGRAD(special_i0e, I0e)
EMBER_MATH_AUTOGRAD(special_i1, I1)
EMBER_MATH_AUTOGRAD(special_i1e, I1e)
EMBER_MATH_AUTOGRAD(special_ndtr, Ndtr)
EMBER_MATH_AUTOGRAD(special_ndtri, Ndtri)
EMBER_MATH_AUTOGRAD(special_log_ndtr, LogNdtr)
#undef EMBER_MATH_AUTOGRAD
#undef EMBER_MATH_AUTOGRAD_

}  // namespace ember
