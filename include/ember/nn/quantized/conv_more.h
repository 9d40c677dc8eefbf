// torch.ao.nn.quantized.Conv3d, ConvTranspose1d / 2d / 3d and
// torch.ao.nn.intrinsic.quantized.ConvReLU3d: quantized convolutions whose weight and bias are
// held by the packed params of the 3-d and transposed ops (ember::quantized::ConvNdPackedParams),
// with the state of the other quantized convolutions (Note [Quantized module state] in conv.h):
// state_dict weight (qint8), bias (float or None), scale, zero_point.
//
//   ember::nn::quantized::ConvTranspose2d up(16, 8, 3, /*stride=*/2, /*padding=*/1,
//                                            /*output_padding=*/1);
//   up.set_weight_bias(qweight, bias);   // qweight: qint8 [in, out / groups, kh, kw]
//   up.scale = 0.05; up.zero_point = 64;
//   ember::Tensor y = up(qx);            // QuantizedConvTranpose2d(16, 8, kernel_size=(3, 3), ...)
//
// PyTorch 1.13 spells the transposed modules' _get_name "QuantizedConvTranpose{1,2,3}d"; ember
// prints the same.
#pragma once

#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "ember/custom_class.h"
#include "ember/intrusive_ptr.h"
#include "ember/nn/module.h"
#include "ember/nn/modules/utils.h"
#include "ember/tensor_options.h"

namespace ember::quantized {
class ConvNdPackedParams;
}

namespace ember::nn::quantized {

/// What Conv3d and the transposed convolutions share (PyTorch's nnq._ConvNd for them).
class PackedConvNd : public Module {
 public:
  /// Packs weight and bias for the current engine; errors leave the module unchanged.
  void set_weight_bias(const Tensor& weight, const std::optional<Tensor>& bias);
  std::tuple<Tensor, std::optional<Tensor>> _weight_bias() const;
  Tensor weight() const { return std::get<0>(_weight_bias()); }
  std::optional<Tensor> bias() const { return std::get<1>(_weight_bias()); }
  /// The packed object (defined in src/quant/packed_params_nd.h; held as its
  /// CustomClassHolder base so that this header needs only the declaration).
  const intrusive_ptr<CustomClassHolder>& packed_object() const { return packed_; }
  intrusive_ptr<ember::quantized::ConvNdPackedParams> packed_params() const;
  /// Replaces the packed object (Python's `conv._packed_params = ...`); it must be of this
  /// module's kind (3-d or transposed 2-d).
  void set_packed_params(const intrusive_ptr<ember::quantized::ConvNdPackedParams>& packed);

  std::string extra_repr() const override;
  void _save_to_state_dict(StateDict& destination, const std::string& prefix,
                           bool keep_vars) override;
  void _load_from_state_dict(StateDict& state_dict, const std::string& prefix,
                             LocalMetadata& local_metadata, bool strict,
                             std::vector<std::string>& missing_keys,
                             std::vector<std::string>& unexpected_keys,
                             std::vector<std::string>& error_msgs) override;

  int64_t in_channels;
  int64_t out_channels;
  std::vector<int64_t> kernel_size;
  std::vector<int64_t> stride;
  std::vector<int64_t> padding;
  std::vector<int64_t> dilation;
  bool transposed = false;
  std::vector<int64_t> output_padding;
  int64_t groups;
  std::string padding_mode;
  double scale = 1.0;
  int64_t zero_point = 0;

 protected:
  PackedConvNd(std::string type_name, size_t spatial_dims, bool transposed, int64_t in_channels,
               int64_t out_channels, const IntOrTuple& kernel_size, const IntOrTuple& stride,
               const IntOrTuple& padding, const IntOrTuple& output_padding,
               const IntOrTuple& dilation, int64_t groups, bool bias, std::string padding_mode);
  /// The op's prepack with this module's geometry.
  intrusive_ptr<ember::quantized::ConvNdPackedParams> prepack(
      const Tensor& weight, const std::optional<Tensor>& bias) const;
  /// The input rank check with PyTorch's ValueError text, then the op.
  Tensor run(const Tensor& input, bool relu) const;

  intrusive_ptr<CustomClassHolder> packed_;
};

class Conv3d : public PackedConvNd {
 public:
  Conv3d(int64_t in_channels, int64_t out_channels, const IntOrTuple& kernel_size,
         const IntOrTuple& stride = 1, const IntOrTuple& padding = 0,
         const IntOrTuple& dilation = 1, int64_t groups = 1, bool bias = true,
         std::string padding_mode = "zeros", TensorOptions options = {});
  /// quantized::conv3d on an (N, C, D, H, W) quint8 input (channels_last_3d output).
  virtual Tensor forward(const Tensor& input);
  Value forward(const std::vector<Value>& inputs) override;
  /// torch's from_float: the quantized twin of an observed float (or QAT) module.
  static std::shared_ptr<Conv3d> from_float(Module& observed);

