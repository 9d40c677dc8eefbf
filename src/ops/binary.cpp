// Elementwise binary arithmetic: add, sub, mul, div, remainder, pow, maximum, minimum, bitwise.
// Each op: type promotion → broadcast → output allocation → CPU kernel (meta stops before it).
#include <functional>

#include "ember/ops/complex.h"
#include "ember/ops/math.h"

#include "../backends/cpu/binary_kernels.h"
#include "../backends/cpu/copy_kernel.h"
#include "../autograd/record.h"
#include "../dispatch/boxing.h"
#include "elementwise.h"
#include "pointwise_helpers.h"

namespace ember {

using dispatch::OpId;

namespace {

// The plan shared by the binary ops: compute dtype, broadcast shape, converted operands.
struct BinaryPlan {
  ScalarType dtype;
  Device device;
  DimVector shape;
  Tensor a, b;
};

// `dtype` overrides the promoted dtype (true division computes integers in floating point).
BinaryPlan plan_binary(const char* op, const Tensor& a, const Tensor& b,
                       std::optional<ScalarType> dtype = std::nullopt) {
  ops::check_not_quantized(op, {a, b});
  BinaryPlan p;
  p.dtype = dtype ? *dtype : result_type(a, b);
  p.device = ops::common_device(op, {a, b});
  p.shape = broadcast_shapes(a.sizes(), b.sizes());
  p.a = ops::cast(a, p.dtype);
  p.b = ops::cast(b, p.dtype);
  return p;
}

// out-of-place: a new output; kernel(out, a, b) unless it is meta.
template <class K>
Tensor run_binary(const BinaryPlan& p, K&& kernel) {
  Tensor out = ops::new_output(p.shape, p.dtype, p.device, {p.a, p.b});
  if (!out.is_meta()) kernel(out, p.a, p.b);
  return out;
}

// In-place: self must hold the result; computed wide and narrowed when the dtypes differ.
template <class K>
Tensor run_binary_(const char* op, const Tensor& self, const BinaryPlan& p, K&& kernel) {
  ops::check_inplace_elementwise(op, self, p.shape, p.dtype);
  ops::write_inplace(self, p.dtype, [&](const Tensor& out) { kernel(out, p.a, p.b); });
  return ops::mark_written(self);
}

void check_alpha(const char* op, ScalarType dtype, const Scalar& alpha) {
  EMBER_CHECK(!(alpha.is_floating() && !is_floating(dtype) && !is_complex(dtype)), "For integral input tensors, argument alpha must not be a floating point number.");
  EMBER_CHECK(!(alpha.is_complex() && !is_complex(dtype)), "For non-complex input tensors, argument alpha must not be a complex number.");
  EMBER_CHECK(!(alpha.is_integral() && dtype == kBool && alpha.to_int() != 0 && alpha.to_int() != 1),
              op, ": Boolean alpha only supported for Boolean results.");
}

auto add_with(const Scalar& alpha) {
  return [alpha](const Tensor& out, const Tensor& a, const Tensor& b) {
    cpu::add_kernel(out, a, b, alpha);
  };
}

// add's fast path, with the general path's result and checks: operands of one dtype, shape and
// device (and no wrapped number, whose weak dtype could lose to the default float) need no
// promotion, broadcast or cast, and for small tensors those steps, the output's dispatched
// allocation included, were most of the op's cost. Undefined when it does not apply.
Tensor add_no_promotion(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  if (self.dtype() != other.dtype() || !self.sizes().equals(other.sizes()) ||
      self.device() != other.device() || is_quantized(self.dtype()) ||
      self.impl()->is_wrapped_number() || other.impl()->is_wrapped_number()) {
    return Tensor();
  }
  check_alpha("add", self.dtype(), alpha);
  ops::check_scalar_fits(alpha, self.dtype());
  // empty()'s backend, called directly: a kernel's output allocation is not an op of its own.
  // Other layouts (channels_last...) keep theirs: Note [Elementwise output layout].
  Tensor out = self.is_contiguous() && other.is_contiguous()
                   ? Tensor(make_intrusive<TensorImpl>(self.sizes(), self.dtype(), self.device()))
                   : ops::new_output(self.sizes(), self.dtype(), self.device(), {self, other});
  if (!out.is_meta()) cpu::add_kernel(out, self, other, alpha);
  return out;
}

Tensor add_impl(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  if (Tensor out = add_no_promotion(self, other, alpha); out.defined()) return out;
  BinaryPlan p = plan_binary("add", self, other);
  check_alpha("add", p.dtype, alpha);
  ops::check_scalar_fits(alpha, p.dtype);
  return run_binary(p, add_with(alpha));
}

Tensor add__impl(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  BinaryPlan p = plan_binary("add_", self, ops::inplace_input(self, other));
  check_alpha("add_", p.dtype, alpha);
  ops::check_scalar_fits(alpha, p.dtype);
  return run_binary_("add_", self, p, add_with(alpha));
}

void check_sub(const Tensor& self, const Tensor& other) {
  EMBER_CHECK(self.dtype() != kBool || other.dtype() != kBool,
              "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` "
              "or `logical_xor()` operator instead.");
}
Tensor sub_impl(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  check_sub(self, other);
  return add_impl(self, other, -alpha);
}
Tensor sub__impl(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  check_sub(self, other);
  return add__impl(self, other, -alpha);
}

// ---- mul ----
Tensor mul_impl(const Tensor& self, const Tensor& other) {
  return run_binary(plan_binary("mul", self, other), cpu::mul_kernel);
}
Tensor mul__impl(const Tensor& self, const Tensor& other) {
  return run_binary_("mul_", self, plan_binary("mul_", self, ops::inplace_input(self, other)),
                     cpu::mul_kernel);
}

// ---- div and remainder ----
enum class RoundingMode { None, Trunc, Floor };

RoundingMode parse_rounding_mode(const std::optional<std::string>& mode) {
  if (!mode) return RoundingMode::None;
  if (*mode == "trunc") return RoundingMode::Trunc;
  if (*mode == "floor") return RoundingMode::Floor;
  EMBER_FAIL("div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '",
             *mode, "'");
}

// True division computes integers and bools in the default floating dtype.
BinaryPlan plan_div(const char* op, const Tensor& self, const Tensor& other, RoundingMode mode) {
  std::optional<ScalarType> dtype;
  if (mode == RoundingMode::None) {
    ScalarType promoted = result_type(self, other);
    if (!is_floating(promoted) && !is_complex(promoted)) dtype = default_dtype();
  }
  return plan_binary(op, self, other, dtype);
}

// Integer division by zero is an error, as in PyTorch; checked before anything is written.
// (Bool reaches the kernel, which refuses it with PyTorch's "not implemented" text.)
// An empty output divides nothing, so it never fails.
void check_integer_divisor(const Tensor& out, const Tensor& divisor) {
  EMBER_CHECK(!(is_integral(out.dtype(), /*include_bool=*/false) && out.numel() > 0 &&
                cpu::has_zero(divisor)),
              "ZeroDivisionError");
}

auto div_kernel_for(RoundingMode mode) {
  return [mode](const Tensor& out, const Tensor& a, const Tensor& b) {
    switch (mode) {
      case RoundingMode::None: return cpu::div_true_kernel(out, a, b);
      case RoundingMode::Trunc:
        check_integer_divisor(out, b);
        return cpu::div_trunc_kernel(out, a, b);
      case RoundingMode::Floor:
        check_integer_divisor(out, b);
        return cpu::div_floor_kernel(out, a, b);
    }
  };
}

Tensor div_mode_impl(const Tensor& self, const Tensor& other,
                     const std::optional<std::string>& rounding_mode) {
  RoundingMode mode = parse_rounding_mode(rounding_mode);
  return run_binary(plan_div("div", self, other, mode), div_kernel_for(mode));
}
Tensor div__mode_impl(const Tensor& self, const Tensor& other,
                      const std::optional<std::string>& rounding_mode) {
  RoundingMode mode = parse_rounding_mode(rounding_mode);
  BinaryPlan p = plan_div("div_", self, ops::inplace_input(self, other), mode);
  return run_binary_("div_", self, p, div_kernel_for(mode));
}
Tensor div_impl(const Tensor& self, const Tensor& other) {
  return div_mode_impl(self, other, std::nullopt);
}
Tensor div__impl(const Tensor& self, const Tensor& other) {
  return div__mode_impl(self, other, std::nullopt);
}

void remainder_kernel_checked(const Tensor& out, const Tensor& a, const Tensor& b) {
  check_integer_divisor(out, b);
  cpu::remainder_kernel(out, a, b);
}
Tensor remainder_impl(const Tensor& self, const Tensor& other) {
  return run_binary(plan_binary("remainder", self, other), remainder_kernel_checked);
}
Tensor remainder__impl(const Tensor& self, const Tensor& other) {
  BinaryPlan p = plan_binary("remainder_", self, ops::inplace_input(self, other));
  return run_binary_("remainder_", self, p, remainder_kernel_checked);
}

// ---- pow ----
Tensor pow_tensor_tensor_impl(const Tensor& self, const Tensor& exponent) {
  return run_binary(plan_binary("pow", self, exponent), cpu::pow_kernel);
}
Tensor pow__tensor_impl(const Tensor& self, const Tensor& exponent) {
  BinaryPlan p = plan_binary("pow_", self, ops::inplace_input(self, exponent));
  return run_binary_("pow_", self, p, cpu::pow_kernel);
}

void check_pow_exponent(const Tensor& self, const Scalar& exponent) {
  EMBER_CHECK(!(is_integral(self.dtype(), /*include_bool=*/true) && !exponent.is_floating() && !exponent.is_complex() &&
                exponent.to_int() < 0),
              "Integers to negative integer powers are not allowed.");
}

// out = base ** exponent with base already in out's dtype. As PyTorch: exponent 0 gives ones
// (even for NaN), 1 a copy; a bool exponent is neither and reaches the kernel.
void pow_scalar_into(const Tensor& out, const Tensor& base, const Scalar& exponent) {
  if (!exponent.is_bool() && exponent.to_complex() == 0.0) {
    cpu::fill_kernel(out, 1);
  } else if (!exponent.is_bool() && exponent.to_complex() == 1.0) {
    if (!out.is_same(base)) cpu::copy_kernel(out, base);
  } else {
    if (is_integral(out.dtype(), /*include_bool=*/false)) ops::check_scalar_fits(exponent, out.dtype());
    cpu::pow_scalar_kernel(out, base, exponent);
  }
}

Tensor pow_tensor_scalar_impl(const Tensor& self, const Scalar& exponent) {
  ops::check_not_quantized("pow", {self});
  check_pow_exponent(self, exponent);
  ScalarType dtype = result_type(self, exponent);
  Tensor out = ops::new_output(self.sizes(), dtype, self.device(), {self});
  if (!out.is_meta()) pow_scalar_into(out, ops::cast(self, dtype), exponent);
  return out;
}

Tensor pow__scalar_impl(const Tensor& self, const Scalar& exponent) {
  ops::check_not_quantized("pow_", {self});
  check_pow_exponent(self, exponent);
  ScalarType dtype = result_type(self, exponent);
  EMBER_CHECK(dtype == self.dtype(), "Found dtype ", scalar_type_name(self.dtype()),
              " but expected ", scalar_type_name(dtype));
  ops::check_no_internal_overlap("pow_", self);
  if (!self.is_meta()) pow_scalar_into(self, self, exponent);
  return ops::mark_written(self);
}

// ---- maximum, minimum, bitwise ----
Tensor maximum_impl(const Tensor& self, const Tensor& other) {
  return run_binary(plan_binary("maximum", self, other), cpu::maximum_kernel);
}
Tensor minimum_impl(const Tensor& self, const Tensor& other) {
  return run_binary(plan_binary("minimum", self, other), cpu::minimum_kernel);
}

template <cpu::BitwiseOp Op>
void bitwise_kernel(const Tensor& out, const Tensor& a, const Tensor& b) {
  cpu::bitwise_kernel(Op, out, a, b);
}
constexpr const char* bitwise_name(cpu::BitwiseOp op, bool inplace) {
  switch (op) {
    case cpu::BitwiseOp::And: return inplace ? "bitwise_and_" : "bitwise_and";
    case cpu::BitwiseOp::Or: return inplace ? "bitwise_or_" : "bitwise_or";
    case cpu::BitwiseOp::Xor: return inplace ? "bitwise_xor_" : "bitwise_xor";
  }
  return "bitwise";
}
template <cpu::BitwiseOp Op>
Tensor bitwise_impl(const Tensor& self, const Tensor& other) {
  return run_binary(plan_binary(bitwise_name(Op, false), self, other), bitwise_kernel<Op>);
}
template <cpu::BitwiseOp Op>
Tensor bitwise__impl(const Tensor& self, const Tensor& other) {
  constexpr const char* name = bitwise_name(Op, true);
  BinaryPlan p = plan_binary(name, self, ops::inplace_input(self, other));
  return run_binary_(name, self, p, bitwise_kernel<Op>);
}

// ---- schema-shaped frontends that are not public functions ----
Tensor div_tensor_op(const Tensor& self, const Tensor& other) {
  return dispatch::call<div_impl>(OpId::div_Tensor, self, other);
}
Tensor div_tensor_mode_op(const Tensor& self, const Tensor& other,
                          const std::optional<std::string>& rounding_mode) {
  return dispatch::call<div_mode_impl>(OpId::div_Tensor_mode, self, other, rounding_mode);
}
Tensor& div__tensor_op(Tensor& self, const Tensor& other) {
  dispatch::call<div__impl>(OpId::div__Tensor, self, other);
  return self;
}
Tensor& div__tensor_mode_op(Tensor& self, const Tensor& other,
                            const std::optional<std::string>& rounding_mode) {
  dispatch::call<div__mode_impl>(OpId::div__Tensor_mode, self, other, rounding_mode);
  return self;
}

}  // namespace

// ---- public functions (the frontends) ----
Tensor add(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  return dispatch::call<add_impl>(OpId::add_Tensor, self, other, alpha);
}
Tensor sub(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  return dispatch::call<sub_impl>(OpId::sub_Tensor, self, other, alpha);
}
Tensor& add_(Tensor& self, const Tensor& other, const Scalar& alpha) {
  dispatch::call<add__impl>(OpId::add__Tensor, self, other, alpha);
  return self;
}
Tensor& sub_(Tensor& self, const Tensor& other, const Scalar& alpha) {
  dispatch::call<sub__impl>(OpId::sub__Tensor, self, other, alpha);
  return self;
}
Tensor mul(const Tensor& self, const Tensor& other) {
  return dispatch::call<mul_impl>(OpId::mul_Tensor, self, other);
}
Tensor& mul_(Tensor& self, const Tensor& other) {
  dispatch::call<mul__impl>(OpId::mul__Tensor, self, other);
  return self;
}
// Plain division is aten::div.Tensor (what `a / b` is in PyTorch); a rounding mode selects
// aten::div.Tensor_mode.
Tensor div(const Tensor& self, const Tensor& other, std::optional<std::string> rounding_mode) {
  if (!rounding_mode) return div_tensor_op(self, other);
  return div_tensor_mode_op(self, other, rounding_mode);
}
Tensor& div_(Tensor& self, const Tensor& other, std::optional<std::string> rounding_mode) {
  if (!rounding_mode) return div__tensor_op(self, other);
  return div__tensor_mode_op(self, other, rounding_mode);
}
Tensor remainder(const Tensor& self, const Tensor& other) {
  return dispatch::call<remainder_impl>(OpId::remainder_Tensor, self, other);
}
Tensor& remainder_(Tensor& self, const Tensor& other) {
  dispatch::call<remainder__impl>(OpId::remainder__Tensor, self, other);
  return self;
}
Tensor pow(const Tensor& self, const Tensor& exponent) {
  return dispatch::call<pow_tensor_tensor_impl>(OpId::pow_Tensor_Tensor, self, exponent);
}
Tensor pow(const Tensor& self, const Scalar& exponent) {
  return dispatch::call<pow_tensor_scalar_impl>(OpId::pow_Tensor_Scalar, self, exponent);
}
Tensor& pow_(Tensor& self, const Tensor& exponent) {
  dispatch::call<pow__tensor_impl>(OpId::pow__Tensor, self, exponent);
  return self;
}
Tensor& pow_(Tensor& self, const Scalar& exponent) {
  dispatch::call<pow__scalar_impl>(OpId::pow__Scalar, self, exponent);
  return self;
}
Tensor maximum(const Tensor& self, const Tensor& other) {
  return dispatch::call<maximum_impl>(OpId::maximum, self, other);
}
Tensor minimum(const Tensor& self, const Tensor& other) {
  return dispatch::call<minimum_impl>(OpId::minimum, self, other);
}
Tensor bitwise_and(const Tensor& self, const Tensor& other) {
  return dispatch::call<bitwise_impl<cpu::BitwiseOp::And>>(OpId::bitwise_and_Tensor, self, other);
}
Tensor bitwise_or(const Tensor& self, const Tensor& other) {
  return dispatch::call<bitwise_impl<cpu::BitwiseOp::Or>>(OpId::bitwise_or_Tensor, self, other);
}
Tensor bitwise_xor(const Tensor& self, const Tensor& other) {
  return dispatch::call<bitwise_impl<cpu::BitwiseOp::Xor>>(OpId::bitwise_xor_Tensor, self, other);
}
Tensor& bitwise_and_(Tensor& self, const Tensor& other) {
  dispatch::call<bitwise__impl<cpu::BitwiseOp::And>>(OpId::bitwise_and__Tensor, self, other);
  return self;
}
Tensor& bitwise_or_(Tensor& self, const Tensor& other) {
  dispatch::call<bitwise__impl<cpu::BitwiseOp::Or>>(OpId::bitwise_or__Tensor, self, other);
  return self;
}
Tensor& bitwise_xor_(Tensor& self, const Tensor& other) {
  dispatch::call<bitwise__impl<cpu::BitwiseOp::Xor>>(OpId::bitwise_xor__Tensor, self, other);
  return self;
}

using BinaryAlphaFn = Tensor (*)(const Tensor&, const Tensor&, const Scalar&);
using InplaceAlphaFn = Tensor& (*)(Tensor&, const Tensor&, const Scalar&);
using BinaryFn = Tensor (*)(const Tensor&, const Tensor&);
using InplaceFn = Tensor& (*)(Tensor&, const Tensor&);
using BinaryScalarFn = Tensor (*)(const Tensor&, const Scalar&);
using InplaceScalarFn = Tensor& (*)(Tensor&, const Scalar&);
EMBER_REGISTER_OP(add_Tensor, static_cast<BinaryAlphaFn>(&add));
EMBER_REGISTER_OP(sub_Tensor, static_cast<BinaryAlphaFn>(&sub));
EMBER_REGISTER_OP(add__Tensor, static_cast<InplaceAlphaFn>(&add_));
EMBER_REGISTER_OP(sub__Tensor, static_cast<InplaceAlphaFn>(&sub_));
EMBER_REGISTER_OP(mul_Tensor, static_cast<BinaryFn>(&mul));
EMBER_REGISTER_OP(mul__Tensor, static_cast<InplaceFn>(&mul_));
EMBER_REGISTER_OP(div_Tensor, &div_tensor_op);
EMBER_REGISTER_OP(div__Tensor, &div__tensor_op);
EMBER_REGISTER_OP(div_Tensor_mode, &div_tensor_mode_op);
EMBER_REGISTER_OP(div__Tensor_mode, &div__tensor_mode_op);
EMBER_REGISTER_OP(remainder_Tensor, static_cast<BinaryFn>(&remainder));
EMBER_REGISTER_OP(remainder__Tensor, static_cast<InplaceFn>(&remainder_));
EMBER_REGISTER_OP(pow_Tensor_Tensor, static_cast<BinaryFn>(&pow));
EMBER_REGISTER_OP(pow_Tensor_Scalar, static_cast<BinaryScalarFn>(&pow));
EMBER_REGISTER_OP(pow__Tensor, static_cast<InplaceFn>(&pow_));
EMBER_REGISTER_OP(pow__Scalar, static_cast<InplaceScalarFn>(&pow_));
EMBER_REGISTER_OP(maximum, static_cast<BinaryFn>(&maximum));
EMBER_REGISTER_OP(minimum, static_cast<BinaryFn>(&minimum));
EMBER_REGISTER_OP(bitwise_and_Tensor, static_cast<BinaryFn>(&bitwise_and));
EMBER_REGISTER_OP(bitwise_or_Tensor, static_cast<BinaryFn>(&bitwise_or));
EMBER_REGISTER_OP(bitwise_xor_Tensor, static_cast<BinaryFn>(&bitwise_xor));
EMBER_REGISTER_OP(bitwise_and__Tensor, static_cast<InplaceFn>(&bitwise_and_));
EMBER_REGISTER_OP(bitwise_or__Tensor, static_cast<InplaceFn>(&bitwise_or_));
EMBER_REGISTER_OP(bitwise_xor__Tensor, static_cast<InplaceFn>(&bitwise_xor_));

// ---- autograd (Note [Backward rules] in docs/adding-an-op.md) ----
namespace {
using autograd::OpNode;
using autograd::tensor_list;

// PyTorch's overloads taking a Scalar (a Python number operand) name their own nodes.
const char* grad_fn_name(const Tensor& operand, const char* if_number, const char* if_tensor) {
  return operand.impl()->is_wrapped_number() ? if_number : if_tensor;
}

// d(self + alpha*other) = grad, alpha*grad (the engine sums broadcast gradients down).
template <int sign>
OpNode::Formula add_sub_formula() {
  return [](OpNode& n, const tensor_list& g) {
    const Scalar alpha = n.value(0).to_scalar();  // _saved_alpha
    Tensor other_grad;
    if (n.needs(1)) {
      other_grad = alpha.to_complex() == 1.0 && !alpha.is_bool() ? g[0]
                   : g[0] * wrapped_scalar_tensor(alpha.is_complex() ? Scalar(std::conj(alpha.to_complex())) : alpha);
      if (sign < 0) other_grad = -other_grad;
    }
    return tensor_list{n.needs(0) ? g[0] : Tensor(), other_grad};
  };
}

template <OpId id, Tensor (*impl)(const Tensor&, const Tensor&, const Scalar&), int sign>
Tensor add_sub_autograd(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  autograd::Recorder r(sign > 0 ? "AddBackward0" : "SubBackward0", self, other);
  Tensor out = r.forward([&] { return dispatch::call<impl>(id, self, other, alpha); });
  if (!r) return out;
  r.values("alpha", alpha);
  return r.finish(out, add_sub_formula<sign>());
}

template <OpId id, Tensor (*impl)(const Tensor&, const Tensor&, const Scalar&), int sign>
Tensor add_sub__autograd(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  autograd::Recorder r(sign > 0 ? "AddBackward0" : "SubBackward0", self, other);
  autograd::check_inplace_if(r, self);
  r.forward([&] { return dispatch::call<impl>(id, self, other, alpha); });
  if (!r) return self;
  r.values("alpha", alpha);
  r.finish_inplace(self, add_sub_formula<sign>());
  return self;
}

// d(self * other) = grad * other, grad * self.
Tensor mul_autograd(const Tensor& self, const Tensor& other) {
  autograd::Recorder r("MulBackward0", self, other);
  Tensor out = r.forward([&] { return dispatch::call<mul_impl>(OpId::mul_Tensor, self, other); });
  if (!r) return out;
  // self before other, when saved and when read: saved-tensor hooks see them in PyTorch's order.
  const size_t self_ = r.save_if(r.needs(1), self, "self"), other_ = r.save_if(r.needs(0), other, "other");
  return r.finish(out, [=](OpNode& n, const tensor_list& g) {
    const Tensor self_v = n.saved(self_), other_v = n.saved(other_);
    return tensor_list{n.needs(0) ? g[0] * conj_if_complex(other_v) : Tensor(),
                       n.needs(1) ? g[0] * conj_if_complex(self_v) : Tensor()};
  });
}

Tensor mul__autograd(const Tensor& self, const Tensor& other) {
  autograd::Recorder r("MulBackward0", self, other);
  autograd::check_inplace_if(r, self);
  // self's value before the write is needed for other's gradient.
  const bool self_grad = r && r.needs(1);
  const size_t self_ =
      r ? r.save_if(self_grad, self_grad ? ops::original_self(self) : Tensor(), "self") : 0;
  const size_t other_ = r ? r.save_if(r.needs(0), other, "other") : 0;
  r.forward([&] { return dispatch::call<mul__impl>(OpId::mul__Tensor, self, other); });
  if (!r) return self;
  r.finish_inplace(self, [=](OpNode& n, const tensor_list& g) {
    return tensor_list{n.needs(0) ? g[0] * conj_if_complex(n.saved(other_)) : Tensor(),
                       n.needs(1) ? g[0] * conj_if_complex(n.saved(self_)) : Tensor()};
  });
  return self;
}

// ---- div ----
// DivBackward0: d(self / other) = grad / other, -grad * self / other^2. With a rounding mode
// (DivBackward2) the quotient is piecewise constant: both gradients are zero; without one,
// div.Tensor_mode differentiates as div.Tensor.
OpNode::Formula div_formula(size_t self_, size_t other_, bool rounded) {
  return [=](OpNode& n, const tensor_list& g) {
    const Tensor self = n.saved(self_), other = n.saved(other_);
    const bool self_grad = n.needs(0);
    if (rounded) {
      return tensor_list{self_grad ? zeros_like(g[0]) : Tensor(),
                         n.needs(1) ? zeros_like(g[0]) : Tensor()};
    }
    // conj is the identity on real tensors (Note [Complex autograd])
    return tensor_list{self_grad ? g[0] / conj_if_complex(other) : Tensor(),
                       n.needs(1) ? -g[0] * conj_if_complex((self / other) / other) : Tensor()};
  };
}

// `rounding_mode`: div.Tensor_mode's (DivBackward2 saves it), null for div.Tensor.
using OptRoundingMode = std::optional<std::string>;
Tensor div_autograd_common(const char* name, const Tensor& self, const Tensor& other,
                           const OptRoundingMode* rounding_mode, const std::function<Tensor()>& forward) {
  const bool rounded = rounding_mode && rounding_mode->has_value();
  autograd::Recorder r(name, self, other);
  Tensor out = r.forward(forward);
  if (!r) return out;
  const size_t self_ = r.save_if(r.needs(1), self, "self"), other_ = r.save(other, "other");
  if (rounding_mode) r.values("rounding_mode", *rounding_mode);  // DivBackward2's
  return r.finish(out, div_formula(self_, other_, rounded));
}

Tensor div__autograd_common(const char* name, const Tensor& self, const Tensor& other,
                            const OptRoundingMode* rounding_mode, const std::function<Tensor()>& forward) {
  const bool rounded = rounding_mode && rounding_mode->has_value();
  autograd::Recorder r(name, self, other);
  autograd::check_inplace_if(r, self);
  // Note [Saved self of in-place rules]
  const bool other_grad = r && r.needs(1);
  const size_t self_ =
      r ? r.save_if(other_grad, other_grad ? ops::original_self(self) : Tensor(), "self") : 0;
  const size_t other_ = r ? r.save(other, "other") : 0;
  r.forward(forward);
  if (!r) return self;
  if (rounding_mode) r.values("rounding_mode", *rounding_mode);  // DivBackward2's
  r.finish_inplace(self, div_formula(self_, other_, rounded));
  return self;
}

Tensor div_autograd(const Tensor& self, const Tensor& other) {
  return div_autograd_common("DivBackward0", self, other, nullptr, [&] {
    return dispatch::call<div_impl>(OpId::div_Tensor, self, other);
  });
}
Tensor div__autograd(const Tensor& self, const Tensor& other) {
  return div__autograd_common("DivBackward0", self, other, nullptr, [&] {
    return dispatch::call<div__impl>(OpId::div__Tensor, self, other);
  });
}
Tensor div_mode_autograd(const Tensor& self, const Tensor& other,
                         const std::optional<std::string>& rounding_mode) {
  return div_autograd_common("DivBackward2", self, other, &rounding_mode, [&] {
    return dispatch::call<div_mode_impl>(OpId::div_Tensor_mode, self, other, rounding_mode);
  });
}
Tensor div__mode_autograd(const Tensor& self, const Tensor& other,
                          const std::optional<std::string>& rounding_mode) {
  return div__autograd_common("DivBackward2", self, other, &rounding_mode, [&] {
    return dispatch::call<div__mode_impl>(OpId::div__Tensor_mode, self, other, rounding_mode);
  });
}

// ---- remainder ----
// d remainder(self, other) = grad, -grad * floor(self / other). A Python number as other is
// PyTorch's remainder.Scalar overload, RemainderBackward0, which saves nothing.
const char* remainder_grad_fn(const Tensor& other) {
  return grad_fn_name(other, "RemainderBackward0", "RemainderBackward1");
}

OpNode::Formula remainder_formula(size_t self_, size_t other_) {
  return [=](OpNode& n, const tensor_list& g) {
    const Tensor self = n.saved(self_), other = n.saved(other_);
    return tensor_list{n.needs(0) ? g[0] : Tensor(),
                       n.needs(1) ? -g[0] * self.div(other, "floor") : Tensor()};
  };
}

Tensor remainder_autograd(const Tensor& self, const Tensor& other) {
  autograd::Recorder r(remainder_grad_fn(other), self, other);
  Tensor out = r.forward(
      [&] { return dispatch::call<remainder_impl>(OpId::remainder_Tensor, self, other); });
  if (!r) return out;
  // (RemainderBackward0, a number divisor, shows nothing)
  const bool shown = !other.impl()->is_wrapped_number();
  const size_t self_ = r.save_if(r.needs(1), self, shown ? "self" : nullptr);
  const size_t other_ = r.save_if(r.needs(1), other, shown ? "other" : nullptr);
  return r.finish(out, remainder_formula(self_, other_));
}

Tensor remainder__autograd(const Tensor& self, const Tensor& other) {
  autograd::Recorder r(remainder_grad_fn(other), self, other);
  autograd::check_inplace_if(r, self);
  const bool other_grad = r && r.needs(1);
  const size_t self_ =
      r ? r.save_if(other_grad, other_grad ? ops::original_self(self) : Tensor(),
                    other.impl()->is_wrapped_number() ? nullptr : "self") : 0;
  const size_t other_ = r ? r.save_if(other_grad, other, other.impl()->is_wrapped_number() ? nullptr : "other") : 0;
  r.forward([&] { return dispatch::call<remainder__impl>(OpId::remainder__Tensor, self, other); });
  if (!r) return self;
  r.finish_inplace(self, remainder_formula(self_, other_));
  return self;
}

// ---- pow ----
// PowBackward1 (pow.Tensor_Tensor), as PyTorch's pow_backward_self / pow_backward_exponent:
//   d/dself     = grad * exponent * self^(exponent - 1), but 0 where exponent == 0;
//   d/dexponent = grad * result * log(self), but 0 where self == 0 and exponent >= 0
//                 (0^b is flat in b there; for b < 0 the limit is -inf).
// A Python number as the base is PyTorch's pow.Scalar overload, PowBackward2 (same formula).
OpNode::Formula pow_formula(size_t self_, size_t exponent_, size_t result_) {
  return [=](OpNode& n, const tensor_list& g) {
    const Tensor self = n.saved(self_), exponent = n.saved(exponent_), result = n.saved(result_);
    Tensor self_grad, exponent_grad;
    if (n.needs(0)) {
      // Complex: the conjugate of the derivative (Note [Complex autograd]).
      self_grad = where(exponent == 0, wrapped_scalar_tensor(0.0),
                        g[0] * conj_if_complex(exponent * self.pow(exponent - 1)));
    }
    if (n.needs(1)) {
      // (0^b is flat in b for b >= 0: only a real exponent has that ordering)
      const Tensor flat = exponent.is_complex() ? self == 0 : logical_and(self == 0, exponent >= 0);
      exponent_grad = g[0] * where(flat, wrapped_scalar_tensor(0.0),
                                   conj_if_complex(result * self.to(result.dtype()).log()));
    }
    return tensor_list{self_grad, exponent_grad};
  };
}

Tensor pow_tensor_tensor_autograd(const Tensor& self, const Tensor& exponent) {
  autograd::Recorder r(grad_fn_name(self, "PowBackward2", "PowBackward1"), self, exponent);
  Tensor out = r.forward([&] {
    return dispatch::call<pow_tensor_tensor_impl>(OpId::pow_Tensor_Tensor, self, exponent);
  });
  if (!r) return out;
  // PowBackward2 (a Python number as the base) shows its base as a number, as PyTorch's.
  const bool number_base = self.impl()->is_wrapped_number();
  const size_t self_ = r.save(self, number_base ? nullptr : "self");
  const size_t exponent_ = r.save(exponent, "exponent"), result_ = exponent_ + 1;
  if (number_base) r.values("self", self.item());
  r.finish(out, pow_formula(self_, exponent_, result_));
  r.save_output(r.needs(1) ? out : Tensor(), "result");  // slot result_, saved once out has its history
  return out;
}

Tensor pow__tensor_autograd(const Tensor& self, const Tensor& exponent) {
  autograd::Recorder r("PowBackward1", self, exponent);
  autograd::check_inplace_if(r, self);
  // Both gradients read self's old value (Note [Saved self of in-place rules]).
  const size_t self_ = r ? r.save(ops::original_self(self), "self") : 0;
  const size_t exponent_ = r ? r.save(exponent, "exponent") : 0;
  r.forward([&] { return dispatch::call<pow__tensor_impl>(OpId::pow__Tensor, self, exponent); });
  if (!r) return self;
  r.finish_inplace(self, pow_formula(self_, exponent_, exponent_ + 1));
  r.save_output(r.needs(1) ? self : Tensor(), "result");
  return self;
}

// PowBackward0 (pow.Tensor_Scalar): d/dself = grad * exponent * self^(exponent - 1), or zeros for
// exponent 0 (where the forward gives ones even at NaN or 0^-1).
OpNode::Formula pow_scalar_formula(size_t self_) {
  return [=](OpNode& n, const tensor_list& g) {
    const Tensor self = n.saved(self_);
    const Scalar exponent = n.value(0).to_scalar();  // _saved_exponent
    if (exponent.is_complex()) {
      // A complex exponent: grad * conj(e self^(e-1)) (Note [Complex autograd]).
      const std::complex<double> e = exponent.to_complex();
      if (e == 0.0) return tensor_list{zeros_like(self)};
      return tensor_list{g[0] * conj_physical(mul(self.pow(Scalar(e - 1.0)), exponent))};
    }
    if (!exponent.is_bool() && exponent.to_double() == 0.0) return tensor_list{zeros_like(self)};
    const double e = exponent.to_double();
    return tensor_list{g[0] * conj_if_complex(mul(self.pow(e - 1), exponent))};  // mul.Scalar, as PyTorch
  };
}

Tensor pow_tensor_scalar_autograd(const Tensor& self, const Scalar& exponent) {
  autograd::Recorder r("PowBackward0", self);
  Tensor out = r.forward([&] {
    return dispatch::call<pow_tensor_scalar_impl>(OpId::pow_Tensor_Scalar, self, exponent);
  });
  if (!r) return out;
  const size_t self_ = r.save(self, "self");
  r.values("exponent", exponent);
  return r.finish(out, pow_scalar_formula(self_));
}

Tensor pow__scalar_autograd(const Tensor& self, const Scalar& exponent) {
  autograd::Recorder r("PowBackward0", self);
  autograd::check_inplace_if(r, self);
  const size_t self_ = r ? r.save(ops::original_self(self), "self") : 0;  // self before the write
  r.forward([&] { return dispatch::call<pow__scalar_impl>(OpId::pow__Scalar, self, exponent); });
  if (!r) return self;
  r.values("exponent", exponent);
  r.finish_inplace(self, pow_scalar_formula(self_));
  return self;
}

// ---- maximum, minimum ----
// The gradient goes to the larger (smaller) operand; ties split it in half, as PyTorch 1.13.
// Where either is NaN no comparison holds, and both receive the whole gradient, as there.
template <bool is_max>
Tensor maximum_minimum_autograd(const Tensor& self, const Tensor& other) {
  autograd::Recorder r(is_max ? "MaximumBackward0" : "MinimumBackward0", self, other);
  Tensor out = r.forward([&] {
    return is_max ? dispatch::call<maximum_impl>(OpId::maximum, self, other)
                  : dispatch::call<minimum_impl>(OpId::minimum, self, other);
  });
  if (!r) return out;
  const size_t self_ = r.save(self, "self"), other_ = r.save(other, "other");
  return r.finish(out, [=](OpNode& n, const tensor_list& g) {
    const Tensor a = n.saved(self_), b = n.saved(other_);
    const Tensor shared = where(a == b, g[0] / 2, g[0]);
    // PyTorch: shared.masked_fill_(loser, 0); a where records the same values differentiably.
    const Tensor zero = wrapped_scalar_tensor(0.0);
    return tensor_list{n.needs(0) ? where(is_max ? a < b : a > b, zero, shared) : Tensor(),
                       n.needs(1) ? where(is_max ? a > b : a < b, zero, shared) : Tensor()};
  });
}

}  // namespace

EMBER_REGISTER_AUTOGRAD(add_Tensor, (&add_sub_autograd<OpId::add_Tensor, add_impl, 1>));
EMBER_REGISTER_AUTOGRAD(sub_Tensor, (&add_sub_autograd<OpId::sub_Tensor, sub_impl, -1>));
EMBER_REGISTER_AUTOGRAD(mul_Tensor, &mul_autograd);
EMBER_REGISTER_AUTOGRAD(mul__Tensor, &mul__autograd);
EMBER_REGISTER_AUTOGRAD(add__Tensor, (&add_sub__autograd<OpId::add__Tensor, add__impl, 1>));
EMBER_REGISTER_AUTOGRAD(sub__Tensor, (&add_sub__autograd<OpId::sub__Tensor, sub__impl, -1>));
EMBER_REGISTER_AUTOGRAD(div_Tensor, &div_autograd);
EMBER_REGISTER_AUTOGRAD(div__Tensor, &div__autograd);
EMBER_REGISTER_AUTOGRAD(div_Tensor_mode, &div_mode_autograd);
EMBER_REGISTER_AUTOGRAD(div__Tensor_mode, &div__mode_autograd);
EMBER_REGISTER_AUTOGRAD(remainder_Tensor, &remainder_autograd);
EMBER_REGISTER_AUTOGRAD(remainder__Tensor, &remainder__autograd);
EMBER_REGISTER_AUTOGRAD(pow_Tensor_Tensor, &pow_tensor_tensor_autograd);
EMBER_REGISTER_AUTOGRAD(pow__Tensor, &pow__tensor_autograd);
EMBER_REGISTER_AUTOGRAD(pow_Tensor_Scalar, &pow_tensor_scalar_autograd);
EMBER_REGISTER_AUTOGRAD(pow__Scalar, &pow__scalar_autograd);
EMBER_REGISTER_AUTOGRAD(maximum, &maximum_minimum_autograd<true>);
EMBER_REGISTER_AUTOGRAD(minimum, &maximum_minimum_autograd<false>);
// Bitwise ops (integer and bool only) get no rule.

// ---- Tensor methods and operators ----
Tensor Tensor::add(const Tensor& o, const Scalar& alpha) const { return ember::add(*this, o, alpha); }
Tensor Tensor::add(const Scalar& o, const Scalar& alpha) const {
  return ember::add(*this, wrapped_scalar_tensor(o), alpha);
}
Tensor& Tensor::add_(const Tensor& o, const Scalar& alpha) { return ember::add_(*this, o, alpha); }
Tensor& Tensor::add_(const Scalar& o, const Scalar& alpha) {
  return ember::add_(*this, wrapped_scalar_tensor(o), alpha);
}
Tensor Tensor::sub(const Tensor& o, const Scalar& alpha) const { return ember::sub(*this, o, alpha); }
Tensor Tensor::sub(const Scalar& o, const Scalar& alpha) const {
  return ember::sub(*this, wrapped_scalar_tensor(o), alpha);
}
Tensor& Tensor::sub_(const Tensor& o, const Scalar& alpha) { return ember::sub_(*this, o, alpha); }
Tensor& Tensor::sub_(const Scalar& o, const Scalar& alpha) {
  return ember::sub_(*this, wrapped_scalar_tensor(o), alpha);
}
Tensor Tensor::mul(const Tensor& o) const { return ember::mul(*this, o); }
Tensor Tensor::mul(const Scalar& o) const { return ember::mul(*this, wrapped_scalar_tensor(o)); }
Tensor& Tensor::mul_(const Tensor& o) { return ember::mul_(*this, o); }
Tensor& Tensor::mul_(const Scalar& o) { return ember::mul_(*this, wrapped_scalar_tensor(o)); }
Tensor Tensor::div(const Tensor& o, std::optional<std::string> mode) const {
  return ember::div(*this, o, std::move(mode));
}
Tensor Tensor::div(const Scalar& o, std::optional<std::string> mode) const {
  return ember::div(*this, wrapped_scalar_tensor(o), std::move(mode));
}
Tensor& Tensor::div_(const Tensor& o, std::optional<std::string> mode) {
  return ember::div_(*this, o, std::move(mode));
}
Tensor& Tensor::div_(const Scalar& o, std::optional<std::string> mode) {
  return ember::div_(*this, wrapped_scalar_tensor(o), std::move(mode));
}
Tensor Tensor::remainder(const Tensor& o) const { return ember::remainder(*this, o); }
Tensor Tensor::remainder(const Scalar& o) const {
  return ember::remainder(*this, wrapped_scalar_tensor(o));
}
Tensor& Tensor::remainder_(const Tensor& o) { return ember::remainder_(*this, o); }
Tensor& Tensor::remainder_(const Scalar& o) {
  return ember::remainder_(*this, wrapped_scalar_tensor(o));
}
Tensor Tensor::pow(const Tensor& e) const { return ember::pow(*this, e); }
Tensor Tensor::pow(const Scalar& e) const { return ember::pow(*this, e); }
Tensor& Tensor::pow_(const Tensor& e) { return ember::pow_(*this, e); }
Tensor& Tensor::pow_(const Scalar& e) { return ember::pow_(*this, e); }
Tensor Tensor::maximum(const Tensor& o) const { return ember::maximum(*this, o); }
Tensor Tensor::minimum(const Tensor& o) const { return ember::minimum(*this, o); }

#define EMBER_BITWISE_METHODS(name)                                                            \
  Tensor Tensor::name(const Tensor& o) const { return ember::name(*this, o); }                 \
  Tensor Tensor::name(const Scalar& o) const { return ember::name(*this, wrapped_scalar_tensor(o)); } \
  Tensor& Tensor::name##_(const Tensor& o) { return ember::name##_(*this, o); }                \
  Tensor& Tensor::name##_(const Scalar& o) { return ember::name##_(*this, wrapped_scalar_tensor(o)); }
EMBER_BITWISE_METHODS(bitwise_and)
EMBER_BITWISE_METHODS(bitwise_or)
EMBER_BITWISE_METHODS(bitwise_xor)
#undef EMBER_BITWISE_METHODS

Tensor operator+(const Tensor& a, const Tensor& b) { return add(a, b); }
Tensor operator+(const Tensor& a, const Scalar& b) { return a.add(b); }
Tensor operator+(const Scalar& a, const Tensor& b) { return add(wrapped_scalar_tensor(a), b); }
Tensor operator-(const Tensor& a, const Tensor& b) { return sub(a, b); }
Tensor operator-(const Tensor& a, const Scalar& b) { return a.sub(b); }
Tensor operator-(const Scalar& a, const Tensor& b) { return sub(wrapped_scalar_tensor(a), b); }
Tensor operator*(const Tensor& a, const Tensor& b) { return mul(a, b); }
Tensor operator*(const Tensor& a, const Scalar& b) { return a.mul(b); }
Tensor operator*(const Scalar& a, const Tensor& b) { return mul(wrapped_scalar_tensor(a), b); }
Tensor operator/(const Tensor& a, const Tensor& b) { return div(a, b); }
Tensor operator/(const Tensor& a, const Scalar& b) { return a.div(b); }
Tensor operator/(const Scalar& a, const Tensor& b) { return div(wrapped_scalar_tensor(a), b); }
Tensor operator%(const Tensor& a, const Tensor& b) { return remainder(a, b); }
Tensor operator%(const Tensor& a, const Scalar& b) { return a.remainder(b); }
Tensor operator&(const Tensor& a, const Tensor& b) { return bitwise_and(a, b); }
Tensor operator|(const Tensor& a, const Tensor& b) { return bitwise_or(a, b); }
Tensor operator^(const Tensor& a, const Tensor& b) { return bitwise_xor(a, b); }
Tensor& operator+=(Tensor& a, const Tensor& b) { return a.add_(b); }
Tensor& operator+=(Tensor& a, const Scalar& b) { return a.add_(b); }
Tensor& operator-=(Tensor& a, const Tensor& b) { return a.sub_(b); }
Tensor& operator-=(Tensor& a, const Scalar& b) { return a.sub_(b); }
Tensor& operator*=(Tensor& a, const Tensor& b) { return a.mul_(b); }
Tensor& operator*=(Tensor& a, const Scalar& b) { return a.mul_(b); }
Tensor& operator/=(Tensor& a, const Tensor& b) { return a.div_(b); }
Tensor& operator/=(Tensor& a, const Scalar& b) { return a.div_(b); }

}  // namespace ember
