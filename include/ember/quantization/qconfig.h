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

}  // namespace ember::quantization
