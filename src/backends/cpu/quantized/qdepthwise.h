// Internal to src/backends/cpu/quantized: a direct 3x3 depthwise int8 convolution on AVX-512
// VNNI, requantizing with the Onednn formula in its registers. See Note [Direct 3x3 depthwise
// int8 kernel] in qdepthwise.cpp.
#pragma once

#include <cstdint>
#include <vector>

#include "qconv.h"
#include "requant.h"

namespace ember::cpu::quantized::detail {

/// Whether the direct kernel runs this geometry on this CPU: depthwise with one output channel
/// per group (groups == C == O), C a multiple of 16, 3x3, stride 1 or 2 (in both directions),
/// padding 1, dilation 1, and a CPU with AVX-512 BW, VNNI and VBMI.
bool dw3x3_applies(const QConvGeometry& g);

/// Whether packs may use the direct kernel (default true; benchmarks and tests turn it off to
/// time or check oneDNN's kernel on the same shapes). Read at each call.
void set_dw3x3_enabled(bool enabled);
bool dw3x3_enabled();

/// The weight in the kernel's layout: per 16-channel block and kernel row, 16 lanes of four
/// bytes (w[kh][0], w[kh][1], w[kh][2], 0), and per channel the sum of its 9 weights.
struct Dw3x3Weights {
  /// weight: C x 1 x 3 x 3 int8 codes (OIHW), symmetric (zero point 0).
  Dw3x3Weights(const int8_t* weight, int64_t channels);
  int64_t channels;
  std::vector<int8_t> packed;  // C/16 x 3 x 64 bytes
  std::vector<int32_t> sums;   // C
};

/// y (N x OH x OW x C) = the Onednn formula's codes of the convolution of x (N x H x W x C
/// codes, zero point zx): r carries mult, fbias, zero_point and lo. Equals qconv2d_ref.
void dw3x3_run(const Dw3x3Weights& w, const QConvGeometry& g, const uint8_t* x, int64_t n,
               int64_t h, int64_t wd, int32_t zx, const Requant& r, uint8_t* y);

}  // namespace ember::cpu::quantized::detail
