// Observers (torch.ao.quantization.observer, torch 1.13): modules that record statistics of the
// tensors they see and compute quantization parameters from them. quantization-spec.md § 2.
//
//   auto obs = std::make_shared<ember::quantization::MinMaxObserver>();
//   (*obs)(ember::tensor({-2.f, 0.5f, 3.f}));
//   auto [scale, zero_point] = obs->calculate_qparams();   // 5/255, 102
//
// Note [Observer arithmetic]
// Every update and every qparams computation is torch 1.13's, in float32 on the same operands in
// the same order (min/max are exact; the moving average is `m + f32(c)·(cur − m)`; divisions by
// `float(qmax − qmin)` are float32 divisions; round is half-to-even), so buffers and qparams are
// bit-identical to torch's after any sequence of updates. Empty inputs are ignored; a NaN in the
// input propagates into min/max as torch.aminmax / torch.min do (calculate_qparams then fails
// torch's `min <= max` assertion).
#pragma once

#include <cfloat>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ember/error.h"
#include "ember/nn/module.h"
#include "ember/quantized/tensor.h"

namespace ember::quantization {

/// A failed check that PyTorch makes with `assert` (Python raises AssertionError for it).
class AssertionError : public Error {
 public:
  explicit AssertionError(std::string msg) : Error(std::move(msg), ErrorKind::Value) {}
};

/// torch.ao.quantization.ObserverBase: forward(x) records x and returns it unchanged.
class ObserverBase : public nn::Module {
 public:
  ObserverBase(std::string type_name, ScalarType dtype) : Module(std::move(type_name)), dtype_(dtype) {}
  /// Scale (float32, [1] or [C]) and zero point (int32 affine / int64 symmetric, as torch).
  virtual std::pair<Tensor, Tensor> calculate_qparams() = 0;
  ScalarType dtype() const { return dtype_; }
  void set_dtype(ScalarType dtype) { dtype_ = dtype; }
  /// per_tensor_affine for observers without a scheme (Placeholder, Noop, Recording; torch's
  /// have no `qscheme` attribute).
  virtual QScheme qscheme() const { return qscheme_; }
  void set_qscheme(QScheme q) { qscheme_ = q; }
  /// The channel axis of a per-channel observer, else -1.
  virtual int64_t ch_axis() const { return -1; }
  /// Records `x` (no autograd); returns x.
  virtual Tensor observe(const Tensor& x) = 0;
  Value forward(const std::vector<Value>& inputs) override;

 protected:
  ScalarType dtype_;
  QScheme qscheme_ = QScheme::PerTensorAffine;
};

/// The common constructor arguments of torch's UniformQuantizationObserverBase.
struct ObserverOptions {
  ScalarType dtype = kQUInt8;
  QScheme qscheme = QScheme::PerTensorAffine;
  bool reduce_range = false;
  std::optional<int64_t> quant_min, quant_max;
  double eps = FLT_EPSILON;
};

/// torch's calculate_qmin_qmax (with its validation of a custom range).
std::pair<int64_t, int64_t> calculate_qmin_qmax(std::optional<int64_t> quant_min,
                                                std::optional<int64_t> quant_max,
                                                ScalarType dtype, bool reduce_range);

/// torch.ao.quantization.UniformQuantizationObserverBase: the range, the `eps` buffer and
/// `_calculate_qparams` (spec § 2.1).
class UniformQuantizationObserverBase : public ObserverBase {
 public:
  UniformQuantizationObserverBase(std::string type_name, const ObserverOptions& options);
  /// torch's `_calculate_qparams(min_val, max_val)` (Note [Observer arithmetic]).
  std::pair<Tensor, Tensor> calculate_qparams_from(const Tensor& min_val, const Tensor& max_val);
  int64_t version() const override { return 3; }
  void _load_from_state_dict(nn::StateDict& state_dict, const std::string& prefix,
                             nn::LocalMetadata& local_metadata, bool strict,
                             std::vector<std::string>& missing_keys,
                             std::vector<std::string>& unexpected_keys,
                             std::vector<std::string>& error_msgs) override;

