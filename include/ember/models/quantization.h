// torchvision 0.14's quantizable models (torchvision.models.quantization): MobileNetV2 and the
// ResNets with QuantStub / DeQuantStub around the float network, FloatFunctional for the
// residual adds (so the adds can be observed and become quantized adds), and fuse_model. The
// module trees, names and state_dict keys are torchvision's, before and after convert.
//
//   auto net = ember::models::quantization::mobilenet_v2();   // float, ReLU6 replaced by ReLU
//   ember::models::quantization::quantize_model(*net, "qnnpack");
//   // fuse_model(false), prepare, one calibration pass, convert: an int8 model in place
//   ember::Tensor logits = (*net)(images);
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ember/models/mobilenetv2.h"
#include "ember/models/resnet.h"

namespace ember::models::quantization {

/// InvertedResidual whose residual add is `skip_add` (a FloatFunctional child).
class QuantizableInvertedResidual : public InvertedResidual {
 public:
  QuantizableInvertedResidual(int64_t inp, int64_t oup, int64_t stride, double expand_ratio,
                              NormLayer norm_layer = nullptr, TensorOptions options = {});
  Tensor forward(const Tensor& x);
  Value forward(const std::vector<Value>& inputs) override;
  /// Fuses each plain Conv2d of `conv` with the norm after it (the linear projection).
  /// is_qat nullopt: the module's training mode decides (torchvision's _fuse_modules).
  void fuse_model(std::optional<bool> is_qat = std::nullopt);

 protected:
  QuantizableInvertedResidual(std::string type_name, int64_t inp, int64_t oup, int64_t stride,
                              double expand_ratio, NormLayer norm_layer, TensorOptions options);
};

/// MobileNetV2 with `quant` / `dequant` stubs (registered after the float children).
class QuantizableMobileNetV2 : public MobileNetV2 {
 public:
  /// block null: QuantizableInvertedResidual.
  explicit QuantizableMobileNetV2(int64_t num_classes = 1000, double width_mult = 1.0,
                                  std::vector<std::vector<int64_t>> inverted_residual_setting = {},
                                  int64_t round_nearest = 8, InvertedResidualBlock block = nullptr,
                                  NormLayer norm_layer = nullptr, double dropout = 0.2,
                                  TensorOptions options = {});
  /// quant -> features -> pool -> flatten -> classifier -> dequant.
  Tensor forward(const Tensor& x);
  Value forward(const std::vector<Value>& inputs) override;
  /// Fuses every Conv2dNormActivation (exactly that class) as ["0", "1", "2"] and calls
  /// fuse_model of every QuantizableInvertedResidual.
  void fuse_model(std::optional<bool> is_qat = std::nullopt);

 protected:
  QuantizableMobileNetV2(std::string type_name, int64_t num_classes, double width_mult,
                         std::vector<std::vector<int64_t>> inverted_residual_setting,
                         int64_t round_nearest, InvertedResidualBlock block, NormLayer norm_layer,
                         double dropout, TensorOptions options);
};

/// BasicBlock whose final add and ReLU are `add_relu` (a FloatFunctional).
class QuantizableBasicBlock : public BasicBlock {
 public:
  QuantizableBasicBlock(int64_t inplanes, int64_t planes, int64_t stride = 1,
                        std::shared_ptr<nn::Module> downsample = nullptr, int64_t groups = 1,
                        int64_t base_width = 64, int64_t dilation = 1,
                        NormLayer norm_layer = nullptr, TensorOptions options = {});
  Tensor forward(const Tensor& x);
  Value forward(const std::vector<Value>& inputs) override;
  /// [conv1, bn1, relu], [conv2, bn2], and downsample's [0, 1].
  void fuse_model(std::optional<bool> is_qat = std::nullopt);

