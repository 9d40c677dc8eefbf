// The quantize / dequantize loops of per_channel_affine_float_qparams tensors (float scales and
// zero points; quint8, qint8 and the sub-byte quint4x2 / quint2x4), PyTorch 1.13's
// quantize_tensor_per_channel_float_qparams_cpu and its dequantize twin, and the sub-byte
// packing they share (Note [Sub-byte quantized dtypes] in ember/dtype.h).
//
// Layout: [outer][channels][inner] in memory order (quantize_kernels.h); codes are read and
// written at flat memory index i: for 8 bits byte i, for b < 8 bits the (i % (8/b))-th b-bit
// field of byte i / (8/b), low bits first.
#pragma once

#include <cmath>
#include <cstdint>

#include "ember/dtype.h"

namespace ember::qkernels {

/// PyTorch's quantize_val_float_qparams: `int q = lrintf(x * inv + z)` (the long result
/// truncated to int, as PyTorch's assignment does), then clamped. Two roundings: no FMA.
inline int64_t quantize_val_float_qparams(float scale, float zero_point, float x, int64_t qmin,
                                          int64_t qmax) {
  const float inv_scale = scale == 0 ? 1.0f : 1.0f / scale;
  const float v = x * inv_scale + zero_point;
  const int q = static_cast<int>(std::lrintf(v));
  return q < qmin ? qmin : (q > qmax ? qmax : q);
}

/// (float(q) - z) * s, in float.
inline float dequantize_val_float_qparams(float scale, float zero_point, int64_t q) {
  return (static_cast<float>(q) - zero_point) * scale;
}

/// Codes of `qdtype` (quint8, qint8, quint4x2, quint2x4) from x into the bytes at q.
void quantize_per_channel_float_qparams(ScalarType qdtype, const float* x, void* q,
                                        int64_t outer, int64_t channels, int64_t inner,
                                        const float* scales, const float* zero_points);
/// Floats of the codes at q.
void dequantize_per_channel_float_qparams(ScalarType qdtype, const void* q, float* x,
                                          int64_t outer, int64_t channels, int64_t inner,
                                          const float* scales, const float* zero_points);
/// Per-tensor sub-byte codes (PyTorch's quantize_tensor_per_tensor_affine_sub_byte_cpu) and
/// their floats (q - z) * s.
void quantize_per_tensor_sub_byte(ScalarType qdtype, const float* x, uint8_t* q, int64_t n,
                                  double scale, int64_t zero_point);
void dequantize_per_tensor_sub_byte(ScalarType qdtype, const uint8_t* q, float* x, int64_t n,
                                    double scale, int64_t zero_point);

/// The code at flat index i of a packed sub-byte buffer (bits 4 or 2), and its store (the
/// first code of a byte overwrites it, the others OR into it, as PyTorch's kernels write).
inline int64_t sub_byte_code(const uint8_t* q, int64_t i, int bits) {
  const int64_t per_byte = 8 / bits;
  return (q[i / per_byte] >> ((i % per_byte) * bits)) & ((1 << bits) - 1);
}
inline void store_sub_byte_code(uint8_t* q, int64_t i, int bits, int64_t code) {
  const int64_t per_byte = 8 / bits;
  const int64_t k = i % per_byte;
  const auto v = static_cast<uint8_t>(code << (k * bits));
  q[i / per_byte] = k == 0 ? v : static_cast<uint8_t>(q[i / per_byte] | v);
}

}  // namespace ember::qkernels
