// The fake-quantize modules of include/ember/quantization/fake_quantize.h, torch 1.13's fused
// observer + fake-quant op, and observed_qparams.
#include "ember/quantization/fake_quantize.h"

#include <cmath>
#include <limits>
#include <sstream>

#include "ember/grad_mode.h"
#include "ember/nn/module_clone.h"
#include "ember/ops/factory.h"
#include "backends/cpu/quantized/qconv.h"
#include "quantization/observer_utils.h"

namespace ember::quantization {

namespace {

bool is_per_channel_scheme(QScheme q) {
  return q == QScheme::PerChannelAffine || q == QScheme::PerChannelSymmetric ||
         q == QScheme::PerChannelAffineFloatQParams;
}

std::string repr_of(const Tensor& t) {
  std::ostringstream os;
  os << t;
  return os.str();
}

std::string qscheme_repr(QScheme q) { return std::string("ember.") + qscheme_name(q); }

std::pair<int64_t, int64_t> observer_range(const ObserverBase& obs) {
  if (auto* u = dynamic_cast<const UniformQuantizationObserverBase*>(&obs)) return {u->quant_min, u->quant_max};
  if (auto* f = dynamic_cast<const FixedQParamsObserver*>(&obs)) return {f->quant_min, f->quant_max};
  EMBER_FAIL_KIND(ErrorKind::Type, "FakeQuantize: the observer ", obs.type_name(),
                  " has no quant_min / quant_max (expected a UniformQuantizationObserverBase or a "
                  "FixedQParamsObserver)");
}

FrontEndQParams g_front_end_qparams = nullptr;

const bool registered = [] {
  nn::register_cloneable<FakeQuantize>();
  nn::register_cloneable<FixedQParamsFakeQuantize>();
  nn::register_cloneable<FusedMovingAvgObsFakeQuantize>();
  return true;
}();

}  // namespace

// ---- FakeQuantizeBase ----

FakeQuantizeBase::FakeQuantizeBase(std::string type_name) : Module(std::move(type_name)) {
  register_buffer("fake_quant_enabled", ember::full({1}, 1, TensorOptions().dtype(kUInt8)));
  register_buffer("observer_enabled", ember::full({1}, 1, TensorOptions().dtype(kUInt8)));
}

void FakeQuantizeBase::enable_fake_quant(bool enabled) {
  buffer("fake_quant_enabled").fill_(enabled ? 1 : 0);
}
void FakeQuantizeBase::enable_observer(bool enabled) { buffer("observer_enabled").fill_(enabled ? 1 : 0); }
bool FakeQuantizeBase::fake_quant_enabled() { return buffer("fake_quant_enabled").to(kInt64).item<int64_t>() == 1; }
bool FakeQuantizeBase::observer_enabled() { return buffer("observer_enabled").to(kInt64).item<int64_t>() == 1; }

void enable_fake_quant(nn::Module& m) {
  if (auto* f = dynamic_cast<FakeQuantizeBase*>(&m)) f->enable_fake_quant();
}
void disable_fake_quant(nn::Module& m) {
  if (auto* f = dynamic_cast<FakeQuantizeBase*>(&m)) f->disable_fake_quant();
}
void enable_observer(nn::Module& m) {
  if (auto* f = dynamic_cast<FakeQuantizeBase*>(&m)) f->enable_observer();
}
void disable_observer(nn::Module& m) {
  if (auto* f = dynamic_cast<FakeQuantizeBase*>(&m)) f->disable_observer();
}

// ---- FakeQuantize ----

FakeQuantize::FakeQuantize(std::shared_ptr<ObserverBase> observer, std::string type_name)
    : FakeQuantizeBase(std::move(type_name)) {
  EMBER_CHECK_TYPE(observer != nullptr, "FakeQuantize: observer must be a module, got None");
  observer_range(*observer);  // a range it has
  register_module("activation_post_process", observer);
  dtype_ = observer->dtype();
  qscheme_ = observer->qscheme();
  ch_axis_ = observer->ch_axis();
  const bool float_qparams = qscheme_ == QScheme::PerChannelAffineFloatQParams;
  register_buffer("scale", ember::full({1}, 1.0f, TensorOptions().dtype(kFloat32)));
  register_buffer("zero_point", float_qparams ? ember::full({1}, 0.0f, TensorOptions().dtype(kFloat32))
                                              : ember::full({1}, 0, TensorOptions().dtype(kInt32)));
}

std::shared_ptr<ObserverBase> FakeQuantize::observer() const {
  auto obs = std::dynamic_pointer_cast<ObserverBase>(child("activation_post_process"));
  EMBER_CHECK(obs != nullptr, type_name(), ": activation_post_process is not an observer");
  return obs;
}

int64_t FakeQuantize::quant_min() const { return observer_range(*observer()).first; }
int64_t FakeQuantize::quant_max() const { return observer_range(*observer()).second; }
bool FakeQuantize::is_per_channel() const { return is_per_channel_scheme(qscheme_); }

std::pair<Tensor, Tensor> FakeQuantize::calculate_qparams() { return observer()->calculate_qparams(); }

Value FakeQuantize::forward(const std::vector<Value>& inputs) {
  EMBER_CHECK_TYPE(inputs.size() == 1, type_name(), ".forward() takes 1 input, got ", inputs.size());
  return Value(forward(inputs[0].to_tensor()));
}

Tensor FakeQuantize::forward(const Tensor& x) {
  if (observer_enabled()) {
    observer()->call({Value(x.detach())});
    auto [s, z] = calculate_qparams();
    detail::store(scale(), s);
    detail::resize_(zero_point(), z.sizes());
    zero_point().copy_(z);
  }
  if (!fake_quant_enabled()) return x;
  if (is_per_channel()) {
    return fake_quantize_per_channel_affine(x, scale(), zero_point(), ch_axis_, quant_min(), quant_max());
  }
  return fake_quantize_per_tensor_affine(x, scale(), zero_point(), quant_min(), quant_max());
}

std::string FakeQuantize::extra_repr() const {
  auto& self = const_cast<FakeQuantize&>(*this);
  std::ostringstream os;
  os << "fake_quant_enabled=" << repr_of(self.buffer("fake_quant_enabled"))
     << ", observer_enabled=" << repr_of(self.buffer("observer_enabled")) << ", quant_min=" << quant_min()
     << ", quant_max=" << quant_max() << ", dtype=" << dtype_repr(dtype_) << ", qscheme=" << qscheme_repr(qscheme_)
     << ", ch_axis=" << ch_axis_ << ", scale=" << repr_of(self.scale())
     << ", zero_point=" << repr_of(self.zero_point());
  return os.str();
}

void FakeQuantize::_load_from_state_dict(nn::StateDict& state_dict, const std::string& prefix,
                                         nn::LocalMetadata& local_metadata, bool strict,
                                         std::vector<std::string>& missing_keys,
                                         std::vector<std::string>& unexpected_keys,
                                         std::vector<std::string>& error_msgs) {
  // torch resizes scale / zero_point to the saved shapes (per-channel ones are [C]).
  for (const char* name : {"scale", "zero_point"}) {
    const Value* v = state_dict.find(prefix + name);
    if (v && v->is_tensor()) {
      detail::resize_(buffer(name), v->to_tensor().sizes());
    } else if (strict) {
      missing_keys.push_back(prefix + name);
    }
  }
  FakeQuantizeBase::_load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                          unexpected_keys, error_msgs);
}

