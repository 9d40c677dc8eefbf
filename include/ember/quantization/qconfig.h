// QConfig: how to observe a module's activations and weights (torch.ao.quantization.QConfig).
//
// Note [The qconfig slot]
// torch keeps `qconfig` as a plain attribute that the workflow sets on modules (possibly to
// None), reads with getattr(m, "qconfig", None) and deletes after convert. ember keeps it in
// nn::Module itself (qconfig() / set_qconfig() / has_qconfig() / clear_qconfig()), so the C++
// workflow and Python see one value: Python's `m.qconfig` reads and writes this slot. A QConfig
// is immutable and shared by every module it was propagated to. One made from Python's QConfig
// namedtuple keeps that tuple in `front_end_object`, so `m.qconfig is q` holds in Python; its
// factories call the tuple's callables.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "ember/nn/module.h"

namespace ember::quantization {

/// Makes a fresh observer / fake-quantize module (torch: `qconfig.activation()`).
using ModuleFactory = std::function<std::shared_ptr<nn::Module>()>;

struct QConfig {
  ModuleFactory activation;
  ModuleFactory weight;
  /// The front end's own object this came from (Python's QConfig namedtuple), so that
  /// `m.qconfig is q` holds in Python; empty for QConfigs made in C++.
  std::shared_ptr<void> front_end_object;
};
using QConfigPtr = std::shared_ptr<const QConfig>;

/// A QConfig of two factories (front_end_object empty).
QConfigPtr make_qconfig(ModuleFactory activation, ModuleFactory weight);

// torch 1.13's predefined qconfigs (torch/ao/quantization/qconfig.py), each a fresh QConfig whose
// factories make fresh observers / fake quantizes with torch's arguments.
QConfigPtr default_qconfig();                    // MinMax [0,127] / MinMax qint8 per-tensor symmetric
QConfigPtr default_debug_qconfig();              // Recording / default weight observer
QConfigPtr default_per_channel_qconfig();        // MinMax [0,127] / PerChannelMinMax qint8 symmetric
QConfigPtr default_dynamic_qconfig();            // Placeholder(quint8, compute quint8) / default weight
QConfigPtr float16_dynamic_qconfig();
QConfigPtr float16_static_qconfig();
QConfigPtr per_channel_dynamic_qconfig();
QConfigPtr float_qparams_weight_only_qconfig();  // Placeholder / PerChannel per_channel_affine_float_qparams
QConfigPtr float_qparams_weight_only_qconfig_4bit();  // the same with quint4x2 weights
QConfigPtr default_qat_qconfig();                // default_fake_quant / default_weight_fake_quant
QConfigPtr default_qat_qconfig_v2();             // the fused fake quants
QConfigPtr default_weight_only_qconfig();        // Identity / default_weight_fake_quant
QConfigPtr default_activation_only_qconfig();    // default_fake_quant / Identity
/// torch's get_default_qconfig(backend, version=0) for "x86", "fbgemm", "qnnpack", "onednn"
/// (Histogram activations, reduce_range for x86 / fbgemm, per-channel weights but on qnnpack);
/// any other backend: default_qconfig(). A version other than 0: AssertionError.
QConfigPtr get_default_qconfig(const std::string& backend = "x86", int64_t version = 0);
/// torch's get_default_qat_qconfig(backend, version=1): version 1 the fused fake quants, 0 the
/// FakeQuantize ones; other backends default_qat_qconfig(_v2).
QConfigPtr get_default_qat_qconfig(const std::string& backend = "x86", int64_t version = 1);

}  // namespace ember::quantization
