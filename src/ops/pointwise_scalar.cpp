// The Scalar overloads of the pointwise ops (add.Scalar, eq.Scalar, fmod.Scalar, pow.Scalar,
// bitwise_and.Scalar_Tensor, ...), true_divide, floor_divide.Scalar and float_power: Composite
// rows whose bodies call the Tensor overload with the Scalar as a wrapped number, which promotes
// weakly exactly as PyTorch's Scalar overloads do (Note [Binding Python arguments]); autograd and
// torch_dispatch see the Tensor overload. The Tensor kernels name their nodes after the Scalar
// overload where PyTorch's differ (FmodBackward0, XlogyBackward2, PowBackward2, ...).
#include "../dispatch/boxing.h"
#include "elementwise.h"
#include "ember/ops/copy.h"
#include "ember/ops/factory.h"
#include "ember/ops/math.h"
#include "ember/ops/overloads.h"
#include "ember/ops/pointwise.h"

namespace ember {

using dispatch::OpId;

namespace {

Tensor w(const Scalar& s) { return wrapped_scalar_tensor(s); }

Tensor add_scalar_impl(const Tensor& self, const Scalar& other, const Scalar& alpha) {
  return add(self, w(other), alpha);
}
Tensor sub_scalar_impl(const Tensor& self, const Scalar& other, const Scalar& alpha) {
  return sub(self, w(other), alpha);
}
Tensor div_scalar_mode_impl(const Tensor& self, const Scalar& other,
                            const std::optional<std::string>& mode) {
  return div(self, w(other), mode);
}

template <Tensor (*Fn)(const Tensor&, const Tensor&)>
Tensor tensor_scalar_impl(const Tensor& self, const Scalar& other) {
  return Fn(self, w(other));
}
template <Tensor (*Fn)(const Tensor&, const Tensor&)>
Tensor scalar_tensor_impl(const Scalar& self, const Tensor& other) {
  return Fn(w(self), other);
}
template <Tensor& (*Fn)(Tensor&, const Tensor&)>
Tensor inplace_scalar_impl(const Tensor& self, const Scalar& other) {
  Tensor s = self;
  Fn(s, w(other));
  return self;
}

Tensor remainder_tt(const Tensor& a, const Tensor& b) { return remainder(a, b); }
Tensor pow_tt(const Tensor& a, const Tensor& b) { return pow(a, b); }
Tensor eq_tt(const Tensor& a, const Tensor& b) { return eq(a, b); }
Tensor ne_tt(const Tensor& a, const Tensor& b) { return ne(a, b); }
Tensor lt_tt(const Tensor& a, const Tensor& b) { return lt(a, b); }
Tensor le_tt(const Tensor& a, const Tensor& b) { return le(a, b); }
Tensor gt_tt(const Tensor& a, const Tensor& b) { return gt(a, b); }
Tensor ge_tt(const Tensor& a, const Tensor& b) { return ge(a, b); }
Tensor and_tt(const Tensor& a, const Tensor& b) { return bitwise_and(a, b); }
Tensor or_tt(const Tensor& a, const Tensor& b) { return bitwise_or(a, b); }
Tensor xor_tt(const Tensor& a, const Tensor& b) { return bitwise_xor(a, b); }
Tensor fmod_tt(const Tensor& a, const Tensor& b) { return fmod(a, b); }
Tensor& fmod_tt_(Tensor& a, const Tensor& b) { return fmod_(a, b); }
Tensor copysign_tt(const Tensor& a, const Tensor& b) { return copysign(a, b); }
Tensor& copysign_tt_(Tensor& a, const Tensor& b) { return copysign_(a, b); }
Tensor xlogy_tt(const Tensor& a, const Tensor& b) { return xlogy(a, b); }
Tensor& xlogy_tt_(Tensor& a, const Tensor& b) { return xlogy_(a, b); }
Tensor xlog1py_tt(const Tensor& a, const Tensor& b) { return special_xlog1py(a, b); }
Tensor zeta_tt(const Tensor& a, const Tensor& b) { return special_zeta(a, b); }
Tensor floor_divide_tt(const Tensor& a, const Tensor& b) { return floor_divide(a, b); }
Tensor lshift_tt(const Tensor& a, const Tensor& b) { return bitwise_left_shift(a, b); }
Tensor rshift_tt(const Tensor& a, const Tensor& b) { return bitwise_right_shift(a, b); }
Tensor& lshift_tt_(Tensor& a, const Tensor& b) { return bitwise_left_shift_(a, b); }
Tensor& rshift_tt_(Tensor& a, const Tensor& b) { return bitwise_right_shift_(a, b); }

// true_divide is div (true division).
Tensor true_divide_impl(const Tensor& self, const Tensor& other) { return div(self, other); }
Tensor true_divide_scalar_impl(const Tensor& self, const Scalar& other) {
  return div(self, w(other));
}
Tensor true_divide__impl(const Tensor& self, const Tensor& other) {
  Tensor s = self;
  div_(s, other);
  return self;
}
Tensor true_divide__scalar_impl(const Tensor& self, const Scalar& other) {
  return true_divide__impl(self, w(other));
}

// float_power: pow in float64 (complex128 for complex operands, which ember does not have).
Tensor float_power_tt_impl(const Tensor& self, const Tensor& exponent) {
  return pow(self.to(kFloat64), exponent.to(kFloat64));
}
Tensor float_power_ts_impl(const Tensor& self, const Scalar& exponent) {
  return pow(self.to(kFloat64), Scalar(exponent.to_double()));
}
Tensor float_power_st_impl(const Scalar& self, const Tensor& exponent) {
  return pow(w(Scalar(self.to_double())), exponent.to(kFloat64));
}
void check_float_power_base(const Tensor& self) {
  EMBER_CHECK(self.dtype() == kFloat64, "the base given to float_power_ has dtype ",
              scalar_type_name(self.dtype()), " but the operation's result requires dtype Double");
}
Tensor float_power__tensor_impl(const Tensor& self, const Tensor& exponent) {
  check_float_power_base(self);
  Tensor s = self;
  pow_(s, exponent.to(kFloat64));
  return self;
}
Tensor float_power__scalar_impl(const Tensor& self, const Scalar& exponent) {
  check_float_power_base(self);
  Tensor s = self;
  pow_(s, Scalar(exponent.to_double()));
  return self;
}

}  // namespace

// ---- public functions (the frontends) ----
Tensor add(const Tensor& self, const Scalar& other, const Scalar& alpha) {
  return dispatch::call<add_scalar_impl>(OpId::add_Scalar, self, other, alpha);
}
Tensor sub(const Tensor& self, const Scalar& other, const Scalar& alpha) {
  return dispatch::call<sub_scalar_impl>(OpId::sub_Scalar, self, other, alpha);
}
Tensor div(const Tensor& self, const Scalar& other, std::optional<std::string> rounding_mode) {
  return dispatch::call<div_scalar_mode_impl>(OpId::div_Scalar_mode, self, other, rounding_mode);
}

#define EMBER_TENSOR_SCALAR(fn, id, tt)                                      \
  Tensor fn(const Tensor& self, const Scalar& other) {                       \
    return dispatch::call<tensor_scalar_impl<tt>>(OpId::id, self, other);   \
  }
#define EMBER_SCALAR_TENSOR(fn, id, tt)                                      \
  Tensor fn(const Scalar& self, const Tensor& other) {                       \
    return dispatch::call<scalar_tensor_impl<tt>>(OpId::id, self, other);   \
  }
EMBER_TENSOR_SCALAR(eq, eq_Scalar, eq_tt)
EMBER_TENSOR_SCALAR(ne, ne_Scalar, ne_tt)
EMBER_TENSOR_SCALAR(lt, lt_Scalar, lt_tt)
EMBER_TENSOR_SCALAR(le, le_Scalar, le_tt)
EMBER_TENSOR_SCALAR(gt, gt_Scalar, gt_tt)
EMBER_TENSOR_SCALAR(ge, ge_Scalar, ge_tt)
EMBER_TENSOR_SCALAR(bitwise_and, bitwise_and_Scalar, and_tt)
EMBER_TENSOR_SCALAR(bitwise_or, bitwise_or_Scalar, or_tt)
EMBER_TENSOR_SCALAR(bitwise_xor, bitwise_xor_Scalar, xor_tt)
EMBER_TENSOR_SCALAR(fmod, fmod_Scalar, fmod_tt)
EMBER_TENSOR_SCALAR(remainder, remainder_Scalar, remainder_tt)
EMBER_TENSOR_SCALAR(copysign, copysign_Scalar, copysign_tt)
EMBER_TENSOR_SCALAR(xlogy, xlogy_Scalar_Other, xlogy_tt)
EMBER_SCALAR_TENSOR(remainder, remainder_Scalar_Tensor, remainder_tt)
EMBER_SCALAR_TENSOR(pow, pow_Scalar, pow_tt)
EMBER_SCALAR_TENSOR(xlogy, xlogy_Scalar_Self, xlogy_tt)
#undef EMBER_TENSOR_SCALAR
#undef EMBER_SCALAR_TENSOR

Tensor& fmod_(Tensor& self, const Scalar& other) {
  dispatch::call<inplace_scalar_impl<fmod_tt_>>(OpId::fmod__Scalar, self, other);
  return self;
}
Tensor true_divide(const Tensor& self, const Tensor& other) {
  return dispatch::call<true_divide_impl>(OpId::true_divide_Tensor, self, other);
}
Tensor float_power(const Tensor& self, const Tensor& exponent) {
  return dispatch::call<float_power_tt_impl>(OpId::float_power_Tensor_Tensor, self, exponent);
}
Tensor float_power(const Tensor& self, const Scalar& exponent) {
  return dispatch::call<float_power_ts_impl>(OpId::float_power_Tensor_Scalar, self, exponent);
}
Tensor float_power(const Scalar& self, const Tensor& exponent) {
  return dispatch::call<float_power_st_impl>(OpId::float_power_Scalar, self, exponent);
}
Tensor& float_power_(Tensor& self, const Tensor& exponent) {
  dispatch::call<float_power__tensor_impl>(OpId::float_power__Tensor, self, exponent);
  return self;
}
Tensor& float_power_(Tensor& self, const Scalar& exponent) {
  dispatch::call<float_power__scalar_impl>(OpId::float_power__Scalar, self, exponent);
  return self;
}

namespace {
// Schema-shaped frontends of the rows without a public C++ spelling of their own.
#define EMBER_BOXED_TS(name, id, impl)                         \
  Tensor name(const Tensor& self, const Scalar& other) {      \
    return dispatch::call<impl>(OpId::id, self, other);        \
  }
#define EMBER_BOXED_ST(name, id, impl)                         \
  Tensor name(const Scalar& self, const Tensor& other) {      \
    return dispatch::call<impl>(OpId::id, self, other);        \
  }
#define EMBER_BOXED_TS_(name, id, impl)                        \
  Tensor& name(Tensor& self, const Scalar& other) {           \
    dispatch::call<impl>(OpId::id, self, other);               \
    return self;                                               \
  }
EMBER_BOXED_ST(and_st, bitwise_and_Scalar_Tensor, scalar_tensor_impl<and_tt>)
EMBER_BOXED_ST(or_st, bitwise_or_Scalar_Tensor, scalar_tensor_impl<or_tt>)
EMBER_BOXED_ST(xor_st, bitwise_xor_Scalar_Tensor, scalar_tensor_impl<xor_tt>)
EMBER_BOXED_TS_(copysign_ts_, copysign__Scalar, inplace_scalar_impl<copysign_tt_>)
EMBER_BOXED_TS_(xlogy_ts_, xlogy__Scalar_Other, inplace_scalar_impl<xlogy_tt_>)
EMBER_BOXED_ST(xlog1py_st, special_xlog1py_self_scalar, scalar_tensor_impl<xlog1py_tt>)
EMBER_BOXED_TS(xlog1py_ts, special_xlog1py_other_scalar, tensor_scalar_impl<xlog1py_tt>)
EMBER_BOXED_ST(zeta_st, special_zeta_self_scalar, scalar_tensor_impl<zeta_tt>)
EMBER_BOXED_TS(zeta_ts, special_zeta_other_scalar, tensor_scalar_impl<zeta_tt>)
EMBER_BOXED_TS(true_divide_ts, true_divide_Scalar, true_divide_scalar_impl)
EMBER_BOXED_TS(floor_divide_ts, floor_divide_Scalar, tensor_scalar_impl<floor_divide_tt>)
EMBER_BOXED_TS(lshift_ts, bitwise_left_shift_Tensor_Scalar, tensor_scalar_impl<lshift_tt>)
EMBER_BOXED_ST(lshift_st, bitwise_left_shift_Scalar_Tensor, scalar_tensor_impl<lshift_tt>)
EMBER_BOXED_TS_(lshift_ts_, bitwise_left_shift__Tensor_Scalar, inplace_scalar_impl<lshift_tt_>)
EMBER_BOXED_TS(rshift_ts, bitwise_right_shift_Tensor_Scalar, tensor_scalar_impl<rshift_tt>)
EMBER_BOXED_ST(rshift_st, bitwise_right_shift_Scalar_Tensor, scalar_tensor_impl<rshift_tt>)
EMBER_BOXED_TS_(rshift_ts_, bitwise_right_shift__Tensor_Scalar, inplace_scalar_impl<rshift_tt_>)
#undef EMBER_BOXED_TS
#undef EMBER_BOXED_ST
#undef EMBER_BOXED_TS_

Tensor& true_divide__tt(Tensor& self, const Tensor& other) {
  dispatch::call<true_divide__impl>(OpId::true_divide__Tensor, self, other);
  return self;
}
Tensor& true_divide__ts(Tensor& self, const Scalar& other) {
  dispatch::call<true_divide__scalar_impl>(OpId::true_divide__Scalar, self, other);
  return self;
}
}  // namespace

using TS = Tensor (*)(const Tensor&, const Scalar&);
using ST = Tensor (*)(const Scalar&, const Tensor&);
using TS_ = Tensor& (*)(Tensor&, const Scalar&);
using TSA = Tensor (*)(const Tensor&, const Scalar&, const Scalar&);
EMBER_REGISTER_OP(add_Scalar, static_cast<TSA>(&add));
EMBER_REGISTER_OP(sub_Scalar, static_cast<TSA>(&sub));
EMBER_REGISTER_OP(div_Scalar_mode,
                  static_cast<Tensor (*)(const Tensor&, const Scalar&, std::optional<std::string>)>(&div));
EMBER_REGISTER_OP(eq_Scalar, static_cast<TS>(&eq));
EMBER_REGISTER_OP(ne_Scalar, static_cast<TS>(&ne));
EMBER_REGISTER_OP(lt_Scalar, static_cast<TS>(&lt));
EMBER_REGISTER_OP(le_Scalar, static_cast<TS>(&le));
EMBER_REGISTER_OP(gt_Scalar, static_cast<TS>(&gt));
EMBER_REGISTER_OP(ge_Scalar, static_cast<TS>(&ge));
EMBER_REGISTER_OP(bitwise_and_Scalar, static_cast<TS>(&bitwise_and));
EMBER_REGISTER_OP(bitwise_or_Scalar, static_cast<TS>(&bitwise_or));
EMBER_REGISTER_OP(bitwise_xor_Scalar, static_cast<TS>(&bitwise_xor));
EMBER_REGISTER_OP(bitwise_and_Scalar_Tensor, &and_st);
EMBER_REGISTER_OP(bitwise_or_Scalar_Tensor, &or_st);
EMBER_REGISTER_OP(bitwise_xor_Scalar_Tensor, &xor_st);
EMBER_REGISTER_OP(fmod_Scalar, static_cast<TS>(&fmod));
EMBER_REGISTER_OP(fmod__Scalar, static_cast<TS_>(&fmod_));
EMBER_REGISTER_OP(remainder_Scalar, static_cast<TS>(&remainder));
EMBER_REGISTER_OP(remainder_Scalar_Tensor, static_cast<ST>(&remainder));
EMBER_REGISTER_OP(pow_Scalar, static_cast<ST>(&pow));
EMBER_REGISTER_OP(copysign_Scalar, static_cast<TS>(&copysign));
EMBER_REGISTER_OP(copysign__Scalar, &copysign_ts_);
EMBER_REGISTER_OP(xlogy_Scalar_Self, static_cast<ST>(&xlogy));
EMBER_REGISTER_OP(xlogy_Scalar_Other, static_cast<TS>(&xlogy));
EMBER_REGISTER_OP(xlogy__Scalar_Other, &xlogy_ts_);
EMBER_REGISTER_OP(special_xlog1py_self_scalar, &xlog1py_st);
EMBER_REGISTER_OP(special_xlog1py_other_scalar, &xlog1py_ts);
EMBER_REGISTER_OP(special_zeta_self_scalar, &zeta_st);
EMBER_REGISTER_OP(special_zeta_other_scalar, &zeta_ts);
EMBER_REGISTER_OP(true_divide_Tensor, &true_divide);
EMBER_REGISTER_OP(true_divide_Scalar, &true_divide_ts);
EMBER_REGISTER_OP(true_divide__Tensor, &true_divide__tt);
EMBER_REGISTER_OP(true_divide__Scalar, &true_divide__ts);
EMBER_REGISTER_OP(floor_divide_Scalar, &floor_divide_ts);
EMBER_REGISTER_OP(float_power_Tensor_Tensor, static_cast<Tensor (*)(const Tensor&, const Tensor&)>(&float_power));
EMBER_REGISTER_OP(float_power_Tensor_Scalar, static_cast<TS>(&float_power));
EMBER_REGISTER_OP(float_power_Scalar, static_cast<ST>(&float_power));
EMBER_REGISTER_OP(float_power__Tensor, static_cast<Tensor& (*)(Tensor&, const Tensor&)>(&float_power_));
EMBER_REGISTER_OP(float_power__Scalar, static_cast<TS_>(&float_power_));
EMBER_REGISTER_OP(bitwise_left_shift_Tensor_Scalar, &lshift_ts);
EMBER_REGISTER_OP(bitwise_left_shift_Scalar_Tensor, &lshift_st);
EMBER_REGISTER_OP(bitwise_left_shift__Tensor_Scalar, &lshift_ts_);
EMBER_REGISTER_OP(bitwise_right_shift_Tensor_Scalar, &rshift_ts);
EMBER_REGISTER_OP(bitwise_right_shift_Scalar_Tensor, &rshift_st);
EMBER_REGISTER_OP(bitwise_right_shift__Tensor_Scalar, &rshift_ts_);

}  // namespace ember
