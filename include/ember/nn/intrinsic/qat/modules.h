// torch.nn.intrinsic.qat: the fused modules for quantization-aware training.
//   - ConvBn1d/2d/3d, ConvBnReLU1d/2d/3d: a conv (this module's weight / bias) with its BatchNorm as
//     the child "bn" and "weight_fake_quant"; forward is PyTorch's _ConvBnNd._forward
//     (quantization-spec § 3): the BN scale folded into the weight before fake quantization,
//     the conv output scaled back, then the BN (batch statistics while bn trains), [ReLU].
//     freeze_bn_stats() / update_bn_stats() stop and restart the BN statistics; train() keeps
//     a frozen bn in eval mode.
//   - ConvReLU1d/2d/3d, LinearReLU: the QAT conv / linear followed by relu.
//   - LinearBn1d: Linear + BatchNorm1d, folded the same way.
//
//   auto m = ember::nn::intrinsic::qat::ConvBnReLU2d::from_float(*fused_float);  // has a qconfig
//   m->freeze_bn_stats();
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ember/nn/modules/batchnorm.h"
#include "ember/nn/qat/modules.h"

namespace ember::nn::intrinsic::qat {

using quantization::QConfigPtr;

/// What the ConvBn modules share (PyTorch's _ConvBnNd), over nn::Conv1d, nn::Conv2d or nn::Conv3d.
template <class Conv, class Bn>
class ConvBnNd : public Conv {
 public:
  /// bias: whether the conv has a bias (PyTorch's default None: no). eps and momentum are the
  /// BatchNorm's (affine, tracking running statistics).
  ConvBnNd(std::string type_name, int64_t in_channels, int64_t out_channels,
           const IntOrTuple& kernel_size, const IntOrTuple& stride, const ConvPadding& padding,
           const IntOrTuple& dilation, int64_t groups, bool bias, std::string padding_mode,
           double eps, std::optional<double> momentum, bool freeze_bn, QConfigPtr qconfig,
           bool relu);
  Tensor forward(const Tensor& input);
  Value forward(const std::vector<Value>& inputs) override;
  /// PyTorch's _ConvBnNd._forward (without the ReLU): _forward_slow when
  /// enable_slow_path_for_better_numerical_stability, else _forward_approximate.
  Tensor _forward(const Tensor& input);
  /// One conv with the BN-scaled, fake-quantized weight, divided back by the scale: wrong
  /// where bn.weight is 0.
  Tensor _forward_approximate(const Tensor& input);
  /// Two convs (arXiv:1806.08342): in BN training mode the batch statistics come from a conv
  /// with the float weight, the fused conv is rescaled by running_std / batch_std; exact where
  /// bn.weight is 0.
  Tensor _forward_slow(const Tensor& input);
  /// Sets this module's mode, and its children's unless the BN statistics are frozen.
  Module& train(bool mode = true) override;
  ConvBnNd& freeze_bn_stats();
  ConvBnNd& update_bn_stats();
  void reset_running_stats();
  /// bn running statistics reset, bn.weight ~ U(0, 1), bn.bias = 0, bias ~ U(±1/sqrt(fan_in)).
  void reset_bn_parameters();
  /// The float equivalent: the conv with the BN running statistics folded in (then
  /// nn::intrinsic::ConvReLU{N}d(conv, ReLU) for the ReLU variants), in this module's mode.
  std::shared_ptr<Module> to_float();
  /// _ConvBnNd._version: 2 (version 1 named the BN entries gamma, beta, running_mean, ...).
  int64_t version() const override { return 2; }
  void _load_from_state_dict(StateDict& state_dict, const std::string& prefix,
                             LocalMetadata& local_metadata, bool strict,
                             std::vector<std::string>& missing_keys,
                             std::vector<std::string>& unexpected_keys,
                             std::vector<std::string>& error_msgs) override;
  Bn& bn();
  bool freeze_bn;
  bool with_relu;
  /// PyTorch's `_enable_slow_path_for_better_numerical_stability` (default false).
  bool enable_slow_path_for_better_numerical_stability = false;
};

class ConvBn1d : public ConvBnNd<nn::Conv1d, nn::BatchNorm1d> {
 public:
  ConvBn1d(int64_t in_channels, int64_t out_channels, const IntOrTuple& kernel_size,
           const IntOrTuple& stride = 1, const ConvPadding& padding = 0,
           const IntOrTuple& dilation = 1, int64_t groups = 1, bool bias = false,
           std::string padding_mode = "zeros", double eps = 1e-5,
           std::optional<double> momentum = 0.1, bool freeze_bn = false,
           QConfigPtr qconfig = nullptr);
  /// From an nn::intrinsic::ConvBn1d with a qconfig: shares its conv's weight and bias and its
  /// bn's parameters and running statistics.
  static std::shared_ptr<ConvBn1d> from_float(Module& mod);
};

class ConvBnReLU1d : public ConvBnNd<nn::Conv1d, nn::BatchNorm1d> {
 public:
  ConvBnReLU1d(int64_t in_channels, int64_t out_channels, const IntOrTuple& kernel_size,
               const IntOrTuple& stride = 1, const ConvPadding& padding = 0,
               const IntOrTuple& dilation = 1, int64_t groups = 1, bool bias = false,
               std::string padding_mode = "zeros", double eps = 1e-5,
               std::optional<double> momentum = 0.1, bool freeze_bn = false,
               QConfigPtr qconfig = nullptr);
  static std::shared_ptr<ConvBnReLU1d> from_float(Module& mod);
};

class ConvBn2d : public ConvBnNd<nn::Conv2d, nn::BatchNorm2d> {
 public:
  ConvBn2d(int64_t in_channels, int64_t out_channels, const IntOrTuple& kernel_size,
           const IntOrTuple& stride = 1, const ConvPadding& padding = 0,
           const IntOrTuple& dilation = 1, int64_t groups = 1, bool bias = false,
           std::string padding_mode = "zeros", double eps = 1e-5,
           std::optional<double> momentum = 0.1, bool freeze_bn = false,
           QConfigPtr qconfig = nullptr);
  static std::shared_ptr<ConvBn2d> from_float(Module& mod);
};

class ConvBnReLU2d : public ConvBnNd<nn::Conv2d, nn::BatchNorm2d> {
 public:
  ConvBnReLU2d(int64_t in_channels, int64_t out_channels, const IntOrTuple& kernel_size,
               const IntOrTuple& stride = 1, const ConvPadding& padding = 0,
               const IntOrTuple& dilation = 1, int64_t groups = 1, bool bias = false,
               std::string padding_mode = "zeros", double eps = 1e-5,
               std::optional<double> momentum = 0.1, bool freeze_bn = false,
               QConfigPtr qconfig = nullptr);
  static std::shared_ptr<ConvBnReLU2d> from_float(Module& mod);
};

class ConvBn3d : public ConvBnNd<nn::Conv3d, nn::BatchNorm3d> {
 public:
  ConvBn3d(int64_t in_channels, int64_t out_channels, const IntOrTuple& kernel_size,
           const IntOrTuple& stride = 1, const ConvPadding& padding = 0,
           const IntOrTuple& dilation = 1, int64_t groups = 1, bool bias = false,
           std::string padding_mode = "zeros", double eps = 1e-5,
           std::optional<double> momentum = 0.1, bool freeze_bn = false,
           QConfigPtr qconfig = nullptr);
  static std::shared_ptr<ConvBn3d> from_float(Module& mod);
};

class ConvBnReLU3d : public ConvBnNd<nn::Conv3d, nn::BatchNorm3d> {
 public:
  ConvBnReLU3d(int64_t in_channels, int64_t out_channels, const IntOrTuple& kernel_size,
               const IntOrTuple& stride = 1, const ConvPadding& padding = 0,
               const IntOrTuple& dilation = 1, int64_t groups = 1, bool bias = false,
               std::string padding_mode = "zeros", double eps = 1e-5,
               std::optional<double> momentum = 0.1, bool freeze_bn = false,
               QConfigPtr qconfig = nullptr);
  static std::shared_ptr<ConvBnReLU3d> from_float(Module& mod);
};

/// nn::qat::Conv1d then relu.
class ConvReLU1d : public nn::qat::Conv1d {
 public:
  ConvReLU1d(int64_t in_channels, int64_t out_channels, const IntOrTuple& kernel_size,
             const IntOrTuple& stride = 1, const ConvPadding& padding = 0,
             const IntOrTuple& dilation = 1, int64_t groups = 1, bool bias = true,
             std::string padding_mode = "zeros", QConfigPtr qconfig = nullptr);
  Tensor forward(const Tensor& input);
  Value forward(const std::vector<Value>& inputs) override;
  /// From an nn::intrinsic::ConvReLU1d whose conv has a qconfig.
  static std::shared_ptr<ConvReLU1d> from_float(Module& mod);
  /// nn::intrinsic::ConvReLU1d(conv, ReLU) in this module's mode.
  std::shared_ptr<Module> to_float();
};

class ConvReLU2d : public nn::qat::Conv2d {
 public:
  ConvReLU2d(int64_t in_channels, int64_t out_channels, const IntOrTuple& kernel_size,
             const IntOrTuple& stride = 1, const ConvPadding& padding = 0,
             const IntOrTuple& dilation = 1, int64_t groups = 1, bool bias = true,
             std::string padding_mode = "zeros", QConfigPtr qconfig = nullptr);
  Tensor forward(const Tensor& input);
  Value forward(const std::vector<Value>& inputs) override;
  static std::shared_ptr<ConvReLU2d> from_float(Module& mod);
  std::shared_ptr<Module> to_float();
};

/// nn::qat::Conv3d then relu.
class ConvReLU3d : public nn::qat::Conv3d {
 public:
  ConvReLU3d(int64_t in_channels, int64_t out_channels, const IntOrTuple& kernel_size,
             const IntOrTuple& stride = 1, const ConvPadding& padding = 0,
             const IntOrTuple& dilation = 1, int64_t groups = 1, bool bias = true,
             std::string padding_mode = "zeros", QConfigPtr qconfig = nullptr);
  Tensor forward(const Tensor& input);
  Value forward(const std::vector<Value>& inputs) override;
  static std::shared_ptr<ConvReLU3d> from_float(Module& mod);
  std::shared_ptr<Module> to_float();
};

/// nn::qat::Linear then relu.
class LinearReLU : public nn::qat::Linear {
 public:
  LinearReLU(int64_t in_features, int64_t out_features, bool bias = true,
             QConfigPtr qconfig = nullptr);
  Tensor forward(const Tensor& input);
  Value forward(const std::vector<Value>& inputs) override;
  /// From an nn::intrinsic::LinearReLU whose linear has a qconfig.
  static std::shared_ptr<LinearReLU> from_float(Module& mod);
  /// nn::intrinsic::LinearReLU(linear, ReLU).
  std::shared_ptr<Module> to_float();
};

/// Linear with its BatchNorm1d folded as in ConvBnNd (PyTorch's nniqat.LinearBn1d).
class LinearBn1d : public nn::Linear {
 public:
  LinearBn1d(int64_t in_features, int64_t out_features, bool bias = true, double eps = 1e-5,
             std::optional<double> momentum = 0.1, bool freeze_bn = false,
             QConfigPtr qconfig = nullptr);
  Tensor forward(const Tensor& input);
  Value forward(const std::vector<Value>& inputs) override;
  Module& train(bool mode = true) override;
  LinearBn1d& freeze_bn_stats();
  LinearBn1d& update_bn_stats();
  void reset_running_stats();
  void reset_bn_parameters();
  /// From an nn::intrinsic::LinearBn1d with a qconfig.
  static std::shared_ptr<LinearBn1d> from_float(Module& mod);
  /// A float Linear with the BN running statistics folded in (fuse_linear_bn_weights).
  std::shared_ptr<Module> to_float();
  nn::BatchNorm1d& bn();
  bool freeze_bn;
};

/// torch's module functions for model.apply: on exactly ConvBn{1,2}d / ConvBnReLU{1,2}d,
/// freeze_bn_stats() / update_bn_stats(); other modules (LinearBn1d too, as PyTorch's list)
/// are left alone.
void freeze_bn_stats(Module& mod);
void update_bn_stats(Module& mod);

}  // namespace ember::nn::intrinsic::qat
