// torchvision.ops.misc.Conv2dNormActivation (the block torchvision's MobileNetV2 is made of, the
// notebook's "ConvNormActivation"): Conv2d, then a norm layer, then an activation, as a
// Sequential subclass whose children are "0", "1", "2" — the names the quantization fuser
// expects. Also the layer factories the models take (torchvision's norm_layer / activation_layer
// class arguments).
//
//   auto block = std::make_shared<ember::models::Conv2dNormActivation>(
//       3, 32, 3, 2, std::nullopt, 1, ember::models::batch_norm2d_layer(),
//       ember::models::relu6_layer());
//   // Conv2d(3, 32, k3, s2, p1, bias=False), BatchNorm2d(32), ReLU6(inplace=True)
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>

#include "ember/nn/module.h"
#include "ember/nn/modules/container.h"
#include "ember/tensor_options.h"

namespace ember::models {

/// Builds a norm layer over `num_features` channels (torchvision's norm_layer class).
using NormLayer = std::function<std::shared_ptr<nn::Module>(int64_t num_features,
                                                            TensorOptions options)>;
/// Builds an activation; nullopt `inplace` means the class's default (torchvision's
/// activation_layer(**({} if inplace is None else {"inplace": inplace}))).
using ActivationLayer = std::function<std::shared_ptr<nn::Module>(std::optional<bool> inplace)>;

/// nn::BatchNorm2d(num_features) with the default eps and momentum.
NormLayer batch_norm2d_layer();
/// nn::ReLU / nn::ReLU6.
ActivationLayer relu_layer();
ActivationLayer relu6_layer();

class Conv2dNormActivation : public nn::Sequential {
 public:
  /// padding nullopt: (kernel_size - 1) / 2 * dilation ("same" for odd kernels). bias nullopt:
  /// a bias only when there is no norm layer. A null norm_layer / activation_layer leaves that
  /// stage out.
  Conv2dNormActivation(int64_t in_channels, int64_t out_channels, int64_t kernel_size = 3,
                       int64_t stride = 1, std::optional<int64_t> padding = std::nullopt,
                       int64_t groups = 1, NormLayer norm_layer = batch_norm2d_layer(),
                       ActivationLayer activation_layer = relu_layer(), int64_t dilation = 1,
                       std::optional<bool> inplace = true,
                       std::optional<bool> bias = std::nullopt, TensorOptions options = {});
  int64_t out_channels;
};

/// Calls fn on every module below `root` (pre-order, not root itself). Usable in a constructor,
/// where Module::modules() is not (the module is not yet held by a shared_ptr).
void for_each_descendant(nn::Module& root, const std::function<void(nn::Module&)>& fn);

}  // namespace ember::models
