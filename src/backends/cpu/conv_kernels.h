// Convolution kernels. Every convolution ember runs is one of three products of a plain
// (non-transposed) convolution y = conv(x, w) with x [N, C_in, *in], w [C_out, C_in/g, *k],
// y [N, C_out, *out]:
//   forward          y  = conv(x, w) (+ bias)
//   backward_input   gx = the adjoint of conv in x, given gy and w
//   backward_weight  gw = the adjoint of conv in w, given gy and x (gb = gy summed, optional)
// A transposed convolution is the adjoint: its forward is backward_input, its input gradient is
// forward and its weight gradient backward_weight with the roles of x and gy swapped
// (src/ops/conv.cpp maps them).
//
// Outputs are written whole (any strides); inputs may have any strides. 1 to 3 spatial dims.
// float32 runs through oneDNN (conv_onednn.cpp) where it can; the scalar *_ref kernels
// (conv_ref.cpp) run everything else and are what tests compare oneDNN with.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "ember/tensor.h"

namespace ember::cpu {

struct ConvGeometry {
  std::vector<int64_t> stride, padding, dilation;  // one per spatial dim
  int64_t groups = 1;
};

/// What an inference convolution applies to its result before storing it (oneDNN post-ops):
/// y = activation(conv(x, w) + bias [+ the output's prior contents when add_to_output]).
/// Only the eval-mode fusion of Conv2d -> BatchNorm2d -> ReLU/ReLU6 uses it
/// (Note [Eval-mode conv-bn-activation fusion] in src/nn/modules/conv_bn_eval.cpp).
struct ConvEpilogue {
  enum class Activation : int64_t { None, ReLU, Clip };
  Activation activation = Activation::None;
  float clip_min = 0.f, clip_max = 0.f;  // Clip's bounds
  bool add_to_output = false;            // the residual sum, pre-loaded into the output
  bool empty() const { return activation == Activation::None && !add_to_output; }
};

// ---- dispatching entry points (oneDNN for float32, the reference otherwise) ----
void conv_forward(const Tensor& out, const Tensor& input, const Tensor& weight,
                  const std::optional<Tensor>& bias, const ConvGeometry& g);
void conv_backward_input(const Tensor& grad_input, const Tensor& grad_output, const Tensor& weight,
                         const ConvGeometry& g);
void conv_backward_weight(const Tensor& grad_weight, const Tensor& grad_output, const Tensor& input,
                          const ConvGeometry& g);
/// out[:, c, ...] += bias[c] (the bias of a transposed convolution).
void add_channel_bias(const Tensor& out, const Tensor& bias);

// ---- scalar references (double accumulation for floating types) ----
void conv_forward_ref(const Tensor& out, const Tensor& input, const Tensor& weight,
                      const std::optional<Tensor>& bias, const ConvGeometry& g);
void conv_backward_input_ref(const Tensor& grad_input, const Tensor& grad_output,
                             const Tensor& weight, const ConvGeometry& g);
void conv_backward_weight_ref(const Tensor& grad_weight, const Tensor& grad_output,
                              const Tensor& input, const ConvGeometry& g);

// ---- oneDNN (float32); false when oneDNN has no implementation for the case ----
bool conv_forward_onednn(const Tensor& out, const Tensor& input, const Tensor& weight,
                         const std::optional<Tensor>& bias, const ConvGeometry& g,
                         const ConvEpilogue& epilogue = {});
bool conv_backward_input_onednn(const Tensor& grad_input, const Tensor& grad_output,
                                const Tensor& weight, const ConvGeometry& g);
bool conv_backward_weight_onednn(const Tensor& grad_weight, const Tensor& grad_output,
                                 const Tensor& input, const ConvGeometry& g);
// ---- PyTorch 1.13's slow_conv2d formulation of 1x1 layers (Note [Torch's float convolution
// paths] in conv_gemm.cpp); false when torch would not take that path or the operands are not
// dense NCHW float32 ----
bool conv_torch_uses_gemm(const Tensor& input, const Tensor& weight, const ConvGeometry& g);
bool conv_forward_torch_gemm(const Tensor& out, const Tensor& input, const Tensor& weight,
                             const std::optional<Tensor>& bias, const ConvGeometry& g);
/// Entries in the primitive cache (tests check that repeated calls reuse primitives).
size_t conv_onednn_cache_size();

}  // namespace ember::cpu
