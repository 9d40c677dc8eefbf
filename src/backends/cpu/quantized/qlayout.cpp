// NCHW -> NHWC reordering of 8-bit codes for the int8 convolutions, whose kernels read NHWC.
// A quantize_per_tensor output (the first convolution's input) is NCHW; the generic strided
// copy took 200 us for MobileNetV2's 3x224x224 input, longer than the convolution itself.
#include <algorithm>

#include "qconv.h"

namespace ember::cpu::quantized {

void nchw_to_nhwc_ref(const uint8_t* x, int64_t n, int64_t c, int64_t hw, uint8_t* y) {
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t ch = 0; ch < c; ++ch) {
      for (int64_t p = 0; p < hw; ++p) y[(b * hw + p) * c + ch] = x[(b * c + ch) * hw + p];
    }
  }
}

namespace {
// Three channels (an RGB image): one interleaving loop GCC vectorises with byte shuffles.
void interleave3(const uint8_t* __restrict r, const uint8_t* __restrict g,
                 const uint8_t* __restrict b, int64_t hw, uint8_t* __restrict y) {
  for (int64_t p = 0; p < hw; ++p) {
    y[3 * p] = r[p];
    y[3 * p + 1] = g[p];
    y[3 * p + 2] = b[p];
  }
}
}  // namespace

void nchw_to_nhwc(const uint8_t* x, int64_t n, int64_t c, int64_t hw, uint8_t* y) {
  for (int64_t b = 0; b < n; ++b) {
    const uint8_t* xb = x + b * c * hw;
    uint8_t* yb = y + b * c * hw;
    if (c == 3) {
      interleave3(xb, xb + hw, xb + 2 * hw, hw, yb);
      continue;
    }
    // Blocks of pixels, so that the c input rows being read stay in the L1 cache.
    constexpr int64_t kBlock = 64;
    for (int64_t p0 = 0; p0 < hw; p0 += kBlock) {
      const int64_t p1 = std::min(hw, p0 + kBlock);
      for (int64_t ch = 0; ch < c; ++ch) {
        const uint8_t* src = xb + ch * hw;
        for (int64_t p = p0; p < p1; ++p) yb[p * c + ch] = src[p];
      }
    }
  }
}

}  // namespace ember::cpu::quantized
