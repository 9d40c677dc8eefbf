// per_channel_affine_float_qparams and sub-byte quantize / dequantize loops
// (quantize_float_qparams.h). Scalar loops: they are their own reference (PyTorch 1.13's are
// scalar too). Compiled with -ffp-contract=off: x * inv + z is two roundings, as in PyTorch.
#include "quantize_float_qparams.h"

#include "ember/error.h"
#include "quantizer.h"

namespace ember::qkernels {

namespace {

// Calls f(code_at, store) with accessors for the codes of `qdtype` at flat index i.
template <class F>
void with_codes(ScalarType qdtype, void* q, F&& f) {
  if (is_sub_byte(qdtype)) {
    const int bits = quantized_bit_width(qdtype);
    auto* p = static_cast<uint8_t*>(q);
    f([p, bits](int64_t i) { return sub_byte_code(p, i, bits); },
      [p, bits](int64_t i, int64_t v) { store_sub_byte_code(p, i, bits, v); });
    return;
  }
  visit_codes(qdtype, [&]<class T>() {
    auto* p = static_cast<T*>(q);
    f([p](int64_t i) { return static_cast<int64_t>(p[i]); },
      [p](int64_t i, int64_t v) { p[i] = static_cast<T>(v); });
  });
}

}  // namespace

void quantize_per_channel_float_qparams(ScalarType qdtype, const float* x, void* q,
                                        int64_t outer, int64_t channels, int64_t inner,
                                        const float* scales, const float* zero_points) {
  const int64_t qmin = qmin_of(qdtype), qmax = qmax_of(qdtype);
  with_codes(qdtype, q, [&](auto, auto store) {
    int64_t i = 0;
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t c = 0; c < channels; ++c)
        for (int64_t e = 0; e < inner; ++e, ++i)
          store(i, quantize_val_float_qparams(scales[c], zero_points[c], x[i], qmin, qmax));
  });
}

void dequantize_per_channel_float_qparams(ScalarType qdtype, const void* q, float* x,
                                          int64_t outer, int64_t channels, int64_t inner,
                                          const float* scales, const float* zero_points) {
  with_codes(qdtype, const_cast<void*>(q), [&](auto code, auto) {
    int64_t i = 0;
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t c = 0; c < channels; ++c)
        for (int64_t e = 0; e < inner; ++e, ++i)
          x[i] = dequantize_val_float_qparams(scales[c], zero_points[c], code(i));
  });
}

void quantize_per_tensor_sub_byte(ScalarType qdtype, const float* x, uint8_t* q, int64_t n,
                                  double scale, int64_t zero_point) {
  EMBER_ASSERT(is_sub_byte(qdtype));
  const int bits = quantized_bit_width(qdtype);
  const int64_t qmin = qmin_of(qdtype), qmax = qmax_of(qdtype);
  // PyTorch passes the qparams as float; the product is rounded, then the zero point added.
  const auto s = static_cast<float>(scale);
  const auto z = static_cast<float>(zero_point);
  for (int64_t i = 0; i < n; ++i) {
    const float inv_scale = s == 0 ? 1.0f : 1.0f / s;
    int64_t v = std::lrintf(std::nearbyint(x[i] * inv_scale) + z);
    v = v < qmin ? qmin : (v > qmax ? qmax : v);
    store_sub_byte_code(q, i, bits, v);
  }
}

void dequantize_per_tensor_sub_byte(ScalarType qdtype, const uint8_t* q, float* x, int64_t n,
                                    double scale, int64_t zero_point) {
  EMBER_ASSERT(is_sub_byte(qdtype));
  const int bits = quantized_bit_width(qdtype);
  const auto s = static_cast<float>(scale);
  const auto z = static_cast<float>(zero_point);
  for (int64_t i = 0; i < n; ++i) x[i] = (static_cast<float>(sub_byte_code(q, i, bits)) - z) * s;
}

}  // namespace ember::qkernels
