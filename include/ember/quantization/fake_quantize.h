// Fake quantization modules (torch.ao.quantization.fake_quantize, torch 1.13): observe, then
// quantize and dequantize in float, with the straight-through gradient of the fake_quantize ops
// (src/quant/fake_quantize.cpp). quantization-spec.md § 3.
//
//   auto fq = std::make_shared<ember::quantization::FakeQuantize>(
//       std::make_shared<ember::quantization::MovingAverageMinMaxObserver>());
//   ember::Tensor y = (*fq)(x);       // observes x, updates scale / zero_point, fake-quantizes
#pragma once

#include <memory>
#include <string>
#include <utility>

#include "ember/quantization/observer.h"

namespace ember::quantization {

/// torch's FakeQuantizeBase: the uint8 [1] buffers fake_quant_enabled and observer_enabled.
class FakeQuantizeBase : public nn::Module {
 public:
  explicit FakeQuantizeBase(std::string type_name);
  virtual std::pair<Tensor, Tensor> calculate_qparams() = 0;
  /// A fake quantize of one's own (a Python subclass) that does not say: quint8, per tensor.
  virtual ScalarType dtype() const { return kQUInt8; }
  virtual QScheme qscheme() const { return QScheme::PerTensorAffine; }
  virtual int64_t ch_axis() const { return -1; }
  void enable_fake_quant(bool enabled = true);
  void disable_fake_quant() { enable_fake_quant(false); }
  void enable_observer(bool enabled = true);
  void disable_observer() { enable_observer(false); }
  bool fake_quant_enabled();
  bool observer_enabled();
};

/// torch's FakeQuantize: child `activation_post_process` (a UniformQuantizationObserverBase or
/// FixedQParamsObserver; its quant_min / quant_max are the fake-quant range), buffers scale
/// (float32 [1] / [C]) and zero_point (int32, float32 for per_channel_affine_float_qparams).
class FakeQuantize : public FakeQuantizeBase {
 public:
  explicit FakeQuantize(std::shared_ptr<ObserverBase> observer, std::string type_name = "FakeQuantize");
  Value forward(const std::vector<Value>& inputs) override;
  Tensor forward(const Tensor& x);
  std::pair<Tensor, Tensor> calculate_qparams() override;
  ScalarType dtype() const override { return dtype_; }
  QScheme qscheme() const override { return qscheme_; }
  int64_t ch_axis() const override { return ch_axis_; }
  bool is_per_channel() const;
  /// The observer's range (read at each call, as torch reads activation_post_process's).
  int64_t quant_min() const;
  int64_t quant_max() const;
  std::shared_ptr<ObserverBase> observer() const;
  std::string extra_repr() const override;
  void _load_from_state_dict(nn::StateDict& state_dict, const std::string& prefix,
                             nn::LocalMetadata& local_metadata, bool strict,
                             std::vector<std::string>& missing_keys,
                             std::vector<std::string>& unexpected_keys,
                             std::vector<std::string>& error_msgs) override;
  Tensor& scale() { return buffer("scale"); }
  Tensor& zero_point() { return buffer("zero_point"); }

 protected:
  ScalarType dtype_;
  QScheme qscheme_;
  int64_t ch_axis_;
};

/// torch's FixedQParamsFakeQuantize: a FixedQParamsObserver's scale / zero_point (the same
/// tensors), never updated.
class FixedQParamsFakeQuantize : public FakeQuantize {
 public:
  explicit FixedQParamsFakeQuantize(std::shared_ptr<FixedQParamsObserver> observer);
  std::pair<Tensor, Tensor> calculate_qparams() override;
  std::string extra_repr() const override;
};

/// torch's FusedMovingAvgObsFakeQuantize: a moving-average observer (per tensor, or per channel
/// on axis 0) and the fake quantization in one op (fused_moving_avg_obs_fake_quant); its flags
/// are int64 buffers.
class FusedMovingAvgObsFakeQuantize : public FakeQuantize {
 public:
  explicit FusedMovingAvgObsFakeQuantize(std::shared_ptr<ObserverBase> observer);
  Tensor forward(const Tensor& x);
  Value forward(const std::vector<Value>& inputs) override;
  std::string extra_repr() const override;
  bool is_symmetric_quant() const;
};

/// torch.fused_moving_avg_obs_fake_quant (ATen's CPU kernel): when observer_on[0], updates
/// running_min / running_max in place (moving average; a running value that is ±inf takes the
/// batch's); when fake_quant_on[0], writes quant_utils::ChooseQuantizationParams of the running
/// range into scale / zero_point and returns the fake-quantized input (gradient: straight
/// through inside the range), else a copy of the input.
Tensor fused_moving_avg_obs_fake_quant(const Tensor& self, const Tensor& observer_on,
                                       const Tensor& fake_quant_on, Tensor& running_min,
                                       Tensor& running_max, Tensor& scale, Tensor& zero_point,
                                       double averaging_const, int64_t quant_min, int64_t quant_max,
                                       int64_t ch_axis, bool per_row_fake_quant = false,
                                       bool symmetric_quant = false);

/// quant_utils::ChooseQuantizationParams (float scale, int32 zero point).
std::pair<float, int32_t> choose_quantization_params(float min, float max, int32_t qmin, int32_t qmax,
                                                     bool preserve_sparsity);

/// model.apply(...) helpers (torch's module functions): act on FakeQuantizeBase modules only.
void enable_fake_quant(nn::Module& m);
void disable_fake_quant(nn::Module& m);
void enable_observer(nn::Module& m);
void disable_observer(nn::Module& m);

}  // namespace ember::quantization
