// torchvision 0.14's ResNet (He et al. 2015): BasicBlock (ResNet-18/34) and Bottleneck
// (ResNet-50/101/152, ResNeXt, wide ResNets) with torchvision's module names — conv1, bn1,
// layer1.0.conv1, layer1.0.downsample.0, fc — so state_dicts move between the two by key;
// initialisation as torchvision's (conv kaiming_normal fan_out / relu, norms ones / zeros,
// zero_init_residual).
//
//   auto net = ember::models::resnet18();     // 1000 classes
//   net->eval();
//   ember::Tensor logits = (*net)(images);     // [N, 3, H, W] -> [N, 1000]
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ember/models/misc.h"
#include "ember/nn/module.h"
#include "ember/nn/modules/activation.h"
#include "ember/nn/modules/batchnorm.h"
#include "ember/nn/modules/container.h"
#include "ember/nn/modules/conv.h"
#include "ember/nn/modules/linear.h"
#include "ember/nn/modules/pooling.h"

namespace ember::models {

/// 3x3 convolution, padding = dilation, no bias (torchvision's conv3x3).
std::shared_ptr<nn::Conv2d> conv3x3(int64_t in_planes, int64_t out_planes, int64_t stride = 1,
                                    int64_t groups = 1, int64_t dilation = 1,
                                    TensorOptions options = {});
/// 1x1 convolution, no bias (torchvision's conv1x1).
std::shared_ptr<nn::Conv2d> conv1x1(int64_t in_planes, int64_t out_planes, int64_t stride = 1,
                                    TensorOptions options = {});

/// conv1 (3x3, stride) - bn1 - relu - conv2 (3x3) - bn2, plus the shortcut (downsample when
/// given, a null pointer for none), then relu. Only groups 1 and base_width 64 (ValueError),
/// dilation 1 (NotImplementedError).
class BasicBlock : public nn::Module {
 public:
  static constexpr int64_t expansion = 1;
  BasicBlock(int64_t inplanes, int64_t planes, int64_t stride = 1,
             std::shared_ptr<nn::Module> downsample = nullptr, int64_t groups = 1,
             int64_t base_width = 64, int64_t dilation = 1, NormLayer norm_layer = nullptr,
             TensorOptions options = {});
  Tensor forward(const Tensor& x);
  Value forward(const std::vector<Value>& inputs) override;

  std::shared_ptr<nn::Conv2d> conv1;
  std::shared_ptr<nn::Module> bn1;
  std::shared_ptr<nn::ReLU> relu;
  std::shared_ptr<nn::Conv2d> conv2;
  std::shared_ptr<nn::Module> bn2;
  /// Null when the block keeps its input's shape (not registered, as in torchvision).
  std::shared_ptr<nn::Module> downsample;
  int64_t stride;

 protected:
  BasicBlock(std::string type_name, int64_t inplanes, int64_t planes, int64_t stride,
             std::shared_ptr<nn::Module> downsample, int64_t groups, int64_t base_width,
             int64_t dilation, NormLayer norm_layer, TensorOptions options);
};

/// conv1 (1x1) - bn1 - relu - conv2 (3x3, stride, groups, dilation) - bn2 - relu - conv3 (1x1,
/// planes * 4) - bn3, plus the shortcut, then relu (the stride sits on the 3x3, ResNet V1.5).
class Bottleneck : public nn::Module {
 public:
  static constexpr int64_t expansion = 4;
  Bottleneck(int64_t inplanes, int64_t planes, int64_t stride = 1,
             std::shared_ptr<nn::Module> downsample = nullptr, int64_t groups = 1,
             int64_t base_width = 64, int64_t dilation = 1, NormLayer norm_layer = nullptr,
             TensorOptions options = {});
  Tensor forward(const Tensor& x);
  Value forward(const std::vector<Value>& inputs) override;