  int64_t quant_min = 0, quant_max = 255;
  bool reduce_range = false;
  bool has_customized_qrange = false;
};

/// torch's MinMaxObserver: running min / max (0-dim buffers min_val = +inf, max_val = -inf).
class MinMaxObserver : public UniformQuantizationObserverBase {
 public:
  explicit MinMaxObserver(const ObserverOptions& options = {}, std::string type_name = "MinMaxObserver");
  Tensor observe(const Tensor& x) override;
  std::pair<Tensor, Tensor> calculate_qparams() override;
  std::string extra_repr() const override;
  void reset_min_max_vals();
  Tensor& min_val() { return buffer("min_val"); }
  Tensor& max_val() { return buffer("max_val"); }
};

/// torch's MovingAverageMinMaxObserver (averaging_constant 0.01).
class MovingAverageMinMaxObserver : public MinMaxObserver {
 public:
  explicit MovingAverageMinMaxObserver(double averaging_constant = 0.01,
                                       const ObserverOptions& options = {});
  Tensor observe(const Tensor& x) override;
  double averaging_constant;
};

/// torch's PerChannelMinMaxObserver: min / max per slice along ch_axis (buffers start empty).
class PerChannelMinMaxObserver : public UniformQuantizationObserverBase {
 public:
  /// `options.qscheme` defaults to per_channel_affine when left per-tensor-affine by
  /// per_channel_options().
  explicit PerChannelMinMaxObserver(int64_t ch_axis = 0, const ObserverOptions& options = per_channel_options(),
                                    std::string type_name = "PerChannelMinMaxObserver");
  static ObserverOptions per_channel_options() {
    ObserverOptions o;
    o.qscheme = QScheme::PerChannelAffine;
    return o;
  }
  Tensor observe(const Tensor& x) override;
  std::pair<Tensor, Tensor> calculate_qparams() override;
  int64_t ch_axis() const override { return ch_axis_; }
  void set_ch_axis(int64_t axis) { ch_axis_ = axis; }
  std::string extra_repr() const override;
  void reset_min_max_vals();
  void _load_from_state_dict(nn::StateDict& state_dict, const std::string& prefix,
                             nn::LocalMetadata& local_metadata, bool strict,
                             std::vector<std::string>& missing_keys,
                             std::vector<std::string>& unexpected_keys,
                             std::vector<std::string>& error_msgs) override;
  Tensor& min_val() { return buffer("min_val"); }
  Tensor& max_val() { return buffer("max_val"); }

 protected:
  /// x with ch_axis moved to the front and the rest flattened, as float32 [C, N].
  Tensor channel_rows(const Tensor& x) const;
  /// Stores new per-channel min / max (resized as torch's resize_ + copy_).
  void store(const Tensor& mn, const Tensor& mx);

 private:
  int64_t ch_axis_;
};

/// torch's MovingAveragePerChannelMinMaxObserver.
class MovingAveragePerChannelMinMaxObserver : public PerChannelMinMaxObserver {
 public:
  explicit MovingAveragePerChannelMinMaxObserver(double averaging_constant = 0.01, int64_t ch_axis = 0,
                                                 const ObserverOptions& options = per_channel_options());
  Tensor observe(const Tensor& x) override;
  double averaging_constant;
};

/// torch's HistogramObserver (spec § 2.3). The histc range of an update is the combined range
/// itself (the intended arithmetic); with `truncate_histc_range` (torch 1.13's behaviour, its
/// `int(min)`/`int(max)` casts, pytorch issue #83672) it is truncated toward zero to integers,
/// which drops values outside the truncated range from the counts.
class HistogramObserver : public UniformQuantizationObserverBase {
 public:
  explicit HistogramObserver(int64_t bins = 2048, int64_t upsample_rate = 128,
                             const ObserverOptions& options = {});
  Tensor observe(const Tensor& x) override;
  std::pair<Tensor, Tensor> calculate_qparams() override;
  std::string extra_repr() const override;
  void _load_from_state_dict(nn::StateDict& state_dict, const std::string& prefix,
                             nn::LocalMetadata& local_metadata, bool strict,
                             std::vector<std::string>& missing_keys,
                             std::vector<std::string>& unexpected_keys,
                             std::vector<std::string>& error_msgs) override;
  /// torch's `_non_linear_param_search`: the (min, max) of the L2-optimal range, 0-dim float32.
  std::pair<Tensor, Tensor> non_linear_param_search();
  /// torch's `_compute_quantization_error(start, end)`.
  double compute_quantization_error(int64_t next_start_bin, int64_t next_end_bin);
  Tensor& histogram() { return buffer("histogram"); }
  Tensor& min_val() { return buffer("min_val"); }
  Tensor& max_val() { return buffer("max_val"); }

