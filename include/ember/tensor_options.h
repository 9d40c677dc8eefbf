// Options for factories: dtype, device and requires_grad (dtype and device optional; the
// defaults come from default_dtype() / default_device()). Spelled as libtorch's.
//
//   ember::zeros({2, 3}, ember::kFloat64);
//   ember::ones({4}, ember::TensorOptions().dtype(ember::kInt64).device(ember::kMeta));
//   auto w = ember::randn({3, 3}, ember::requires_grad());     // a leaf that requires grad
//   auto z = ember::zeros({2}, x.options());                   // x's dtype and device
#pragma once

#include <optional>

#include "ember/device.h"
#include "ember/dtype.h"

namespace ember {

struct TensorOptions {
  std::optional<ScalarType> dtype_;
  std::optional<Device> device_;
  bool requires_grad_ = false;

  TensorOptions() = default;
  TensorOptions(ScalarType t) : dtype_(t) {}   // NOLINT: implicit, as in libtorch
  TensorOptions(Device d) : device_(d) {}      // NOLINT
  TensorOptions(DeviceType d) : device_(d) {}  // NOLINT

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
  bool has_dtype() const { return dtype_.has_value(); }
  bool has_device() const { return device_.has_value(); }
  ScalarType dtype_or_default() const { return dtype_ ? *dtype_ : default_dtype(); }
  Device device_or_default() const { return device_ ? *device_ : default_device(); }
};

/// TensorOptions().dtype(t), as torch::dtype.
inline TensorOptions dtype(ScalarType t) { return TensorOptions().dtype(t); }
/// TensorOptions().device(d), as torch::device.
inline TensorOptions device(Device d) { return TensorOptions().device(d); }
/// TensorOptions().requires_grad(r), as torch::requires_grad.
inline TensorOptions requires_grad(bool r = true) { return TensorOptions().requires_grad(r); }

}  // namespace ember