 protected:
  Conv3d(std::string type_name, int64_t in_channels, int64_t out_channels,
         const IntOrTuple& kernel_size, const IntOrTuple& stride, const IntOrTuple& padding,
         const IntOrTuple& dilation, int64_t groups, bool bias, std::string padding_mode);
};

/// Conv3d with a fused ReLU (quantized::conv3d_relu): "QuantizedConvReLU3d".
class ConvReLU3d : public Conv3d {
 public:
  ConvReLU3d(int64_t in_channels, int64_t out_channels, const IntOrTuple& kernel_size,
             const IntOrTuple& stride = 1, const IntOrTuple& padding = 0,
             const IntOrTuple& dilation = 1, int64_t groups = 1, bool bias = true,
             std::string padding_mode = "zeros", TensorOptions options = {});
  Tensor forward(const Tensor& input) override;
  using Conv3d::forward;
  /// torch's from_float: the quantized twin of an observed float (or QAT) module.
  static std::shared_ptr<ConvReLU3d> from_float(Module& observed);
};

/// quantized::conv_transpose{1,2,3}d; weight [in, out / groups, *kernel].
class ConvTransposeNd : public PackedConvNd {
 public:
  ConvTransposeNd(size_t spatial_dims, int64_t in_channels, int64_t out_channels,
                  const IntOrTuple& kernel_size, const IntOrTuple& stride = 1,
                  const IntOrTuple& padding = 0, const IntOrTuple& output_padding = 0,
                  int64_t groups = 1, bool bias = true, const IntOrTuple& dilation = 1,
                  std::string padding_mode = "zeros", TensorOptions options = {});
  Tensor forward(const Tensor& input);
  Value forward(const std::vector<Value>& inputs) override;
  /// PyTorch's _input_padding: dilation * (kernel_size - 1) - padding, per dimension.
  std::vector<int64_t> _input_padding() const;
};

class ConvTranspose1d : public ConvTransposeNd {
 public:
  ConvTranspose1d(int64_t in_channels, int64_t out_channels, const IntOrTuple& kernel_size,
                  const IntOrTuple& stride = 1, const IntOrTuple& padding = 0,
                  const IntOrTuple& output_padding = 0, int64_t groups = 1, bool bias = true,
                  const IntOrTuple& dilation = 1, std::string padding_mode = "zeros",
                  TensorOptions options = {})
      : ConvTransposeNd(1, in_channels, out_channels, kernel_size, stride, padding,
                        output_padding, groups, bias, dilation, std::move(padding_mode), options) {}
  /// torch's from_float: the quantized twin of an observed float (or QAT) module.
  static std::shared_ptr<ConvTranspose1d> from_float(Module& observed);
};
class ConvTranspose2d : public ConvTransposeNd {
 public:
  ConvTranspose2d(int64_t in_channels, int64_t out_channels, const IntOrTuple& kernel_size,
                  const IntOrTuple& stride = 1, const IntOrTuple& padding = 0,
                  const IntOrTuple& output_padding = 0, int64_t groups = 1, bool bias = true,
                  const IntOrTuple& dilation = 1, std::string padding_mode = "zeros",
                  TensorOptions options = {})
      : ConvTransposeNd(2, in_channels, out_channels, kernel_size, stride, padding,
                        output_padding, groups, bias, dilation, std::move(padding_mode), options) {}
  /// torch's from_float: the quantized twin of an observed float (or QAT) module.
  static std::shared_ptr<ConvTranspose2d> from_float(Module& observed);
};
class ConvTranspose3d : public ConvTransposeNd {
 public:
  ConvTranspose3d(int64_t in_channels, int64_t out_channels, const IntOrTuple& kernel_size,
                  const IntOrTuple& stride = 1, const IntOrTuple& padding = 0,
                  const IntOrTuple& output_padding = 0, int64_t groups = 1, bool bias = true,
                  const IntOrTuple& dilation = 1, std::string padding_mode = "zeros",
                  TensorOptions options = {})
      : ConvTransposeNd(3, in_channels, out_channels, kernel_size, stride, padding,
                        output_padding, groups, bias, dilation, std::move(padding_mode), options) {}
  /// torch's from_float: the quantized twin of an observed float (or QAT) module.
  static std::shared_ptr<ConvTranspose3d> from_float(Module& observed);
};

}  // namespace ember::nn::quantized
