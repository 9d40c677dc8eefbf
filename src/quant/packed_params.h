// The packed-params objects of the quantized conv and linear ops (PyTorch's
// Conv2dPackedParamsBase / LinearPackedParamsBase): the kernel's packed weight, the quantized
// weight and float bias it was made from (what unpack returns), the convolution's geometry, and
// the formula of the engine it was packed for. Note [Packed params and engines] in
// packed_params.cpp.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backends/cpu/quantized/qconv.h"
#include "ember/custom_class.h"
#include "ember/quantized/conv_linear.h"
#include "ember/quantized/tensor.h"
#include "ember/tensor.h"

namespace ember::quantized {

using cpu::quantized::QFormula;

/// The formula of the active engine (qnnpack -> Qnnpack; onednn, x86 -> Onednn). `op` names the
/// caller in PyTorch's error for the engine `none`.
QFormula formula_for_active_engine(const char* op);
/// "qnnpack" / "onednn": how a formula names itself in error texts.
const char* formula_name(QFormula f);

class ConvPackedParams : public CustomClassHolder {
 public:
  static constexpr const char* kClassName =
      "__torch__.torch.classes.quantized.Conv2dPackedParamsBase";
  const char* class_name() const override { return kClassName; }

  /// weight: qint8 O x C/groups x KH x KW; stride / padding / dilation: 2 values each. Checks
  /// everything (PyTorch's texts for `formula`), then packs. `op` names the caller in errors.
  static intrusive_ptr<ConvPackedParams> make(const Tensor& weight, const std::optional<Tensor>& bias,
                                              std::vector<int64_t> stride, std::vector<int64_t> padding,
                                              std::vector<int64_t> dilation, int64_t groups,
                                              QFormula formula, const char* op);

  /// The quantized output (quint8 N x O x OH x OW, channels_last) of the convolution of qx.
  Tensor run(const Tensor& qx, double output_scale, int64_t output_zero_point, bool relu,
             const char* op) const;

  const Tensor& weight() const { return weight_; }
  const std::optional<Tensor>& bias() const { return bias_; }
  const std::vector<int64_t>& stride() const { return stride_; }
  const std::vector<int64_t>& padding() const { return padding_; }
  const std::vector<int64_t>& dilation() const { return dilation_; }
  const std::vector<int64_t>& output_padding() const { return output_padding_; }
  int64_t groups() const { return groups_; }
  bool transpose() const { return false; }
  QFormula formula() const { return kernel_->formula(); }

  /// PyTorch's serialized form (version 2): [2, stride.., padding.., dilation..,
  /// output_padding.., groups, transpose] as int16 values, then weight and bias.
  std::vector<int64_t> config_values() const;
  /// Re-packs (for the active engine) from config_values() and the weight and bias.
  static intrusive_ptr<ConvPackedParams> from_state(const std::vector<int64_t>& config,
                                                    const Tensor& weight,
                                                    const std::optional<Tensor>& bias);
  /// copy.deepcopy: copies of the weight and bias, re-packed for the active engine.
  intrusive_ptr<ConvPackedParams> deep_copy() const;

 private:
  Tensor weight_;
  std::optional<Tensor> bias_;
  std::vector<int64_t> stride_, padding_, dilation_, output_padding_{0, 0};
  int64_t groups_ = 1;
  std::unique_ptr<cpu::quantized::PackedQConv2d> kernel_;
};

class LinearPackedParams : public CustomClassHolder {
 public:
  static constexpr const char* kClassName =
      "__torch__.torch.classes.quantized.LinearPackedParamsBase";
  const char* class_name() const override { return kClassName; }

  static intrusive_ptr<LinearPackedParams> make(const Tensor& weight,
                                                const std::optional<Tensor>& bias,
                                                QFormula formula);
  /// quint8 [..., O] from quint8 qx [..., K].
  Tensor run(const Tensor& qx, double output_scale, int64_t output_zero_point, bool relu) const;
  /// float [..., O] from float x [..., K] (dynamic quantization of x).
  Tensor run_dynamic(const Tensor& x, bool reduce_range, bool relu) const;

  /// copy.deepcopy: copies of the weight and bias, re-packed for the active engine.
  intrusive_ptr<LinearPackedParams> deep_copy() const;

  const Tensor& weight() const { return weight_; }
  const std::optional<Tensor>& bias() const { return bias_; }
  QFormula formula() const { return kernel_->formula(); }
  int64_t in_features() const { return kernel_->in_features(); }
  int64_t out_features() const { return kernel_->out_features(); }

 private:
  Tensor weight_;
  std::optional<Tensor> bias_;
  std::unique_ptr<cpu::quantized::PackedQLinear> kernel_;
};

}  // namespace ember::quantized

// ---- shared by the op files (qconv.cpp, qlinear.cpp) ----
#include "dispatch/dispatcher.h"

namespace ember::quantized::detail {

/// The backend of an op that needs quantized tensors, for calls without one (a float input):
/// PyTorch's NotImplementedError ("Could not run 'quantized::conv2d.new' with arguments from the
/// 'CPU' backend...").
template <dispatch::OpId id, class Ret, class... Args>
Ret needs_quantized(const Args&...) {
  dispatch::no_kernel_error(id, "CPU");
}

/// Checks that a packed-params argument given from C++ is not null.
template <class T>
const T& packed_or_throw(const intrusive_ptr<T>& p, const char* op) {
  EMBER_CHECK(p, op, ": the packed params are null");
  return *p;
}

}  // namespace ember::quantized::detail
