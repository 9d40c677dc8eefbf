// HistogramObserver (quantization-spec.md § 2.3) and torch's histc. Every step repeats torch
// 1.13's tensor expressions in their dtypes: float32 tensor arithmetic with Python scalars cast
// to float32, `.item()` values in double, the combined histogram's cumulative sum in double.
#include <atomic>
#include <cmath>
#include <limits>

#include "ember/ops/factory.h"
#include "ember/quantization/observer.h"
#include "ember/warning.h"
#include "quantization/observer_utils.h"
#include "backends/cpu/torch_sum.h"

namespace ember::quantization {

namespace {

std::atomic<bool> g_truncate{false};

constexpr float kInf = std::numeric_limits<float>::infinity();

// c10::div_floor_floating: Python's floor division of floats.
float div_floor(float a, float b) {
  if (b == 0) return a / b;
  const float mod = std::fmod(a, b);
  float div = (a - mod) / b;
  if (mod != 0 && (b < 0) != (mod < 0)) div -= 1.f;
  if (div == 0) return std::copysign(0.f, a / b);
  float floordiv = std::floor(div);
  if (div - floordiv > 0.5f) floordiv += 1.f;
  return floordiv;
}

// Python's int(float): toward zero, ValueError / OverflowError for NaN / inf.
double py_int(float v) {
  EMBER_CHECK_VALUE(!std::isnan(v), "cannot convert float NaN to integer");
  if (std::isinf(v)) EMBER_FAIL_KIND(ErrorKind::Runtime, "cannot convert float infinity to integer");
  return std::trunc(static_cast<double>(v));
}

}  // namespace

void set_histogram_observer_truncates_histc_range(bool on) { g_truncate = on; }
bool histogram_observer_truncates_histc_range() { return g_truncate; }

Tensor histc(const Tensor& x, int64_t bins, double min, double max) {
  const std::vector<float> v = detail::floats(x);
  double lo = min, hi = max;
  if (lo == hi && !v.empty()) {
    auto [mn, mx] = detail::aminmax(v);
    lo = mn;
    hi = mx;
  }
  if (lo == hi) {
    lo -= 1;
    hi += 1;
  }
  EMBER_CHECK(std::isfinite(lo) && std::isfinite(hi), "histc: range of [", lo, ", ", hi,
              "] is not finite");
  EMBER_CHECK(lo < hi, "histc: max must be larger than min");
  // The edges are float32 (linspace in the input's dtype): its first and last are lo and hi.
  const auto flo = static_cast<float>(lo), fhi = static_cast<float>(hi);
  Tensor out = ember::zeros({bins}, TensorOptions().dtype(kFloat32));
  float* h = out.data_ptr<float>();
  for (float e : v) {
    if (!(e >= flo && e <= fhi)) continue;  // outside, or NaN
    auto pos = static_cast<int64_t>((e - flo) * static_cast<float>(bins) / (fhi - flo));
    if (pos == bins) pos -= 1;
    h[pos] += 1.f;
  }
  return out;
}

HistogramObserver::HistogramObserver(int64_t bins, int64_t upsample_rate, const ObserverOptions& o)
    : UniformQuantizationObserverBase("HistogramObserver", detail::per_tensor_only(o, "HistogramObserver")),
      bins(bins), upsample_rate(upsample_rate), truncate_histc_range(g_truncate) {
  register_buffer("histogram", ember::zeros({bins}, TensorOptions().dtype(kFloat32)));
  register_buffer("min_val", detail::scalar_f32(kInf));
  register_buffer("max_val", detail::scalar_f32(-kInf));
  // 2 ** torch.iinfo(dtype).bits: 256 for the 8-bit types, whatever the range.
  dst_nbins = o.dtype == kQInt32 ? (int64_t{1} << 32) : 256;
}

Tensor HistogramObserver::observe(const Tensor& x) {
  if (x.numel() == 0) return x;
  const std::vector<float> v = detail::floats(x);
  const float min_val_ = detail::floats(min_val())[0], max_val_ = detail::floats(max_val())[0];
  const bool same_values = min_val_ == max_val_;
  const bool uninitialized = min_val_ == kInf && max_val_ == -kInf;
  auto range = [&](float a) { return truncate_histc_range ? py_int(a) : static_cast<double>(a); };
  if (uninitialized || same_values) {
    auto [mn, mx] = detail::aminmax(v);
    detail::store(min_val(), detail::scalar_f32(mn));
    detail::store(max_val(), detail::scalar_f32(mx));
    detail::store(histogram(), histc(x, bins, range(mn), range(mx)));
    return x;
  }
  auto [new_min, new_max] = detail::aminmax(v);
  float cmin = detail::fmin_nan(new_min, min_val_);
  float cmax = detail::fmax_nan(new_max, max_val_);
  // _adjust_min_max
  const float hist_bin_width = (max_val_ - min_val_) / static_cast<float>(bins * upsample_rate);
  const auto downsample_rate = static_cast<int64_t>(
      std::ceil((cmax - cmin) / (static_cast<float>(bins) * hist_bin_width)));
  const float e = static_cast<float>(downsample_rate) * (static_cast<float>(bins) * hist_bin_width) - (cmax - cmin);
  cmax = cmax + e;
  const auto start_idx = static_cast<int64_t>(std::nearbyint((min_val_ - cmin) / hist_bin_width));
  Tensor combined = histc(x, bins, range(cmin), range(cmax));
  float* c = combined.data_ptr<float>();
  const std::vector<float> old = detail::floats(histogram());
  if (cmin == min_val_ && cmax == max_val_) {
    for (int64_t i = 0; i < bins; ++i) c[i] += old[static_cast<size_t>(i)];
  } else {
    // _combine_histograms: upsample, place at start_idx, double cumsum sampled every
    // downsample_rate-th value, difference (the shifted copy is float32), / upsample_rate.
    const int64_t total = bins * downsample_rate, up = bins * upsample_rate;
    EMBER_CHECK(start_idx >= 0 && start_idx + up <= total, "The expanded size of the tensor (",
                std::max<int64_t>(0, std::min(total, start_idx + up) - start_idx),
                ") must match the existing size (", up, ") at non-singleton dimension 0.");
    std::vector<float> wide(static_cast<size_t>(total), 0.f);
    for (int64_t i = 0; i < up; ++i) wide[static_cast<size_t>(start_idx + i)] = old[static_cast<size_t>(i / upsample_rate)];
    std::vector<double> integral(static_cast<size_t>(bins));
    double acc = 0;
    for (int64_t i = 0; i < total; ++i) {
      acc += static_cast<double>(wide[static_cast<size_t>(i)]);
      if ((i + 1) % downsample_rate == 0) integral[static_cast<size_t>(i / downsample_rate)] = acc;
    }
    for (int64_t i = 0; i < bins; ++i) {
      const double shifted = i == 0 ? 0.0 : static_cast<double>(static_cast<float>(integral[static_cast<size_t>(i - 1)]));
      const double interp = (integral[static_cast<size_t>(i)] - shifted) / static_cast<double>(upsample_rate);
      c[i] = c[i] + static_cast<float>(interp);
    }
  }
  detail::store(histogram(), combined);
  detail::store(min_val(), detail::scalar_f32(cmin));
  detail::store(max_val(), detail::scalar_f32(cmax));
  return x;
}

double HistogramObserver::compute_quantization_error(int64_t next_start_bin, int64_t next_end_bin) {
  const double bin_width =
      (static_cast<double>(detail::floats(max_val())[0]) - static_cast<double>(detail::floats(min_val())[0])) /
      static_cast<double>(bins);
  const double dst_bin_width = bin_width * static_cast<double>(next_end_bin - next_start_bin + 1) /
                               static_cast<double>(dst_nbins);
  if (dst_bin_width == 0.0) return 0.0;
  const std::vector<float> hist = detail::floats(histogram());
  const auto bw = static_cast<float>(bin_width), dbw = static_cast<float>(dst_bin_width);
  const auto half = static_cast<float>(dst_bin_width / 2), neg_half = static_cast<float>(-dst_bin_width / 2);
  const auto top = static_cast<float>(dst_nbins - 1);
  auto get_norm = [](float b, float e, float density) { return density * ((e * e * e - b * b * b) / 3.f); };
  const float inner = (half * half * half - neg_half * neg_half * neg_half) / 3.f;
  std::vector<float> norms(static_cast<size_t>(bins));
  for (int64_t i = 0; i < bins; ++i) {
    const float begin = static_cast<float>(i - next_start_bin) * bw;
    const float end = begin + bw;
    const float of_begin = std::clamp(div_floor(begin, dbw), 0.f, top);
    const float begin_center = (of_begin + 0.5f) * dbw;
    const float of_end = std::clamp(div_floor(end, dbw), 0.f, top);
    const float density = hist[static_cast<size_t>(i)] / bw;
    float norm = 0.f + get_norm(begin - begin_center, half, density);
    norm += ((of_end - of_begin) - 1.f) * (density * inner);
    const float end_center = of_end * dbw + half;
    norm += get_norm(neg_half, end - end_center, density);
    norms[static_cast<size_t>(i)] = norm;
  }
  // norm.sum().item(): torch's summation order decides which range the search keeps
  return static_cast<double>(cpu::torch_order::float_sum(norms.data(), bins));
}

std::pair<Tensor, Tensor> HistogramObserver::non_linear_param_search() {
  EMBER_CHECK(histogram().numel() == bins, "bins mistmatch");
  const float min_val_ = detail::floats(min_val())[0], max_val_ = detail::floats(max_val())[0];
  const float bin_width = (max_val_ - min_val_) / static_cast<float>(bins);
  const std::vector<float> hist = detail::floats(histogram());
  std::vector<float> csum(hist.size());
  double run = 0;  // torch's CPU cumsum accumulates float32 in double
  for (size_t i = 0; i < hist.size(); ++i) {
    run += static_cast<double>(hist[i]);
    csum[i] = static_cast<float>(run);
  }
  // torch.sum(self.histogram).item() (Note [torch's float sum])
  const double total = static_cast<double>(
      cpu::torch_order::float_sum(hist.data(), static_cast<int64_t>(hist.size())));
  const double stepsize = 1e-5;
  double alpha = 0.0, beta = 1.0;
  int64_t start_bin = 0, end_bin = bins - 1;
  double norm_min = std::numeric_limits<double>::infinity();
  while (alpha < beta) {
    const double next_alpha = alpha + stepsize, next_beta = beta - stepsize;
    int64_t l = start_bin, r = end_bin;
    // A tensor compared with a Python float: the float is cast to float32.
    while (l < end_bin && csum[static_cast<size_t>(l)] < static_cast<float>(next_alpha * total)) ++l;
    while (r > start_bin && csum[static_cast<size_t>(r)] > static_cast<float>(next_beta * total)) --r;
    int64_t next_start_bin = start_bin, next_end_bin = end_bin;
    if ((l - start_bin) > (end_bin - r)) {
      next_start_bin = l;
      alpha = next_alpha;
    } else {
      next_end_bin = r;
      beta = next_beta;
    }
    if (next_start_bin == start_bin && next_end_bin == end_bin) continue;
    const double norm = compute_quantization_error(next_start_bin, next_end_bin);
    if (norm > norm_min) break;
    norm_min = norm;
    start_bin = next_start_bin;
    end_bin = next_end_bin;
  }
  const float new_min = min_val_ + bin_width * static_cast<float>(start_bin);
  const float new_max = min_val_ + bin_width * static_cast<float>(end_bin + 1);
  return {detail::scalar_f32(new_min), detail::scalar_f32(new_max)};
}

std::string HistogramObserver::extra_repr() const {
  auto& self = const_cast<HistogramObserver&>(*this);
  return "min_val=" + detail::format_tensor(self.min_val()) + ", max_val=" +
         detail::format_tensor(self.max_val());
}

std::pair<Tensor, Tensor> HistogramObserver::calculate_qparams() {
  const float mn = detail::floats(min_val())[0], mx = detail::floats(max_val())[0];
  if (mn == kInf && mx == -kInf) {
    EMBER_WARN("must run observer before calling calculate_qparams.                                    "
               "Returning default scale and zero point ");
    return detail::default_qparams();
  }
  if (bins != histogram().numel()) {
    throw AssertionError(
        "The number of bins in histogram should be equal to the number of bins supplied while making this observer");
  }
  auto [new_min, new_max] = non_linear_param_search();
  return calculate_qparams_from(new_min, new_max);
}

void HistogramObserver::_load_from_state_dict(
    nn::StateDict& state_dict, const std::string& prefix, nn::LocalMetadata& local_metadata,
    bool strict, std::vector<std::string>& missing_keys, std::vector<std::string>& unexpected_keys,
    std::vector<std::string>& error_msgs) {
  if (detail::metadata_version(local_metadata) < 3) {
    // Before version 3 uninitialised min / max were empty [0] tensors.
    for (auto [name, fill] : {std::pair<const char*, float>{"min_val", kInf}, {"max_val", -kInf}}) {
      const Value* v = state_dict.find(prefix + name);
      if (v && v->is_tensor() && v->to_tensor().dim() == 1 && v->to_tensor().numel() == 0) {
        state_dict.insert(prefix + name, Value(detail::scalar_f32(fill)));
      }
    }
  }
  for (const char* name : {"min_val", "max_val"}) {
    const Value* v = state_dict.find(prefix + name);
    if (v && v->is_tensor()) {
      // torch's setattr(self, name, val): the buffer takes the saved shape.
      buffer(name) = ember::empty(v->to_tensor().sizes(), TensorOptions().dtype(kFloat32));
    } else if (strict) {
      missing_keys.push_back(prefix + name);
    }
  }
  UniformQuantizationObserverBase::_load_from_state_dict(state_dict, prefix, local_metadata, strict,
                                                         missing_keys, unexpected_keys, error_msgs);
}

}  // namespace ember::quantization