// ---- FixedQParamsFakeQuantize ----

FixedQParamsFakeQuantize::FixedQParamsFakeQuantize(std::shared_ptr<FixedQParamsObserver> observer)
    : FakeQuantize(observer, "FixedQParamsFakeQuantize") {
  EMBER_CHECK(qscheme_ == QScheme::PerTensorAffine || qscheme_ == QScheme::PerTensorSymmetric,
              "Only per tensor quantization is supported FixedQParamsFakeQuantize module, got qscheme:",
              qscheme_repr(qscheme_));
  // The observer's own tensors (torch: self.scale = self.activation_post_process.scale).
  buffer("scale") = observer->buffer("scale");
  buffer("zero_point") = observer->buffer("zero_point");
}

std::pair<Tensor, Tensor> FixedQParamsFakeQuantize::calculate_qparams() { return {scale(), zero_point()}; }

std::string FixedQParamsFakeQuantize::extra_repr() const {
  auto& self = const_cast<FixedQParamsFakeQuantize&>(*this);
  std::ostringstream os;
  os << "fake_quant_enabled=" << repr_of(self.buffer("fake_quant_enabled"))
     << ", observer_enabled=" << repr_of(self.buffer("observer_enabled")) << ", scale=" << repr_of(self.scale())
     << ", zero_point=" << repr_of(self.zero_point()) << ", dtype=" << dtype_repr(dtype_)
     << ", quant_min=" << quant_min() << ", quant_max=" << quant_max() << ", qscheme=" << qscheme_repr(qscheme_);
  return os.str();
}

