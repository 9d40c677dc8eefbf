// torch.nn.Conv1d, Conv2d, Conv3d and ConvTranspose1d / 2d / 3d: PyTorch 1.13's parameters (weight
// [out, in / groups, *k], transposed [in, out / groups, *k]; bias [out] or None), initialisation
// (kaiming_uniform_(a = sqrt(5)), bias U(±1/sqrt(fan_in))), padding modes and repr.
//
//   ember::nn::Conv2d conv(3, 16, 3, /*stride=*/2, /*padding=*/1, 1, 1, /*bias=*/false);
//   // Conv2d(3, 16, kernel_size=(3, 3), stride=(2, 2), padding=(1, 1), bias=False)
//   ember::nn::Conv2d same(16, 16, {3, 5}, 1, "same");
//   ember::Tensor y = conv(x);
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ember/nn/module.h"
#include "ember/nn/options.h"
#include "ember/nn/modules/utils.h"
#include "ember/tensor_options.h"

namespace ember::nn {

struct ConvBnFoldCache;  // src/nn/modules/conv_bn_eval.cpp

/// A convolution's padding: numbers (an int or a tuple), or "same" / "valid".
class ConvPadding {
 public:
  ConvPadding(int64_t v) : values_(v) {}  // NOLINT
  ConvPadding(int v) : values_(v) {}      // NOLINT
  ConvPadding(std::initializer_list<int64_t> v) : values_(v) {}
  ConvPadding(std::vector<int64_t> v) : values_(std::move(v)) {}  // NOLINT
  ConvPadding(IntOrTuple v) : values_(std::move(v)) {}            // NOLINT
  ConvPadding(const char* s) : values_(0), string_(s) {}         // NOLINT
  ConvPadding(std::string s) : values_(0), string_(std::move(s)) {}  // NOLINT
  bool is_string() const { return !string_.empty(); }
  const std::string& str() const { return string_; }
  const IntOrTuple& values() const { return values_; }

 private:
  IntOrTuple values_;
  std::string string_;
};

/// Conv1d / Conv2d / Conv3d's arguments, as libtorch's ConvOptions<D>:
/// Conv2dOptions(3, 16, 3).stride(2).padding(1).bias(false); padding may be "same" / "valid";
/// padding_mode is "zeros", "reflect", "replicate" or "circular".
template <size_t D>
struct ConvOptions {
  ConvOptions(int64_t in_channels, int64_t out_channels, IntOrTuple kernel_size)
      : in_channels_(in_channels), out_channels_(out_channels),
        kernel_size_(std::move(kernel_size)) {}
  EMBER_ARG(int64_t, in_channels);
  EMBER_ARG(int64_t, out_channels);
  EMBER_ARG(IntOrTuple, kernel_size);
  EMBER_ARG(IntOrTuple, stride) = 1;
  EMBER_ARG(ConvPadding, padding) = 0;
  EMBER_ARG(IntOrTuple, dilation) = 1;
  EMBER_ARG(int64_t, groups) = 1;
  EMBER_ARG(bool, bias) = true;
  EMBER_ARG(std::string, padding_mode) = "zeros";
  EMBER_ARG(TensorOptions, options) = {};
};
using Conv1dOptions = ConvOptions<1>;
using Conv2dOptions = ConvOptions<2>;
using Conv3dOptions = ConvOptions<3>;

/// ConvTranspose1d / 2d / 3d's arguments (libtorch's ConvTransposeOptions<D>).
template <size_t D>
struct ConvTransposeOptions {
  ConvTransposeOptions(int64_t in_channels, int64_t out_channels, IntOrTuple kernel_size)
      : in_channels_(in_channels), out_channels_(out_channels),
        kernel_size_(std::move(kernel_size)) {}
  EMBER_ARG(int64_t, in_channels);
  EMBER_ARG(int64_t, out_channels);
  EMBER_ARG(IntOrTuple, kernel_size);
  EMBER_ARG(IntOrTuple, stride) = 1;
  EMBER_ARG(IntOrTuple, padding) = 0;
  EMBER_ARG(IntOrTuple, output_padding) = 0;
  EMBER_ARG(int64_t, groups) = 1;
  EMBER_ARG(bool, bias) = true;
  EMBER_ARG(IntOrTuple, dilation) = 1;
  EMBER_ARG(std::string, padding_mode) = "zeros";
  EMBER_ARG(TensorOptions, options) = {};
};
using ConvTranspose1dOptions = ConvTransposeOptions<1>;
using ConvTranspose2dOptions = ConvTransposeOptions<2>;
using ConvTranspose3dOptions = ConvTransposeOptions<3>;

/// What the convolutions share (PyTorch's _ConvNd); the public fields are PyTorch's attributes,
/// with sizes already expanded to one value per spatial dim (kernel_size (3, 3)).
class ConvNd : public Module {
 public:
  /// Re-draws weight and bias as the constructor does (nothing happens to meta tensors).
  void reset_parameters();
  /// "3, 8, kernel_size=(3, 3), stride=(1, 1)", then padding, dilation, output_padding, groups,
  /// bias=False and padding_mode where they differ from the defaults.
  std::string extra_repr() const override;

