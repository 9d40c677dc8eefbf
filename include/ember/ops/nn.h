// The aten ops behind ember::nn::functional: losses, layer_norm and bilinear. Most are
// Composite rows of src/dispatch/ops.def with PyTorch's schema: the body calls differentiable
// primitives, so autograd needs no rule of its own, and a torch_function handler sees the op by
// its aten name (aten::cross_entropy_loss, ...). mse_loss and nll_loss's nll_loss_forward are
// primitives with PyTorch's backward ops (Note [Losses are composites] in loss.cpp). These take the schema's arguments as they are
// (reduction as an int: 0 none, 1 mean, 2 sum); most code wants the functional forms in
// ember/nn/functional.h, which take nn::functional::Reduction.
//
//   auto l = ember::cross_entropy_loss(logits, labels, std::nullopt, 1, -100, 0.1);
#pragma once

#include <optional>
#include <tuple>

#include "ember/tensor.h"

namespace ember {

// ---- src/nn/functional/loss.cpp ----
/// (self - target)^2, broadcast, then reduced. Floating results only ("mse_cpu" not implemented).
Tensor mse_loss(const Tensor& self, const Tensor& target, int64_t reduction = 1);
/// Its gradient for self: 2 (self - target) grad_output, / self.numel() for the mean.
Tensor mse_loss_backward(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                         int64_t reduction);
/// |self - target|, broadcast, then reduced.
Tensor l1_loss(const Tensor& self, const Tensor& target, int64_t reduction = 1);
/// 0.5 z^2 / beta where z = |self - target| < beta, else z - 0.5 beta (beta 0: l1_loss).
Tensor smooth_l1_loss(const Tensor& self, const Tensor& target, int64_t reduction = 1,
                      double beta = 1.0);
/// The numerically stable form of -[pos_weight * t * log σ(x) + (1 - t) * log(1 - σ(x))] * weight.
Tensor binary_cross_entropy_with_logits(const Tensor& self, const Tensor& target,
                                        const std::optional<Tensor>& weight = std::nullopt,
                                        const std::optional<Tensor>& pos_weight = std::nullopt,
                                        int64_t reduction = 1);

// ---- src/nn/functional/loss_nll.cpp ----
/// -self[i, target[i]] * weight[target[i]] for 1-d ([C], 0-d target) or 2-d ([N, C]) input;
/// targets equal to ignore_index count for nothing. int64 (or uint8) targets.
Tensor nll_loss(const Tensor& self, const Tensor& target,
                const std::optional<Tensor>& weight = std::nullopt, int64_t reduction = 1,
                int64_t ignore_index = -100);
/// nll_loss over [N, C, H, W] input and [N, H, W] int64 target.
Tensor nll_loss2d(const Tensor& self, const Tensor& target,
                  const std::optional<Tensor>& weight = std::nullopt, int64_t reduction = 1,
                  int64_t ignore_index = -100);
/// The primitives under nll_loss / nll_loss2d: (loss, total_weight), total_weight the summed
/// weights of the targets kept (0 for reduction none), and the gradient for self.
std::tuple<Tensor, Tensor> nll_loss_forward(const Tensor& self, const Tensor& target,
                                            const std::optional<Tensor>& weight, int64_t reduction,
                                            int64_t ignore_index);
Tensor nll_loss_backward(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                         const std::optional<Tensor>& weight, int64_t reduction,
                         int64_t ignore_index, const Tensor& total_weight);
std::tuple<Tensor, Tensor> nll_loss2d_forward(const Tensor& self, const Tensor& target,
                                              const std::optional<Tensor>& weight,
                                              int64_t reduction, int64_t ignore_index);
Tensor nll_loss2d_backward(const Tensor& grad_output, const Tensor& self, const Tensor& target,
                           const std::optional<Tensor>& weight, int64_t reduction,
                           int64_t ignore_index, const Tensor& total_weight);
/// nll_loss for any input [C], [N, C] or [N, C, d1, ..., dk] (what F.nll_loss calls).
Tensor nll_loss_nd(const Tensor& self, const Tensor& target,
                   const std::optional<Tensor>& weight = std::nullopt, int64_t reduction = 1,
                   int64_t ignore_index = -100);
/// log_softmax over the class dim, then nll_loss_nd (class-index targets) or the cross entropy
/// with class probabilities (a floating target of self's shape); label_smoothing mixes in the
/// uniform distribution as PyTorch 1.13 does.
Tensor cross_entropy_loss(const Tensor& self, const Tensor& target,
                          const std::optional<Tensor>& weight = std::nullopt,
                          int64_t reduction = 1, int64_t ignore_index = -100,
                          double label_smoothing = 0.0);

// ---- src/nn/functional/normalization.cpp ----
/// Normalises over the trailing dims given by normalized_shape (biased variance), then
/// * weight + bias. cudnn_enable is accepted and ignored, as on PyTorch's CPU.
Tensor layer_norm(const Tensor& input, IntArrayRef normalized_shape,
                  const std::optional<Tensor>& weight = std::nullopt,
                  const std::optional<Tensor>& bias = std::nullopt, double eps = 1e-5,
                  bool cudnn_enable = true);

// ---- src/nn/functional/linear.cpp ----
/// out[..., o] = sum_ij input1[..., i] * weight[o, i, j] * input2[..., j] + bias[o].
Tensor bilinear(const Tensor& input1, const Tensor& input2, const Tensor& weight,
                const std::optional<Tensor>& bias = std::nullopt);

}  // namespace ember
