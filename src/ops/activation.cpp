// Activations: hardtanh (a clamp, so integers work too), relu6 = hardtanh(0, 6), and the
// floating-only hardswish, hardsigmoid, gelu ('none' = erf form, 'tanh' approximation), silu.
#include "../backends/cpu/activation_kernels.h"
#include "../dispatch/boxing.h"
#include "elementwise.h"
#include "pointwise_helpers.h"

namespace ember {

using cpu::ActivationOp;
using dispatch::OpId;

namespace {

// ---- hardtanh ----
// As PyTorch: the limits never promote the result. On integer tensors they are truncated to
// integers first (a limit an int64 cannot hold is an error), and uint8 refuses negative ones.
std::pair<Scalar, Scalar> hardtanh_limits(const Tensor& self, const Scalar& min_val,
                                          const Scalar& max_val) {
  EMBER_CHECK(self.dtype() != kBool, "Bool inputs not supported for hardtanh");
  if (!is_integral(self.dtype(), /*include_bool=*/false)) return {min_val, max_val};
  ops::check_scalar_fits(min_val, kInt64);
  ops::check_scalar_fits(max_val, kInt64);
  const int64_t lo = min_val.to_int(), hi = max_val.to_int();
  EMBER_CHECK(self.dtype() != kUInt8 || (lo >= 0 && hi >= 0),
              "cannot do hardtanh on an unsigned type with negative limits");
  return {Scalar(lo), Scalar(hi)};
}

Tensor hardtanh_impl(const Tensor& self, const Scalar& min_val, const Scalar& max_val) {
  ops::check_not_quantized("hardtanh", {self});
  auto [lo, hi] = hardtanh_limits(self, min_val, max_val);
  Tensor out = ops::new_output(self.sizes(), self.dtype(), self.device());
  if (!out.is_meta()) ops::clamp_into(out, self, lo, hi);
  return out;
}

Tensor hardtanh__impl(const Tensor& self, const Scalar& min_val, const Scalar& max_val) {
  ops::check_not_quantized("hardtanh_", {self});
  auto [lo, hi] = hardtanh_limits(self, min_val, max_val);
  ops::check_no_internal_overlap("hardtanh_", self);
  if (!self.is_meta()) ops::clamp_into(self, self, lo, hi);
  return ops::mark_written(self);
}

Tensor relu6_impl(const Tensor& self) { return hardtanh(self, 0, 6); }

// ---- hardswish, hardsigmoid, silu, gelu ----
constexpr const char* activation_name(ActivationOp op, bool inplace) {
  switch (op) {
    case ActivationOp::Hardswish: return inplace ? "hardswish_" : "hardswish";
    case ActivationOp::Hardsigmoid: return inplace ? "hardsigmoid_" : "hardsigmoid";
    case ActivationOp::Silu: return inplace ? "silu_" : "silu";
    case ActivationOp::GeluErf:
    case ActivationOp::GeluTanh: return "gelu";
  }
  return "activation";
}

template <ActivationOp Op>
Tensor activation_impl(const Tensor& self) {
  ops::check_not_quantized(activation_name(Op, false), {self});
  Tensor out = ops::new_output(self.sizes(), self.dtype(), self.device());
  if (!out.is_meta()) cpu::activation_kernel(Op, out, self);
  return out;
}

template <ActivationOp Op>
Tensor activation__impl(const Tensor& self) {
  constexpr const char* name = activation_name(Op, true);
  ops::check_not_quantized(name, {self});
  ops::check_no_internal_overlap(name, self);
  if (!self.is_meta()) cpu::activation_kernel(Op, self, self);
  return ops::mark_written(self);
}

Tensor gelu_impl(const Tensor& self, const std::string& approximate) {
  EMBER_CHECK(approximate == "none" || approximate == "tanh",
              "approximate argument must be either none or tanh.");
  return approximate == "none" ? activation_impl<ActivationOp::GeluErf>(self)
                               : activation_impl<ActivationOp::GeluTanh>(self);
}

}  // namespace

Tensor hardtanh(const Tensor& self, const Scalar& min_val, const Scalar& max_val) {
  return dispatch::call<hardtanh_impl>(OpId::hardtanh, self, min_val, max_val);
}
Tensor& hardtanh_(Tensor& self, const Scalar& min_val, const Scalar& max_val) {
  dispatch::call<hardtanh__impl>(OpId::hardtanh_, self, min_val, max_val);
  return self;
}
Tensor relu6(const Tensor& self) { return dispatch::call<relu6_impl>(OpId::relu6, self); }
Tensor hardswish(const Tensor& self) {
  return dispatch::call<activation_impl<ActivationOp::Hardswish>>(OpId::hardswish, self);
}
Tensor& hardswish_(Tensor& self) {
  dispatch::call<activation__impl<ActivationOp::Hardswish>>(OpId::hardswish_, self);
  return self;
}
Tensor hardsigmoid(const Tensor& self) {
  return dispatch::call<activation_impl<ActivationOp::Hardsigmoid>>(OpId::hardsigmoid, self);
}
Tensor& hardsigmoid_(Tensor& self) {
  dispatch::call<activation__impl<ActivationOp::Hardsigmoid>>(OpId::hardsigmoid_, self);
  return self;
}
Tensor gelu(const Tensor& self, const std::string& approximate) {
  return dispatch::call<gelu_impl>(OpId::gelu, self, approximate);
}
Tensor silu(const Tensor& self) {
  return dispatch::call<activation_impl<ActivationOp::Silu>>(OpId::silu, self);
}
Tensor& silu_(Tensor& self) {
  dispatch::call<activation__impl<ActivationOp::Silu>>(OpId::silu_, self);
  return self;
}

using UnaryFn = Tensor (*)(const Tensor&);
using UnaryInplaceFn = Tensor& (*)(Tensor&);
EMBER_REGISTER_OP(hardtanh, static_cast<Tensor (*)(const Tensor&, const Scalar&, const Scalar&)>(&hardtanh));
EMBER_REGISTER_OP(hardtanh_, static_cast<Tensor& (*)(Tensor&, const Scalar&, const Scalar&)>(&hardtanh_));
EMBER_REGISTER_OP(relu6, static_cast<UnaryFn>(&relu6));
EMBER_REGISTER_OP(hardswish, static_cast<UnaryFn>(&hardswish));
EMBER_REGISTER_OP(hardswish_, static_cast<UnaryInplaceFn>(&hardswish_));
EMBER_REGISTER_OP(hardsigmoid, static_cast<UnaryFn>(&hardsigmoid));
EMBER_REGISTER_OP(hardsigmoid_, static_cast<UnaryInplaceFn>(&hardsigmoid_));
EMBER_REGISTER_OP(gelu, static_cast<Tensor (*)(const Tensor&, const std::string&)>(&gelu));
EMBER_REGISTER_OP(silu, static_cast<UnaryFn>(&silu));
EMBER_REGISTER_OP(silu_, static_cast<UnaryInplaceFn>(&silu_));

}  // namespace ember
