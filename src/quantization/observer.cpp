// The observers of include/ember/quantization/observer.h but HistogramObserver
// (observer_histogram.cpp). Note [Observer arithmetic] says what is torch's to the bit.
#include "ember/quantization/observer.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "ember/nn/module_clone.h"
#include "ember/ops/factory.h"
#include "ember/warning.h"
#include "quantization/observer_utils.h"

namespace ember::quantization {

using detail::floats;

namespace {
// Note [Cloning modules]: deep copies (copy.deepcopy, prepare(inplace=False)) copy observers.
const bool registered = [] {
  nn::register_cloneable<MinMaxObserver>();
  nn::register_cloneable<MovingAverageMinMaxObserver>();
  nn::register_cloneable<PerChannelMinMaxObserver>();
  nn::register_cloneable<MovingAveragePerChannelMinMaxObserver>();
  nn::register_cloneable<HistogramObserver>();
  nn::register_cloneable<FixedQParamsObserver>();
  nn::register_cloneable<PlaceholderObserver>();
  nn::register_cloneable<NoopObserver>();
  nn::register_cloneable<RecordingObserver>();
  return true;
}();
}  // namespace
using detail::scalar_f32;

// ---- ObserverBase ----

Value ObserverBase::forward(const std::vector<Value>& inputs) {
  EMBER_CHECK_TYPE(inputs.size() == 1, type_name(), ".forward() takes 1 input, got ", inputs.size());
  return Value(observe(inputs[0].to_tensor()));
}

// ---- UniformQuantizationObserverBase ----

std::pair<int64_t, int64_t> calculate_qmin_qmax(std::optional<int64_t> quant_min,
                                                std::optional<int64_t> quant_max,
                                                ScalarType dtype, bool reduce_range) {
  if (quant_min && quant_max) {
    const int64_t qmin = *quant_min, qmax = *quant_max;
    const int64_t len = qmax - qmin + 1;
    if (dtype == kQInt8 && !(0 < len && len <= 256)) {
      throw AssertionError(
          "quantization range should be positive and not exceed the maximum bit range (=256).");
    }
    if (dtype == kQInt32 && !(0 < len && len <= (int64_t{1} << 31))) {
      throw AssertionError(
          "quantization range should be positive and not exceed the maximum bit range (=4294967296).");
    }
    if (reduce_range) return {detail::floor_div(qmin, 2), detail::floor_div(qmax, 2)};
    return {qmin, qmax};
  }
  if (dtype == kQInt8) return reduce_range ? std::pair<int64_t, int64_t>{-64, 63} : std::pair<int64_t, int64_t>{-128, 127};
  if (dtype == kQUInt8) return reduce_range ? std::pair<int64_t, int64_t>{0, 127} : std::pair<int64_t, int64_t>{0, 255};
  // qint32 (torch: [-2^31, 2^31 - 1] whatever reduce_range says); quint4x2 [0, 15].
  if (dtype == kQInt32) return {-(int64_t{1} << 31), (int64_t{1} << 31) - 1};
  return {0, 15};
}

UniformQuantizationObserverBase::UniformQuantizationObserverBase(std::string type_name,
                                                                 const ObserverOptions& o)
    : ObserverBase(std::move(type_name), o.dtype), reduce_range(o.reduce_range) {
  qscheme_ = o.qscheme;
  if (o.reduce_range) {
    EMBER_WARN("Please use quant_min and quant_max to specify the range for observers.                     "
               "reduce_range will be deprecated in a future release of PyTorch.");
  }
  register_buffer("eps", ember::full({1}, static_cast<float>(o.eps), TensorOptions().dtype(kFloat32)));
  if (o.dtype != kQInt8 && o.dtype != kQUInt8 && o.dtype != kQUInt4x2 && o.dtype != kQInt32) {
    throw AssertionError("Default Observer only works for qint8, quint8 and quint4x2 data type");
  }
  has_customized_qrange = o.quant_min.has_value() && o.quant_max.has_value();
  if (has_customized_qrange) {
    if (!(*o.quant_min <= 0 && 0 <= *o.quant_max)) {
      throw AssertionError("Used-specified quantization range must include 0.");
    }
    if (!(*o.quant_min < *o.quant_max)) {
      throw AssertionError("qmin must be strictly less than qmax for user-specified quantization range.");
    }
  }
  std::tie(quant_min, quant_max) = calculate_qmin_qmax(o.quant_min, o.quant_max, o.dtype, o.reduce_range);
}

std::pair<Tensor, Tensor> UniformQuantizationObserverBase::calculate_qparams_from(const Tensor& min_val,
                                                                                  const Tensor& max_val) {
  if (!detail::check_min_max_valid(min_val, max_val)) return detail::default_qparams();
  const std::vector<float> mins = floats(min_val), maxs = floats(max_val);
  const float eps = floats(buffer("eps"))[0];
  const size_t n = mins.size();
  const QScheme q = qscheme();
  const bool symmetric = q == QScheme::PerTensorSymmetric || q == QScheme::PerChannelSymmetric;
  const bool float_qparams = q == QScheme::PerChannelAffineFloatQParams;
  Tensor scale = ember::empty({static_cast<int64_t>(n)}, TensorOptions().dtype(kFloat32));
  Tensor zero_point = ember::empty({static_cast<int64_t>(n)},
                                   TensorOptions().dtype(symmetric ? kInt64 : float_qparams ? kFloat32 : kInt32));
  float* s = scale.data_ptr<float>();
  for (size_t i = 0; i < n; ++i) {
    const float min_neg = std::min(mins[i], 0.f), max_pos0 = std::max(maxs[i], 0.f);
    if (symmetric) {
      const float max_pos = std::max(-min_neg, max_pos0);
      s[i] = std::max(max_pos / static_cast<float>(static_cast<double>(quant_max - quant_min) / 2), eps);
      int64_t z = 0;
      if (dtype() == kQUInt8) z = has_customized_qrange ? detail::floor_div(quant_min + quant_max, 2) : 128;
      zero_point.data_ptr<int64_t>()[i] = z;
    } else if (float_qparams) {
      const float sc = (maxs[i] - mins[i]) / static_cast<float>(quant_max - quant_min);
      s[i] = sc > eps ? sc : 1.f;
      zero_point.data_ptr<float>()[i] = (-1.f * mins[i]) / s[i];
    } else {
      s[i] = std::max((max_pos0 - min_neg) / static_cast<float>(quant_max - quant_min), eps);
      const auto r = static_cast<int32_t>(std::nearbyint(min_neg / s[i]));
      const auto z = static_cast<int32_t>(static_cast<int32_t>(quant_min) - r);
      zero_point.data_ptr<int32_t>()[i] =
          std::clamp<int32_t>(z, static_cast<int32_t>(quant_min), static_cast<int32_t>(quant_max));
    }
  }
  return {scale, zero_point};
}

void UniformQuantizationObserverBase::_load_from_state_dict(
    nn::StateDict& state_dict, const std::string& prefix, nn::LocalMetadata& local_metadata,
    bool strict, std::vector<std::string>& missing_keys, std::vector<std::string>& unexpected_keys,
    std::vector<std::string>& error_msgs) {
  const int64_t version = detail::metadata_version(local_metadata);
  if (version <= 1) {
    // eps became a buffer in version 2.
    state_dict.insert(prefix + "eps", Value(ember::full({1}, FLT_EPSILON, TensorOptions().dtype(kFloat32))));
  }
  ObserverBase::_load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                      unexpected_keys, error_msgs);
}

