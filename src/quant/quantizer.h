// The quantizer a quantized TensorImpl carries (TensorImpl::quantizer()), and the helpers every
// quantized kernel uses: the dtype ranges, the scalar quantize / dequantize of spec § 1.2, and
// the making of new quantized tensors.
//
//   const Quantizer& q = get_quantizer(t);
//   if (auto* pt = as_per_tensor(q)) use(pt->scale(), pt->zero_point());
//   Tensor out = new_qtensor(sizes, make_per_tensor_affine_quantizer(0.1, 3, kQUInt8), kCPU);
//
// Note [Quantizers]
// A quantized tensor is an ordinary TensorImpl whose dtype is quint8 / qint8 / qint32 (so its
// keys include QuantizedCPU, tensor_impl.cpp refresh_keys) and whose quantizer slot holds one of
// the immutable objects below. Views share the quantizer object (ops::make_view copies the
// pointer); an op that changes the parameters makes a new quantizer, never mutates one, so a
// quantizer can be shared by any number of impls. shallow_copy_from and swap_contents move the
// quantizer with the data it describes (TensorImpl). Scales are kept as double and zero points
// as int64 (PyTorch's types); kernels reproduce PyTorch's float32 conversions themselves.
#pragma once

#include <cmath>
#include <cstdint>

#include "ember/quantized/tensor.h"
#include "ember/tensor.h"

namespace ember {

class Quantizer : public QuantizerBase {
 public:
  ScalarType dtype() const { return dtype_; }
  virtual QScheme qscheme() const = 0;
  /// Same scheme, dtype and parameters (PyTorch's Quantizer::equalTo).
  virtual bool equal_to(const Quantizer& other) const = 0;

 protected:
  explicit Quantizer(ScalarType dtype) : dtype_(dtype) {}

 private:
  ScalarType dtype_;
};

class PerTensorAffineQuantizer final : public Quantizer {
 public:
  PerTensorAffineQuantizer(ScalarType dtype, double scale, int64_t zero_point)
      : Quantizer(dtype), scale_(scale), zero_point_(zero_point) {}
  double scale() const { return scale_; }
  int64_t zero_point() const { return zero_point_; }
  QScheme qscheme() const override { return QScheme::PerTensorAffine; }
  bool equal_to(const Quantizer& other) const override;

 private:
  double scale_;
  int64_t zero_point_;
};

class PerChannelAffineQuantizer final : public Quantizer {
 public:
  /// scales: float64 [C], zero_points: int64 [C] (both contiguous, on the CPU), axis >= 0.
  PerChannelAffineQuantizer(ScalarType dtype, Tensor scales, Tensor zero_points, int64_t axis)
      : Quantizer(dtype), scales_(std::move(scales)), zero_points_(std::move(zero_points)),
        axis_(axis) {}
  const Tensor& scales() const { return scales_; }
  const Tensor& zero_points() const { return zero_points_; }
  int64_t axis() const { return axis_; }
  int64_t channels() const { return scales_.numel(); }
  QScheme qscheme() const override { return QScheme::PerChannelAffine; }
  bool equal_to(const Quantizer& other) const override;

 private:
  Tensor scales_;
  Tensor zero_points_;
  int64_t axis_;
};

/// per_channel_affine_float_qparams (embedding tables): float32 scales AND float32 zero points
/// along `axis`; q = clamp(lrintf(x * (s == 0 ? 1 : 1 / s) + z), qmin, qmax), x = (q - z) * s
/// in float (quantize_val_float_qparams in PyTorch 1.13). A separate class: the int-zero-point
/// kernels (as_per_channel) never see it.
class PerChannelAffineFloatQParamsQuantizer final : public Quantizer {
 public:
  /// scales, zero_points: float32 [C] (contiguous, on the CPU), axis >= 0.
  PerChannelAffineFloatQParamsQuantizer(ScalarType dtype, Tensor scales, Tensor zero_points,
                                        int64_t axis)
      : Quantizer(dtype), scales_(std::move(scales)), zero_points_(std::move(zero_points)),
        axis_(axis) {}
  const Tensor& scales() const { return scales_; }
  const Tensor& zero_points() const { return zero_points_; }
  int64_t axis() const { return axis_; }
  int64_t channels() const { return scales_.numel(); }
  QScheme qscheme() const override { return QScheme::PerChannelAffineFloatQParams; }
  bool equal_to(const Quantizer& other) const override;

