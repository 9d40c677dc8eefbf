// Helpers shared by the quantized op glue of src/quant/q*.cpp (internal): the code type of a
// quantized dtype, dense layouts, and the registration of QuantizedCPU kernels.
#pragma once

#include <cstdint>
#include <vector>

#include "../backends/cpu/quantized/qelementwise_kernels.h"
#include "../dispatch/dispatcher.h"
#include "ember/error.h"
#include "ember/quantized/tensor.h"
#include "ember/tensor.h"

namespace ember::quant_ops {

using cpu::quantized::QParams;

/// Calls f.template operator()<T>() with T the code type of a quantized dtype.
template <class F>
decltype(auto) visit_codes(ScalarType t, F&& f) {
  switch (t) {
    case kQUInt8:
      return f.template operator()<uint8_t>();
    case kQInt8:
      return f.template operator()<int8_t>();
    case kQInt32:
      return f.template operator()<int32_t>();
    default:
      break;
  }
  EMBER_FAIL("expected a quantized dtype (quint8, qint8 or qint32), got ", scalar_type_name(t));
}

inline QParams qparams_of(const Tensor& t) { return {q_scale(t), q_zero_point(t)}; }

/// Quantized `t` dense in `fmt`: the quantized contiguous (one copy, same quantizer) when it is
/// not. Meta tensors have no codes to move.
inline Tensor dense(const Tensor& t, MemoryFormat fmt) {
  if (t.is_meta() || t.is_contiguous(fmt)) return t;
  return t.contiguous(fmt);
}

/// Writes the codes of `src` (same sizes and dtype) into the dense quantized tensor `self`
/// (in-place ops: relu_, hardtanh_, clamp_, relu6(inplace=True)); qparams stay self's, as the
/// ops PyTorch writes back with copy_ produce self's qparams.
void copy_codes_into(const Tensor& self, const Tensor& src);

/// A new per-tensor quantized tensor of `sizes` and `dtype` on like's device (cpu or meta),
/// laid out in `fmt`.
inline Tensor empty_q(const Tensor& like, IntArrayRef sizes, ScalarType dtype, QParams p,
                      MemoryFormat fmt) {
  return _empty_affine_quantized(sizes, dtype, p.scale, p.zero_point, fmt, like.device());
}

/// Runs a kernel through visit_codes unless the output has no codes to compute: meta tensors
/// stop after allocation (shapes and qparams only), as every ember op.
template <class F>
void compute_codes_for(const Tensor& out, ScalarType dtype, F&& f) {
  if (out.is_meta() || out.numel() == 0) return;
  visit_codes(dtype, std::forward<F>(f));
}

template <class T>
const T* codes(const Tensor& t) {
  return static_cast<const T*>(t.data_ptr());
}
template <class T>
T* mutable_codes(const Tensor& t) {
  return static_cast<T*>(t.data_ptr());
}

/// Registers `fn` as op's QuantizedCPU kernel at load time.
#define EMBER_REGISTER_QUANTIZED(id, fn)                                            \
  static const bool EMBER_QREG_CONCAT(ember_quantized_registered_, __LINE__) = [] { \
    ::ember::dispatch::register_quantized(::ember::dispatch::OpId::id, fn);         \
    return true;                                                                    \
  }()
#define EMBER_QREG_CONCAT_(a, b) a##b
#define EMBER_QREG_CONCAT(a, b) EMBER_QREG_CONCAT_(a, b)

}  // namespace ember::quant_ops