  int64_t bins;
  int64_t upsample_rate;
  int64_t dst_nbins;
  bool truncate_histc_range = false;
};

/// The process-wide default of HistogramObserver::truncate_histc_range for new observers
/// (false: the intended arithmetic; true: torch 1.13's bit for bit).
void set_histogram_observer_truncates_histc_range(bool on);
bool histogram_observer_truncates_histc_range();

/// torch's histc(x, bins, min, max) on float32 data (torch's linear binning: the bin of v is
/// int64(f32(f32(v − lo)·bins) / f32(hi − lo)), the last edge in the last bin; values outside
/// [lo, hi] and NaN are skipped; lo == hi takes the data's range, then ±1).
Tensor histc(const Tensor& x, int64_t bins, double min, double max);

/// torch's FixedQParamsObserver(scale, zero_point, dtype, qscheme, quant_min=0, quant_max=255):
/// buffers scale (float32 [1]) and zero_point (int32 [1]); records nothing.
class FixedQParamsObserver : public ObserverBase {
 public:
  FixedQParamsObserver(double scale, int64_t zero_point, ScalarType dtype = kQUInt8,
                       QScheme qscheme = QScheme::PerTensorAffine, int64_t quant_min = 0,
                       int64_t quant_max = 255);
  Tensor observe(const Tensor& x) override { return x; }
  std::pair<Tensor, Tensor> calculate_qparams() override;
  int64_t quant_min, quant_max;
};

/// torch's PlaceholderObserver (dtype, custom_op_name, compute_dtype): records nothing;
/// calculate_qparams raises.
class PlaceholderObserver : public ObserverBase {
 public:
  explicit PlaceholderObserver(ScalarType dtype = kFloat32, std::string custom_op_name = "",
                               std::optional<ScalarType> compute_dtype = std::nullopt,
                               std::string type_name = "PlaceholderObserver");
  Tensor observe(const Tensor& x) override { return x; }
  std::pair<Tensor, Tensor> calculate_qparams() override;
  std::string custom_op;
  std::optional<ScalarType> compute_dtype;
};

/// torch's NoopObserver(dtype=float16, custom_op_name="").
class NoopObserver : public ObserverBase {
 public:
  explicit NoopObserver(ScalarType dtype = kFloat16, std::string custom_op_name = "");
  Tensor observe(const Tensor& x) override { return x; }
  std::pair<Tensor, Tensor> calculate_qparams() override;
  std::string custom_op;
};

/// torch's RecordingObserver(dtype=quint8): keeps every tensor it sees (get_tensor_value).
class RecordingObserver : public ObserverBase {
 public:
  explicit RecordingObserver(ScalarType dtype = kQUInt8);
  Tensor observe(const Tensor& x) override;
  std::pair<Tensor, Tensor> calculate_qparams() override;
  std::vector<Tensor> tensor_val;
};

/// For from_float and convert: the qparams/dtype/qscheme of an ObserverBase or FakeQuantizeBase
/// (or a Python module that defines calculate_qparams, through the front end). Throws a clear
/// ember::Error for anything else.
struct ObservedQParams {
  Tensor scale, zero_point;
  ScalarType dtype;
  QScheme qscheme;
  int64_t ch_axis;
};
ObservedQParams observed_qparams(nn::Module& observer);

/// How a front end answers observed_qparams for its own modules (Python observers that are not
/// C++ ObserverBase subclasses): returns false when `m` is not one of them.
using FrontEndQParams = bool (*)(nn::Module& m, ObservedQParams& out);
void set_front_end_qparams(FrontEndQParams fn);

}  // namespace ember::quantization
