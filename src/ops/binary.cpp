// Elementwise binary arithmetic: add, sub, mul, div, remainder, pow, maximum, minimum, bitwise.
// Each op: type promotion → broadcast → output allocation → CPU kernel (meta stops before it).
#include "../backends/cpu/binary_kernels.h"
#include "../backends/cpu/copy_kernel.h"
#include "../dispatch/boxing.h"
#include "elementwise.h"

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

BinaryPlan plan_binary(const char* op, const Tensor& a, const Tensor& b) {
  ops::check_not_quantized(op, {a, b});
  BinaryPlan p;
  p.dtype = result_type(a, b);
  p.device = ops::common_device(op, {a, b});
  p.shape = broadcast_shapes(a.sizes(), b.sizes());
  p.a = ops::cast(a, p.dtype);
  p.b = ops::cast(b, p.dtype);
  return p;
}

void check_alpha(const char* op, ScalarType dtype, const Scalar& alpha) {
  EMBER_CHECK(!(alpha.is_floating() && !is_floating(dtype)), "For integral input tensors, argument alpha must not be a floating point number.");
  EMBER_CHECK(!(alpha.is_integral() && dtype == kBool && alpha.to_int() != 0 && alpha.to_int() != 1),
              op, ": Boolean alpha only supported for Boolean results.");
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
  // empty()'s backend, called directly: a kernel's output allocation is not an op of its own.
  Tensor out(make_intrusive<TensorImpl>(self.sizes(), self.dtype(), self.device()));
  if (!out.is_meta()) cpu::add_kernel(out, self, other, alpha);
  return out;
}

Tensor add_impl(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  if (Tensor out = add_no_promotion(self, other, alpha); out.defined()) return out;
  BinaryPlan p = plan_binary("add", self, other);
  check_alpha("add", p.dtype, alpha);
  Tensor out = empty(p.shape, TensorOptions(p.dtype).device(p.device));
  if (!out.is_meta()) cpu::add_kernel(out, p.a, p.b, alpha);
  return out;
}

Tensor add__impl(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  BinaryPlan p = plan_binary("add_", self, other);
  check_alpha("add_", p.dtype, alpha);
  ops::check_inplace("add_", self, p.shape, p.dtype);
  ops::check_no_internal_overlap("add_", self);
  if (!self.is_meta()) {
    if (p.dtype == self.dtype()) {
      cpu::add_kernel(self, self, p.b, alpha);
    } else {  // e.g. float16 += float32: compute wide, then narrow into self
      Tensor wide = empty(p.shape, TensorOptions(p.dtype));
      cpu::add_kernel(wide, p.a, p.b, alpha);
      cpu::copy_kernel(self, wide);
    }
  }
  return ops::mark_written(self);
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

}  // namespace

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

using BinaryAlphaFn = Tensor (*)(const Tensor&, const Tensor&, const Scalar&);
using InplaceAlphaFn = Tensor& (*)(Tensor&, const Tensor&, const Scalar&);
EMBER_REGISTER_OP(add_Tensor, static_cast<BinaryAlphaFn>(&add));
EMBER_REGISTER_OP(sub_Tensor, static_cast<BinaryAlphaFn>(&sub));
EMBER_REGISTER_OP(add__Tensor, static_cast<InplaceAlphaFn>(&add_));
EMBER_REGISTER_OP(sub__Tensor, static_cast<InplaceAlphaFn>(&sub_));

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

Tensor operator+(const Tensor& a, const Tensor& b) { return add(a, b); }
Tensor operator+(const Tensor& a, const Scalar& b) { return a.add(b); }
Tensor operator+(const Scalar& a, const Tensor& b) { return add(wrapped_scalar_tensor(a), b); }
Tensor operator-(const Tensor& a, const Tensor& b) { return sub(a, b); }
Tensor operator-(const Tensor& a, const Scalar& b) { return a.sub(b); }
Tensor operator-(const Scalar& a, const Tensor& b) { return sub(wrapped_scalar_tensor(a), b); }
Tensor& operator+=(Tensor& a, const Tensor& b) { return a.add_(b); }
Tensor& operator+=(Tensor& a, const Scalar& b) { return a.add_(b); }
Tensor& operator-=(Tensor& a, const Tensor& b) { return a.sub_(b); }
Tensor& operator-=(Tensor& a, const Scalar& b) { return a.sub_(b); }

}  // namespace ember
