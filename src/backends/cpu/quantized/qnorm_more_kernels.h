// Kernels of quantized::layer_norm / group_norm / instance_norm (internal; op glue in
// src/quant/qnorm_more.cpp): PyTorch 1.13's quantized_normalize_kernel. Per row of N codes:
//   sum, sum_sq over the codes (int64, then float), mean_shift = sum / N,
//   mean = mean_shift - z_x, var = max(sum_sq / N - mean_shift^2, 0),
//   r = f32(s_x) / sqrt(var * s_x * s_x + eps)                     (all float)
// then y = quantize((q - z_x - mean) * r * gamma + beta) (layer norm, gamma / beta per element),
// or ((q - z_x - mean) * (r * gamma[c]) + beta[c]) (group / instance norm, per channel), with
// the vector quantizer for every element (PyTorch's remainder goes through it too).
#pragma once

#include <cstdint>

#include "qelementwise_kernels.h"

namespace ember::cpu::quantized {

struct QNormSpec {
  int64_t rows = 0, row_len = 0;  // M rows of N codes
  /// Group norm: the channels of the tensor and of one row (row_len / channels_per_row
  /// elements each); the channel of block ch of row i is (i * channels_per_row + ch) % channels.
  bool per_channel = false;
  int64_t channels = 1, channels_per_row = 1;
  const float* gamma = nullptr;  // nullptr: 1
  const float* beta = nullptr;   // nullptr: 0
  QParams in, out;
  double eps = 1e-5;
};

template <class T>
void qnormalize(const T* x, T* y, const QNormSpec& spec);
template <class T>
void qnormalize_ref(const T* x, T* y, const QNormSpec& spec);

}  // namespace ember::cpu::quantized
