// The observer factories the workflow itself needs (torch.ao.quantization.observer's
// default_observer, default_weight_observer, default_per_channel_weight_observer and
// default_dynamic_qconfig): torchvision's quantize_model recipe and dynamic quantization's
// defaults.
#pragma once

#include <memory>

#include "ember/quantization/observer.h"
#include "ember/quantization/qconfig.h"

namespace ember::quantization::detail {

/// MinMaxObserver(quant_min=0, quant_max=127).
inline ModuleFactory default_observer() {
  return [] {
    ObserverOptions o;
    o.quant_min = 0;
    o.quant_max = 127;
    return std::make_shared<MinMaxObserver>(o);
  };
}
/// MinMaxObserver(dtype=qint8, qscheme=per_tensor_symmetric).
inline ModuleFactory default_weight_observer() {
  return [] {
    ObserverOptions o;
    o.dtype = kQInt8;
    o.qscheme = QScheme::PerTensorSymmetric;
    return std::make_shared<MinMaxObserver>(o);
  };
}
/// PerChannelMinMaxObserver(dtype=qint8, qscheme=per_channel_symmetric).
inline ModuleFactory default_per_channel_weight_observer() {
  return [] {
    ObserverOptions o;
    o.dtype = kQInt8;
    o.qscheme = QScheme::PerChannelSymmetric;
    return std::make_shared<PerChannelMinMaxObserver>(0, o);
  };
}
/// QConfig(activation=PlaceholderObserver(quint8), weight=default_weight_observer).
inline QConfigPtr default_dynamic_qconfig() {
  static const QConfigPtr q = std::make_shared<const QConfig>(QConfig{
      [] { return std::make_shared<PlaceholderObserver>(kQUInt8); }, default_weight_observer(),
      {}});
  return q;
}

}  // namespace ember::quantization::detail
