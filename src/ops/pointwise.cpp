// clamp, where and masked_fill.
//
// clamp promotes like an elementwise op over self and its (weak) scalar limits, except that a
// floating self keeps its dtype; clamp_ refuses a promotion. where promotes self and other and
// takes a bool (or, deprecated in PyTorch, uint8) condition. masked_fill_ writes self in place
// with a mask broadcast to it; masked_fill first broadcasts self and mask, then fills a copy.
#include <cmath>
#include <limits>

#include "../backends/cpu/copy_kernel.h"
#include "../backends/cpu/pointwise_kernels.h"
#include "../dispatch/boxing.h"
#include "elementwise.h"
#include "pointwise_helpers.h"

namespace ember {

using dispatch::OpId;

namespace ops {

void clamp_into(const Tensor& out, const Tensor& in, const std::optional<Scalar>& min,
                const std::optional<Scalar>& max) {
  if (min && max && (std::isnan(min->to_double()) || std::isnan(max->to_double()))) {
    cpu::fill_kernel(out, std::numeric_limits<double>::quiet_NaN());
    return;
  }
  if (min) check_scalar_fits(*min, out.dtype());
  if (max) check_scalar_fits(*max, out.dtype());
  cpu::clamp_kernel(out, in, min, max);
}

}  // namespace ops

namespace {

// ---- clamp ----
void check_clamp_limits(const std::optional<Scalar>& min, const std::optional<Scalar>& max) {
  EMBER_CHECK(min || max, "ember.clamp: At least one of 'min' or 'max' must not be None");
}

ScalarType clamp_result_type(const Tensor& self, const std::optional<Scalar>& min,
                             const std::optional<Scalar>& max) {
  if (is_floating(self.dtype())) return self.dtype();  // floating is the highest category
  std::vector<Tensor> operands{self};
  if (min) operands.push_back(wrapped_scalar_tensor(*min));
  if (max) operands.push_back(wrapped_scalar_tensor(*max));
  return result_type(operands);
}

Tensor clamp_impl(const Tensor& self, const std::optional<Scalar>& min,
                  const std::optional<Scalar>& max) {
  ops::check_not_quantized("clamp", {self});
  check_clamp_limits(min, max);
  const ScalarType dtype = clamp_result_type(self, min, max);
  Tensor out = ops::new_output(self.sizes(), dtype, self.device());
  if (!out.is_meta()) ops::clamp_into(out, ops::cast(self, dtype), min, max);
  return out;
}

Tensor clamp__impl(const Tensor& self, const std::optional<Scalar>& min,
                   const std::optional<Scalar>& max) {
  ops::check_not_quantized("clamp_", {self});
  check_clamp_limits(min, max);
  const ScalarType dtype = clamp_result_type(self, min, max);
  // PyTorch's text here names self's dtype by its C++ type ("long int").
  EMBER_CHECK(dtype == self.dtype(), "result type ", scalar_type_name(dtype),
              " can't be cast to the desired output type ", ops::typemeta_name(self.dtype()));
  ops::check_no_internal_overlap("clamp_", self);
  if (!self.is_meta()) ops::clamp_into(self, self, min, max);
  return ops::mark_written(self);
}

// ---- where ----
Tensor where_impl(const Tensor& condition, const Tensor& self, const Tensor& other) {
  ops::check_not_quantized("where", {condition, self, other});
  EMBER_CHECK(condition.dtype() == kBool || condition.dtype() == kUInt8,
              "where expected condition to be a boolean tensor, but got a tensor with dtype ",
              scalar_type_name(condition.dtype()));
  const ScalarType dtype = result_type(self, other);
  const Device device = ops::common_device("where", {condition, self, other});
  Tensor out = ops::new_output(ops::broadcast_all({condition, self, other}), dtype, device);
  if (!out.is_meta()) cpu::where_kernel(out, condition, ops::cast(self, dtype), ops::cast(other, dtype));
  return out;
}

// ---- masked_fill ----
void check_mask(const Tensor& self, const Tensor& mask) {
  // PyTorch 1.13 also reads uint8 masks (deprecated); other dtypes are refused with the text
  // later PyTorch versions use.
  EMBER_CHECK(mask.dtype() == kBool || mask.dtype() == kUInt8,
              "masked_fill_ only supports boolean masks, but got mask with dtype ",
              ops::typemeta_name(mask.dtype()));
  ops::common_device("masked_fill_", {self, mask});
  if (mask.dtype() == kUInt8 && mask.is_cpu()) {
    // A uint8 mask is read as bool only if it holds 0s and 1s (PyTorch checks this too).
    Tensor m = mask.contiguous();
    const uint8_t* p = m.data_ptr<uint8_t>();
    for (int64_t i = 0; i < m.numel(); ++i)
      EMBER_CHECK(p[i] <= 1, "Mask tensor can take 0 and 1 values only");
  }
  // The mask broadcasts to self, never self to the mask. (An expanded self is allowed, as in
  // PyTorch: every alias of a masked element receives the same value.)
  ops::check_inplace("masked_fill_", self, broadcast_shapes(self.sizes(), mask.sizes()),
                     self.dtype());
}

Tensor masked_fill__scalar_impl(const Tensor& self, const Tensor& mask, const Scalar& value) {
  ops::check_not_quantized("masked_fill_", {self, mask});
  check_mask(self, mask);
  const Tensor m = ops::inplace_input(self, mask);
  if (!self.is_meta()) {
    ops::check_scalar_fits(value, self.dtype());
    cpu::masked_fill_kernel(self, m, value);
  }
  return ops::mark_written(self);
}

Tensor masked_fill__tensor_impl(const Tensor& self, const Tensor& mask, const Tensor& value) {
  EMBER_CHECK(value.dim() == 0,
              "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with ",
              value.dim(), " dimension(s).");
  ops::check_not_quantized("masked_fill_", {self, mask, value});
  check_mask(self, mask);
  const Tensor m = ops::inplace_input(self, mask);
  if (!self.is_meta()) {
    const Scalar v = value.item();
    ops::check_scalar_fits(v, self.dtype());
    cpu::masked_fill_kernel(self, m, v);
  }
  return ops::mark_written(self);
}

// Composite: broadcast self and mask, copy self, fill the copy in place.
template <class Value>
Tensor masked_fill_composite(const Tensor& self, const Tensor& mask, const Value& value) {
  DimVector shape = broadcast_shapes(mask.sizes(), self.sizes());
  Tensor result = clone(self.sizes().equals(shape) ? self : expand(self, shape));
  return masked_fill_(result, mask, value);
}
Tensor masked_fill_scalar_impl(const Tensor& self, const Tensor& mask, const Scalar& value) {
  return masked_fill_composite(self, mask, value);
}
Tensor masked_fill_tensor_impl(const Tensor& self, const Tensor& mask, const Tensor& value) {
  return masked_fill_composite(self, mask, value);
}

}  // namespace

// ---- public functions (the frontends) ----
Tensor clamp(const Tensor& self, std::optional<Scalar> min, std::optional<Scalar> max) {
  return dispatch::call<clamp_impl>(OpId::clamp, self, min, max);
}
Tensor& clamp_(Tensor& self, std::optional<Scalar> min, std::optional<Scalar> max) {
  dispatch::call<clamp__impl>(OpId::clamp_, self, min, max);
  return self;
}
Tensor where(const Tensor& condition, const Tensor& self, const Tensor& other) {
  return dispatch::call<where_impl>(OpId::where_self, condition, self, other);
}
Tensor masked_fill(const Tensor& self, const Tensor& mask, const Scalar& value) {
  return dispatch::call<masked_fill_scalar_impl>(OpId::masked_fill_Scalar, self, mask, value);
}
Tensor masked_fill(const Tensor& self, const Tensor& mask, const Tensor& value) {
  return dispatch::call<masked_fill_tensor_impl>(OpId::masked_fill_Tensor, self, mask, value);
}
Tensor& masked_fill_(Tensor& self, const Tensor& mask, const Scalar& value) {
  dispatch::call<masked_fill__scalar_impl>(OpId::masked_fill__Scalar, self, mask, value);
  return self;
}
Tensor& masked_fill_(Tensor& self, const Tensor& mask, const Tensor& value) {
  dispatch::call<masked_fill__tensor_impl>(OpId::masked_fill__Tensor, self, mask, value);
  return self;
}

using ClampFn = Tensor (*)(const Tensor&, std::optional<Scalar>, std::optional<Scalar>);
using ClampInplaceFn = Tensor& (*)(Tensor&, std::optional<Scalar>, std::optional<Scalar>);
EMBER_REGISTER_OP(clamp, static_cast<ClampFn>(&clamp));
EMBER_REGISTER_OP(clamp_, static_cast<ClampInplaceFn>(&clamp_));
EMBER_REGISTER_OP(where_self, static_cast<Tensor (*)(const Tensor&, const Tensor&, const Tensor&)>(&where));
EMBER_REGISTER_OP(masked_fill_Scalar,
                  static_cast<Tensor (*)(const Tensor&, const Tensor&, const Scalar&)>(&masked_fill));
EMBER_REGISTER_OP(masked_fill_Tensor,
                  static_cast<Tensor (*)(const Tensor&, const Tensor&, const Tensor&)>(&masked_fill));
EMBER_REGISTER_OP(masked_fill__Scalar,
                  static_cast<Tensor& (*)(Tensor&, const Tensor&, const Scalar&)>(&masked_fill_));
EMBER_REGISTER_OP(masked_fill__Tensor,
                  static_cast<Tensor& (*)(Tensor&, const Tensor&, const Tensor&)>(&masked_fill_));

// ---- Tensor methods ----
Tensor Tensor::clamp(std::optional<Scalar> min, std::optional<Scalar> max) const {
  return ember::clamp(*this, std::move(min), std::move(max));
}
Tensor& Tensor::clamp_(std::optional<Scalar> min, std::optional<Scalar> max) {
  return ember::clamp_(*this, std::move(min), std::move(max));
}
Tensor Tensor::masked_fill(const Tensor& mask, const Scalar& value) const {
  return ember::masked_fill(*this, mask, value);
}
Tensor Tensor::masked_fill(const Tensor& mask, const Tensor& value) const {
  return ember::masked_fill(*this, mask, value);
}
Tensor& Tensor::masked_fill_(const Tensor& mask, const Scalar& value) {
  return ember::masked_fill_(*this, mask, value);
}
Tensor& Tensor::masked_fill_(const Tensor& mask, const Tensor& value) {
  return ember::masked_fill_(*this, mask, value);
}
Tensor Tensor::where(const Tensor& condition, const Tensor& other) const {
  return ember::where(condition, *this, other);
}

}  // namespace ember
