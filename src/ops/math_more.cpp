// fmax / fmin (maximum / minimum that ignore a NaN operand), frexp, igamma / igammac (the
// regularized incomplete gamma functions, Note [Incomplete gamma] in
// src/backends/cpu/math_more_kernels.cpp): primitives with backward rules; ldexp and the
// in-place igamma_ / igammac_ are composites, as ldexp is in PyTorch (self * 2^other).
#include "ember/ops/math_more.h"

#include "ember/ops/math.h"
#include "ember/ops/pointwise.h"

#include "../autograd/record.h"
#include "../backends/cpu/math_more_kernels.h"
#include "../dispatch/boxing.h"
#include "elementwise.h"
#include "pointwise_helpers.h"

namespace ember {

using dispatch::OpId;

namespace {

Tensor binary_out(const char* name, const Tensor& self, const Tensor& other, ScalarType dtype) {
  const Device device = ops::common_device(name, {self, other});
  const Tensor a = ops::cast(self, dtype), b = ops::cast(other, dtype);
  return ops::new_output(broadcast_shapes(self.sizes(), other.sizes()), dtype, device, {a, b});
}

template <bool IsMax>
Tensor fmax_impl(const Tensor& self, const Tensor& other) {
  const char* name = IsMax ? "fmax" : "fmin";
  // (PyTorch's order: type promotion refuses a quantized operand first)
  const ScalarType dtype = result_type(self, other);
  ops::check_not_quantized(name, {self, other});
  EMBER_CHECK(!self.is_complex() && !other.is_complex(), name, " not implemented for complex tensors.");
  Tensor out = binary_out(name, self, other, dtype);
  if (!out.is_meta()) cpu::fmax_fmin_kernel(out, ops::cast(self, dtype), ops::cast(other, dtype), IsMax);
  return out;
}

template <bool Upper>
Tensor igamma_impl(const Tensor& self, const Tensor& other) {
  const char* name = Upper ? "igammac" : "igamma";
  const ScalarType dtype = result_type(self, other);
  ops::check_not_quantized(name, {self, other});
  Tensor out = binary_out(name, self, other, dtype);
  if (!out.is_meta()) cpu::igamma_kernel(out, ops::cast(self, dtype), ops::cast(other, dtype), Upper);
  return out;
}

std::tuple<Tensor, Tensor> frexp_impl(const Tensor& self) {
  EMBER_CHECK(is_floating(self.dtype()), "ember.frexp() only supports floating-point dtypes");
  Tensor mantissa = ops::new_output(self.sizes(), self.dtype(), self.device(), {self});
  Tensor exponent = ops::new_output(self.sizes(), kInt32, self.device(), {self});
  if (!self.is_meta()) cpu::frexp_kernel(mantissa, exponent, self);
  return {mantissa, exponent};
}

// ---- composites ----

// PyTorch's ldexp: self * pow(2., other), so integer operands give the default float dtype.
Tensor ldexp_impl(const Tensor& self, const Tensor& other) { return mul(self, pow(Scalar(2.0), other)); }
Tensor ldexp__impl(const Tensor& self, const Tensor& other) {
  Tensor s = self;
  return s.mul_(pow(Scalar(2.0), other));
}
Tensor igamma__impl(const Tensor& self, const Tensor& other) {
  Tensor s = self;
  return s.copy_(igamma(self, other));
}
Tensor igammac__impl(const Tensor& self, const Tensor& other) {
  Tensor s = self;
  return s.copy_(igammac(self, other));
}

// ---- autograd ----
using autograd::OpNode;
using autograd::tensor_list;

// FmaxBackward0 / FminBackward0: the gradient goes to the operand picked (self on ties and
// where other is NaN).
template <bool IsMax>
Tensor fmax_autograd(const Tensor& self, const Tensor& other) {
  autograd::Recorder r(IsMax ? "FmaxBackward0" : "FminBackward0", self, other);
  Tensor out = r.forward([&] { return dispatch::call<fmax_impl<IsMax>>(IsMax ? OpId::fmax : OpId::fmin, self, other); });
  if (!r) return out;
  const size_t self_ = r.save(self, "self"), other_ = r.save(other, "other");
  return r.finish(out, [=](OpNode& n, const tensor_list& g) {
    const Tensor s = n.saved(self_), o = n.saved(other_);
    const Tensor picks_self = logical_or(IsMax ? ge(s, o) : le(s, o), isnan(o));
    return tensor_list{n.needs(0) ? g[0].masked_fill(logical_not(picks_self), 0) : Tensor(),
                       n.needs(1) ? g[0].masked_fill(picks_self, 0) : Tensor()};
  });
}

// d/dx P(a, x) = x^(a-1) e^-x / Gamma(a) (Q: its negative); PyTorch has no formula for d/da.
template <bool Upper>
Tensor igamma_autograd(const Tensor& self, const Tensor& other) {
  autograd::Recorder r(Upper ? "IgammacBackward0" : "IgammaBackward0", self, other);
  Tensor out = r.forward([&] { return dispatch::call<igamma_impl<Upper>>(Upper ? OpId::igammac : OpId::igamma, self, other); });
  if (!r) return out;
  const size_t self_ = r.save(self, "self"), other_ = r.save(other, "other");
  return r.finish(out, [=](OpNode& n, const tensor_list& g) {
    EMBER_CHECK_NOT_IMPLEMENTED(!n.needs(0), "the derivative for '", Upper ? "igammac" : "igamma",
                                ": input' is not implemented.");
    const Tensor a = n.saved(self_), x = n.saved(other_);
    const Tensor d = exp((a - 1) * log(x) - x - lgamma(a));
    return tensor_list{Tensor(), Upper ? -g[0] * d : g[0] * d};
  });
}

// FrexpBackward0: d mantissa / d self = 2^-exponent; the exponent has no gradient.
std::tuple<Tensor, Tensor> frexp_autograd(const Tensor& self) {
  autograd::Recorder r("FrexpBackward0", self);
  auto outs = r.forward([&] { return dispatch::call<frexp_impl>(OpId::frexp_Tensor, self); });
  if (!r) return outs;
  const size_t exponent_ = r.save(std::get<1>(outs), "exponent");
  r.finish(std::get<0>(outs), [=](OpNode& n, const tensor_list& g) {
    return tensor_list{g[0] / exp2(n.saved(exponent_))};
  });
  return outs;
}

}  // namespace

EMBER_REGISTER_AUTOGRAD(fmax, &fmax_autograd<true>);
EMBER_REGISTER_AUTOGRAD(fmin, &fmax_autograd<false>);
EMBER_REGISTER_AUTOGRAD(igamma, &igamma_autograd<false>);
EMBER_REGISTER_AUTOGRAD(igammac, &igamma_autograd<true>);
EMBER_REGISTER_AUTOGRAD(frexp_Tensor, &frexp_autograd);

Tensor fmax(const Tensor& self, const Tensor& other) {
  return dispatch::call<fmax_impl<true>>(OpId::fmax, self, other);
}
Tensor fmin(const Tensor& self, const Tensor& other) {
  return dispatch::call<fmax_impl<false>>(OpId::fmin, self, other);
}
Tensor igamma(const Tensor& self, const Tensor& other) {
  return dispatch::call<igamma_impl<false>>(OpId::igamma, self, other);
}
Tensor igammac(const Tensor& self, const Tensor& other) {
  return dispatch::call<igamma_impl<true>>(OpId::igammac, self, other);
}
Tensor& igamma_(Tensor& self, const Tensor& other) {
  dispatch::call<igamma__impl>(OpId::igamma_, self, other);
  return self;
}
Tensor& igammac_(Tensor& self, const Tensor& other) {
  dispatch::call<igammac__impl>(OpId::igammac_, self, other);
  return self;
}
std::tuple<Tensor, Tensor> frexp(const Tensor& self) {
  return dispatch::call<frexp_impl>(OpId::frexp_Tensor, self);
}
Tensor ldexp(const Tensor& self, const Tensor& other) {
  return dispatch::call<ldexp_impl>(OpId::ldexp_Tensor, self, other);
}
Tensor& ldexp_(Tensor& self, const Tensor& other) {
  dispatch::call<ldexp__impl>(OpId::ldexp_, self, other);
  return self;
}

EMBER_REGISTER_OP(fmax, &fmax);
EMBER_REGISTER_OP(fmin, &fmin);
EMBER_REGISTER_OP(igamma, &igamma);
EMBER_REGISTER_OP(igammac, &igammac);
EMBER_REGISTER_OP(igamma_, &igamma_);
EMBER_REGISTER_OP(igammac_, &igammac_);
EMBER_REGISTER_OP(frexp_Tensor, &frexp);
EMBER_REGISTER_OP(ldexp_Tensor, &ldexp);
EMBER_REGISTER_OP(ldexp_, &ldexp_);


}  // namespace ember
