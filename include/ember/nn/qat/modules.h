// torch.ao.nn.qat: Conv1d, Conv2d and Linear for quantization-aware training. Each is its float
// layer (same parameters, repr and state_dict, isinstance of it) plus a `weight_fake_quant`
// child made by its qconfig's weight factory; forward runs the float op on
// weight_fake_quant(weight). prepare_qat swaps float modules for these (from_float), convert
// turns them into quantized modules, to_float back into float ones.
//
//   auto qat = std::make_shared<ember::nn::qat::Conv2d>(3, 8, 3, 1, 0, 1, 1, true, "zeros",
//                                                       ember::quantization::default_qat_qconfig());
//   ember::Tensor y = (*qat)(x);           // conv2d(x, weight_fake_quant(weight), bias)
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ember/nn/modules/conv.h"
#include "ember/nn/modules/linear.h"
#include "ember/quantization/qconfig.h"

namespace ember::nn::qat {

using quantization::QConfigPtr;

namespace detail {
/// qconfig checked ("qconfig must be provided for QAT module"), stored on `m`, and its weight
/// factory's module registered as `m`'s "weight_fake_quant".
void attach_weight_fake_quant(Module& m, const QConfigPtr& qconfig,
                              const char* message = "qconfig must be provided for QAT module");
/// weight_fake_quant(weight), through the child's call (hooks fire; a replaced child is used).
Tensor fake_quant_weight(Module& m, const Tensor& weight);
}  // namespace detail

class Conv1d : public nn::Conv1d {
 public:
  Conv1d(int64_t in_channels, int64_t out_channels, const IntOrTuple& kernel_size,
         const IntOrTuple& stride = 1, const ConvPadding& padding = 0,
         const IntOrTuple& dilation = 1, int64_t groups = 1, bool bias = true,
         std::string padding_mode = "zeros", QConfigPtr qconfig = nullptr,
         TensorOptions options = {});
  Tensor forward(const Tensor& input);
  Value forward(const std::vector<Value>& inputs) override;
  /// A Conv1d (or, for an nn::intrinsic::ConvReLU1d, its conv) with a qconfig -> this class,
  /// sharing its weight and bias.
  static std::shared_ptr<Conv1d> from_float(Module& mod);
  /// A float nn::Conv1d with copies of the weight and bias.
  std::shared_ptr<Module> to_float();
};

class Conv2d : public nn::Conv2d {
 public:
  Conv2d(int64_t in_channels, int64_t out_channels, const IntOrTuple& kernel_size,
         const IntOrTuple& stride = 1, const ConvPadding& padding = 0,
         const IntOrTuple& dilation = 1, int64_t groups = 1, bool bias = true,
         std::string padding_mode = "zeros", QConfigPtr qconfig = nullptr,
         TensorOptions options = {});
  Tensor forward(const Tensor& input);
  Value forward(const std::vector<Value>& inputs) override;
  static std::shared_ptr<Conv2d> from_float(Module& mod);
  std::shared_ptr<Module> to_float();
};

class Conv3d : public nn::Conv3d {
 public:
  Conv3d(int64_t in_channels, int64_t out_channels, const IntOrTuple& kernel_size,
         const IntOrTuple& stride = 1, const ConvPadding& padding = 0,
         const IntOrTuple& dilation = 1, int64_t groups = 1, bool bias = true,
         std::string padding_mode = "zeros", QConfigPtr qconfig = nullptr,
         TensorOptions options = {});
  Tensor forward(const Tensor& input);
  Value forward(const std::vector<Value>& inputs) override;
  static std::shared_ptr<Conv3d> from_float(Module& mod);
  std::shared_ptr<Module> to_float();
};

class Linear : public nn::Linear {
 public:
  Linear(int64_t in_features, int64_t out_features, bool bias = true,
         QConfigPtr qconfig = nullptr, TensorOptions options = {});
  Tensor forward(const Tensor& input);
  Value forward(const std::vector<Value>& inputs) override;
  /// A Linear (or an nn::intrinsic::LinearReLU's linear) with a qconfig -> this class.
  static std::shared_ptr<Linear> from_float(Module& mod);
  std::shared_ptr<Module> to_float();
};

}  // namespace ember::nn::qat
