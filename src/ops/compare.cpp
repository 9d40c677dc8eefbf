// Comparisons (eq ne lt le gt ge), logical and/or/xor, equal and allclose.
//
// As in PyTorch, both operands are promoted to their common dtype (a uint8 tensor compared with
// -1 compares against 255) and the result is bool. The in-place forms write 0/1 in self's dtype,
// whatever it is: no "can't be cast" check applies to them.
#include "../backends/cpu/compare_kernels.h"
#include "../dispatch/boxing.h"
#include "elementwise.h"
#include "ember/ops/math.h"
#include "../quant/quantizer.h"
#include "pointwise_helpers.h"

namespace ember {

using cpu::CompareOp;
using dispatch::OpId;

namespace {

constexpr const char* compare_name(CompareOp op) {
  switch (op) {
    case CompareOp::Eq: return "eq";
    case CompareOp::Ne: return "ne";
    case CompareOp::Lt: return "lt";
    case CompareOp::Le: return "le";
    case CompareOp::Gt: return "gt";
    case CompareOp::Ge: return "ge";
    case CompareOp::LogicalAnd: return "logical_and";
    case CompareOp::LogicalOr: return "logical_or";
    case CompareOp::LogicalXor: return "logical_xor";
  }
  return "compare";
}

template <CompareOp Op>
Tensor compare_impl(const Tensor& self, const Tensor& other) {
  constexpr const char* name = compare_name(Op);
  ops::check_not_quantized(name, {self, other});
  const ScalarType dtype = result_type(self, other);
  const Device device = ops::common_device(name, {self, other});
  Tensor out =
      ops::new_output(broadcast_shapes(self.sizes(), other.sizes()), kBool, device, {self, other});
  if (!out.is_meta()) cpu::compare_kernel(Op, out, ops::cast(self, dtype), ops::cast(other, dtype));
  return out;
}

template <CompareOp Op>
Tensor compare__impl(const Tensor& self, const Tensor& other_in) {
  constexpr const char* name = compare_name(Op);
  ops::check_not_quantized(name, {self, other_in});
  const Tensor other = ops::inplace_input(self, other_in);
  const ScalarType dtype = result_type(self, other);
  ops::common_device(name, {self, other});
  // Any dtype takes a 0/1 result, so only the shape is checked (self's dtype as compute dtype).
  ops::check_inplace_elementwise(name, self, broadcast_shapes(self.sizes(), other.sizes()),
                                 self.dtype());
  ops::write_inplace(self, kBool, [&](const Tensor& out) {
    cpu::compare_kernel(Op, out, ops::cast(self, dtype), ops::cast(other, dtype));
  });
  return ops::mark_written(self);
}

// In-place frontends (public only as Tensor methods).
#define EMBER_COMPARE_INPLACE_OP(name, Op)                                   \
  Tensor& name##_op(Tensor& self, const Tensor& other) {                    \
    dispatch::call<compare__impl<CompareOp::Op>>(OpId::name, self, other);  \
    return self;                                                            \
  }
EMBER_COMPARE_INPLACE_OP(eq__Tensor, Eq)
EMBER_COMPARE_INPLACE_OP(ne__Tensor, Ne)
EMBER_COMPARE_INPLACE_OP(lt__Tensor, Lt)
EMBER_COMPARE_INPLACE_OP(le__Tensor, Le)
EMBER_COMPARE_INPLACE_OP(gt__Tensor, Gt)
EMBER_COMPARE_INPLACE_OP(ge__Tensor, Ge)
EMBER_COMPARE_INPLACE_OP(logical_and_, LogicalAnd)
EMBER_COMPARE_INPLACE_OP(logical_or_, LogicalOr)
EMBER_COMPARE_INPLACE_OP(logical_xor_, LogicalXor)
#undef EMBER_COMPARE_INPLACE_OP

}  // namespace

#define EMBER_COMPARE_OP(name, Op, id)                                         \
  Tensor name(const Tensor& self, const Tensor& other) {                      \
    return dispatch::call<compare_impl<CompareOp::Op>>(OpId::id, self, other); \
  }                                                                           \
  EMBER_REGISTER_OP(id, static_cast<Tensor (*)(const Tensor&, const Tensor&)>(&ember::name));
EMBER_COMPARE_OP(eq, Eq, eq_Tensor)
EMBER_COMPARE_OP(ne, Ne, ne_Tensor)
EMBER_COMPARE_OP(lt, Lt, lt_Tensor)
EMBER_COMPARE_OP(le, Le, le_Tensor)
EMBER_COMPARE_OP(gt, Gt, gt_Tensor)
EMBER_COMPARE_OP(ge, Ge, ge_Tensor)
EMBER_COMPARE_OP(logical_and, LogicalAnd, logical_and)
EMBER_COMPARE_OP(logical_or, LogicalOr, logical_or)
EMBER_COMPARE_OP(logical_xor, LogicalXor, logical_xor)
#undef EMBER_COMPARE_OP

