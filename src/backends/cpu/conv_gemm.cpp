// float32 1x1 convolutions as PyTorch 1.13's slow_conv2d computes them: one BLAS sgemm per image.
//
// Note [Torch's float convolution paths]
// Debian's torch 1.13 links the same libdnnl (2.6.3) and OpenBLAS (0.3.21) as ember, so its
// float convolutions can be reproduced to the bit by making the same library calls. Where a
// calibration observes convolution outputs (the eager quantization workflow's observers take
// min / max of them), such bits decide the scales and zero points, and the issue asks for
// torch's. aten::_convolution picks its backend per call (ConvParams::use_mkldnn in 1.13):
//   * mkldnn (ideep) unless the layer is a 1x1, stride-1, undilated convolution with a batch
//     under 16 on one thread, or a dense one with a batch of 1, no kernel side above 3 and at
//     most 20480 input elements. ideep creates forward_training primitives with "any" formats:
//     oneDNN then chooses its blocked nChw16c kernels (jit_dw for depthwise layers,
//     jit:avx512_core for dense ones), never the brgconv kernels it offers forward_inference.
//   * otherwise slow_conv2d: for a 1x1 stride-1 unpadded layer, the output is filled with the
//     bias and sgemm(N, N, HW, C_out, C_in, 1, x, HW, w, C_in, beta = bias ? 1 : 0, y, HW)
//     adds the product, image by image (OpenBLAS sums the product in blocks of its GEMM_Q
//     along C_in and adds each block's sum to the output, so the result depends on that
//     blocking, not only on a dot product's order).
// ember follows that choice for plain NCHW forward convolutions, as torch makes it at its
// default one thread (torch's default intra-op count is half the hardware threads): the 1x1
// layers torch sends to slow_conv2d run here (conv_forward_torch_gemm; slow_conv2d's other
// case, im2col + sgemm for small dense inputs at batch 1, stays on oneDNN), and conv_onednn.cpp
// asks oneDNN for forward_training primitives (torch's kernels) for depthwise / grouped layers,
// 1x1 layers and layers with at most 4 input channels. Measured on MobileNetV2's layers with
// one thread, both are as fast as or faster than the alternatives (the sgemm needs no NCHW <->
// blocked reorders; jit_dw beats brdgmm on depthwise layers). Dense 3x3 layers with many
// channels stay on forward_inference's brgconv kernels, 5-10% faster than torch's, so their
// sums differ from torch's in the last bits. The eval-mode conv-bn fusion (conv_bn_eval.cpp)
// folds BatchNorm and so never had torch's bits; it keeps its fused oneDNN post-ops.
#include <algorithm>

#include "conv_kernels.h"
#include "gemm.h"

namespace ember::cpu {

bool conv_torch_uses_gemm(const Tensor& input, const Tensor& weight, const ConvGeometry& g) {
  if (input.dim() != 4 || weight.dim() != 4 || g.groups != 1 || input.size(0) >= 16) return false;
  for (size_t i = 0; i < 2; ++i) {
    if (weight.size(2 + i) != 1 || g.stride[i] != 1 || g.padding[i] != 0 || g.dilation[i] != 1) {
      return false;
    }
  }
  return true;
}

bool conv_forward_torch_gemm(const Tensor& out, const Tensor& input, const Tensor& weight,
                             const std::optional<Tensor>& bias, const ConvGeometry& g) {
  if (!conv_torch_uses_gemm(input, weight, g)) return false;
  if (input.dtype() != kFloat32 || weight.dtype() != kFloat32 || out.dtype() != kFloat32 ||
      !input.is_contiguous() || !weight.is_contiguous() || !out.is_contiguous()) {
    return false;
  }
  const bool has_bias = bias && bias->defined();
  if (has_bias && (bias->dtype() != kFloat32 || !bias->is_contiguous())) return false;
  const int64_t n = input.size(0), c_in = input.size(1), c_out = out.size(1);
  const int64_t hw = out.size(2) * out.size(3);
  const float* x = input.data_ptr<float>();
  const float* w = weight.data_ptr<float>();
  float* y = out.data_ptr<float>();
  const float* b = has_bias ? bias->data_ptr<float>() : nullptr;
  for (int64_t i = 0; i < n; ++i) {
    float* yi = y + i * c_out * hw;
    if (b) {
      for (int64_t c = 0; c < c_out; ++c) std::fill(yi + c * hw, yi + (c + 1) * hw, b[c]);
    }
    // Row-major out[C_out, HW] = w[C_out, C_in] x[C_in, HW]: cblas passes it to sgemm as
    // torch's column-major call above.
    gemm_blas(false, false, c_out, hw, c_in, 1.f, w, c_in, x + i * c_in * hw, hw,
              b ? 1.f : 0.f, yi, hw);
  }
  return true;
}

}  // namespace ember::cpu
