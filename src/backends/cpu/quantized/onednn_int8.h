// Internal to src/backends/cpu/quantized: exact int32 accumulators of an int8 convolution or
// matmul from oneDNN (u8 source with a runtime zero point, s8 weights, s32 destination).
// See Note [Exact int8 accumulators from oneDNN] in onednn_int8.cpp.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "qconv.h"

namespace ember::cpu::quantized::detail {

/// Whether oneDNN's int8 kernels on this CPU accumulate exactly (VNNI: vpdpbusd does not
/// saturate; the AVX2 / AVX-512 vpmaddubsw path can saturate int16 pair sums).
bool onednn_int8_exact();

struct Int8Primitive;  // a cached primitive (owned by the calling thread's cache)

/// What a primitive writes: exact int32 accumulators, or requantized uint8 codes (the Onednn
/// formula computed by oneDNN itself, convolutions only), with or without ReLU.
enum class Output { S32 = 0, U8 = 1, U8Relu = 2 };

/// Output scales fixed in a primitive (oneDNN 2.6's jit int8 convolutions take no runtime
/// scales): the primitive is then also keyed by its owner (a packed weight's id) and the input
/// and output scales the values derive from.
struct FixedScales {
  const float* scales;
  int64_t owner, x_scale_bits, y_scale_bits;
};

/// The convolution / matmul primitive for these sizes on the calling thread, or null when
/// oneDNN has no implementation.
Int8Primitive* conv_primitive(const QConvGeometry& g, int64_t n, int64_t h, int64_t w, Output out,
                              const FixedScales* fixed = nullptr);
Int8Primitive* matmul_s32_primitive(int64_t m, int64_t k, int64_t n);

/// A weight reordered into the layouts the primitives ask for (usually one), made on first use
/// and kept with the packed weight; safe to share between threads.
class OnednnWeights {
 public:
  /// weight: OIHW (conv) or O x K (matmul) int8, copied.
  OnednnWeights(const int8_t* weight, int64_t count);
  ~OnednnWeights();
  const void* for_primitive(const Int8Primitive& p);

 private:
  struct Packed;
  std::vector<int8_t> user_;
  std::mutex mutex_;
  std::vector<std::unique_ptr<Packed>> packed_;
};

/// acc = sum (x - x_zero_point) * w, exactly, through an Output::S32 primitive.
void run_s32(Int8Primitive& p, const uint8_t* x, const void* packed_weight, int32_t x_zero_point,
             int32_t* acc);
/// y = the Onednn formula's codes through an Output::U8 / U8Relu primitive (made with the
/// Requant's mult as its fixed scales): bias is the Requant's fbias.
void run_u8(Int8Primitive& p, const uint8_t* x, const void* packed_weight, int32_t x_zero_point,
            const float* bias, int32_t y_zero_point, void* y);

}  // namespace ember::cpu::quantized::detail