 protected:
  QuantizableBasicBlock(std::string type_name, int64_t inplanes, int64_t planes, int64_t stride,
                        std::shared_ptr<nn::Module> downsample, int64_t groups,
                        int64_t base_width, int64_t dilation, NormLayer norm_layer,
                        TensorOptions options);
};

/// Bottleneck with its own relu1 / relu2 and `skip_add_relu` (a FloatFunctional).
class QuantizableBottleneck : public Bottleneck {
 public:
  QuantizableBottleneck(int64_t inplanes, int64_t planes, int64_t stride = 1,
                        std::shared_ptr<nn::Module> downsample = nullptr, int64_t groups = 1,
                        int64_t base_width = 64, int64_t dilation = 1,
                        NormLayer norm_layer = nullptr, TensorOptions options = {});
  Tensor forward(const Tensor& x);
  Value forward(const std::vector<Value>& inputs) override;
  /// [conv1, bn1, relu1], [conv2, bn2, relu2], [conv3, bn3], and downsample's [0, 1].
  void fuse_model(std::optional<bool> is_qat = std::nullopt);

 protected:
  QuantizableBottleneck(std::string type_name, int64_t inplanes, int64_t planes, int64_t stride,
                        std::shared_ptr<nn::Module> downsample, int64_t groups,
                        int64_t base_width, int64_t dilation, NormLayer norm_layer,
                        TensorOptions options);
};

/// QuantizableBasicBlock / QuantizableBottleneck as ResNet block classes.
ResNetBlock quantizable_basic_block();
ResNetBlock quantizable_bottleneck();

/// ResNet with `quant` / `dequant` stubs.
class QuantizableResNet : public ResNet {
 public:
  QuantizableResNet(ResNetBlock block, std::vector<int64_t> layers, int64_t num_classes = 1000,
                    bool zero_init_residual = false, int64_t groups = 1,
                    int64_t width_per_group = 64,
                    std::vector<bool> replace_stride_with_dilation = {},
                    NormLayer norm_layer = nullptr, TensorOptions options = {});
  Tensor forward(const Tensor& x);
  Value forward(const std::vector<Value>& inputs) override;
  /// [conv1, bn1, relu], then fuse_model of every quantizable block.
  void fuse_model(std::optional<bool> is_qat = std::nullopt);

 protected:
  QuantizableResNet(std::string type_name, ResNetBlock block, std::vector<int64_t> layers,
                    int64_t num_classes, bool zero_init_residual, int64_t groups,
                    int64_t width_per_group, std::vector<bool> replace_stride_with_dilation,
                    NormLayer norm_layer, TensorOptions options);
};

/// torchvision's _fuse_modules: fuse_modules_qat when is_qat (nullopt: model's training mode),
/// else fuse_modules; in place.
void _fuse_modules(nn::Module& model, const std::vector<std::vector<std::string>>& modules_to_fuse,
                   std::optional<bool> is_qat);
/// torchvision's _replace_relu: every child of exact class ReLU or ReLU6 (recursively) becomes
/// ReLU(inplace=false).
void _replace_relu(nn::Module& module);
/// torchvision's quantize_model with fuse_model(is_qat=false): the engine must be supported
/// (RuntimeError "Quantized backend not supported "); sets it; eval; qconfig (default_observer
/// activations; default_weight_observer for qnnpack, default_per_channel_weight_observer for
/// fbgemm, none for other engines); fuse; prepare; one pass on rand(1, 3, 299, 299); convert.
/// `model` must be a QuantizableMobileNetV2 or QuantizableResNet (TypeError otherwise), or any
/// module when `fuse` is given.
void quantize_model(nn::Module& model, const std::string& backend,
                    const std::function<void(nn::Module&, bool is_qat)>& fuse = nullptr);

/// torchvision.models.quantization.mobilenet_v2(weights=None, quantize=..., backend="qnnpack").
std::shared_ptr<QuantizableMobileNetV2> mobilenet_v2(bool quantize = false,
                                                     const std::string& backend = "qnnpack",
                                                     int64_t num_classes = 1000,
                                                     double width_mult = 1.0);
/// torchvision.models.quantization.resnet18 / resnet50 (weights=None, backend "fbgemm").
std::shared_ptr<QuantizableResNet> resnet18(bool quantize = false,
                                            const std::string& backend = "fbgemm",
                                            int64_t num_classes = 1000);
std::shared_ptr<QuantizableResNet> resnet50(bool quantize = false,
                                            const std::string& backend = "fbgemm",
                                            int64_t num_classes = 1000);

}  // namespace ember::models::quantization