  std::shared_ptr<nn::Conv2d> conv1;
  std::shared_ptr<nn::Module> bn1;
  std::shared_ptr<nn::Conv2d> conv2;
  std::shared_ptr<nn::Module> bn2;
  std::shared_ptr<nn::Conv2d> conv3;
  std::shared_ptr<nn::Module> bn3;
  std::shared_ptr<nn::ReLU> relu;
  std::shared_ptr<nn::Module> downsample;
  int64_t stride;

 protected:
  Bottleneck(std::string type_name, int64_t inplanes, int64_t planes, int64_t stride,
             std::shared_ptr<nn::Module> downsample, int64_t groups, int64_t base_width,
             int64_t dilation, NormLayer norm_layer, TensorOptions options);
};

/// What ResNet needs of a block class: its expansion and how to build one.
struct ResNetBlock {
  int64_t expansion;
  std::function<std::shared_ptr<nn::Module>(
      int64_t inplanes, int64_t planes, int64_t stride, std::shared_ptr<nn::Module> downsample,
      int64_t groups, int64_t base_width, int64_t dilation, const NormLayer& norm_layer,
      TensorOptions options)>
      make;
  /// BasicBlock / Bottleneck.
  static ResNetBlock basic();
  static ResNetBlock bottleneck();
};

class ResNet : public nn::Module {
 public:
  /// layers: the number of blocks in layer1..layer4. replace_stride_with_dilation: three flags
  /// (empty: none) for layer2..layer4 (ValueError when not 3). norm_layer null: BatchNorm2d.
  ResNet(ResNetBlock block, std::vector<int64_t> layers, int64_t num_classes = 1000,
         bool zero_init_residual = false, int64_t groups = 1, int64_t width_per_group = 64,
         std::vector<bool> replace_stride_with_dilation = {}, NormLayer norm_layer = nullptr,
         TensorOptions options = {});
  /// conv1 - bn1 - relu - maxpool - layer1..4 - avgpool - flatten(1) - fc.
  Tensor forward(const Tensor& x);
  Value forward(const std::vector<Value>& inputs) override;

  std::shared_ptr<nn::Conv2d> conv1;
  std::shared_ptr<nn::Module> bn1;
  std::shared_ptr<nn::ReLU> relu;
  std::shared_ptr<nn::MaxPool2d> maxpool;
  std::shared_ptr<nn::Sequential> layer1, layer2, layer3, layer4;
  std::shared_ptr<nn::AdaptiveAvgPool2d> avgpool;
  std::shared_ptr<nn::Linear> fc;

 protected:
  ResNet(std::string type_name, ResNetBlock block, std::vector<int64_t> layers,
         int64_t num_classes, bool zero_init_residual, int64_t groups, int64_t width_per_group,
         std::vector<bool> replace_stride_with_dilation, NormLayer norm_layer,
         TensorOptions options);
  /// torchvision's _forward_impl.
  Tensor forward_impl(const Tensor& x);

 private:
  std::shared_ptr<nn::Sequential> make_layer(const ResNetBlock& block, int64_t planes,
                                             int64_t blocks, int64_t stride, bool dilate,
                                             TensorOptions options);
  NormLayer norm_layer_;
  int64_t inplanes_ = 64;
  int64_t dilation_ = 1;
  int64_t groups_;
  int64_t base_width_;
};

/// torchvision.models.resnet18 / 34 / 50 / 101 / 152 (weights=None).
std::shared_ptr<ResNet> resnet18(int64_t num_classes = 1000, TensorOptions options = {});
std::shared_ptr<ResNet> resnet34(int64_t num_classes = 1000, TensorOptions options = {});
std::shared_ptr<ResNet> resnet50(int64_t num_classes = 1000, TensorOptions options = {});
std::shared_ptr<ResNet> resnet101(int64_t num_classes = 1000, TensorOptions options = {});
std::shared_ptr<ResNet> resnet152(int64_t num_classes = 1000, TensorOptions options = {});

}  // namespace ember::models
