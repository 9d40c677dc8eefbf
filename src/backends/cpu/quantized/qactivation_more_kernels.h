// Kernels of the quantized leaky_relu, elu / celu, tanh, threshold and QNNPACK's softmax
// (internal; the op glue is src/quant/qactivation_more.cpp). Functions of one code follow
// PyTorch's generic kernels: dequantize, apply f in float, quantize, with the vector formula on
// the first vec_part(n) elements and the scalar one on the tail (Note [PyTorch's two formulas]
// in qelementwise_kernels.h); 8-bit codes go through two 256-entry tables.
#pragma once

#include <cstdint>

#include "qelementwise_kernels.h"

namespace ember::cpu::quantized {

enum class QActFn {
  LeakyRelu,  // a: negative slope
  Elu,        // a: alpha, b: scale, c: input_scale (celu: alpha, 1, 1/alpha)
  Tanh,
  Threshold,  // a: threshold, b: value
};
struct QActSpec {
  QActFn fn;
  QParams in, out;
  float a = 0, b = 0, c = 0;
};

template <class T>
void qact(const T* x, T* y, int64_t n, const QActSpec& spec);
template <class T>
void qact_ref(const T* x, T* y, int64_t n, const QActSpec& spec);

/// QNNPACK's u8 softargmax over `rows` rows of `channels` codes (output scale 1/256, zero point
/// 0): a table of qscale * exp((i - 255) * s_x) (qscale = min(UINT32_MAX / channels, 2^23 - 1)),
/// the row's maximum shifting it, and y = min(255, ((t[x] << 8) + sum / 2) / sum) in uint32.
void qsoftmax_qnnpack(const uint8_t* x, uint8_t* y, int64_t rows, int64_t channels,
                      double input_scale);
void qsoftmax_qnnpack_ref(const uint8_t* x, uint8_t* y, int64_t rows, int64_t channels,
                          double input_scale);

}  // namespace ember::cpu::quantized
