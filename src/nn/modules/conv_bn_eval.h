// Eval-mode Conv2d -> BatchNorm2d [-> ReLU / ReLU6 / Hardtanh] as one convolution (Note
// [Eval-mode conv-bn-activation fusion] in conv_bn_eval.cpp). Used by Sequential's forward and
// by the torchvision blocks whose forward spells the pattern out (ResNet's BasicBlock).
#pragma once

#include <optional>

#include "ember/nn/module.h"
#include "ember/tensor.h"

namespace ember::nn::detail {

/// Whether `m` is an activation the fused path can apply (exactly ReLU, ReLU6 or Hardtanh).
bool is_fusable_activation(const Module& m);

/// act(bn(conv(x)) + residual) — `act` null for none, `residual` undefined for none — computed
/// by one convolution with BN folded into its weights, when that is what running the modules
/// would compute: see the Note for the conditions. nullopt otherwise; then the caller runs the
/// modules as usual.
std::optional<Tensor> conv_bn_act_eval(Module& conv, Module& bn, const Module* act, const Tensor& x,
                                       const Tensor& residual = Tensor());

}  // namespace ember::nn::detail
