// Rounding (ceil floor round trunc frac, round.decimals, each with its in-place form) and the
// elementwise predicates (isnan isinf isfinite isposinf isneginf signbit isreal).
//
// Rounding keeps the dtype. As PyTorch 1.13: integer inputs of ceil / floor / round / trunc come
// back as a copy (in place: unchanged), bool ones are refused by the kernel's name
// ("ceil_vml_cpu" not implemented for 'Bool'), and frac and round(decimals=) refuse both.
// Their gradients are zero (frac's passes through). Predicates answer bool for every dtype and
// have no gradient.
#include "../autograd/record.h"
#include "../backends/cpu/copy_kernel.h"
#include "../backends/cpu/dtype_lists.h"
#include "../backends/cpu/math_kernels.h"
#include "../dispatch/boxing.h"
#include "elementwise.h"
#include "ember/ops/complex.h"
#include "ember/ops/copy.h"
#include "ember/ops/factory.h"
#include "ember/ops/math.h"
#include "pointwise_helpers.h"

namespace ember {

using cpu::MathUnaryOp;
using cpu::PredicateOp;
using dispatch::OpId;

namespace {

constexpr const char* rounding_name(MathUnaryOp op, bool inplace) {
  switch (op) {
    case MathUnaryOp::Ceil: return inplace ? "ceil_" : "ceil";
    case MathUnaryOp::Floor: return inplace ? "floor_" : "floor";
    case MathUnaryOp::Round: return inplace ? "round_" : "round";
    case MathUnaryOp::Trunc: return inplace ? "trunc_" : "trunc";
    default: return inplace ? "frac_" : "frac";
  }
}

// The kernel PyTorch names for a quantized input: the structured out= kernel.
constexpr const char* quantized_name(MathUnaryOp op) {
  switch (op) {
    case MathUnaryOp::Ceil: return "aten::ceil.out";
    case MathUnaryOp::Floor: return "aten::floor.out";
    case MathUnaryOp::Round: return "aten::round.out";
    case MathUnaryOp::Trunc: return "aten::trunc.out";
    default: return "aten::frac.out";
  }
}

// Integers (not bool) pass through ceil / floor / round / trunc; everything else goes to the
// floating kernel, which refuses what PyTorch's refuses.
bool passes_through(MathUnaryOp op, ScalarType dtype) {
  return op != MathUnaryOp::Frac && is_integral(dtype, /*include_bool=*/false);
}

template <MathUnaryOp Op>
Tensor rounding_impl(const Tensor& self) {
  ops::check_not_quantized(quantized_name(Op), {self});
  Tensor out = ops::new_output(self.sizes(), self.dtype(), self.device(), {self});
  if (out.is_meta()) return out;
  if (passes_through(Op, self.dtype())) cpu::copy_kernel(out, self);
  else cpu::math_unary_kernel(Op, out, self);
  return out;
}

template <MathUnaryOp Op>
Tensor rounding__impl(const Tensor& self) {
  ops::check_not_quantized(quantized_name(Op), {self});
  ops::check_inplace_elementwise(rounding_name(Op, true), self, self.sizes(), self.dtype());
  if (!self.is_meta() && !passes_through(Op, self.dtype())) cpu::math_unary_kernel(Op, self, self);
  return ops::mark_written(self);
}

Tensor round_decimals_impl(const Tensor& self, int64_t decimals) {
  ops::check_not_quantized("aten::round.decimals_out", {self});
  Tensor out = ops::new_output(self.sizes(), self.dtype(), self.device(), {self});
  if (!out.is_meta()) cpu::round_decimals_kernel(out, self, decimals);
  return out;
}
Tensor round__decimals_impl(const Tensor& self, int64_t decimals) {
  ops::check_not_quantized("aten::round.decimals_out", {self});
  ops::check_inplace_elementwise("round_", self, self.sizes(), self.dtype());
  if (!self.is_meta()) cpu::round_decimals_kernel(self, self, decimals);
  return ops::mark_written(self);
}

constexpr const char* predicate_name(PredicateOp op) {
  switch (op) {
    case PredicateOp::IsNan: return "isnan";
    case PredicateOp::IsInf: return "isinf";
    case PredicateOp::IsFinite: return "isfinite";
    case PredicateOp::IsPosInf: return "aten::isposinf.out";
    case PredicateOp::IsNegInf: return "aten::isneginf.out";
    case PredicateOp::SignBit: return "aten::signbit.out";
  }
  return "";
}

template <PredicateOp Op>
Tensor predicate_impl(const Tensor& self) {
  // As PyTorch 1.13 for a quantized input: isinf / isfinite refuse the dtype by name, the
  // structured ones name their out= kernel.
  if (Op == PredicateOp::IsInf || Op == PredicateOp::IsFinite) {
    EMBER_CHECK(!self.is_quantized(), "\"", predicate_name(Op), "\" not implemented for '",
                scalar_type_name(self.dtype()), "'");
  }
  ops::check_not_quantized(predicate_name(Op), {self});
  if (self.is_complex() && (Op == PredicateOp::IsNan || Op == PredicateOp::IsInf || Op == PredicateOp::IsFinite)) {
    // Per part, as PyTorch: nan / inf if either part is, finite if both are.
    const Tensor re = real(self), im = imag(self);
    if (Op == PredicateOp::IsNan) return logical_or(isnan(re), isnan(im));
    if (Op == PredicateOp::IsInf) return logical_or(isinf(re), isinf(im));
    return logical_and(isfinite(re), isfinite(im));
  }
  EMBER_CHECK(!self.is_complex(), predicate_name(Op), " does not support complex inputs.");
  Tensor out = ops::new_output(self.sizes(), kBool, self.device(), {self});
  if (!out.is_meta()) cpu::predicate_kernel(Op, out, self);
  return out;
}

Tensor isreal_impl(const Tensor& self) {
  if (self.is_complex()) return eq(imag(self), Scalar(0.0));
  return ones_like(self, TensorOptions(kBool));  // real dtypes: every element is real
}

// ---- autograd ----
using autograd::OpNode;
using autograd::tensor_list;

constexpr const char* rounding_grad_fn(MathUnaryOp op) {
  switch (op) {
    case MathUnaryOp::Ceil: return "CeilBackward0";
    case MathUnaryOp::Floor: return "FloorBackward0";
    case MathUnaryOp::Round: return "RoundBackward0";
    case MathUnaryOp::Trunc: return "TruncBackward0";
    default: return "FracBackward0";
  }
}

// Zero gradients (rounding is piecewise constant); frac = x - trunc(x) passes the gradient.
template <MathUnaryOp Op>
tensor_list rounding_formula(OpNode&, const tensor_list& g) {
  if (Op == MathUnaryOp::Frac) return tensor_list{g[0]};
  return tensor_list{zeros_like(g[0])};
}

template <MathUnaryOp Op, OpId id>
Tensor rounding_autograd(const Tensor& self) {
  autograd::Recorder r(rounding_grad_fn(Op), self);
  Tensor out = r.forward([&] { return dispatch::call<rounding_impl<Op>>(id, self); });
  if (!r) return out;
  return r.finish(out, &rounding_formula<Op>);
}

template <MathUnaryOp Op, OpId id>
Tensor rounding__autograd(const Tensor& self) {
  autograd::Recorder r(rounding_grad_fn(Op), self);
  autograd::check_inplace_if(r, self);
  r.forward([&] { return dispatch::call<rounding__impl<Op>>(id, self); });
  if (!r) return self;
  r.finish_inplace(self, &rounding_formula<Op>);
  return self;
}

Tensor round_decimals_autograd(const Tensor& self, const int64_t& decimals) {
  autograd::Recorder r("RoundBackward1", self);
  Tensor out = r.forward(
      [&] { return dispatch::call<round_decimals_impl>(OpId::round_decimals, self, decimals); });
  if (!r) return out;
  return r.finish(out, &rounding_formula<MathUnaryOp::Round>);
}

Tensor round__decimals_autograd(const Tensor& self, const int64_t& decimals) {
  autograd::Recorder r("RoundBackward1", self);
  autograd::check_inplace_if(r, self);
  r.forward(
      [&] { return dispatch::call<round__decimals_impl>(OpId::round__decimals, self, decimals); });
  if (!r) return self;
  r.finish_inplace(self, &rounding_formula<MathUnaryOp::Round>);
  return self;
}

}  // namespace

#define EMBER_ROUNDING_OP(name, Op)                                                 \
  Tensor name(const Tensor& self) {                                                 \
    return dispatch::call<rounding_impl<MathUnaryOp::Op>>(OpId::name, self);        \
  }                                                                                 \
  Tensor& name##_(Tensor& self) {                                                   \
    dispatch::call<rounding__impl<MathUnaryOp::Op>>(OpId::name##_, self);           \
    return self;                                                                    \
  }                                                                                 \
  EMBER_REGISTER_OP(name, static_cast<Tensor (*)(const Tensor&)>(&ember::name));    \
  EMBER_REGISTER_OP(name##_, static_cast<Tensor& (*)(Tensor&)>(&ember::name##_));
EMBER_ROUNDING_OP(ceil, Ceil)
EMBER_ROUNDING_OP(floor, Floor)
EMBER_ROUNDING_OP(round, Round)
EMBER_ROUNDING_OP(trunc, Trunc)
EMBER_ROUNDING_OP(frac, Frac)
#undef EMBER_ROUNDING_OP

Tensor round(const Tensor& self, int64_t decimals) {
  return dispatch::call<round_decimals_impl>(OpId::round_decimals, self, decimals);
}
Tensor& round_(Tensor& self, int64_t decimals) {
  dispatch::call<round__decimals_impl>(OpId::round__decimals, self, decimals);
  return self;
}
EMBER_REGISTER_OP(round_decimals, static_cast<Tensor (*)(const Tensor&, int64_t)>(&ember::round));
EMBER_REGISTER_OP(round__decimals, static_cast<Tensor& (*)(Tensor&, int64_t)>(&ember::round_));

#define EMBER_PREDICATE_OP(name, Op)                                          \
  Tensor name(const Tensor& self) {                                           \
    return dispatch::call<predicate_impl<PredicateOp::Op>>(OpId::name, self); \
  }                                                                           \
  EMBER_REGISTER_OP(name, &ember::name);
EMBER_PREDICATE_OP(isnan, IsNan)
EMBER_PREDICATE_OP(isinf, IsInf)
EMBER_PREDICATE_OP(isfinite, IsFinite)
EMBER_PREDICATE_OP(isposinf, IsPosInf)
EMBER_PREDICATE_OP(isneginf, IsNegInf)
EMBER_PREDICATE_OP(signbit, SignBit)
#undef EMBER_PREDICATE_OP

Tensor isreal(const Tensor& self) { return dispatch::call<isreal_impl>(OpId::isreal, self); }
EMBER_REGISTER_OP(isreal, &ember::isreal);

EMBER_REGISTER_AUTOGRAD(ceil, (&rounding_autograd<MathUnaryOp::Ceil, OpId::ceil>));
EMBER_REGISTER_AUTOGRAD(ceil_, (&rounding__autograd<MathUnaryOp::Ceil, OpId::ceil_>));
EMBER_REGISTER_AUTOGRAD(floor, (&rounding_autograd<MathUnaryOp::Floor, OpId::floor>));
EMBER_REGISTER_AUTOGRAD(floor_, (&rounding__autograd<MathUnaryOp::Floor, OpId::floor_>));
EMBER_REGISTER_AUTOGRAD(round, (&rounding_autograd<MathUnaryOp::Round, OpId::round>));
EMBER_REGISTER_AUTOGRAD(round_, (&rounding__autograd<MathUnaryOp::Round, OpId::round_>));
EMBER_REGISTER_AUTOGRAD(trunc, (&rounding_autograd<MathUnaryOp::Trunc, OpId::trunc>));
EMBER_REGISTER_AUTOGRAD(trunc_, (&rounding__autograd<MathUnaryOp::Trunc, OpId::trunc_>));
EMBER_REGISTER_AUTOGRAD(frac, (&rounding_autograd<MathUnaryOp::Frac, OpId::frac>));
EMBER_REGISTER_AUTOGRAD(frac_, (&rounding__autograd<MathUnaryOp::Frac, OpId::frac_>));
EMBER_REGISTER_AUTOGRAD(round_decimals, &round_decimals_autograd);
EMBER_REGISTER_AUTOGRAD(round__decimals, &round__decimals_autograd);

}  // namespace ember