// ---- FusedMovingAvgObsFakeQuantize ----

FusedMovingAvgObsFakeQuantize::FusedMovingAvgObsFakeQuantize(std::shared_ptr<ObserverBase> observer)
    : FakeQuantize(observer, "FusedMovingAvgObsFakeQuantize") {
  if (!dynamic_cast<MovingAverageMinMaxObserver*>(observer.get()) &&
      !dynamic_cast<MovingAveragePerChannelMinMaxObserver*>(observer.get())) {
    throw AssertionError("Fused observer+fake_quant module only works with MovingAverageMinMaxObserver");
  }
  buffer("fake_quant_enabled") = ember::full({1}, int64_t{1}, TensorOptions().dtype(kInt64));
  buffer("observer_enabled") = ember::full({1}, int64_t{1}, TensorOptions().dtype(kInt64));
}

bool FusedMovingAvgObsFakeQuantize::is_symmetric_quant() const {
  return qscheme_ == QScheme::PerTensorSymmetric || qscheme_ == QScheme::PerChannelSymmetric;
}

Value FusedMovingAvgObsFakeQuantize::forward(const std::vector<Value>& inputs) {
  EMBER_CHECK_TYPE(inputs.size() == 1, type_name(), ".forward() takes 1 input, got ", inputs.size());
  return Value(forward(inputs[0].to_tensor()));
}

Tensor FusedMovingAvgObsFakeQuantize::forward(const Tensor& x) {
  auto obs = observer();
  double c = 0;
  if (auto* m = dynamic_cast<MovingAverageMinMaxObserver*>(obs.get())) c = m->averaging_constant;
  if (auto* m = dynamic_cast<MovingAveragePerChannelMinMaxObserver*>(obs.get())) c = m->averaging_constant;
  return fused_moving_avg_obs_fake_quant(x, buffer("observer_enabled"), buffer("fake_quant_enabled"),
                                         obs->buffer("min_val"), obs->buffer("max_val"), scale(),
                                         zero_point(), c, quant_min(), quant_max(), ch_axis_,
                                         is_per_channel(), is_symmetric_quant());
}

std::string FusedMovingAvgObsFakeQuantize::extra_repr() const {
  auto& self = const_cast<FusedMovingAvgObsFakeQuantize&>(*this);
  auto* u = dynamic_cast<UniformQuantizationObserverBase*>(observer().get());
  std::ostringstream os;
  os << "fake_quant_enabled=" << repr_of(self.buffer("fake_quant_enabled"))
     << ", observer_enabled=" << repr_of(self.buffer("observer_enabled")) << ", scale=" << repr_of(self.scale())
     << ", zero_point=" << repr_of(self.zero_point()) << ", dtype=" << dtype_repr(dtype_)
     << ", quant_min=" << quant_min() << ", quant_max=" << quant_max() << ", qscheme=" << qscheme_repr(qscheme_)
     << ", reduce_range=" << (u && u->reduce_range ? "True" : "False");
  return os.str();
}

// ---- the fused op ----

std::pair<float, int32_t> choose_quantization_params(float min, float max, int32_t qmin, int32_t qmax,
                                                     bool preserve_sparsity) {
  const auto p = cpu::quantized::choose_quantization_params(min, max, qmin, qmax, preserve_sparsity);
  return {p.scale, p.zero_point};
}

