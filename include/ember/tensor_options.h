// Options for factories: dtype and device (each optional; defaults come from
// default_dtype() / default_device()).
//
//   ember::zeros({2, 3}, ember::kFloat64);
//   ember::ones({4}, ember::TensorOptions().dtype(ember::kInt64).device(ember::kMeta));
#pragma once

#include <optional>

#include "ember/device.h"
#include "ember/dtype.h"

namespace ember {

struct TensorOptions {
  std::optional<ScalarType> dtype_;
  std::optional<Device> device_;

  TensorOptions() = default;
  TensorOptions(ScalarType t) : dtype_(t) {}   // NOLINT: implicit, as in libtorch
  TensorOptions(Device d) : device_(d) {}      // NOLINT
  TensorOptions(DeviceType d) : device_(d) {}  // NOLINT

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
  ScalarType dtype_or_default() const { return dtype_ ? *dtype_ : default_dtype(); }
  Device device_or_default() const { return device_ ? *device_ : default_device(); }
};

}  // namespace ember
