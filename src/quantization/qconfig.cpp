// torch 1.13's predefined qconfigs in C++ (Python's are the namedtuples of qconfig.py, made of
// the same classes).
#include "ember/quantization/qconfig.h"

#include "ember/nn/modules/linear.h"
#include "ember/quantization/fake_quantize.h"

namespace ember::quantization {

namespace {

ObserverOptions opts(ScalarType dtype, QScheme qscheme, bool reduce_range = false,
                     std::optional<int64_t> qmin = std::nullopt, std::optional<int64_t> qmax = std::nullopt) {
  ObserverOptions o;
  o.dtype = dtype;
  o.qscheme = qscheme;
  o.reduce_range = reduce_range;
  o.quant_min = qmin;
  o.quant_max = qmax;
  return o;
}

template <class T, class... Args>
ModuleFactory factory(Args... args) {
  return [args...]() -> std::shared_ptr<nn::Module> { return std::make_shared<T>(args...); };
}

// default_observer, default_weight_observer, default_per_channel_weight_observer.
ModuleFactory default_observer() {
  return factory<MinMaxObserver>(opts(kQUInt8, QScheme::PerTensorAffine, false, 0, 127), std::string("MinMaxObserver"));
}
ModuleFactory default_weight_observer() {
  return factory<MinMaxObserver>(opts(kQInt8, QScheme::PerTensorSymmetric), std::string("MinMaxObserver"));
}
ModuleFactory default_per_channel_weight_observer() {
  return factory<PerChannelMinMaxObserver>(int64_t{0}, opts(kQInt8, QScheme::PerChannelSymmetric),
                                           std::string("PerChannelMinMaxObserver"));
}
ModuleFactory histogram(bool reduce_range) {
  return factory<HistogramObserver>(int64_t{2048}, int64_t{128}, opts(kQUInt8, QScheme::PerTensorAffine, reduce_range));
}
ModuleFactory placeholder(ScalarType dtype, std::optional<ScalarType> compute = std::nullopt) {
  return factory<PlaceholderObserver>(dtype, std::string(), compute, std::string("PlaceholderObserver"));
}

// FakeQuantize.with_args(observer=MovingAverage..., quant_min, quant_max, ...).
template <class FQ, class Obs>
ModuleFactory fake_quant(ObserverOptions o, bool per_channel) {
  return [o, per_channel]() -> std::shared_ptr<nn::Module> {
    std::shared_ptr<ObserverBase> obs;
    if (per_channel) {
      obs = std::make_shared<MovingAveragePerChannelMinMaxObserver>(0.01, 0, o);
    } else {
      obs = std::make_shared<MovingAverageMinMaxObserver>(0.01, o);
    }
    return std::make_shared<FQ>(obs);
  };
}
ModuleFactory default_fake_quant() {
  return fake_quant<FakeQuantize, MovingAverageMinMaxObserver>(opts(kQUInt8, QScheme::PerTensorAffine, true, 0, 255), false);
}
ModuleFactory default_weight_fake_quant() {
  return fake_quant<FakeQuantize, MovingAverageMinMaxObserver>(opts(kQInt8, QScheme::PerTensorSymmetric, false, -128, 127), false);
}
ModuleFactory default_per_channel_weight_fake_quant() {
  return fake_quant<FakeQuantize, MovingAveragePerChannelMinMaxObserver>(
      opts(kQInt8, QScheme::PerChannelSymmetric, false, -128, 127), true);
}
ModuleFactory fused(ObserverOptions o, bool per_channel = false) {
  return fake_quant<FusedMovingAvgObsFakeQuantize, MovingAverageMinMaxObserver>(o, per_channel);
}
ModuleFactory default_fused_act_fake_quant() { return fused(opts(kQUInt8, QScheme::PerTensorAffine, false, 0, 255)); }
ModuleFactory default_fused_wt_fake_quant() { return fused(opts(kQInt8, QScheme::PerTensorSymmetric, false, -128, 127)); }
ModuleFactory default_fused_per_channel_wt_fake_quant() {
  return fused(opts(kQInt8, QScheme::PerChannelSymmetric, false, -128, 127), true);
}
ModuleFactory identity() { return factory<nn::Identity>(); }

}  // namespace

QConfigPtr make_qconfig(ModuleFactory activation, ModuleFactory weight) {
  auto q = std::make_shared<QConfig>();
  q->activation = std::move(activation);
  q->weight = std::move(weight);
  return q;
}

QConfigPtr default_qconfig() { return make_qconfig(default_observer(), default_weight_observer()); }
QConfigPtr default_debug_qconfig() { return make_qconfig(factory<RecordingObserver>(kQUInt8), default_weight_observer()); }
QConfigPtr default_per_channel_qconfig() {
  return make_qconfig(default_observer(), default_per_channel_weight_observer());
}
QConfigPtr default_dynamic_qconfig() { return make_qconfig(placeholder(kQUInt8, kQUInt8), default_weight_observer()); }
QConfigPtr float16_dynamic_qconfig() { return make_qconfig(placeholder(kFloat16, kFloat16), placeholder(kFloat16)); }
QConfigPtr float16_static_qconfig() { return make_qconfig(placeholder(kFloat16), placeholder(kFloat16)); }
QConfigPtr per_channel_dynamic_qconfig() {
  return make_qconfig(placeholder(kQUInt8, kQUInt8), default_per_channel_weight_observer());
}
QConfigPtr float_qparams_weight_only_qconfig() {
  return make_qconfig(placeholder(kFloat32),
                      factory<PerChannelMinMaxObserver>(int64_t{0}, opts(kQUInt8, QScheme::PerChannelAffineFloatQParams),
                                                        std::string("PerChannelMinMaxObserver")));
}
QConfigPtr float_qparams_weight_only_qconfig_4bit() {
  return make_qconfig(placeholder(kFloat32),
                      factory<PerChannelMinMaxObserver>(int64_t{0}, opts(kQUInt4x2, QScheme::PerChannelAffineFloatQParams),
                                                        std::string("PerChannelMinMaxObserver")));
}
QConfigPtr default_qat_qconfig() { return make_qconfig(default_fake_quant(), default_weight_fake_quant()); }
QConfigPtr default_qat_qconfig_v2() { return make_qconfig(default_fused_act_fake_quant(), default_fused_wt_fake_quant()); }
QConfigPtr default_weight_only_qconfig() { return make_qconfig(identity(), default_weight_fake_quant()); }
QConfigPtr default_activation_only_qconfig() { return make_qconfig(default_fake_quant(), identity()); }

QConfigPtr get_default_qconfig(const std::string& backend, int64_t version) {
  if (version != 0) {
    throw AssertionError("Version number: " + std::to_string(version) +
                         " in get_default_qconfig is not supported. Version number must be 0");
  }
  if (backend == "fbgemm" || backend == "x86") return make_qconfig(histogram(true), default_per_channel_weight_observer());
  if (backend == "qnnpack") return make_qconfig(histogram(false), default_weight_observer());
  if (backend == "onednn") return make_qconfig(histogram(false), default_per_channel_weight_observer());
  return default_qconfig();
}

QConfigPtr get_default_qat_qconfig(const std::string& backend, int64_t version) {
  const bool known = backend == "fbgemm" || backend == "x86" || backend == "qnnpack" || backend == "onednn";
  // reduce_range: true for fbgemm / x86, false for qnnpack, unset (false) for onednn.
  const bool reduce = backend == "fbgemm" || backend == "x86";
  const auto act = opts(kQUInt8, QScheme::PerTensorAffine, reduce, 0, 255);
  if (version == 0) {
    if (!known) return default_qat_qconfig();
    return make_qconfig(fake_quant<FakeQuantize, MovingAverageMinMaxObserver>(act, false),
                        backend == "qnnpack" ? default_weight_fake_quant() : default_per_channel_weight_fake_quant());
  }
  if (version == 1) {
    if (!known) return default_qat_qconfig_v2();
    return make_qconfig(fused(act),
                        backend == "qnnpack" ? default_fused_wt_fake_quant() : default_fused_per_channel_wt_fake_quant());
  }
  throw AssertionError("Version number: " + std::to_string(version) +
                       "in get_default_qat_qconfig is not supported. Version number must be 0 or 1");
}

}  // namespace ember::quantization