Tensor fused_moving_avg_obs_fake_quant(const Tensor& self, const Tensor& observer_on,
                                       const Tensor& fake_quant_on, Tensor& running_min,
                                       Tensor& running_max, Tensor& scale, Tensor& zero_point,
                                       double averaging_const, int64_t quant_min, int64_t quant_max,
                                       int64_t ch_axis, bool per_row_fake_quant, bool symmetric_quant) {
  EMBER_CHECK(ch_axis < self.dim(), "Error in fused_moving_avg_obs_fake_quant_cpu: ch_axis must be < self.dim()");
  const bool observe = observer_on.to(kInt64).item<int64_t>() != 0;
  const auto c = static_cast<float>(averaging_const);
  auto update = [c](float* run, const std::vector<float>& cur) {
    for (size_t i = 0; i < cur.size(); ++i) run[i] = std::isinf(run[i]) ? cur[i] : run[i] + c * (cur[i] - run[i]);
  };
  {
    NoGradGuard no_grad;
    if (per_row_fake_quant) {
      Tensor y = self.detach();
      if (self.dim() != 2) {
        std::vector<int64_t> axes(static_cast<size_t>(self.dim()));
        for (size_t i = 0; i < axes.size(); ++i) axes[i] = static_cast<int64_t>(i);
        axes[static_cast<size_t>(ch_axis)] = 0;
        axes[0] = ch_axis;
        y = y.permute(axes).flatten(1);
      }
      const int64_t size = self.size(ch_axis);
      if (running_min.numel() == 0) {
        // In place, as torch's resize_: the caller's tensors (the observer's buffers) grow.
        const float inf = std::numeric_limits<float>::infinity();
        detail::resize_(running_min, {size});
        running_min.fill_(inf);
        detail::resize_(running_max, {size});
        running_max.fill_(-inf);
        detail::resize_(scale, {size});
        detail::resize_(zero_point, {size});
      }
      if (observe) {
        EMBER_CHECK(ch_axis == 0, "Per-channel FakeQuant in fused_moving_avg_obs_fake_quant is only supported on axis == 0");
        Tensor rows = y.to(kFloat32).contiguous();
        const int64_t n = rows.numel() / std::max<int64_t>(rows.size(0), 1);
        std::vector<float> mins, maxs;
        const float* p = rows.data_ptr<float>();
        for (int64_t i = 0; i < rows.size(0); ++i) {
          auto [mn, mx] = detail::aminmax(std::vector<float>(p + i * n, p + (i + 1) * n));
          mins.push_back(mn);
          maxs.push_back(mx);
        }
        update(running_min.data_ptr<float>(), mins);
        update(running_max.data_ptr<float>(), maxs);
      }
    } else if (observe) {
      auto [mn, mx] = detail::aminmax(detail::floats(self));
      update(running_min.data_ptr<float>(), {mn});
      update(running_max.data_ptr<float>(), {mx});
    }
  }
  if (fake_quant_on.to(kInt64).item<int64_t>() == 0) return self.clone();
  const auto mins = detail::floats(running_min), maxs = detail::floats(running_max);
  for (size_t i = 0; i < mins.size(); ++i) {
    auto [s, z] = choose_quantization_params(mins[i], maxs[i], static_cast<int32_t>(quant_min),
                                             static_cast<int32_t>(quant_max), symmetric_quant);
    scale.data_ptr<float>()[i] = s;
    switch (zero_point.dtype()) {
      case kInt32: zero_point.data_ptr<int32_t>()[i] = z; break;
      case kInt64: zero_point.data_ptr<int64_t>()[i] = z; break;
      case kFloat32: zero_point.data_ptr<float>()[i] = static_cast<float>(z); break;
      default: EMBER_FAIL("fused_moving_avg_obs_fake_quant: zero_point must be int32, int64 or float32, got ",
                          dtype_name(zero_point.dtype()));
    }
  }
  if (per_row_fake_quant) {
    return fake_quantize_per_channel_affine(self, scale, zero_point, ch_axis, quant_min, quant_max);
  }
  return fake_quantize_per_tensor_affine(self, scale, zero_point, quant_min, quant_max);
}

// ---- observed_qparams ----

void set_front_end_qparams(FrontEndQParams fn) { g_front_end_qparams = fn; }

ObservedQParams observed_qparams(nn::Module& m) {
  if (auto* o = dynamic_cast<ObserverBase*>(&m)) {
    auto [s, z] = o->calculate_qparams();
    return {s, z, o->dtype(), o->qscheme(), o->ch_axis()};
  }
  if (auto* f = dynamic_cast<FakeQuantizeBase*>(&m)) {
    auto [s, z] = f->calculate_qparams();
    return {s, z, f->dtype(), f->qscheme(), f->ch_axis()};
  }
  ObservedQParams out;
  if (g_front_end_qparams && g_front_end_qparams(m, out)) return out;
  EMBER_FAIL_KIND(ErrorKind::Type, "expected an observer or a fake quantize module (with calculate_qparams), got ",
                  m.type_name());
}

}  // namespace ember::quantization
