// Options for factories and Tensor::to: dtype, device, layout, memory format and requires_grad
// (all optional; the defaults come from default_dtype() / default_device()). Spelled as
// libtorch's.
//
//   ember::zeros({2, 3}, ember::kFloat64);
//   ember::ones({4}, ember::TensorOptions().dtype(ember::kInt64).device(ember::kMeta));
//   auto w = ember::randn({3, 3}, ember::requires_grad());     // a leaf that requires grad
//   auto z = ember::zeros({2}, x.options());                   // x's dtype, device and layout
//   auto c = ember::empty({8, 3, 32, 32}, ember::memory_format(ember::MemoryFormat::ChannelsLast));
//   auto y = x.to(w.options());                                // w's dtype and device
//
// Layout: strided only (ember has no sparse layouts), so layout() is always kStrided.
// Memory format: used by empty, zeros, ones, full, empty_like / zeros_like / ones_like /
// full_like and Tensor::to; a factory takes Contiguous, ChannelsLast or ChannelsLast3d (Preserve
// is for the *_like forms and to). Other factories (arange, rand, ...) make contiguous tensors.
// No pinned memory: ember runs on the CPU only.
#pragma once

#include <optional>

#include "ember/device.h"
#include "ember/dtype.h"
#include "ember/layout.h"
#include "ember/memory_format.h"

namespace ember {

struct TensorOptions {
  std::optional<ScalarType> dtype_;
  std::optional<Device> device_;
  std::optional<Layout> layout_;
  std::optional<MemoryFormat> memory_format_;
  bool requires_grad_ = false;

  TensorOptions() = default;
  TensorOptions(ScalarType t) : dtype_(t) {}   // NOLINT: implicit, as in libtorch
  TensorOptions(Device d) : device_(d) {}      // NOLINT
  TensorOptions(DeviceType d) : device_(d) {}  // NOLINT
  TensorOptions(Layout l) : layout_(l) {}      // NOLINT
  TensorOptions(MemoryFormat f) : memory_format_(f) {}  // NOLINT

  // ---- chainable setters (each returns a copy) ----
  TensorOptions dtype(std::optional<ScalarType> t) const {
    auto o = *this;
    o.dtype_ = t;
    return o;
  }
  TensorOptions device(std::optional<Device> d) const {
    auto o = *this;
    o.device_ = d;
    return o;
  }
  /// Strided, the only layout (accepted so that libtorch code ports).
  TensorOptions layout(std::optional<Layout> l) const {
    auto o = *this;
    o.layout_ = l;
    return o;
  }
  /// The memory format of the result (see the top of this file for who uses it).
  TensorOptions memory_format(std::optional<MemoryFormat> f) const {
    auto o = *this;
    o.memory_format_ = f;
    return o;
  }
  /// The factory's result is a leaf that requires grad (floating-point dtypes only, as
  /// Tensor::requires_grad_ checks).
  TensorOptions requires_grad(bool r) const {
    auto o = *this;
    o.requires_grad_ = r;
    return o;
  }

  // ---- getters (libtorch's: the default when unset) ----
  ScalarType dtype() const { return dtype_or_default(); }
  Device device() const { return device_or_default(); }
  bool requires_grad() const { return requires_grad_; }
  Layout layout() const { return layout_.value_or(kStrided); }
  bool has_dtype() const { return dtype_.has_value(); }
  bool has_device() const { return device_.has_value(); }
  bool has_layout() const { return layout_.has_value(); }
  bool has_memory_format() const { return memory_format_.has_value(); }
  std::optional<ScalarType> dtype_opt() const { return dtype_; }
  std::optional<Device> device_opt() const { return device_; }
  std::optional<Layout> layout_opt() const { return layout_; }
  std::optional<MemoryFormat> memory_format_opt() const { return memory_format_; }
  ScalarType dtype_or_default() const { return dtype_ ? *dtype_ : default_dtype(); }
  Device device_or_default() const { return device_ ? *device_ : default_device(); }
};

/// TensorOptions().dtype(t), as torch::dtype.
inline TensorOptions dtype(ScalarType t) { return TensorOptions().dtype(t); }
/// TensorOptions().device(d), as torch::device.
inline TensorOptions device(Device d) { return TensorOptions().device(d); }
/// TensorOptions().layout(l), as torch::layout.
inline TensorOptions layout(Layout l) { return TensorOptions().layout(l); }
/// TensorOptions().memory_format(f), as torch::memory_format.
inline TensorOptions memory_format(MemoryFormat f) { return TensorOptions().memory_format(f); }
/// TensorOptions().requires_grad(r), as torch::requires_grad.
inline TensorOptions requires_grad(bool r = true) { return TensorOptions().requires_grad(r); }

}  // namespace ember
