// torch.nn.utils.fusion: folding an eval-mode BatchNorm into the convolution or linear layer
// before it (quantization-spec § 4.2), with PyTorch's float32 operation order so that the
// folded weights are bit-identical to PyTorch's.
//
//   conv->eval(); bn->eval();
//   auto fused = ember::nn::utils::fuse_conv_bn_eval(*conv, *bn);   // a new Conv2d
//   // fused(x) == bn(conv(x)) up to rounding
#pragma once

#include <memory>
#include <optional>
#include <utility>

#include "ember/nn/modules/batchnorm.h"
#include "ember/nn/modules/conv.h"
#include "ember/nn/modules/linear.h"
#include "ember/tensor.h"

namespace ember::nn::utils {

/// W' = W * (gamma * rsqrt(var + eps)) over the output channels (dim 0; dim 1 when
/// `transpose`), b' = ((b - mean) * rsqrt(var + eps)) * gamma + beta. A missing b is zeros, a
/// missing gamma ones, a missing beta zeros. Both results are new Parameters.
std::pair<Tensor, Tensor> fuse_conv_bn_weights(const Tensor& conv_w,
                                               const std::optional<Tensor>& conv_b,
                                               const Tensor& bn_rm, const Tensor& bn_rv,
                                               double bn_eps, const std::optional<Tensor>& bn_w,
                                               const std::optional<Tensor>& bn_b,
                                               bool transpose = false);
/// k = gamma * rsqrt(var + eps); W' = W * k[:, None]; b' = (b - mean) * k + beta (a missing b
/// is zeros). New Parameters.
std::pair<Tensor, Tensor> fuse_linear_bn_weights(const Tensor& linear_w,
                                                 const std::optional<Tensor>& linear_b,
                                                 const Tensor& bn_rm, const Tensor& bn_rv,
                                                 double bn_eps, const Tensor& bn_w,
                                                 const Tensor& bn_b);

/// A copy of `conv` (same class and hyperparameters, eval mode, a bias even if `conv` had
/// none) whose weight and bias fold `bn` in. Both modules must be in eval mode ("Fusion only
/// for eval!") and bn must track running statistics. `transpose`: conv is a transposed
/// convolution (its output channels are weight's dim 1), as PyTorch's argument.
std::shared_ptr<ConvNd> fuse_conv_bn_eval(ConvNd& conv, BatchNormBase& bn, bool transpose = false);
/// A copy of `linear` whose weight and bias fold a BatchNorm1d over its outputs in. Both in
/// eval mode; bn affine and tracking running statistics.
std::shared_ptr<Linear> fuse_linear_bn_eval(Linear& linear, BatchNormBase& bn);

}  // namespace ember::nn::utils