  Tensor& weight() { return parameter("weight"); }
  /// Undefined when built with bias=false.
  Tensor& bias() { return parameter("bias"); }

  int64_t in_channels;
  int64_t out_channels;
  std::vector<int64_t> kernel_size;
  std::vector<int64_t> stride;
  /// The numeric padding; zeros when padding_string is set.
  std::vector<int64_t> padding;
  /// "same" or "valid" when the padding was given as a string, else empty.
  std::string padding_string;
  std::vector<int64_t> dilation;
  bool transposed;
  std::vector<int64_t> output_padding;
  int64_t groups;
  /// "zeros", "reflect", "replicate" or "circular".
  std::string padding_mode;
  /// Internal: the weight and bias with an eval-mode BatchNorm folded in, when this Conv2d runs
  /// fused with the BatchNorm2d after it (Note [Eval-mode conv-bn-activation fusion]).
  std::shared_ptr<ConvBnFoldCache> _bn_fold_cache;

 protected:
  /// PyTorch's checks and messages: groups > 0, channels divisible by groups, a valid padding
  /// string (and "same" only with stride 1), a valid padding_mode (all ValueErrors).
  ConvNd(std::string type_name, size_t spatial_dims, int64_t in_channels, int64_t out_channels,
         const IntOrTuple& kernel_size, const IntOrTuple& stride, const ConvPadding& padding,
         const IntOrTuple& dilation, bool transposed, const IntOrTuple& output_padding,
         int64_t groups, bool bias, std::string padding_mode, TensorOptions options);
  /// The input padded by F.pad for a padding_mode other than "zeros" (padding + conv).
  Tensor pad_input(const Tensor& input) const;
  /// PyTorch's _ConvTransposeNd._output_padding: the output_padding that reaches output_size
  /// (the spatial sizes, or with the batch and channel dims); ValueError out of range.
  std::vector<int64_t> transposed_output_padding(const Tensor& input,
                                                 std::vector<int64_t> output_size) const;
  /// F.pad's form of the padding: (left, right) pairs, last dim first (PyTorch's
  /// _reversed_padding_repeated_twice; "same" puts the odd extra on the right).
  std::vector<int64_t> reversed_padding_repeated_twice;
};

class Conv1d : public ConvNd {
 public:
  Conv1d(int64_t in_channels, int64_t out_channels, const IntOrTuple& kernel_size,
         const IntOrTuple& stride = 1, const ConvPadding& padding = 0,
         const IntOrTuple& dilation = 1, int64_t groups = 1, bool bias = true,
         std::string padding_mode = "zeros", TensorOptions options = {});
  explicit Conv1d(const Conv1dOptions& o)
      : Conv1d(o.in_channels(), o.out_channels(), o.kernel_size(), o.stride(), o.padding(),
             o.dilation(), o.groups(), o.bias(), o.padding_mode(), o.options()) {}
  Tensor forward(const Tensor& input);
  Value forward(const std::vector<Value>& inputs) override;
  /// The convolution with these weights (PyTorch's _conv_forward: this module's stride,
  /// padding, padding_mode, dilation and groups); forward is _conv_forward(input, weight, bias).
  /// The QAT modules pass fake-quantized weights.
  Tensor _conv_forward(const Tensor& input, const Tensor& weight,
                       const std::optional<Tensor>& bias);
};

class Conv2d : public ConvNd {
 public:
  Conv2d(int64_t in_channels, int64_t out_channels, const IntOrTuple& kernel_size,
         const IntOrTuple& stride = 1, const ConvPadding& padding = 0,
         const IntOrTuple& dilation = 1, int64_t groups = 1, bool bias = true,
         std::string padding_mode = "zeros", TensorOptions options = {});
  explicit Conv2d(const Conv2dOptions& o)
      : Conv2d(o.in_channels(), o.out_channels(), o.kernel_size(), o.stride(), o.padding(),
             o.dilation(), o.groups(), o.bias(), o.padding_mode(), o.options()) {}
  Tensor forward(const Tensor& input);
  Value forward(const std::vector<Value>& inputs) override;
  /// The convolution with these weights (PyTorch's _conv_forward: this module's stride,
  /// padding, padding_mode, dilation and groups); forward is _conv_forward(input, weight, bias).
  /// The QAT modules pass fake-quantized weights.
  Tensor _conv_forward(const Tensor& input, const Tensor& weight,
                       const std::optional<Tensor>& bias);
};

/// The gradient of Conv2d with respect to its input. Only padding_mode "zeros" (ValueError
/// 'Only "zeros" padding mode is supported for ConvTranspose2d' otherwise).
class ConvTranspose2d : public ConvNd {
 public:
  ConvTranspose2d(int64_t in_channels, int64_t out_channels, const IntOrTuple& kernel_size,
                  const IntOrTuple& stride = 1, const IntOrTuple& padding = 0,
                  const IntOrTuple& output_padding = 0, int64_t groups = 1, bool bias = true,
                  const IntOrTuple& dilation = 1, std::string padding_mode = "zeros",
                  TensorOptions options = {});
  explicit ConvTranspose2d(const ConvTranspose2dOptions& o)
      : ConvTranspose2d(o.in_channels(), o.out_channels(), o.kernel_size(), o.stride(), o.padding(),
             o.output_padding(), o.groups(), o.bias(), o.dilation(), o.padding_mode(),
             o.options()) {}
  /// output_size (the spatial sizes, or with the batch and channel dims) picks the
  /// output_padding that reaches it; ValueError when it is out of the reachable range.
  Tensor forward(const Tensor& input,
                 const std::optional<std::vector<int64_t>>& output_size = std::nullopt);
  /// input, and optionally output_size (an int list or None).
  Value forward(const std::vector<Value>& inputs) override;

};

class Conv3d : public ConvNd {
 public:
  Conv3d(int64_t in_channels, int64_t out_channels, const IntOrTuple& kernel_size,
         const IntOrTuple& stride = 1, const ConvPadding& padding = 0,
         const IntOrTuple& dilation = 1, int64_t groups = 1, bool bias = true,
         std::string padding_mode = "zeros", TensorOptions options = {});
  explicit Conv3d(const Conv3dOptions& o)
      : Conv3d(o.in_channels(), o.out_channels(), o.kernel_size(), o.stride(), o.padding(),
             o.dilation(), o.groups(), o.bias(), o.padding_mode(), o.options()) {}
  Tensor forward(const Tensor& input);
  Value forward(const std::vector<Value>& inputs) override;
  /// As Conv2d's: the QAT modules pass fake-quantized weights.
  Tensor _conv_forward(const Tensor& input, const Tensor& weight,
                       const std::optional<Tensor>& bias);
};

/// ConvTranspose1d and ConvTranspose3d: ConvTranspose2d in 1 and 3 spatial dims.
class ConvTransposeNd : public ConvNd {
 public:
  Tensor forward(const Tensor& input,
                 const std::optional<std::vector<int64_t>>& output_size = std::nullopt);
  Value forward(const std::vector<Value>& inputs) override;

