// PerChannelMinMaxObserver and MovingAveragePerChannelMinMaxObserver (Note [Observer arithmetic]).
#include <cmath>
#include <limits>

#include "ember/ops/factory.h"
#include "ember/quantization/observer.h"
#include "quantization/observer_utils.h"

namespace ember::quantization {

namespace {

const ObserverOptions& per_channel_only(const ObserverOptions& o, const std::string& type_name) {
  const std::string sp(20, ' ');
  EMBER_CHECK_NOT_IMPLEMENTED(
      o.qscheme == QScheme::PerChannelAffine || o.qscheme == QScheme::PerChannelSymmetric ||
          o.qscheme == QScheme::PerChannelAffineFloatQParams,
      type_name, "'s qscheme only support ", sp,
      "ember.per_channel_symmetric, ember.per_channel_affine and ember.per_channel_affine_float_qparams.");
  return o;
}

Tensor empty_f32() { return ember::empty({0}, TensorOptions().dtype(kFloat32)); }

// Per-row (min, max) of a contiguous float32 [C, N] tensor, NaN-propagating.
std::pair<std::vector<float>, std::vector<float>> row_minmax(const Tensor& rows) {
  const int64_t c = rows.size(0), n = rows.numel() / std::max<int64_t>(c, 1);
  const float* p = rows.data_ptr<float>();
  std::vector<float> mn(static_cast<size_t>(c)), mx(static_cast<size_t>(c));
  for (int64_t i = 0; i < c; ++i) {
    EMBER_CHECK(n > 0, "aminmax(): Expected reduction dim 1 to have non-zero size.");
    std::vector<float> row(p + i * n, p + (i + 1) * n);
    std::tie(mn[static_cast<size_t>(i)], mx[static_cast<size_t>(i)]) = detail::aminmax(row);
  }
  return {mn, mx};
}

Tensor from_floats(const std::vector<float>& v) {
  Tensor t = ember::empty({static_cast<int64_t>(v.size())}, TensorOptions().dtype(kFloat32));
  std::copy(v.begin(), v.end(), t.data_ptr<float>());
  return t;
}

}  // namespace

PerChannelMinMaxObserver::PerChannelMinMaxObserver(int64_t ch_axis, const ObserverOptions& o,
                                                   std::string type_name)
    : UniformQuantizationObserverBase(type_name, per_channel_only(o, type_name)), ch_axis_(ch_axis) {
  register_buffer("min_val", empty_f32());
  register_buffer("max_val", empty_f32());
  EMBER_CHECK_NOT_IMPLEMENTED(
      !(o.qscheme == QScheme::PerChannelSymmetric && o.reduce_range && o.dtype == kQUInt8),
      "Cannot reduce range for symmetric quantization for quint8");
}

Tensor PerChannelMinMaxObserver::channel_rows(const Tensor& x) const {
  const int64_t dim = x.dim();
  std::vector<int64_t> axes(static_cast<size_t>(dim));
  for (int64_t i = 0; i < dim; ++i) axes[static_cast<size_t>(i)] = i;
  // torch: new_axis_list[ch_axis] = 0; new_axis_list[0] = ch_axis (Python list indexing).
  const int64_t idx = ch_axis_ < 0 ? ch_axis_ + dim : ch_axis_;
  EMBER_CHECK_INDEX(idx >= 0 && idx < dim, "list assignment index out of range");
  axes[static_cast<size_t>(idx)] = 0;
  axes[0] = ch_axis_;
  return x.detach().permute(axes).to(kFloat32).flatten(1).contiguous();
}

void PerChannelMinMaxObserver::store(const Tensor& mn, const Tensor& mx) {
  detail::store(min_val(), mn);
  detail::store(max_val(), mx);
}

Tensor PerChannelMinMaxObserver::observe(const Tensor& x) {
  if (x.numel() == 0) return x;
  auto [cur_min, cur_max] = row_minmax(channel_rows(x));
  if (min_val().numel() != 0 && max_val().numel() != 0) {
    const auto old_min = detail::floats(min_val()), old_max = detail::floats(max_val());
    EMBER_CHECK(old_min.size() == cur_min.size(), "The size of tensor a (", cur_min.size(),
                ") must match the size of tensor b (", old_min.size(), ") at non-singleton dimension 0");
    for (size_t i = 0; i < cur_min.size(); ++i) {
      cur_min[i] = detail::fmin_nan(cur_min[i], old_min[i]);
      cur_max[i] = detail::fmax_nan(cur_max[i], old_max[i]);
    }
  }
  store(from_floats(cur_min), from_floats(cur_max));
  return x;
}

std::pair<Tensor, Tensor> PerChannelMinMaxObserver::calculate_qparams() {
  return calculate_qparams_from(min_val(), max_val());
}

std::string PerChannelMinMaxObserver::extra_repr() const {
  auto& self = const_cast<PerChannelMinMaxObserver&>(*this);
  return "min_val=" + detail::format_tensor(self.min_val()) + ", max_val=" +
         detail::format_tensor(self.max_val());
}

void PerChannelMinMaxObserver::reset_min_max_vals() {
  // torch assigns fresh empty tensors (self.min_val = torch.rand(0, )).
  min_val() = empty_f32();
  max_val() = empty_f32();
}

void PerChannelMinMaxObserver::_load_from_state_dict(
    nn::StateDict& state_dict, const std::string& prefix, nn::LocalMetadata& local_metadata,
    bool strict, std::vector<std::string>& missing_keys, std::vector<std::string>& unexpected_keys,
    std::vector<std::string>& error_msgs) {
  // Version < 3 named the buffers min_vals / max_vals; torch resizes the buffers to the saved
  // shapes, and its base loader (strict=False) then copies the current names only.
  const bool old = detail::metadata_version(local_metadata) < 3;
  const char* names[2] = {old ? "min_vals" : "min_val", old ? "max_vals" : "max_val"};
  for (int i = 0; i < 2; ++i) {
    const std::string key = prefix + names[i];
    if (const Value* v = state_dict.find(key); v && v->is_tensor()) {
      detail::resize_(buffer(i == 0 ? "min_val" : "max_val"), v->to_tensor().sizes());
    } else if (strict) {
      missing_keys.push_back(key);
    }
  }
  UniformQuantizationObserverBase::_load_from_state_dict(state_dict, prefix, local_metadata, false,
                                                         missing_keys, unexpected_keys, error_msgs);
}

MovingAveragePerChannelMinMaxObserver::MovingAveragePerChannelMinMaxObserver(double c, int64_t ch_axis,
                                                                             const ObserverOptions& o)
    : PerChannelMinMaxObserver(ch_axis, per_channel_only(o, "MovingAveragePerChannelMinMaxObserver"),
                               "MovingAveragePerChannelMinMaxObserver"),
      averaging_constant(c) {}

Tensor MovingAveragePerChannelMinMaxObserver::observe(const Tensor& x) {
  if (x.numel() == 0) return x;
  auto [cur_min, cur_max] = row_minmax(channel_rows(x));
  if (min_val().numel() != 0 && max_val().numel() != 0) {
    const auto old_min = detail::floats(min_val()), old_max = detail::floats(max_val());
    EMBER_CHECK(old_min.size() == cur_min.size(), "The size of tensor a (", old_min.size(),
                ") must match the size of tensor b (", cur_min.size(), ") at non-singleton dimension 0");
    const auto c = static_cast<float>(averaging_constant);
    for (size_t i = 0; i < cur_min.size(); ++i) {
      cur_min[i] = old_min[i] + c * (cur_min[i] - old_min[i]);
      cur_max[i] = old_max[i] + c * (cur_max[i] - old_max[i]);
    }
  }
  store(from_floats(cur_min), from_floats(cur_max));
  return x;
}

}  // namespace ember::quantization
