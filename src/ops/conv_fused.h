// A float32 2-d convolution with its epilogue fused (oneDNN post-ops), for inference only: no
// autograd node, no override layers. Callers check that every operand is a plain CPU float32
// tensor that needs no gradient (src/nn/modules/conv_bn_eval.cpp is the one caller).
#pragma once

#include "../backends/cpu/conv_kernels.h"
#include "ember/tensor.h"

namespace ember::ops::detail {

/// epilogue.activation(conv2d(input, weight, bias) [+ residual]) with conv2d's memory format
/// rule (Note [Convolution memory format]). `residual` is used when defined; when its sizes
/// are not the output's, nothing runs and the result is undefined (the caller then runs the
/// unfused ops, which raise their own errors). Runs the pieces one after another when oneDNN
/// has no fused primitive for the case.
Tensor conv2d_fused_inference(const Tensor& input, const Tensor& weight, const Tensor& bias,
                              IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                              int64_t groups, cpu::ConvEpilogue epilogue, const Tensor& residual);

}  // namespace ember::ops::detail
