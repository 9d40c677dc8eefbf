// Elementwise binary math: atan2 hypot copysign nextafter logaddexp logaddexp2 xlogy fmod
// heaviside gcd lcm bitwise_left_shift bitwise_right_shift special_xlog1py special_zeta (the
// in-place forms where PyTorch has them), atan2.out, and their backward rules.
//
// Type promotion as PyTorch 1.13: the operands' result_type; atan2, copysign, xlogy, xlog1py and
// zeta then compute integer results in the default floating dtype ("float ops"), while hypot,
// logaddexp(2) and nextafter keep it and refuse integers by their kernel's name, as fmod,
// heaviside, gcd, lcm and the shifts refuse what their kernels do not support.
#include "../autograd/record.h"
#include "../backends/cpu/binary_kernels.h"
#include "../backends/cpu/math_kernels.h"
#include "../dispatch/boxing.h"
#include "elementwise.h"
#include "ember/ops/factory.h"
#include "ember/ops/math.h"
#include "ember/ops/out.h"
#include "ember/ops/pointwise.h"
#include "pointwise_helpers.h"

namespace ember {

using cpu::MathBinaryOp;
using dispatch::OpId;

namespace {

struct BinaryInfo {
  const char* name;
  const char* inplace_name;
  bool to_float;  // integer results compute in the default floating dtype
};

constexpr BinaryInfo info_of(MathBinaryOp op) {
  switch (op) {
    case MathBinaryOp::Atan2: return {"atan2", "atan2_", true};
    case MathBinaryOp::Hypot: return {"hypot", "hypot_", false};
    case MathBinaryOp::Copysign: return {"copysign", "copysign_", true};
    case MathBinaryOp::Nextafter: return {"nextafter", "nextafter_", false};
    case MathBinaryOp::Logaddexp: return {"logaddexp", "", false};
    case MathBinaryOp::Logaddexp2: return {"logaddexp2", "", false};
    case MathBinaryOp::Xlogy: return {"xlogy", "xlogy_", true};
    case MathBinaryOp::Xlog1py: return {"special_xlog1py", "", true};
    case MathBinaryOp::Zeta: return {"special_zeta", "", true};
    case MathBinaryOp::Fmod: return {"fmod", "fmod_", false};
    case MathBinaryOp::Heaviside: return {"heaviside", "heaviside_", false};
    case MathBinaryOp::Gcd: return {"gcd", "gcd_", false};
    case MathBinaryOp::Lcm: return {"lcm", "lcm_", false};
    case MathBinaryOp::LeftShift: return {"bitwise_left_shift", "bitwise_left_shift_", false};
    case MathBinaryOp::RightShift: return {"bitwise_right_shift", "bitwise_right_shift_", false};
  }
  return {"", "", false};
}

ScalarType compute_dtype(MathBinaryOp op, const Tensor& a, const Tensor& b) {
  ScalarType t = result_type(a, b);
  if (info_of(op).to_float && !is_floating(t)) t = default_dtype();
  return t;
}

// Checks PyTorch makes before the kernel (so meta tensors see them too).
void check_operands(MathBinaryOp op, const Tensor& a, const Tensor& b) {
  if (op == MathBinaryOp::Heaviside) {
    EMBER_CHECK(a.dtype() == b.dtype(),
                "heaviside is not yet implemented for tensors with different dtypes.");
  }
}

// Integer fmod by zero is an error, as in PyTorch; checked before anything is written.
void check_divisor(MathBinaryOp op, const Tensor& out, const Tensor& divisor) {
  if (op != MathBinaryOp::Fmod || out.numel() == 0) return;
  EMBER_CHECK(!(is_integral(out.dtype(), /*include_bool=*/false) && cpu::has_zero(divisor)),
              "ZeroDivisionError");
}

template <MathBinaryOp Op>
Tensor math_binary_impl(const Tensor& self, const Tensor& other) {
  constexpr BinaryInfo info = info_of(Op);
  // (PyTorch's order: the dtype checks and type promotion refuse a quantized operand first)
  check_operands(Op, self, other);
  const ScalarType dtype = compute_dtype(Op, self, other);
  ops::check_not_quantized(info.name, {self, other});
  const Device device = ops::common_device(info.name, {self, other});
  const Tensor a = ops::cast(self, dtype), b = ops::cast(other, dtype);
  Tensor out = ops::new_output(broadcast_shapes(self.sizes(), other.sizes()), dtype, device, {a, b});
  if (!out.is_meta()) {
    check_divisor(Op, out, b);
    cpu::math_binary_kernel(Op, out, a, b);
  }
  return out;
}

template <MathBinaryOp Op>
Tensor math_binary__impl(const Tensor& self, const Tensor& other_) {
  constexpr BinaryInfo info = info_of(Op);
  check_operands(Op, self, other_);
  const ScalarType dtype = compute_dtype(Op, self, other_);
  ops::check_not_quantized(info.inplace_name, {self, other_});
  const Tensor other = ops::inplace_input(self, other_);
  ops::common_device(info.inplace_name, {self, other});
  const DimVector shape = broadcast_shapes(self.sizes(), other.sizes());
  ops::check_inplace_elementwise(info.inplace_name, self, shape, dtype);
  const Tensor a = ops::cast(self, dtype), b = ops::cast(other, dtype);
  if (!self.is_meta() && self.numel() > 0) check_divisor(Op, self, b);
  ops::write_inplace(self, dtype, [&](const Tensor& out) { cpu::math_binary_kernel(Op, out, a, b); });
  return ops::mark_written(self);
}

// ---- autograd ----
using autograd::OpNode;
using autograd::tensor_list;

const char* name_by_number(const Tensor& operand, const char* if_number, const char* if_tensor) {
  return operand.impl()->is_wrapped_number() ? if_number : if_tensor;
}

// PyTorch 1.13's node name: a Python number operand (a wrapped number, as the Scalar overloads
// pass it) selects the overload's own node.
template <MathBinaryOp Op>
const char* grad_fn(const Tensor& self, const Tensor& other) {
  switch (Op) {
    case MathBinaryOp::Atan2: return "Atan2Backward0";
    case MathBinaryOp::Hypot: return "HypotBackward0";
    case MathBinaryOp::Copysign: return name_by_number(other, "CopysignBackward1", "CopysignBackward0");
    case MathBinaryOp::Logaddexp: return "LogaddexpBackward0";
    case MathBinaryOp::Logaddexp2: return "Logaddexp2Backward0";
    case MathBinaryOp::Xlogy:
      return self.impl()->is_wrapped_number() ? "XlogyBackward1"
             : other.impl()->is_wrapped_number() ? "XlogyBackward2" : "XlogyBackward0";
    case MathBinaryOp::Xlog1py:
      return self.impl()->is_wrapped_number() ? "SpecialXlog1PyBackward1"
             : other.impl()->is_wrapped_number() ? "SpecialXlog1PyBackward2" : "SpecialXlog1PyBackward0";
    case MathBinaryOp::Zeta:
      return self.impl()->is_wrapped_number() ? "SpecialZetaBackward1"
             : other.impl()->is_wrapped_number() ? "SpecialZetaBackward2" : "SpecialZetaBackward0";
    case MathBinaryOp::Fmod: return name_by_number(other, "FmodBackward0", "FmodBackward1");
    default: return "";
  }
}

// Gradients for incoming g with x = self, y = other, r = result (undefined when not saved).
template <MathBinaryOp Op>
tensor_list math_binary_backward(OpNode& n, const Tensor& g, const Tensor& x, const Tensor& y,
                                 const Tensor& r) {
  const bool nx = n.needs(0), ny = n.needs(1);
  switch (Op) {
    case MathBinaryOp::Atan2: {
      const Tensor recip = reciprocal(x * x + y * y);
      return {nx ? g * y * recip : Tensor(), ny ? g * -x * recip : Tensor()};
    }
    case MathBinaryOp::Hypot: return {nx ? g * x / r : Tensor(), ny ? g * y / r : Tensor()};
    case MathBinaryOp::Copysign: {
      // the result over self (the sign flip), 0 where self is 0; no gradient to the sign
      Tensor self_grad;
      if (nx) self_grad = g * where(eq(x, 0), wrapped_scalar_tensor(0.0), r / x);
      return {self_grad, ny ? zeros_like(g) : Tensor()};  // (summed down to other's shape)
    }
    case MathBinaryOp::Logaddexp:
      return {nx ? g / add(exp(y - x), 1) : Tensor(), ny ? g / add(exp(x - y), 1) : Tensor()};
    case MathBinaryOp::Logaddexp2:
      return {nx ? g / add(exp2(y - x), 1) : Tensor(), ny ? g / add(exp2(x - y), 1) : Tensor()};
    case MathBinaryOp::Xlogy:
      return {nx ? g * xlogy(ne(x, 0), y) : Tensor(), ny ? g * x / y : Tensor()};
    case MathBinaryOp::Xlog1py:
      return {nx ? g * special_xlog1py(ne(x, 0), y) : Tensor(), ny ? g * x / add(y, 1) : Tensor()};
    case MathBinaryOp::Zeta:
      // PyTorch has no derivative in the first argument either ("not implemented")
      EMBER_CHECK(!nx, "the derivative for 'zeta' is not implemented.");
      return {Tensor(), ny ? g * -x * special_zeta(add(x, 1.0), y) : Tensor()};
    case MathBinaryOp::Fmod:
      return {nx ? g : Tensor(), ny ? -g * div(x, y, std::string("trunc")) : Tensor()};
    default: break;
  }
  return {Tensor(), Tensor()};
}

enum Saves : unsigned { kSelf = 1, kOther = 2, kResult = 4 };

template <MathBinaryOp Op>
constexpr unsigned saves() {
  switch (Op) {
    case MathBinaryOp::Atan2: return kSelf | kOther;
    case MathBinaryOp::Hypot: return kSelf | kOther | kResult;
    case MathBinaryOp::Copysign: return kSelf | kResult;
    case MathBinaryOp::Logaddexp: case MathBinaryOp::Logaddexp2: return kSelf | kOther;
    case MathBinaryOp::Xlogy: case MathBinaryOp::Xlog1py: case MathBinaryOp::Zeta:
      return kSelf | kOther;
    case MathBinaryOp::Fmod: return kSelf | kOther;
    default: return 0;
  }
}

template <MathBinaryOp Op>
OpNode::Formula math_binary_formula() {
  return [](OpNode& n, const tensor_list& g) {
    size_t slot = 0;
    const Tensor x = (saves<Op>() & kSelf) ? n.saved(slot++) : Tensor();
    const Tensor y = (saves<Op>() & kOther) ? n.saved(slot++) : Tensor();
    const Tensor r = (saves<Op>() & kResult) ? n.saved(slot++) : Tensor();
    return math_binary_backward<Op>(n, g[0], x, y, r);
  };
}

// How PyTorch's node shows what it saved (_saved_self / _saved_other): a Python number operand
// (the Scalar overloads' nodes) is a number (xlogy, xlog1py, zeta) or not shown, and fmod's and
// zeta's nodes with a number `other` show nothing at all.
template <MathBinaryOp Op>
void name_saved(autograd::Recorder& r, const Tensor& self, const Tensor& other, size_t first) {
  auto& slots = r.node().saved_slots();
  const bool self_number = self.impl()->is_wrapped_number(), other_number = other.impl()->is_wrapped_number();
  if ((Op == MathBinaryOp::Fmod || Op == MathBinaryOp::Zeta) && other_number) {
    for (size_t i = first; i < slots.size(); ++i) slots[i].name = nullptr;
    return;
  }
  size_t slot = first;
  if (saves<Op>() & kSelf) slots[slot++].name = self_number ? nullptr : "self";
  if (saves<Op>() & kOther) slots[slot++].name = other_number ? nullptr : "other";
  constexpr bool shows_numbers =
      Op == MathBinaryOp::Xlogy || Op == MathBinaryOp::Xlog1py || Op == MathBinaryOp::Zeta;
  if (shows_numbers && self_number) r.values("self", self.item());
  if (shows_numbers && other_number) r.values("other", other.item());
}

template <MathBinaryOp Op, OpId id>
Tensor math_binary_autograd(const Tensor& self, const Tensor& other) {
  autograd::Recorder r(grad_fn<Op>(self, other), self, other);
  Tensor out = r.forward([&] { return dispatch::call<math_binary_impl<Op>>(id, self, other); });
  if (!r) return out;
  if (saves<Op>() & kSelf) r.save(self);
  if (saves<Op>() & kOther) r.save(other);
  name_saved<Op>(r, self, other, 0);
  r.finish(out, math_binary_formula<Op>());
  if (saves<Op>() & kResult) r.save_output(out, "result");
  return out;
}

template <MathBinaryOp Op, OpId id>
Tensor math_binary__autograd(const Tensor& self, const Tensor& other) {
  autograd::Recorder r(grad_fn<Op>(self, other), self, other);
  autograd::check_inplace_if(r, self);
  if (r && (saves<Op>() & kSelf)) r.save(ops::original_self(self));
  if (r && (saves<Op>() & kOther)) r.save(other);
  if (r) name_saved<Op>(r, self, other, 0);
  r.forward([&] { return dispatch::call<math_binary__impl<Op>>(id, self, other); });
  if (!r) return self;
  r.finish_inplace(self, math_binary_formula<Op>());
  if (saves<Op>() & kResult) r.save_output(self, "result");
  return self;
}

Tensor atan2_out_impl(const Tensor& self, const Tensor& other, const Tensor& out) {
  write_out(atan2(self, other), out);
  return out;
}

}  // namespace

#define EMBER_MATH_BINARY(name, id, Op)                                                       \
  Tensor name(const Tensor& self, const Tensor& other) {                                      \
    return dispatch::call<math_binary_impl<MathBinaryOp::Op>>(OpId::id, self, other);         \
  }                                                                                           \
  EMBER_REGISTER_OP(id, static_cast<Tensor (*)(const Tensor&, const Tensor&)>(&ember::name));
#define EMBER_MATH_BINARY_(name, id, Op)                                        \
  Tensor& name##_(Tensor& self, const Tensor& other) {                          \
    dispatch::call<math_binary__impl<MathBinaryOp::Op>>(OpId::id, self, other); \
    return self;                                                                \
  }                                                                             \
  EMBER_REGISTER_OP(id, static_cast<Tensor& (*)(Tensor&, const Tensor&)>(&ember::name##_));

EMBER_MATH_BINARY(atan2, atan2, Atan2)
EMBER_MATH_BINARY_(atan2, atan2_, Atan2)
EMBER_MATH_BINARY(hypot, hypot, Hypot)
EMBER_MATH_BINARY_(hypot, hypot_, Hypot)
EMBER_MATH_BINARY(copysign, copysign_Tensor, Copysign)
EMBER_MATH_BINARY_(copysign, copysign__Tensor, Copysign)
EMBER_MATH_BINARY(nextafter, nextafter, Nextafter)
EMBER_MATH_BINARY_(nextafter, nextafter_, Nextafter)
EMBER_MATH_BINARY(logaddexp, logaddexp, Logaddexp)
EMBER_MATH_BINARY(logaddexp2, logaddexp2, Logaddexp2)
EMBER_MATH_BINARY(xlogy, xlogy_Tensor, Xlogy)
EMBER_MATH_BINARY_(xlogy, xlogy__Tensor, Xlogy)
EMBER_MATH_BINARY(fmod, fmod_Tensor, Fmod)
EMBER_MATH_BINARY_(fmod, fmod__Tensor, Fmod)
EMBER_MATH_BINARY(heaviside, heaviside, Heaviside)
EMBER_MATH_BINARY_(heaviside, heaviside_, Heaviside)
EMBER_MATH_BINARY(gcd, gcd, Gcd)
EMBER_MATH_BINARY_(gcd, gcd_, Gcd)
EMBER_MATH_BINARY(lcm, lcm, Lcm)
EMBER_MATH_BINARY_(lcm, lcm_, Lcm)
EMBER_MATH_BINARY(bitwise_left_shift, bitwise_left_shift_Tensor, LeftShift)
EMBER_MATH_BINARY_(bitwise_left_shift, bitwise_left_shift__Tensor, LeftShift)
EMBER_MATH_BINARY(bitwise_right_shift, bitwise_right_shift_Tensor, RightShift)
EMBER_MATH_BINARY_(bitwise_right_shift, bitwise_right_shift__Tensor, RightShift)
EMBER_MATH_BINARY(special_xlog1py, special_xlog1py, Xlog1py)
EMBER_MATH_BINARY(special_zeta, special_zeta, Zeta)
#undef EMBER_MATH_BINARY
#undef EMBER_MATH_BINARY_

Tensor& atan2_out(const Tensor& self, const Tensor& other, Tensor& out) {
  dispatch::call<atan2_out_impl>(OpId::atan2_out, self, other, out);
  return out;
}
EMBER_REGISTER_OP(atan2_out, &ember::atan2_out);

// Differentiable ones (heaviside, gcd, lcm, the shifts and nextafter have no derivative in
// PyTorch either).
EMBER_REGISTER_AUTOGRAD(atan2, (&math_binary_autograd<MathBinaryOp::Atan2, OpId::atan2>));
EMBER_REGISTER_AUTOGRAD(atan2_, (&math_binary__autograd<MathBinaryOp::Atan2, OpId::atan2_>));
EMBER_REGISTER_AUTOGRAD(hypot, (&math_binary_autograd<MathBinaryOp::Hypot, OpId::hypot>));
EMBER_REGISTER_AUTOGRAD(hypot_, (&math_binary__autograd<MathBinaryOp::Hypot, OpId::hypot_>));
EMBER_REGISTER_AUTOGRAD(copysign_Tensor, (&math_binary_autograd<MathBinaryOp::Copysign, OpId::copysign_Tensor>));
EMBER_REGISTER_AUTOGRAD(copysign__Tensor, (&math_binary__autograd<MathBinaryOp::Copysign, OpId::copysign__Tensor>));
EMBER_REGISTER_AUTOGRAD(logaddexp, (&math_binary_autograd<MathBinaryOp::Logaddexp, OpId::logaddexp>));
EMBER_REGISTER_AUTOGRAD(logaddexp2, (&math_binary_autograd<MathBinaryOp::Logaddexp2, OpId::logaddexp2>));
EMBER_REGISTER_AUTOGRAD(xlogy_Tensor, (&math_binary_autograd<MathBinaryOp::Xlogy, OpId::xlogy_Tensor>));
EMBER_REGISTER_AUTOGRAD(xlogy__Tensor, (&math_binary__autograd<MathBinaryOp::Xlogy, OpId::xlogy__Tensor>));
EMBER_REGISTER_AUTOGRAD(fmod_Tensor, (&math_binary_autograd<MathBinaryOp::Fmod, OpId::fmod_Tensor>));
EMBER_REGISTER_AUTOGRAD(fmod__Tensor, (&math_binary__autograd<MathBinaryOp::Fmod, OpId::fmod__Tensor>));
EMBER_REGISTER_AUTOGRAD(special_xlog1py, (&math_binary_autograd<MathBinaryOp::Xlog1py, OpId::special_xlog1py>));
EMBER_REGISTER_AUTOGRAD(special_zeta, (&math_binary_autograd<MathBinaryOp::Zeta, OpId::special_zeta>));

}  // namespace ember
