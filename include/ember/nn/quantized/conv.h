// torch.ao.nn.quantized.Conv1d / Conv2d and torch.ao.nn.intrinsic.quantized.ConvReLU1d /
// ConvReLU2d: a quantized convolution over quint8 inputs with a qint8 weight and a float bias
// held as packed parameters (ember::quantized::ConvPackedParams), packed for the engine current
// when the weight is set (construction, set_weight_bias, load_state_dict, deep copy).
//
//   ember::nn::quantized::Conv2d conv(3, 16, 3, /*stride=*/2, /*padding=*/1);
//   conv.set_weight_bias(qweight, bias);   // qweight: qint8, per-tensor or per-channel (axis 0)
//   conv.scale = 0.05; conv.zero_point = 64;
//   ember::Tensor y = conv(qx);            // quint8 NCHW (channels_last memory) output
//   // QuantizedConv2d(3, 16, kernel_size=(3, 3), stride=(2, 2), scale=0.05, zero_point=64,
//   //                 padding=(1, 1))
//
// Note [Quantized module state]
// As in PyTorch, the weight and bias are not parameters: the packed object owns them, and
// weight() / bias() unpack it (the very tensors that were packed, so `conv.weight() is
// conv.weight()` in Python). _save_to_state_dict writes weight (quantized), bias (float or None),
// scale (0-dim float32) and zero_point (0-dim int64); _load_from_state_dict reads them back,
// packing for the current engine, and queues the change until the whole tree was checked
// (Note [All-or-nothing loading]). A deep copy packs again from the same weight tensor, as
// PyTorch's __deepcopy__ (set_weight_bias of the unpacked pair) does.
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
class ConvPackedParams;
}

namespace ember::nn::quantized {

/// What the quantized convolutions share (PyTorch's nnq._ConvNd).
class ConvNd : public Module {
 public:
  /// Packs `weight` (qint8, [out, in / groups, *kernel]) and `bias` (float32 [out] or none)
  /// for the current engine; the packing op's errors (wrong dtype, bias length, a weight zero
  /// point the engine refuses) leave the module unchanged.
  void set_weight_bias(const Tensor& weight, const std::optional<Tensor>& bias);
  /// The packed pair (the tensors given to set_weight_bias).
  std::tuple<Tensor, std::optional<Tensor>> _weight_bias() const;
  Tensor weight() const { return std::get<0>(_weight_bias()); }
  std::optional<Tensor> bias() const { return std::get<1>(_weight_bias()); }
  /// The packed object (an ember::quantized::ConvPackedParams, defined in
  /// src/quant/packed_params.h; held as its CustomClassHolder base so that this header needs
  /// only the declaration).
  const intrusive_ptr<CustomClassHolder>& packed_object() const { return packed_; }
  intrusive_ptr<ember::quantized::ConvPackedParams> packed_params() const;
  /// Replaces the packed object itself (Python's `conv._packed_params = ...`).
  void set_packed_params(const intrusive_ptr<ember::quantized::ConvPackedParams>& packed);

  /// "3, 16, kernel_size=(3, 3), stride=(1, 1), scale=1.0, zero_point=0", then padding,
  /// dilation, output_padding, groups and bias=False where they differ from the defaults.
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
  /// "zeros" or "reflect" (the input is padded by F.pad before the convolution).
  std::string padding_mode;
  /// Output quantization parameters.
  double scale = 1.0;
  int64_t zero_point = 0;

 protected:
  /// PyTorch's checks (ValueErrors): channels divisible by groups, a supported padding_mode.
  ConvNd(std::string type_name, size_t spatial_dims, int64_t in_channels, int64_t out_channels,
         const IntOrTuple& kernel_size, const IntOrTuple& stride, const IntOrTuple& padding,
         const IntOrTuple& dilation, int64_t groups, std::string padding_mode,
         TensorOptions options);
  /// conv1d_prepack or conv2d_prepack with this module's geometry.
  virtual intrusive_ptr<ember::quantized::ConvPackedParams> prepack(
      const Tensor& weight, const std::optional<Tensor>& bias) const = 0;
  /// conv1d_unpack or conv2d_unpack of packed_.
  virtual std::tuple<Tensor, std::optional<Tensor>> unpack() const = 0;
  /// The constructors' packing of an uninitialised weight and a zero bias (run by the leaf
  /// classes, whose prepack is then in place).
  void init_weight_bias(bool bias);
  /// The input padded with F.pad for padding_mode "reflect"; `input` itself for "zeros".
  Tensor pad_input(const Tensor& input) const;
  /// PyTorch's "Input shape must be `(N, C, H, W)`!" (ValueError) for another rank.
  void check_input(const Tensor& input, int64_t dim, const char* shape) const;

