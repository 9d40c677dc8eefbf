// clamp, where and masked_fill.
//
// clamp promotes like an elementwise op over self and its (weak) scalar limits, except that a
// floating self keeps its dtype; clamp_ refuses a promotion. where promotes self and other and
// takes a bool (or, deprecated in PyTorch, uint8) condition. masked_fill_ writes self in place
// with a mask broadcast to it; masked_fill first broadcasts self and mask, then fills a copy.
#include <cmath>
#include <limits>

#include "../autograd/record.h"
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
  EMBER_CHECK(!(min && min->is_complex()) && !(max && max->is_complex()), "clamp is not supported for complex types");
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
  EMBER_CHECK(!self.is_complex(), "clamp is not supported for complex types");
  check_clamp_limits(min, max);
  const ScalarType dtype = clamp_result_type(self, min, max);
  Tensor out = ops::new_output(self.sizes(), dtype, self.device(), {self});
  if (!out.is_meta()) ops::clamp_into(out, ops::cast(self, dtype), min, max);
  return out;
}

Tensor clamp__impl(const Tensor& self, const std::optional<Scalar>& min,
                   const std::optional<Scalar>& max) {
  ops::check_not_quantized("clamp_", {self});
  EMBER_CHECK(!self.is_complex(), "clamp is not supported for complex types");
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
  Tensor out = ops::new_output(ops::broadcast_all({condition, self, other}), dtype, device,
                               {condition, self, other});
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

// ---- autograd ----
using autograd::OpNode;
using autograd::tensor_list;

Tensor zero_scalar() { return wrapped_scalar_tensor(0.0); }

// ClampBackward1: the gradient passes where min <= self <= max (limits included, NaN excluded).
// Reads min and max from the node (_saved_min / _saved_max: values 0 and 1).
OpNode::Formula clamp_formula(size_t self_) {
  return [=](OpNode& n, const tensor_list& g) {
    const Tensor self = n.saved(self_);
    const auto opt = [&](size_t i) {
      return n.value(i).is_none() ? std::nullopt : std::optional<Scalar>(n.value(i).to_scalar());
    };
    const std::optional<Scalar> max = opt(0), min = opt(1);
    const Tensor inside = min && max ? logical_and(self >= *min, self <= *max)
                          : min      ? self >= *min
                                     : self <= *max;
    return tensor_list{where(inside, g[0], zero_scalar())};
  };
}

Tensor clamp_autograd(const Tensor& self, const std::optional<Scalar>& min,
                      const std::optional<Scalar>& max) {
  autograd::Recorder r("ClampBackward1", self);
  Tensor out = r.forward([&] { return dispatch::call<clamp_impl>(OpId::clamp, self, min, max); });
  if (!r) return out;
  r.values("max", max, "min", min);
  return r.finish(out, clamp_formula(r.save(self, "self")));
}

Tensor clamp__autograd(const Tensor& self, const std::optional<Scalar>& min,
                       const std::optional<Scalar>& max) {
  autograd::Recorder r("ClampBackward1", self);
  autograd::check_inplace_if(r, self);
  // The mask reads self's value from before the write.
  const size_t self_ = r ? r.save(ops::original_self(self), "self") : 0;
  r.forward([&] { return dispatch::call<clamp__impl>(OpId::clamp_, self, min, max); });
  if (!r) return self;
  r.values("max", max, "min", min);
  r.finish_inplace(self, clamp_formula(self_));
  return self;
}

// WhereBackward0: the gradient goes to self where condition holds, to other elsewhere.
Tensor where_autograd(const Tensor& condition, const Tensor& self, const Tensor& other) {
  autograd::Recorder r("WhereBackward0", condition, self, other);
  Tensor out = r.forward(
      [&] { return dispatch::call<where_impl>(OpId::where_self, condition, self, other); });
  if (!r) return out;
  const size_t condition_ = r.save(condition, "condition");
  return r.finish(out, [=](OpNode& n, const tensor_list& g) {
    const Tensor cond = n.saved(condition_);
    return tensor_list{Tensor(), n.needs(1) ? where(cond, g[0], zero_scalar()) : Tensor(),
                       n.needs(2) ? where(cond, zero_scalar(), g[0]) : Tensor()};
  });
}

// MaskedFillBackward0 / 1: masked elements were overwritten, so self's gradient is zero there;
// the value tensor (masked_fill_.Tensor) receives the sum of the gradient over them.
OpNode::Formula masked_fill_formula(size_t mask_, bool tensor_value) {
  return [=](OpNode& n, const tensor_list& g) {
    const Tensor m = n.saved(mask_);
    // PyTorch: grad.masked_fill(mask, 0); the same values as a where (recorded differentiably).
    const bool self_grad = n.needs(0);
    tensor_list grads{self_grad ? where(m, zero_scalar(), g[0]) : Tensor(), Tensor()};
    if (tensor_value) grads.push_back(n.needs(2) ? where(m, g[0], zero_scalar()).sum() : Tensor());
    return grads;
  };
}

Tensor masked_fill__scalar_autograd(const Tensor& self, const Tensor& mask, const Scalar& value) {
  autograd::Recorder r("MaskedFillBackward0", self, mask);
  autograd::check_inplace_if(r, self);
  const size_t mask_ = r ? r.save(mask, "mask") : 0;
  r.forward([&] {
    return dispatch::call<masked_fill__scalar_impl>(OpId::masked_fill__Scalar, self, mask, value);
  });
  if (!r) return self;
  r.finish_inplace(self, masked_fill_formula(mask_, false));
  return self;
}

Tensor masked_fill__tensor_autograd(const Tensor& self, const Tensor& mask, const Tensor& value) {
  autograd::Recorder r("MaskedFillBackward1", self, mask, value);
  autograd::check_inplace_if(r, self);
  const size_t mask_ = r ? r.save(mask, "mask") : 0;
  r.forward([&] {
    return dispatch::call<masked_fill__tensor_impl>(OpId::masked_fill__Tensor, self, mask, value);
  });
  if (!r) return self;
  r.finish_inplace(self, masked_fill_formula(mask_, true));
  return self;
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

// masked_fill (not in place) is a composite: its clone and masked_fill_ record.
EMBER_REGISTER_AUTOGRAD(clamp, &clamp_autograd);
EMBER_REGISTER_AUTOGRAD(clamp_, &clamp__autograd);
EMBER_REGISTER_AUTOGRAD(where_self, &where_autograd);
EMBER_REGISTER_AUTOGRAD(masked_fill__Scalar, &masked_fill__scalar_autograd);
EMBER_REGISTER_AUTOGRAD(masked_fill__Tensor, &masked_fill__tensor_autograd);

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