EMBER_REGISTER_OP(eq__Tensor, &eq__Tensor_op);
EMBER_REGISTER_OP(ne__Tensor, &ne__Tensor_op);
EMBER_REGISTER_OP(lt__Tensor, &lt__Tensor_op);
EMBER_REGISTER_OP(le__Tensor, &le__Tensor_op);
EMBER_REGISTER_OP(gt__Tensor, &gt__Tensor_op);
EMBER_REGISTER_OP(ge__Tensor, &ge__Tensor_op);
EMBER_REGISTER_OP(logical_and_, &logical_and__op);
EMBER_REGISTER_OP(logical_or_, &logical_or__op);
EMBER_REGISTER_OP(logical_xor_, &logical_xor__op);

// equal and allclose return a bool, so they have no op row: plain functions over the kernels.
bool equal(const Tensor& self, const Tensor& other) {
  if (self.is_quantized() || other.is_quantized()) return equal_quantized(self, other);
  EMBER_CHECK(self.device() == other.device(), "Cannot compare two tensors on different devices. Got: ",
              self.device(), " and ", other.device());
  EMBER_CHECK_NOT_IMPLEMENTED(!self.is_meta(),
                              "Could not run 'aten::equal' with arguments from the 'Meta' backend.");
  if (!self.sizes().equals(other.sizes())) return false;
  const ScalarType dtype = result_type(self, other);
  Tensor same = ops::new_output(self.sizes(), kBool, self.device());
  cpu::compare_kernel(CompareOp::Eq, same, ops::cast(self, dtype), ops::cast(other, dtype));
  return cpu::all_true(same);
}

bool allclose(const Tensor& self, const Tensor& other, double rtol, double atol, bool equal_nan) {
  EMBER_CHECK(!self.is_quantized() && !other.is_quantized(),
              "isclose is not supported for quantized inputs.");
  EMBER_CHECK(self.dtype() == other.dtype(), scalar_type_name(self.dtype()), " did not match ",
              scalar_type_name(other.dtype()));
  EMBER_CHECK(rtol >= 0, "rtol must be greater than or equal to zero, but got ", rtol);
  EMBER_CHECK(atol >= 0, "atol must be greater than or equal to zero, but got ", atol);
  const Device device = ops::common_device("allclose", {self, other});
  const DimVector shape = broadcast_shapes(self.sizes(), other.sizes());
  EMBER_CHECK_NOT_IMPLEMENTED(!device.is_meta(),
                              "Could not run 'aten::_local_scalar_dense' with arguments from the "
                              "'Meta' backend.");
  // Complex values are compared by the modulus of their difference (isclose's rule); the
  // kernel below handles real dtypes only.
  if (is_complex(self.dtype())) return isclose(self, other, rtol, atol, equal_nan).all().item<bool>();
  // Integers and bools are compared in the default floating dtype, as torch.isclose does.
  const ScalarType dtype = is_floating(self.dtype()) ? self.dtype() : default_dtype();
  Tensor close = ops::new_output(shape, kBool, device);
  cpu::isclose_kernel(close, ops::cast(self, dtype), ops::cast(other, dtype), rtol, atol,
                      equal_nan);
  return cpu::all_true(close);
}

// ---- Tensor methods and operators ----
#define EMBER_COMPARE_METHODS(name, inplace_op)                                                   \
  Tensor Tensor::name(const Tensor& o) const { return ember::name(*this, o); }                    \
  Tensor Tensor::name(const Scalar& o) const { return ember::name(*this, wrapped_scalar_tensor(o)); } \
  Tensor& Tensor::name##_(const Tensor& o) { return inplace_op(*this, o); }                       \
  Tensor& Tensor::name##_(const Scalar& o) { return inplace_op(*this, wrapped_scalar_tensor(o)); }
EMBER_COMPARE_METHODS(eq, eq__Tensor_op)
EMBER_COMPARE_METHODS(ne, ne__Tensor_op)
EMBER_COMPARE_METHODS(lt, lt__Tensor_op)
EMBER_COMPARE_METHODS(le, le__Tensor_op)
EMBER_COMPARE_METHODS(gt, gt__Tensor_op)
EMBER_COMPARE_METHODS(ge, ge__Tensor_op)
EMBER_COMPARE_METHODS(logical_and, logical_and__op)
EMBER_COMPARE_METHODS(logical_or, logical_or__op)
EMBER_COMPARE_METHODS(logical_xor, logical_xor__op)
#undef EMBER_COMPARE_METHODS

Tensor operator==(const Tensor& a, const Tensor& b) { return eq(a, b); }
Tensor operator==(const Tensor& a, const Scalar& b) { return a.eq(b); }
Tensor operator!=(const Tensor& a, const Tensor& b) { return ne(a, b); }
Tensor operator!=(const Tensor& a, const Scalar& b) { return a.ne(b); }
Tensor operator<(const Tensor& a, const Tensor& b) { return lt(a, b); }
Tensor operator<(const Tensor& a, const Scalar& b) { return a.lt(b); }
Tensor operator<=(const Tensor& a, const Tensor& b) { return le(a, b); }
Tensor operator<=(const Tensor& a, const Scalar& b) { return a.le(b); }
Tensor operator>(const Tensor& a, const Tensor& b) { return gt(a, b); }
Tensor operator>(const Tensor& a, const Scalar& b) { return a.gt(b); }
Tensor operator>=(const Tensor& a, const Tensor& b) { return ge(a, b); }
Tensor operator>=(const Tensor& a, const Scalar& b) { return a.ge(b); }

}  // namespace ember