  intrusive_ptr<CustomClassHolder> packed_;
};

class Conv1d : public ConvNd {
 public:
  /// torch's from_float: the quantized twin of an observed float (or QAT) module.
  static std::shared_ptr<Conv1d> from_float(Module& observed);
  Conv1d(int64_t in_channels, int64_t out_channels, const IntOrTuple& kernel_size,
         const IntOrTuple& stride = 1, const IntOrTuple& padding = 0,
         const IntOrTuple& dilation = 1, int64_t groups = 1, bool bias = true,
         std::string padding_mode = "zeros", TensorOptions options = {});
  /// quantized::conv1d on an (N, C, L) quint8 input.
  virtual Tensor forward(const Tensor& input);
  Value forward(const std::vector<Value>& inputs) override;

 protected:
  Conv1d(std::string type_name, int64_t in_channels, int64_t out_channels,
         const IntOrTuple& kernel_size, const IntOrTuple& stride, const IntOrTuple& padding,
         const IntOrTuple& dilation, int64_t groups, bool bias, std::string padding_mode,
         TensorOptions options);
  intrusive_ptr<ember::quantized::ConvPackedParams> prepack(
      const Tensor& weight, const std::optional<Tensor>& bias) const override;
  std::tuple<Tensor, std::optional<Tensor>> unpack() const override;
};

class Conv2d : public ConvNd {
 public:
  /// torch's from_float: the quantized twin of an observed float (or QAT) module.
  static std::shared_ptr<Conv2d> from_float(Module& observed);
  Conv2d(int64_t in_channels, int64_t out_channels, const IntOrTuple& kernel_size,
         const IntOrTuple& stride = 1, const IntOrTuple& padding = 0,
         const IntOrTuple& dilation = 1, int64_t groups = 1, bool bias = true,
         std::string padding_mode = "zeros", TensorOptions options = {});
  /// quantized::conv2d on an (N, C, H, W) quint8 input.
  virtual Tensor forward(const Tensor& input);
  Value forward(const std::vector<Value>& inputs) override;

 protected:
  Conv2d(std::string type_name, int64_t in_channels, int64_t out_channels,
         const IntOrTuple& kernel_size, const IntOrTuple& stride, const IntOrTuple& padding,
         const IntOrTuple& dilation, int64_t groups, bool bias, std::string padding_mode,
         TensorOptions options);
  intrusive_ptr<ember::quantized::ConvPackedParams> prepack(
      const Tensor& weight, const std::optional<Tensor>& bias) const override;
  std::tuple<Tensor, std::optional<Tensor>> unpack() const override;
};

/// Conv1d followed by ReLU in one kernel (quantized::conv1d_relu): "QuantizedConvReLU1d".
class ConvReLU1d : public Conv1d {
 public:
  /// torch's from_float: the quantized twin of an observed float (or QAT) module.
  static std::shared_ptr<ConvReLU1d> from_float(Module& observed);
  ConvReLU1d(int64_t in_channels, int64_t out_channels, const IntOrTuple& kernel_size,
             const IntOrTuple& stride = 1, const IntOrTuple& padding = 0,
             const IntOrTuple& dilation = 1, int64_t groups = 1, bool bias = true,
             std::string padding_mode = "zeros", TensorOptions options = {});
  Tensor forward(const Tensor& input) override;
  using Conv1d::forward;
};

/// Conv2d followed by ReLU in one kernel (quantized::conv2d_relu): "QuantizedConvReLU2d".
class ConvReLU2d : public Conv2d {
 public:
  /// torch's from_float: the quantized twin of an observed float (or QAT) module.
  static std::shared_ptr<ConvReLU2d> from_float(Module& observed);
  ConvReLU2d(int64_t in_channels, int64_t out_channels, const IntOrTuple& kernel_size,
             const IntOrTuple& stride = 1, const IntOrTuple& padding = 0,
             const IntOrTuple& dilation = 1, int64_t groups = 1, bool bias = true,
             std::string padding_mode = "zeros", TensorOptions options = {});
  Tensor forward(const Tensor& input) override;
  using Conv2d::forward;
};

}  // namespace ember::nn::quantized