// ---- MinMaxObserver / MovingAverageMinMaxObserver ----


MinMaxObserver::MinMaxObserver(const ObserverOptions& o, std::string type_name)
    : UniformQuantizationObserverBase(type_name, detail::per_tensor_only(o, type_name)) {
  register_buffer("min_val", scalar_f32(std::numeric_limits<float>::infinity()));
  register_buffer("max_val", scalar_f32(-std::numeric_limits<float>::infinity()));
  EMBER_CHECK_NOT_IMPLEMENTED(
      !(o.qscheme == QScheme::PerTensorSymmetric && o.reduce_range && o.dtype == kQUInt8),
      "Cannot reduce range for symmetric                                        quantization for quint8");
}

Tensor MinMaxObserver::observe(const Tensor& x) {
  if (x.numel() == 0) return x;
  auto [cur_min, cur_max] = detail::aminmax(floats(x));
  float* mn = min_val().data_ptr<float>();
  float* mx = max_val().data_ptr<float>();
  *mn = detail::fmin_nan(cur_min, *mn);
  *mx = detail::fmax_nan(cur_max, *mx);
  return x;
}

std::pair<Tensor, Tensor> MinMaxObserver::calculate_qparams() {
  return calculate_qparams_from(min_val(), max_val());
}

std::string MinMaxObserver::extra_repr() const {
  auto& self = const_cast<MinMaxObserver&>(*this);
  return "min_val=" + detail::format_tensor(self.min_val()) + ", max_val=" +
         detail::format_tensor(self.max_val());
}

