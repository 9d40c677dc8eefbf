// models::Conv2dNormActivation and the default layer factories (torchvision.ops.misc).
#include "ember/models/misc.h"

#include "ember/nn/modules/activation.h"
#include "ember/nn/modules/batchnorm.h"
#include "ember/nn/modules/conv.h"

namespace ember::models {

NormLayer batch_norm2d_layer() {
  return [](int64_t num_features, TensorOptions options) -> std::shared_ptr<nn::Module> {
    return std::make_shared<nn::BatchNorm2d>(num_features, 1e-5, 0.1, true, true, options);
  };
}

ActivationLayer relu_layer() {
  return [](std::optional<bool> inplace) -> std::shared_ptr<nn::Module> {
    return std::make_shared<nn::ReLU>(inplace.value_or(false));
  };
}

ActivationLayer relu6_layer() {
  return [](std::optional<bool> inplace) -> std::shared_ptr<nn::Module> {
    return std::make_shared<nn::ReLU6>(inplace.value_or(false));
  };
}

namespace {

std::vector<std::shared_ptr<nn::Module>> conv_norm_activation_layers(
    int64_t in_channels, int64_t out_channels, int64_t kernel_size, int64_t stride,
    std::optional<int64_t> padding, int64_t groups, const NormLayer& norm_layer,
    const ActivationLayer& activation_layer, int64_t dilation, std::optional<bool> inplace,
    std::optional<bool> bias, TensorOptions options) {
  const int64_t pad = padding ? *padding : (kernel_size - 1) / 2 * dilation;
  const bool with_bias = bias ? *bias : norm_layer == nullptr;
  std::vector<std::shared_ptr<nn::Module>> layers;
  layers.push_back(std::make_shared<nn::Conv2d>(in_channels, out_channels, kernel_size, stride,
                                                pad, dilation, groups, with_bias, "zeros",
                                                options));
  if (norm_layer) layers.push_back(norm_layer(out_channels, options));
  if (activation_layer) layers.push_back(activation_layer(inplace));
  return layers;
}

}  // namespace

Conv2dNormActivation::Conv2dNormActivation(int64_t in_channels, int64_t out_channels_,
                                           int64_t kernel_size, int64_t stride,
                                           std::optional<int64_t> padding, int64_t groups,
                                           NormLayer norm_layer, ActivationLayer activation_layer,
                                           int64_t dilation, std::optional<bool> inplace,
                                           std::optional<bool> bias, TensorOptions options)
    : nn::Sequential("Conv2dNormActivation",
                     conv_norm_activation_layers(in_channels, out_channels_, kernel_size, stride,
                                                 padding, groups, norm_layer, activation_layer,
                                                 dilation, inplace, bias, options)),
      out_channels(out_channels_) {}

void for_each_descendant(nn::Module& root, const std::function<void(nn::Module&)>& fn) {
  for (const auto& child : root.children()) {
    if (!child) continue;
    fn(*child);
    for_each_descendant(*child, fn);
  }
}

}  // namespace ember::models