 protected:
  ConvTransposeNd(std::string type_name, size_t spatial, int64_t in_channels, int64_t out_channels,
                  const IntOrTuple& kernel_size, const IntOrTuple& stride, const IntOrTuple& padding,
                  const IntOrTuple& output_padding, int64_t groups, bool bias,
                  const IntOrTuple& dilation, std::string padding_mode, TensorOptions options);
};

class ConvTranspose1d : public ConvTransposeNd {
 public:
  ConvTranspose1d(int64_t in_channels, int64_t out_channels, const IntOrTuple& kernel_size,
                  const IntOrTuple& stride = 1, const IntOrTuple& padding = 0,
                  const IntOrTuple& output_padding = 0, int64_t groups = 1, bool bias = true,
                  const IntOrTuple& dilation = 1, std::string padding_mode = "zeros",
                  TensorOptions options = {})
      : ConvTransposeNd("ConvTranspose1d", 1, in_channels, out_channels, kernel_size, stride,
                        padding, output_padding, groups, bias, dilation, std::move(padding_mode),
                        options) {}
  explicit ConvTranspose1d(const ConvTranspose1dOptions& o)
      : ConvTranspose1d(o.in_channels(), o.out_channels(), o.kernel_size(), o.stride(), o.padding(),
             o.output_padding(), o.groups(), o.bias(), o.dilation(), o.padding_mode(),
             o.options()) {}
};

class ConvTranspose3d : public ConvTransposeNd {
 public:
  ConvTranspose3d(int64_t in_channels, int64_t out_channels, const IntOrTuple& kernel_size,
                  const IntOrTuple& stride = 1, const IntOrTuple& padding = 0,
                  const IntOrTuple& output_padding = 0, int64_t groups = 1, bool bias = true,
                  const IntOrTuple& dilation = 1, std::string padding_mode = "zeros",
                  TensorOptions options = {})
      : ConvTransposeNd("ConvTranspose3d", 3, in_channels, out_channels, kernel_size, stride,
                        padding, output_padding, groups, bias, dilation, std::move(padding_mode),
                        options) {}
  explicit ConvTranspose3d(const ConvTranspose3dOptions& o)
      : ConvTranspose3d(o.in_channels(), o.out_channels(), o.kernel_size(), o.stride(), o.padding(),
             o.output_padding(), o.groups(), o.bias(), o.dilation(), o.padding_mode(),
             o.options()) {}
};

}  // namespace ember::nn