 private:
  Tensor scales_;
  Tensor zero_points_;
  int64_t axis_;
};

using QuantizerPtr = intrusive_ptr<Quantizer>;

/// Checks `dtype` is quantized (PyTorch's "Creation of quantized tensor requires ..." text).
void check_quantized_dtype(ScalarType dtype);
QuantizerPtr make_per_tensor_affine_quantizer(double scale, int64_t zero_point, ScalarType dtype);
/// Copies scales to float64 and zero points to int64 (contiguous CPU tensors the quantizer owns);
/// floating zero points make a PerChannelAffineFloatQParamsQuantizer instead (both float32), as
/// PyTorch's make_per_channel_affine_quantizer does.
QuantizerPtr make_per_channel_affine_quantizer(const Tensor& scales, const Tensor& zero_points,
                                               int64_t axis, ScalarType dtype);

/// The quantizer of a quantized tensor; a non-quantized or quantizer-less tensor is an error.
const Quantizer& get_quantizer(const Tensor& t);
/// The same, as the shared pointer (to give a new tensor the same quantizer object).
QuantizerPtr get_quantizer_ptr(const Tensor& t);
inline const PerTensorAffineQuantizer* as_per_tensor(const Quantizer& q) {
  return q.qscheme() == QScheme::PerTensorAffine ? static_cast<const PerTensorAffineQuantizer*>(&q)
                                                 : nullptr;
}
inline const PerChannelAffineQuantizer* as_per_channel(const Quantizer& q) {
  return q.qscheme() == QScheme::PerChannelAffine
             ? static_cast<const PerChannelAffineQuantizer*>(&q)
             : nullptr;
}

inline const PerChannelAffineFloatQParamsQuantizer* as_per_channel_float_qparams(
    const Quantizer& q) {
  return q.qscheme() == QScheme::PerChannelAffineFloatQParams
             ? static_cast<const PerChannelAffineFloatQParamsQuantizer*>(&q)
             : nullptr;
}

/// Bytes of storage a contiguous quantized tensor of `sizes` takes: numel * element size, and
/// for the sub-byte dtypes prod(sizes[:-1]) * ceil(sizes[-1] / codes per byte) (PyTorch's
/// get_sub_byte_tensor_size; Note [Sub-byte quantized dtypes]).
int64_t qtensor_nbytes(IntArrayRef sizes, ScalarType qdtype);

/// An uninitialised quantized tensor with quantizer `q`, laid out in `format` on `device`
/// (meta: shapes only). Its dtype is q->dtype().
Tensor new_qtensor(IntArrayRef sizes, QuantizerPtr q, Device device,
                   MemoryFormat format = MemoryFormat::Contiguous);
/// A quantized tensor over `codes`' storage and geometry (no copy): codes must be the
/// underlying integer dtype of q->dtype().
Tensor qtensor_over(const Tensor& codes, QuantizerPtr q);
/// The integer tensor sharing a quantized tensor's storage and geometry (no copy; int_repr
/// copies). Kernels use it to run integer loops over the codes.
Tensor codes_view(const Tensor& qtensor);

/// Calls f.template operator()<T>() with T the code type of a quantized dtype (uint8_t, int8_t,
/// int32_t).
template <class F>
decltype(auto) visit_codes(ScalarType qdtype, F&& f) {
  switch (qdtype) {
    case kQUInt8: return f.template operator()<uint8_t>();
    case kQInt8: return f.template operator()<int8_t>();
    case kQInt32: return f.template operator()<int32_t>();
    default: break;
  }
  EMBER_CHECK(!is_sub_byte(qdtype), "this operation does not support quantized tensors of the "
              "sub-byte dtype ", dtype_repr(qdtype), " (only quantize_per_channel / "
              "quantize_per_tensor, dequantize, int_repr and the embedding ops take them)");
  EMBER_FAIL("expected a quantized dtype, got ", dtype_repr(qdtype));
}

/// ember::equal when an argument is quantized (PyTorch's equal_quantized_cpu): same quantizer,
/// shape, dtype and codes; false against a float tensor.
bool equal_quantized(const Tensor& self, const Tensor& other);

// ---- dtype ranges ----
/// quint8 -> uint8, qint8 -> int8, qint32 -> int32.
ScalarType underlying_dtype(ScalarType qdtype);
/// uint8 -> quint8, int8 -> qint8, int32 -> qint32; other dtypes are refused with PyTorch's text.
ScalarType quantized_dtype_of(ScalarType underlying);
constexpr int64_t qmin_of(ScalarType qdtype) {
  return qdtype == kQUInt8 || is_sub_byte(qdtype) ? 0 : qdtype == kQInt8 ? -128 : -2147483648LL;
}
constexpr int64_t qmax_of(ScalarType qdtype) {
  return qdtype == kQUInt8  ? 255
         : is_sub_byte(qdtype) ? (int64_t{1} << quantized_bit_width(qdtype)) - 1
         : qdtype == kQInt8    ? 127
                               : 2147483647LL;
}
/// PyTorch's checkZeroPoint: "<fn> zero_point 300 is above upper bound." and "... below ...".
void check_zero_point(const char* fn, int64_t zero_point, ScalarType qdtype);

// ---- scalar numerics (quantization-spec § 1.2; the kernels' reference) ----
/// PyTorch's (non-FBGEMM) quantize_val: float reciprocal, product rounded to nearest even, the
/// zero point added in float after rounding, then converted to int64 as x86 does
/// (NaN and |v| >= 2^63 give INT64_MIN), then saturated to [qmin, qmax].
inline int64_t quantize_val(float inv_scale, int64_t zero_point, float x, int64_t qmin,
                            int64_t qmax) {
  const float v = static_cast<float>(zero_point) + std::nearbyint(x * inv_scale);
  const int64_t i = (v >= -0x1p63f && v < 0x1p63f) ? static_cast<int64_t>(v) : INT64_MIN;
  return i < qmin ? qmin : (i > qmax ? qmax : i);
}
/// The float reciprocal PyTorch multiplies by: f32(1 / f32(scale)).
inline float inv_scale_of(double scale) { return 1.0f / static_cast<float>(scale); }
/// Per-tensor: f32(q - z) * f32(s), the difference in int32 (wrapping, as PyTorch's vectorised
/// kernel), exact for 8-bit codes.
inline float dequantize_val(float scale, int64_t zero_point, int64_t q) {
  const auto d = static_cast<int32_t>(static_cast<uint32_t>(q) - static_cast<uint32_t>(zero_point));
  return static_cast<float>(d) * scale;
}
/// Per-channel (PyTorch's dequantize_per_channel_affine_kernel): the difference in float, the
/// product with the double scale in double, rounded to float.
inline float dequantize_val_per_channel(double scale, int64_t zero_point, int64_t q) {
  const float d = static_cast<float>(q) - static_cast<float>(zero_point);
  return static_cast<float>(static_cast<double>(d) * scale);
}

}  // namespace ember
