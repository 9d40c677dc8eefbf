// Core factories: empty / zeros / ones / full and their *_like forms, scalar tensors, from_blob.
// (Ranges and literals: factory_ranges.cpp, tensor_literal.cpp.)
#include "ember/ops/factory.h"

#include "../backends/cpu/copy_kernel.h"
#include "../dispatch/boxing.h"
#include "factory_args.h"
#include "elementwise.h"
#include "pointwise_helpers.h"

namespace ember {

using dispatch::OpId;

namespace {

using ops::OptBool;
using ops::OptDevice;
using ops::OptDtype;
using ops::OptFormat;
using ops::OptLayout;

Tensor empty_impl(IntArrayRef size, OptDtype dtype, OptLayout, OptDevice device, OptBool,
                  OptFormat format) {
  MemoryFormat f = format ? memory_format_from_int(*format) : MemoryFormat::Contiguous;
  if (f != MemoryFormat::Contiguous) {
    for (int64_t s : size) {
      EMBER_CHECK(s >= 0, "Trying to create tensor with negative dimension ", s, ": ", size);
    }
    DimVector strides = strides_for_memory_format(size, f);  // refuses Preserve, wrong ranks
    ScalarType dt = dtype.value_or(default_dtype());
    const int64_t nbytes = storage_nbytes(size, strides, element_size(dt));
    auto storage = Storage::allocate(static_cast<size_t>(nbytes), device.value_or(default_device()));
    return Tensor(make_intrusive<TensorImpl>(std::move(storage), dt, size, strides, 0));
  }
  auto impl = make_intrusive<TensorImpl>(size, dtype.value_or(default_dtype()),
                                         device.value_or(default_device()));
  return Tensor(std::move(impl));
}

Tensor empty_strided_impl(IntArrayRef size, IntArrayRef stride, OptDtype dtype, OptLayout,
                          OptDevice device, OptBool) {
  EMBER_CHECK(size.size() == stride.size(), "empty_strided: mismatch in length of strides and shape (",
              size.size(), " vs ", stride.size(), ")");
  ScalarType dt = dtype.value_or(default_dtype());
  for (size_t d = 0; d < size.size(); ++d) {
    EMBER_CHECK(size[d] >= 0, "Trying to create tensor with negative dimension ", size[d], ": ", size);
    EMBER_CHECK(stride[d] >= 0, "empty_strided: negative strides are not supported, got ", stride);
  }
  const int64_t nbytes = storage_nbytes(size, stride, element_size(dt));
  auto storage = Storage::allocate(static_cast<size_t>(nbytes), device.value_or(default_device()));
  return Tensor(make_intrusive<TensorImpl>(std::move(storage), dt, size, stride, 0));
}

// As empty_strided, with dtype and device from self unless given (PyTorch's new_empty_strided,
// what backward's AccumulateGrad and CopySlices allocate gradients with).
Tensor new_empty_strided_impl(const Tensor& self, IntArrayRef size, IntArrayRef stride, OptDtype dtype,
                              OptLayout layout, OptDevice device, OptBool pin) {
  return empty_strided_impl(size, stride, dtype ? dtype : OptDtype(self.dtype()), layout,
                            device ? device : OptDevice(self.device()), pin);
}

Tensor full_impl(IntArrayRef size, const Scalar& value, OptDtype dtype, OptLayout layout,
                 OptDevice device, OptBool pin) {
  Tensor t = empty_impl(size, dtype ? dtype : OptDtype(value.dtype()), layout, device, pin, std::nullopt);
  if (!t.is_meta()) {
    ops::check_scalar_fits(value, t.dtype());  // full((2,), 300, dtype=int8) refuses, as PyTorch
    cpu::fill_kernel(t, value);
  }
  return t;
}
Tensor zeros_impl(IntArrayRef size, OptDtype dtype, OptLayout layout, OptDevice device, OptBool pin) {
  return full_impl(size, 0, dtype ? dtype : OptDtype(default_dtype()), layout, device, pin);
}
Tensor ones_impl(IntArrayRef size, OptDtype dtype, OptLayout layout, OptDevice device, OptBool pin) {
  return full_impl(size, 1, dtype ? dtype : OptDtype(default_dtype()), layout, device, pin);
}

// Schema-shaped frontends.
Tensor empty_op(IntArrayRef size, OptDtype dtype, OptLayout layout, OptDevice device, OptBool pin,
                OptFormat format) {
  return dispatch::call<empty_impl>(OpId::empty_memory_format, size, dtype, layout, device, pin, format);
}
Tensor empty_strided_op(IntArrayRef size, IntArrayRef stride, OptDtype dtype, OptLayout layout,
                        OptDevice device, OptBool pin) {
  return dispatch::call<empty_strided_impl>(OpId::empty_strided, size, stride, dtype, layout, device, pin);
}
Tensor new_empty_strided_op(const Tensor& self, IntArrayRef size, IntArrayRef stride, OptDtype dtype,
                            OptLayout layout, OptDevice device, OptBool pin) {
  return dispatch::call<new_empty_strided_impl>(OpId::new_empty_strided, self, size, stride, dtype,
                                                layout, device, pin);
}
Tensor zeros_op(IntArrayRef size, OptDtype dtype, OptLayout layout, OptDevice device, OptBool pin) {
  return dispatch::call<zeros_impl>(OpId::zeros, size, dtype, layout, device, pin);
}
Tensor ones_op(IntArrayRef size, OptDtype dtype, OptLayout layout, OptDevice device, OptBool pin) {
  return dispatch::call<ones_impl>(OpId::ones, size, dtype, layout, device, pin);
}
Tensor full_op(IntArrayRef size, const Scalar& value, OptDtype dtype, OptLayout layout,
               OptDevice device, OptBool pin) {
  return dispatch::call<full_impl>(OpId::full, size, value, dtype, layout, device, pin);
}

// *_like: sizes (and a dense layout) from self, dtype and device from self unless given.
Tensor empty_like_impl(const Tensor& self, OptDtype dtype, OptLayout, OptDevice device, OptBool,
                       OptFormat format) {
  ScalarType dt = dtype.value_or(self.dtype());
  Device dev = device.value_or(self.device());
  MemoryFormat f = format ? memory_format_from_int(*format) : MemoryFormat::Preserve;
  if (f != MemoryFormat::Preserve) return empty(self.sizes(), TensorOptions(dt).device(dev), f);
  // preserve: a dense layout is kept, anything else gets its suggested format (as PyTorch)
  DimVector strides = ops::dense_strides_or_empty(self);
  if (strides.empty()) {
    return empty(self.sizes(), TensorOptions(dt).device(dev), self.suggest_memory_format());
  }
  return empty_strided(self.sizes(), strides, TensorOptions(dt).device(dev));
}
Tensor empty_like_op(const Tensor& self, OptDtype dtype, OptLayout layout, OptDevice device,
                     OptBool pin, OptFormat format) {
  return dispatch::call<empty_like_impl>(OpId::empty_like, self, dtype, layout, device, pin, format);
}
Tensor full_like_impl(const Tensor& self, const Scalar& value, OptDtype dtype, OptLayout layout,
                      OptDevice device, OptBool pin, OptFormat format) {
  Tensor t = empty_like_op(self, dtype, layout, device, pin, format);
  return fill_(t, value);
}
Tensor full_like_op(const Tensor& self, const Scalar& value, OptDtype dtype, OptLayout layout,
                    OptDevice device, OptBool pin, OptFormat format) {
  return dispatch::call<full_like_impl>(OpId::full_like, self, value, dtype, layout, device, pin, format);
}
Tensor zeros_like_impl(const Tensor& self, OptDtype dtype, OptLayout layout, OptDevice device,
                       OptBool pin, OptFormat format) {
  return full_like_op(self, 0, dtype, layout, device, pin, format);
}
Tensor zeros_like_op(const Tensor& self, OptDtype dtype, OptLayout layout, OptDevice device,
                     OptBool pin, OptFormat format) {
  return dispatch::call<zeros_like_impl>(OpId::zeros_like, self, dtype, layout, device, pin, format);
}
Tensor ones_like_impl(const Tensor& self, OptDtype dtype, OptLayout layout, OptDevice device,
                      OptBool pin, OptFormat format) {
  return full_like_op(self, 1, dtype, layout, device, pin, format);
}
Tensor ones_like_op(const Tensor& self, OptDtype dtype, OptLayout layout, OptDevice device,
                    OptBool pin, OptFormat format) {
  return dispatch::call<ones_like_impl>(OpId::ones_like, self, dtype, layout, device, pin, format);
}

}  // namespace

namespace {
OptFormat boxed(std::optional<MemoryFormat> f) {
  return f ? OptFormat(memory_format_to_int(*f)) : std::nullopt;
}
// zeros / ones / full in a memory format: schema-wise they take none (PyTorch's have no
// memory_format argument), so the result is empty in that format, then filled.
Tensor filled_in_format(IntArrayRef sizes, const Scalar& value, OptDtype dtype, const TensorOptions& o) {
  Tensor t = empty_op(sizes, dtype, std::nullopt, o.device_, std::nullopt, boxed(o.memory_format_));
  return fill_(t, value);
}
}  // namespace

namespace detail {
std::optional<MemoryFormat> memory_format_of(const TensorOptions& options,
                                             std::optional<MemoryFormat> memory_format) {
  EMBER_CHECK(!(options.has_memory_format() && memory_format.has_value()),
              "Cannot set memory_format both in TensorOptions and explicit argument; please delete "
              "the redundant setter.");
  return memory_format ? memory_format : options.memory_format_opt();
}
}  // namespace detail

Tensor empty(IntArrayRef sizes, TensorOptions o) {
  return detail::apply_requires_grad(
      empty_op(sizes, o.dtype_, std::nullopt, o.device_, std::nullopt, boxed(o.memory_format_)), o);
}
Tensor empty(IntArrayRef sizes, TensorOptions o, MemoryFormat memory_format) {
  return detail::apply_requires_grad(empty_op(sizes, o.dtype_, std::nullopt, o.device_, std::nullopt,
                  boxed(detail::memory_format_of(o, memory_format))), o);
}
Tensor empty_like(const Tensor& self, TensorOptions o, MemoryFormat memory_format) {
  return detail::apply_requires_grad(empty_like_op(self, o.dtype_, std::nullopt, o.device_, std::nullopt,
                       boxed(detail::memory_format_of(o, memory_format))), o);
}
Tensor empty_strided(IntArrayRef sizes, IntArrayRef strides, TensorOptions o) {
  return detail::apply_requires_grad(empty_strided_op(sizes, strides, o.dtype_, std::nullopt, o.device_, std::nullopt), o);
}
Tensor new_empty_strided(const Tensor& self, IntArrayRef sizes, IntArrayRef strides, TensorOptions o) {
  // Options given as a tensor's (a dtype) carry its layout too, as PyTorch's t.options() do
  // (a dispatch handler sees layout=strided beside them).
  return detail::apply_requires_grad(new_empty_strided_op(self, sizes, strides, o.dtype_, o.dtype_ ? OptLayout(0) : std::nullopt,
                              o.device_, std::nullopt), o);
}
Tensor zeros(IntArrayRef sizes, TensorOptions o) {
  if (o.memory_format_) return detail::apply_requires_grad(filled_in_format(sizes, 0, o.dtype_or_default(), o), o);
  return detail::apply_requires_grad(zeros_op(sizes, o.dtype_, std::nullopt, o.device_, std::nullopt), o);
}
Tensor ones(IntArrayRef sizes, TensorOptions o) {
  if (o.memory_format_) return detail::apply_requires_grad(filled_in_format(sizes, 1, o.dtype_or_default(), o), o);
  return detail::apply_requires_grad(ones_op(sizes, o.dtype_, std::nullopt, o.device_, std::nullopt), o);
}
Tensor full(IntArrayRef sizes, const Scalar& fill_value, TensorOptions o) {
  if (o.memory_format_) {
    return detail::apply_requires_grad(
        filled_in_format(sizes, fill_value, o.dtype_ ? o.dtype_ : OptDtype(fill_value.dtype()), o), o);
  }
  return detail::apply_requires_grad(full_op(sizes, fill_value, o.dtype_, std::nullopt, o.device_, std::nullopt), o);
}
Tensor empty_like(const Tensor& self, TensorOptions o) {
  return detail::apply_requires_grad(empty_like_op(self, o.dtype_, std::nullopt, o.device_, std::nullopt, boxed(o.memory_format_)), o);
}
Tensor zeros_like(const Tensor& self, TensorOptions o) {
  return detail::apply_requires_grad(zeros_like_op(self, o.dtype_, std::nullopt, o.device_, std::nullopt, boxed(o.memory_format_)), o);
}
Tensor ones_like(const Tensor& self, TensorOptions o) {
  return detail::apply_requires_grad(ones_like_op(self, o.dtype_, std::nullopt, o.device_, std::nullopt, boxed(o.memory_format_)), o);
}
Tensor full_like(const Tensor& self, const Scalar& fill_value, TensorOptions o) {
  return detail::apply_requires_grad(full_like_op(self, fill_value, o.dtype_, std::nullopt, o.device_, std::nullopt, boxed(o.memory_format_)), o);
}

EMBER_REGISTER_OP(empty_memory_format, &empty_op);
EMBER_REGISTER_OP(empty_strided, &empty_strided_op);
EMBER_REGISTER_OP(new_empty_strided, &new_empty_strided_op);
EMBER_REGISTER_OP(zeros, &zeros_op);
EMBER_REGISTER_OP(ones, &ones_op);
EMBER_REGISTER_OP(full, &full_op);
EMBER_REGISTER_OP(empty_like, &empty_like_op);
EMBER_REGISTER_OP(zeros_like, &zeros_like_op);
EMBER_REGISTER_OP(ones_like, &ones_like_op);
EMBER_REGISTER_OP(full_like, &full_like_op);

namespace {
// Note [Factories torch_dispatch sees whole]
// PyTorch's *_like factories are CompositeExplicitAutograd: they have their own kernel below
// autograd, so a torch_dispatch handler sees aten::ones_like itself. The ones_like that
// backward() starts from must reach a wrapper subclass's handler whole for the gradient to be a
// wrapper, and a TorchDispatchMode logs it as PyTorch does. So their ops.def rows are Primitive
// (every layer sees them, the backend runs their body); their results never require grad, so
// their autograd kernels only run them below autograd.
template <auto Op, class... A>
Tensor like_below_autograd(const A&... a) {
  dispatch::AutoDispatchBelowAutograd below;
  return Op(a...);
}
const bool like_autograd_registered = [] {
  using dispatch::register_autograd;
  register_autograd(OpId::empty_like, &like_below_autograd<empty_like_op, Tensor, OptDtype,
                                                           OptLayout, OptDevice, OptBool, OptFormat>);
  register_autograd(OpId::new_empty_strided,
                    &like_below_autograd<new_empty_strided_op, Tensor, IntArrayRef, IntArrayRef,
                                         OptDtype, OptLayout, OptDevice, OptBool>);
  register_autograd(OpId::zeros_like, &like_below_autograd<zeros_like_op, Tensor, OptDtype,
                                                           OptLayout, OptDevice, OptBool, OptFormat>);
  register_autograd(OpId::ones_like, &like_below_autograd<ones_like_op, Tensor, OptDtype,
                                                          OptLayout, OptDevice, OptBool, OptFormat>);
  register_autograd(OpId::full_like,
                    &like_below_autograd<full_like_op, Tensor, Scalar, OptDtype, OptLayout,
                                         OptDevice, OptBool, OptFormat>);
  return true;
}();
}  // namespace

Tensor detail::apply_requires_grad(Tensor t, const TensorOptions& options) {
  if (options.requires_grad_) t.requires_grad_(true);
  return t;
}

Tensor scalar_tensor(const Scalar& value, TensorOptions o) {
  return detail::apply_requires_grad(full({}, value, o.dtype_ ? o : o.dtype(value.dtype())), o);
}

Tensor wrapped_scalar_tensor(const Scalar& value) {
  // Built directly (not via full) so that the per-op cost of `t + 1` stays one allocation, and
  // on the CPU whatever the default device: a wrapped number goes with any device.
  ScalarType dt = value.is_complex() ? kComplexDouble : value.is_floating() ? kFloat64
                  : value.is_bool() ? kBool : kInt64;
  auto impl = make_intrusive<TensorImpl>(IntArrayRef{}, dt, kCPU);
  if (dt == kComplexDouble) *static_cast<std::complex<double>*>(impl->data()) = value.to_complex();
  else if (dt == kFloat64) *static_cast<double*>(impl->data()) = value.to_double();
  else if (dt == kBool) *static_cast<bool*>(impl->data()) = value.to_bool();
  else *static_cast<int64_t*>(impl->data()) = value.to_int();
  impl->set_wrapped_number(true);
  return Tensor(std::move(impl));
}

Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides, TensorOptions o,
                 Storage::Deleter deleter) {
  EMBER_CHECK(sizes.size() == strides.size(), "from_blob: ", sizes.size(), " sizes but ",
              strides.size(), " strides");
  ScalarType dt = o.dtype_or_default();
  Device dev = o.device_ ? *o.device_ : kCPU;
  EMBER_CHECK(dev.is_cpu(), "from_blob: data must live on the cpu device, got ", dev.str());
  compute_numel(sizes);  // negative sizes: PyTorch's message
  for (int64_t s : strides) EMBER_CHECK(s >= 0, "from_blob: negative strides are not supported, got ", strides);
  const int64_t nbytes = storage_nbytes(sizes, strides, element_size(dt));
  auto storage = Storage::wrap(data, static_cast<size_t>(nbytes), std::move(deleter));
  return detail::apply_requires_grad(Tensor(make_intrusive<TensorImpl>(std::move(storage), dt, sizes, strides, 0)), o);
}

Tensor from_blob(void* data, IntArrayRef sizes, TensorOptions o, Storage::Deleter deleter) {
  return detail::apply_requires_grad(from_blob(data, sizes, contiguous_strides(sizes), o, std::move(deleter)), o);
}

}  // namespace ember
