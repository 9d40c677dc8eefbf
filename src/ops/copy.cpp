// Conversion and copies. _to_copy is the primitive behind every .to(); it keeps a dense layout
// (memory_format=preserve), as PyTorch does, so t.t().double() stays transposed.
#include "ember/ops/copy.h"

#include <atomic>

#include "ember/ops/complex.h"
#include "ember/ops/factory.h"
#include "ember/warning.h"
#include "ember/quantized/tensor.h"

#include "../autograd/record.h"
#include "../backends/cpu/copy_kernel.h"
#include "../dispatch/boxing.h"
#include "../dispatch/layers.h"
#include "autograd_views.h"
#include "elementwise.h"
#include "pointwise_helpers.h"

namespace ember {

using dispatch::OpId;

namespace {

// A new tensor of self's sizes in `format` (the boxed MemoryFormat; none = preserve): preserve
// keeps a dense layout exactly and gives a non-dense one its suggested format, as PyTorch.
Tensor new_like(const Tensor& self, ScalarType dtype, Device device,
                const std::optional<int64_t>& format = std::nullopt) {
  MemoryFormat f = format ? memory_format_from_int(*format) : MemoryFormat::Preserve;
  DimVector strides;
  if (f == MemoryFormat::Preserve) {
    strides = ops::dense_strides_or_empty(self);
    if (strides.empty() && self.dim() > 0) {
      strides = strides_for_memory_format(self.sizes(), self.suggest_memory_format());
    }
  } else {
    strides = strides_for_memory_format(self.sizes(), f);
  }
  return empty_strided(self.sizes(), strides, TensorOptions(dtype).device(device));
}

// Copies src into dst (same shape); meta on either side copies nothing.
void copy_data(const Tensor& dst, const Tensor& src) {
  if (is_complex(src.dtype()) && !is_complex(dst.dtype())) {
    // PyTorch's TORCH_WARN_ONCE: once per process, whatever the call site.
    static std::atomic<bool> warned{false};
    if (!warned.exchange(true)) warn("Casting complex values to real discards the imaginary part");
  }
  if (dst.is_meta()) return;
  EMBER_CHECK_NOT_IMPLEMENTED(!src.is_meta(), "Cannot copy out of meta tensor; no data!");
  cpu::copy_kernel(dst, src);
}

Tensor to_copy_impl(const Tensor& self, const std::optional<ScalarType>& dtype,
                    const std::optional<int64_t>& /*layout*/, const std::optional<Device>& device,
                    const std::optional<bool>& /*pin_memory*/, const bool& /*non_blocking*/,
                    const std::optional<int64_t>& memory_format) {
  // A float tensor converted to a quantized dtype: no quantizer to give it (PyTorch's text).
  EMBER_CHECK(!dtype || !is_quantized(*dtype) || self.is_quantized(),
              "empty_strided not supported on quantized tensors yet see "
              "https://github.com/pytorch/pytorch/issues/74540");
  Tensor out = new_like(self, dtype.value_or(self.dtype()), device.value_or(self.device()),
                        memory_format);
  copy_data(out, self);
  return out;
}

Tensor clone_impl(const Tensor& self, const std::optional<int64_t>& memory_format) {
  Tensor out = new_like(self, self.dtype(), self.device(), memory_format);
  copy_data(out, self);
  return out;
}

Tensor copy__impl(const Tensor& self, const Tensor& src, bool /*non_blocking*/) {
  EMBER_CHECK(self.defined() && src.defined(), "copy_: both tensors must be defined");
  if (self.is_same(src)) return self;
  Tensor expanded = src;
  if (!src.sizes().equals(self.sizes())) {
    DimVector shape = broadcast_shapes(self.sizes(), src.sizes());
    EMBER_CHECK(shape == self.sizes().vec(), "output with shape ", self.sizes(),
                " doesn't match the broadcast shape ", IntArrayRef(shape));
    expanded = expand(src, self.sizes());
  }
  ops::check_no_internal_overlap("copy_", self);
  if (!self.is_meta() && ops::may_overlap(self, expanded)) {
    expanded = clone(expanded);  // the source would be overwritten while it is read
  }
  copy_data(self, expanded);
  return ops::mark_written(self);
}

Tensor detach_impl(const Tensor& self) {
  // A new impl over the same storage; views and detach share the version counter.
  auto impl = make_intrusive<TensorImpl>(self.impl()->storage(), self.dtype(), self.sizes(),
                                         self.strides(), self.storage_offset());
  impl->set_version_counter(self.impl()->version_counter());
  impl->set_quantizer(self.impl()->quantizer());
  return Tensor(std::move(impl));
}

// aten::alias is a view (`_base` is self): an in-place write through it rebases self's history.
Tensor alias_impl(const Tensor& self) {
  return ops::make_view(self, self.sizes(), self.strides(), self.storage_offset());
}

Tensor fill__impl(const Tensor& self, const Scalar& value) {
  ops::check_no_internal_overlap("fill_", self);
  if (!self.is_meta()) {
    ops::check_scalar_fits(value, self.dtype());  // fill_(300) on int8 refuses, as PyTorch
    cpu::fill_kernel(self, value);
  }
  return ops::mark_written(self);
}

Tensor zero__impl(const Tensor& self) { return fill__impl(self, 0); }

// ---- autograd ----
// detach gets no rule: its result is not differentiable (the op is not recorded, so it has no
// history and does not require grad).
using autograd::OpNode;
using autograd::tensor_list;

// d _to_copy(self) = grad converted back to self's dtype and device
Tensor to_copy_autograd(const Tensor& self, const std::optional<ScalarType>& dtype,
                        const std::optional<int64_t>& layout, const std::optional<Device>& device,
                        const std::optional<bool>& pin_memory, const bool& non_blocking,
                        const std::optional<int64_t>& memory_format) {
  autograd::Recorder r("ToCopyBackward0", self);
  Tensor out = r.forward([&] {
    return dispatch::call<to_copy_impl>(OpId::_to_copy, self, dtype, layout, device, pin_memory,
                                        non_blocking, memory_format);
  });
  if (!r) return out;
  return r.finish(out, [st = self.dtype(), dev = self.device()](OpNode&, const tensor_list& g) {
    // A real input converted to complex gets the real part of the gradient (as PyTorch's
    // _to_copy backward), without the discarding warning.
    if (g[0].is_complex() && !is_complex(st)) return tensor_list{real(g[0]).to(dev, st)};
    return tensor_list{g[0].to(dev, st)};
  });
}

// d clone(self) = grad
Tensor clone_autograd(const Tensor& self, const std::optional<int64_t>& memory_format) {
  autograd::Recorder r("CloneBackward0", self);
  Tensor out = r.forward([&] { return dispatch::call<clone_impl>(OpId::clone, self, memory_format); });
  if (!r) return out;
  return r.finish(out, [](OpNode&, const tensor_list& g) { return tensor_list{g[0]}; });
}

// d alias(self) = grad
Tensor alias_autograd(const Tensor& self) {
  autograd::Recorder r("AliasBackward0", self);
  Tensor out = r.forward([&] { return dispatch::call<alias_impl>(OpId::alias, self); });
  if (!r) return out;
  ops::propagate_view_creation(self, out, "AliasBackward0");
  return r.finish(out, [](OpNode&, const tensor_list& g) { return tensor_list{g[0]}; });
}

// self.copy_(src): self's old values are overwritten (zero gradient); src gets the gradient in
// its own dtype and device, summed down to its shape where it was broadcast. As PyTorch, a
// non-floating self (an integer destination) records nothing.
Tensor copy__autograd(const Tensor& self, const Tensor& src, const bool& non_blocking) {
  autograd::Recorder r = is_floating(self.dtype()) ? autograd::Recorder("CopyBackwards", self, src)
                                                   : autograd::Recorder("CopyBackwards");
  autograd::check_inplace_if(r, self);
  r.forward([&] { return dispatch::call<copy__impl>(OpId::copy_, self, src, non_blocking); });
  if (!r) return self;
  r.finish_inplace(self, [st = src.dtype(), dev = src.device(), shape = src.sizes().vec()](
                             OpNode& n, const tensor_list& g) {
    return tensor_list{n.needs(0) ? zeros_like(g[0]) : Tensor(),
                       n.needs(1) ? autograd::sum_to(g[0].to(dev, st), shape) : Tensor()};
  });
  return self;
}

// fill_ and zero_ overwrite every element: self's previous history gets a zero gradient.
template <const char* Name, class Forward>
Tensor overwrite_autograd(const Tensor& self, Forward&& forward) {
  autograd::Recorder r(Name, self);
  autograd::check_inplace_if(r, self);
  r.forward(forward);
  if (!r) return self;
  r.finish_inplace(self, [](OpNode&, const tensor_list& g) { return tensor_list{zeros_like(g[0])}; });
  return self;
}
constexpr char kFillBackward[] = "FillBackward2";  // PyTorch 1.13's name for fill_.Scalar
constexpr char kZeroBackward[] = "ZeroBackward0";

Tensor fill__autograd(const Tensor& self, const Scalar& value) {
  return overwrite_autograd<kFillBackward>(
      self, [&] { return dispatch::call<fill__impl>(OpId::fill__Scalar, self, value); });
}
Tensor zero__autograd(const Tensor& self) {
  return overwrite_autograd<kZeroBackward>(self, [&] { return dispatch::call<zero__impl>(OpId::zero_, self); });
}

EMBER_REGISTER_AUTOGRAD(_to_copy, &to_copy_autograd);
EMBER_REGISTER_AUTOGRAD(clone, &clone_autograd);
EMBER_REGISTER_AUTOGRAD(alias, &alias_autograd);
EMBER_REGISTER_AUTOGRAD(copy_, &copy__autograd);
EMBER_REGISTER_AUTOGRAD(fill__Scalar, &fill__autograd);
EMBER_REGISTER_AUTOGRAD(zero_, &zero__autograd);

// Schema-shaped frontends (argument order as in ops.def; what the boxed layers see).
Tensor to_copy_op(const Tensor& self, std::optional<ScalarType> dtype, std::optional<int64_t> layout,
                  std::optional<Device> device, std::optional<bool> pin_memory, bool non_blocking,
                  std::optional<int64_t> memory_format) {
  return dispatch::call<to_copy_impl>(OpId::_to_copy, self, dtype, layout, device, pin_memory,
                                      non_blocking, memory_format);
}
Tensor clone_op(const Tensor& self, std::optional<int64_t> memory_format) {
  return dispatch::call<clone_impl>(OpId::clone, self, memory_format);
}
Tensor& copy__op(Tensor& self, const Tensor& src, bool non_blocking) {
  dispatch::call<copy__impl>(OpId::copy_, self, src, non_blocking);
  return self;
}
Tensor& fill__op(Tensor& self, const Scalar& value) {
  dispatch::call<fill__impl>(OpId::fill__Scalar, self, value);
  return self;
}

// PyTorch's to_will_alias: no copy when nothing changes, the memory format included (a format
// equal to the tensor's suggested one counts as unchanged).
bool to_keeps(const Tensor& self, const std::optional<int64_t>& memory_format) {
  if (!memory_format) return true;
  MemoryFormat f = memory_format_from_int(*memory_format);
  return f == MemoryFormat::Preserve || self.suggest_memory_format() == f;
}

Tensor to_dtype_impl(const Tensor& self, const ScalarType& dtype, const bool& /*non_blocking*/,
                     const bool& copy, const std::optional<int64_t>& memory_format) {
  if (!copy && dtype == self.dtype() && to_keeps(self, memory_format)) return self;
  return to_copy_op(self, dtype, std::nullopt, std::nullopt, std::nullopt, false, memory_format);
}
Tensor to_dtype_op(const Tensor& self, ScalarType dtype, bool non_blocking, bool copy,
                   std::optional<int64_t> memory_format) {
  return dispatch::call<to_dtype_impl>(OpId::to_dtype, self, dtype, non_blocking, copy, memory_format);
}
Tensor to_device_impl(const Tensor& self, const Device& device, const ScalarType& dtype,
                      const bool& /*non_blocking*/, const bool& copy,
                      const std::optional<int64_t>& memory_format) {
  if (!copy && dtype == self.dtype() && device == self.device() && to_keeps(self, memory_format)) {
    return self;
  }
  return to_copy_op(self, dtype, std::nullopt, device, std::nullopt, false, memory_format);
}
Tensor to_device_op(const Tensor& self, Device device, ScalarType dtype, bool non_blocking, bool copy,
                    std::optional<int64_t> memory_format) {
  return dispatch::call<to_device_impl>(OpId::to_device, self, device, dtype, non_blocking, copy,
                                        memory_format);
}
Tensor contiguous_impl(const Tensor& self, const int64_t& memory_format) {
  MemoryFormat f = memory_format_from_int(memory_format);
  if (self.is_contiguous(f)) return self;
  EMBER_CHECK(f != MemoryFormat::Preserve,
              "preserve memory format is unsupported by the contiguous operator");
  return clone(self, f);  // as PyTorch's: handlers see aten::clone with the memory format
}
Tensor contiguous_op(const Tensor& self, int64_t memory_format) {
  return dispatch::call<contiguous_impl>(OpId::contiguous, self, memory_format);
}

}  // namespace

Tensor _to_copy(const Tensor& self, std::optional<ScalarType> dtype, std::optional<Device> device) {
  return to_copy_op(self, dtype, std::nullopt, device, std::nullopt, false, std::nullopt);
}
Tensor clone(const Tensor& self) { return clone_op(self, std::nullopt); }
Tensor clone(const Tensor& self, std::optional<MemoryFormat> memory_format) {
  return clone_op(self, memory_format ? std::optional<int64_t>(memory_format_to_int(*memory_format))
                                      : std::nullopt);
}
Tensor contiguous(const Tensor& self) { return contiguous_op(self, 0); }
Tensor contiguous(const Tensor& self, MemoryFormat memory_format) {
  return contiguous_op(self, memory_format_to_int(memory_format));
}
Tensor& copy_(Tensor& self, const Tensor& src) { return copy__op(self, src, false); }
Tensor detach(const Tensor& self) {
  Tensor r = dispatch::call<detach_impl>(OpId::detach, self);
  // The second detach PyTorch's non-differentiable view makes (Note [Detach through the
  // dispatch layer] in dispatcher.cpp): seen only with a dispatch handler in play.
  if (Tensor again = dispatch::detach_through_dispatch_layer(r); again.defined()) return again;
  return r;
}
Tensor alias(const Tensor& self) { return dispatch::call<alias_impl>(OpId::alias, self); }
Tensor& fill_(Tensor& self, const Scalar& value) { return fill__op(self, value); }
Tensor& zero_(Tensor& self) {
  dispatch::call<zero__impl>(OpId::zero_, self);
  return self;
}

EMBER_REGISTER_OP(_to_copy, &to_copy_op);
EMBER_REGISTER_OP(to_dtype, &to_dtype_op);
EMBER_REGISTER_OP(to_device, &to_device_op);
EMBER_REGISTER_OP(clone, &clone_op);
EMBER_REGISTER_OP(contiguous, &contiguous_op);
EMBER_REGISTER_OP(copy_, &copy__op);
EMBER_REGISTER_OP(detach, &detach);
EMBER_REGISTER_OP(alias, &alias);
EMBER_REGISTER_OP(fill__Scalar, &fill__op);
EMBER_REGISTER_OP(zero_, &zero_);

// ---- Tensor methods ----
namespace {
std::optional<int64_t> boxed_format(std::optional<MemoryFormat> f) {
  return f ? std::optional<int64_t>(memory_format_to_int(*f)) : std::nullopt;
}
}  // namespace
Tensor Tensor::to(ScalarType dtype, bool copy, std::optional<MemoryFormat> memory_format) const {
  return to_dtype_op(*this, dtype, false, copy, boxed_format(memory_format));
}
Tensor Tensor::to(Device device, bool copy, std::optional<MemoryFormat> memory_format) const {
  return to_device_op(*this, device, dtype(), false, copy, boxed_format(memory_format));
}
Tensor Tensor::to(Device device, ScalarType dtype, bool copy,
                  std::optional<MemoryFormat> memory_format) const {
  return to_device_op(*this, device, dtype, false, copy, boxed_format(memory_format));
}
Tensor Tensor::to(const Tensor& other, bool copy, std::optional<MemoryFormat> memory_format) const {
  return to_device_op(*this, other.device(), other.dtype(), false, copy, boxed_format(memory_format));
}
Tensor Tensor::to(MemoryFormat memory_format, bool copy) const {
  return to_dtype_op(*this, dtype(), false, copy, memory_format_to_int(memory_format));
}
Tensor Tensor::to(const TensorOptions& options, bool copy,
                  std::optional<MemoryFormat> memory_format) const {
  // libtorch's check_tensor_options_and_extract_memory_format: to() makes no leaves.
  EMBER_CHECK(!options.requires_grad(),
              "Operators taking TensorOptions cannot take a TensorOptions with options.requires_grad "
              "set as true. This isn't implemented yet.");
  const std::optional<MemoryFormat> format = detail::memory_format_of(options, memory_format);
  return to_device_op(*this, options.device_opt().value_or(device()),
                      options.dtype_opt().value_or(dtype()), false, copy, boxed_format(format));
}
Tensor Tensor::contiguous(MemoryFormat memory_format) const {
  return ember::contiguous(*this, memory_format);
}
Tensor Tensor::clone(std::optional<MemoryFormat> memory_format) const {
  return ember::clone(*this, memory_format);
}
bool Tensor::is_contiguous(MemoryFormat format) const {
  // As c10: channels_last asks for NHWC strides; the others (preserve too) mean the default.
  if (format == MemoryFormat::ChannelsLast) return is_channels_last_contiguous(sizes(), strides());
  if (format == MemoryFormat::ChannelsLast3d) {
    if (dim() != 5) return false;
    int64_t expected = 1;
    for (int d : {1, 4, 3, 2, 0}) {
      if (size(d) != 1) {
        if (stride(d) != expected) return false;
        expected *= size(d);
      }
    }
    return true;
  }
  return is_contiguous();
}
MemoryFormat Tensor::suggest_memory_format() const {
  return is_channels_last_strides(sizes(), strides()) ? MemoryFormat::ChannelsLast
                                                      : MemoryFormat::Contiguous;
}
Tensor& Tensor::copy_(const Tensor& src) { return ember::copy_(*this, src); }
Tensor Tensor::detach() const { return ember::detach(*this); }
Tensor& Tensor::fill_(const Scalar& value) { return ember::fill_(*this, value); }
Tensor& Tensor::zero_() { return ember::zero_(*this); }

Scalar Tensor::item() const {
  EMBER_CHECK(defined(), "item(): the tensor is undefined");
  EMBER_CHECK_NOT_IMPLEMENTED(!is_meta(), "Tensor.item() cannot be called on meta tensors");
  EMBER_CHECK(numel() == 1, "a Tensor with ", numel(), " elements cannot be converted to Scalar");
  if (is_quantized()) return ember::dequantize(*this).item();  // the value, as PyTorch's
  return visit_dtype_and_complex(dtype(), [&]<class T>() -> Scalar {
    T v = *static_cast<const T*>(data_ptr());
    if constexpr (is_reduced_float_v<T>) return Scalar(static_cast<double>(static_cast<float>(v)));
    else return Scalar(v);
  }, "item");
}

std::string size_str(IntArrayRef sizes) {
  std::ostringstream os;
  os << "ember.Size(" << sizes << ")";
  return os.str();
}

}  // namespace ember
