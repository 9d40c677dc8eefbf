// torchvision 0.14's MobileNetV2 (Sandler et al. 2018): the module tree, names and state_dict
// keys are torchvision's ("features.0.0.weight", "features.1.conv.0.0.weight", ...,
// "classifier.1.weight"), so weights move between the two by key; initialisation as
// torchvision's (conv kaiming_normal fan_out, BN ones / zeros, Linear N(0, 0.01) and zero bias).
//
//   auto net = ember::models::mobilenet_v2();          // 1000 classes, width 1.0
//   net->eval();
//   ember::Tensor logits = (*net)(images);              // [N, 3, H, W] -> [N, 1000]
//   auto slim = ember::models::mobilenet_v2(10, 0.5);  // width multiplier 0.5
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ember/models/misc.h"
#include "ember/nn/module.h"
#include "ember/nn/modules/container.h"

namespace ember::models {

/// torchvision's _make_divisible: v rounded to the nearest multiple of divisor (at least
/// min_value, default divisor), never more than 10% below v.
int64_t _make_divisible(double v, int64_t divisor, std::optional<int64_t> min_value = std::nullopt);

/// The inverted residual block: [1x1 expansion Conv2dNormActivation when expand_ratio != 1],
/// 3x3 depthwise Conv2dNormActivation (stride), 1x1 linear projection Conv2d + norm, all in
/// the child Sequential "conv"; the input is added back when stride == 1 and inp == oup.
class InvertedResidual : public nn::Module {
 public:
  /// stride must be 1 or 2 (ValueError "stride should be 1 or 2 instead of 3").
  InvertedResidual(int64_t inp, int64_t oup, int64_t stride, double expand_ratio,
                   NormLayer norm_layer = nullptr, TensorOptions options = {});
  Tensor forward(const Tensor& x);
  Value forward(const std::vector<Value>& inputs) override;

  std::shared_ptr<nn::Sequential> conv;
  int64_t stride;
  bool use_res_connect;
  int64_t out_channels;
  bool _is_cn;

 protected:
  /// For subclasses (torchvision's QuantizableInvertedResidual) with their own class name.
  InvertedResidual(std::string type_name, int64_t inp, int64_t oup, int64_t stride,
                   double expand_ratio, NormLayer norm_layer, TensorOptions options);
};

/// Builds one block (torchvision's `block` class argument).
using InvertedResidualBlock = std::function<std::shared_ptr<nn::Module>(
    int64_t inp, int64_t oup, int64_t stride, double expand_ratio, const NormLayer& norm_layer,
    TensorOptions options)>;

class MobileNetV2 : public nn::Module {
 public:
  /// inverted_residual_setting: rows (t, c, n, s) — expansion, output channels, repeats, first
  /// stride; empty means the paper's 7 rows. block / norm_layer null: InvertedResidual /
  /// BatchNorm2d. Channels are width_mult-scaled and rounded to multiples of round_nearest.
  explicit MobileNetV2(int64_t num_classes = 1000, double width_mult = 1.0,
                       std::vector<std::vector<int64_t>> inverted_residual_setting = {},
                       int64_t round_nearest = 8, InvertedResidualBlock block = nullptr,
                       NormLayer norm_layer = nullptr, double dropout = 0.2,
                       TensorOptions options = {});
  /// features -> adaptive_avg_pool2d (1, 1) -> flatten(1) -> classifier.
  Tensor forward(const Tensor& x);
  Value forward(const std::vector<Value>& inputs) override;

  std::shared_ptr<nn::Sequential> features;
  std::shared_ptr<nn::Sequential> classifier;
  int64_t last_channel;

 protected:
  /// For subclasses (torchvision's QuantizableMobileNetV2) with their own class name.
  MobileNetV2(std::string type_name, int64_t num_classes, double width_mult,
              std::vector<std::vector<int64_t>> inverted_residual_setting, int64_t round_nearest,
              InvertedResidualBlock block, NormLayer norm_layer, double dropout,
              TensorOptions options);
  /// torchvision's _forward_impl (the quantizable subclass wraps it in quant / dequant).
  Tensor forward_impl(const Tensor& x);
};

/// torchvision.models.mobilenet_v2(weights=None, num_classes=..., width_mult=...).
std::shared_ptr<MobileNetV2> mobilenet_v2(int64_t num_classes = 1000, double width_mult = 1.0,
                                          TensorOptions options = {});

}  // namespace ember::models