void MinMaxObserver::reset_min_max_vals() {
  min_val().data_ptr<float>()[0] = std::numeric_limits<float>::infinity();
  max_val().data_ptr<float>()[0] = -std::numeric_limits<float>::infinity();
}

MovingAverageMinMaxObserver::MovingAverageMinMaxObserver(double c, const ObserverOptions& o)
    : MinMaxObserver(detail::per_tensor_only(o, "MovingAverageMinMaxObserver"), "MovingAverageMinMaxObserver"),
      averaging_constant(c) {}

Tensor MovingAverageMinMaxObserver::observe(const Tensor& x) {
  if (x.numel() == 0) return x;
  auto [cur_min, cur_max] = detail::aminmax(floats(x));
  float* mn = min_val().data_ptr<float>();
  float* mx = max_val().data_ptr<float>();
  if (*mn == std::numeric_limits<float>::infinity() && *mx == -std::numeric_limits<float>::infinity()) {
    *mn = cur_min;
    *mx = cur_max;
  } else {
    const auto c = static_cast<float>(averaging_constant);
    *mn = *mn + c * (cur_min - *mn);
    *mx = *mx + c * (cur_max - *mx);
  }
  return x;
}

// ---- FixedQParams / Placeholder / Noop / Recording ----

FixedQParamsObserver::FixedQParamsObserver(double scale, int64_t zero_point, ScalarType dtype,
                                           QScheme qscheme, int64_t quant_min, int64_t quant_max)
    : ObserverBase("FixedQParamsObserver", dtype), quant_min(quant_min), quant_max(quant_max) {
  qscheme_ = qscheme;
  register_buffer("scale", ember::full({1}, static_cast<float>(scale), TensorOptions().dtype(kFloat32)));
  register_buffer("zero_point", ember::full({1}, zero_point, TensorOptions().dtype(kInt32)));
}

std::pair<Tensor, Tensor> FixedQParamsObserver::calculate_qparams() {
  return {buffer("scale"), buffer("zero_point")};
}

PlaceholderObserver::PlaceholderObserver(ScalarType dtype, std::string custom_op_name,
                                         std::optional<ScalarType> compute_dtype, std::string type_name)
    : ObserverBase(std::move(type_name), dtype), custom_op(std::move(custom_op_name)),
      compute_dtype(compute_dtype) {}

std::pair<Tensor, Tensor> PlaceholderObserver::calculate_qparams() {
  EMBER_FAIL("calculate_qparams should not be called for PlaceholderObserver");
}

NoopObserver::NoopObserver(ScalarType dtype, std::string custom_op_name)
    : ObserverBase("NoopObserver", dtype), custom_op(std::move(custom_op_name)) {}

std::pair<Tensor, Tensor> NoopObserver::calculate_qparams() {
  EMBER_FAIL("calculate_qparams should not be called for NoopObserver");
}

RecordingObserver::RecordingObserver(ScalarType dtype) : ObserverBase("RecordingObserver", dtype) {}

Tensor RecordingObserver::observe(const Tensor& x) {
  tensor_val.push_back(x.clone());
  return x;
}

std::pair<Tensor, Tensor> RecordingObserver::calculate_qparams() {
  EMBER_FAIL("calculate_qparams should not be called for RecordingObserver");
}

}  // namespace ember::quantization
