// Batch and group normalisation (aten::batch_norm / native_batch_norm, aten::group_norm /
// native_group_norm), over inputs [N, C, *]. Statistics are per channel (batch_norm) or per
// (sample, group) (group_norm), with the biased variance; float32 / float64, and bfloat16 /
// float16 computed in float32 as PyTorch's CPU kernels do.
//
//   auto y = ember::batch_norm(x, w, b, running_mean, running_var, /*training=*/true,
//                              /*momentum=*/0.1, /*eps=*/1e-5);   // updates the running stats
//   auto g = ember::group_norm(x, /*num_groups=*/4, w, b);
//
// Momentum None (the cumulative average of nn.BatchNorm) is the module's business: it passes
// 1 / num_batches_tracked here.
#pragma once

#include <array>
#include <optional>
#include <tuple>

#include "ember/tensor.h"

namespace ember {

/// (input - mean) / sqrt(var + eps) * weight + bias per channel (dim 1). training: mean and
/// biased var of the batch, and running_mean / running_var (when given) become
/// (1 - momentum) * running + momentum * batch statistic (unbiased var), in place.
/// Eval: the running statistics. cudnn_enabled is accepted and ignored, as on PyTorch's CPU.
Tensor batch_norm(const Tensor& input, const std::optional<Tensor>& weight,
                  const std::optional<Tensor>& bias, const std::optional<Tensor>& running_mean,
                  const std::optional<Tensor>& running_var, bool training, double momentum,
                  double eps, bool cudnn_enabled = true);
/// The primitive: (output, save_mean, save_invstd). save_* are the batch mean and
/// 1 / sqrt(var + eps) in training, and empty [0] tensors in eval, as in PyTorch 1.13.
std::tuple<Tensor, Tensor, Tensor> native_batch_norm(
    const Tensor& input, const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
    const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var,
    bool training, double momentum, double eps);
/// The fused gradients (input, weight, bias) of native_batch_norm; output_mask picks which are
/// computed (the others are undefined). The op aten::native_batch_norm_backward, which the
/// backward of native_batch_norm calls (Note [Batch norm backward]).
std::tuple<Tensor, Tensor, Tensor> native_batch_norm_backward(
    const Tensor& grad_out, const Tensor& input, const std::optional<Tensor>& weight,
    const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var,
    const std::optional<Tensor>& save_mean, const std::optional<Tensor>& save_invstd, bool train,
    double eps, std::array<bool, 3> output_mask);

/// Normalises each of num_groups groups of channels of every sample, then * weight + bias per
/// channel. input [N, C, *], C divisible by num_groups.
Tensor group_norm(const Tensor& input, int64_t num_groups,
                  const std::optional<Tensor>& weight = std::nullopt,
                  const std::optional<Tensor>& bias = std::nullopt, double eps = 1e-5,
                  bool cudnn_enabled = true);
/// The primitive: (output, mean [N, group], rstd [N, group]) of input seen as [N, C, HxW].
std::tuple<Tensor, Tensor, Tensor> native_group_norm(const Tensor& input,
                                                     const std::optional<Tensor>& weight,
                                                     const std::optional<Tensor>& bias, int64_t N,
                                                     int64_t C, int64_t HxW, int64_t group,
                                                     double eps);

}  // namespace ember
