// The packed params of the 3-d and transposed quantized convolutions (PyTorch's
// Conv3dPackedParamsBase, and Conv2dPackedParamsBase with transpose() true): the quantized
// weight and float bias they were made from, the geometry, and the packed kernel of the engine's
// formula (src/backends/cpu/quantized/qconv_nd.h). As with ConvPackedParams, the formula is
// fixed when packing (Note [Packed params and engines] in packed_params.cpp).
#pragma once

#include <optional>
#include <vector>

#include "backends/cpu/quantized/qconv_nd.h"
#include "ember/custom_class.h"
#include "ember/quantized/conv_nd.h"
#include "ember/tensor.h"

namespace ember::quantized {

using cpu::quantized::QFormula;

class ConvNdPackedParams : public CustomClassHolder {
 public:
  /// weight: qint8, 2 + spatial_dims dimensions (direct: O x C/g x k...; transposed:
  /// C x O/g x k...). The vectors have spatial_dims values. Checks with the engine's texts.
  /// 1-d transposed convolutions are packed by the caller as 2-d ones of height 1.
  void init(const Tensor& weight, const std::optional<Tensor>& bias, std::vector<int64_t> stride,
            std::vector<int64_t> padding, std::vector<int64_t> output_padding,
            std::vector<int64_t> dilation, int64_t groups, bool transpose, QFormula formula,
            const char* op);

  /// quint8 output (channels_last / channels_last_3d) of the convolution of quint8 qx.
  Tensor run(const Tensor& qx, double output_scale, int64_t output_zero_point, bool relu,
             const char* op) const;

  const Tensor& weight() const { return weight_; }
  const std::optional<Tensor>& bias() const { return bias_; }
  const std::vector<int64_t>& stride() const { return stride_; }
  const std::vector<int64_t>& padding() const { return padding_; }
  const std::vector<int64_t>& output_padding() const { return output_padding_; }
  const std::vector<int64_t>& dilation() const { return dilation_; }
  int64_t groups() const { return groups_; }
  bool transpose() const { return transpose_; }
  int64_t spatial_dims() const { return static_cast<int64_t>(stride_.size()); }
  QFormula formula() const { return kernel_->formula(); }

  /// PyTorch's serialized configuration (version 2): [spatial_dims, stride.., padding..,
  /// dilation.., output_padding.., groups, transpose].
  std::vector<int64_t> config_values() const;

 protected:
  Tensor weight_;
  std::optional<Tensor> bias_;
  std::vector<int64_t> stride_, padding_, output_padding_, dilation_;
  int64_t groups_ = 1;
  bool transpose_ = false;
  std::shared_ptr<const cpu::quantized::PackedQConvNd> kernel_;
};

/// Conv3dPackedParamsBase: conv3d and conv_transpose3d.
class Conv3dPackedParams final : public ConvNdPackedParams {
 public:
  static constexpr const char* kClassName =
      "__torch__.torch.classes.quantized.Conv3dPackedParamsBase";
  const char* class_name() const override { return kClassName; }
  static intrusive_ptr<Conv3dPackedParams> from_state(const std::vector<int64_t>& config,
                                                      const Tensor& weight,
                                                      const std::optional<Tensor>& bias);
  intrusive_ptr<Conv3dPackedParams> deep_copy() const;
};

/// Conv2dPackedParamsBase of a transposed 1-d / 2-d convolution.
class ConvTranspose2dPackedParams final : public ConvNdPackedParams {
 public:
  static constexpr const char* kClassName =
      "__torch__.torch.classes.quantized.Conv2dPackedParamsBase";
  const char* class_name() const override { return kClassName; }
  static intrusive_ptr<ConvTranspose2dPackedParams> from_state(const std::vector<int64_t>& config,
                                                               const Tensor& weight,
                                                               const std::optional<Tensor>& bias);
  intrusive_ptr<ConvTranspose2dPackedParams> deep_copy() const;
};

}  // namespace ember::quantized
