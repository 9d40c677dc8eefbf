// The quantize / dequantize loops over raw buffers (quantization-spec § 1.2). Each fast loop has
// a scalar *_ref beside it, written straight from quantize_val / dequantize_val (quantizer.h);
// tests/cpp/quant/test_qtensor.cpp asserts fast == ref on every dtype, including NaN, ±inf,
// ties and saturating values.
//
// Per-channel layouts are [outer][channels][inner] in memory: a dense tensor in any memory format
// whose channel dim has stride `inner` (contiguous NCHW with axis 1: inner = H*W; channels_last:
// inner = 1).
#pragma once

#include <cstdint>

namespace ember::qkernels {

// T is the code type: uint8_t (quint8), int8_t (qint8) or int32_t (qint32).
template <class T>
void quantize(const float* x, T* q, int64_t n, double scale, int64_t zero_point);
template <class T>
void quantize_ref(const float* x, T* q, int64_t n, double scale, int64_t zero_point);
template <class T>
void dequantize(const T* q, float* x, int64_t n, double scale, int64_t zero_point);
template <class T>
void dequantize_ref(const T* q, float* x, int64_t n, double scale, int64_t zero_point);

template <class T>
void quantize_per_channel(const float* x, T* q, int64_t outer, int64_t channels, int64_t inner,
                          const double* scales, const int64_t* zero_points);
template <class T>
void quantize_per_channel_ref(const float* x, T* q, int64_t outer, int64_t channels,
                              int64_t inner, const double* scales, const int64_t* zero_points);
template <class T>
void dequantize_per_channel(const T* q, float* x, int64_t outer, int64_t channels, int64_t inner,
                            const double* scales, const int64_t* zero_points);
template <class T>
void dequantize_per_channel_ref(const T* q, float* x, int64_t outer, int64_t channels,
                                int64_t inner, const double* scales, const int64_t* zero_points);

}  // namespace ember::qkernels
