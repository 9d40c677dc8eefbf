// Quantizer objects and the helpers of quantizer.h (Note [Quantizers]).
#include "quantizer.h"

#include <cstring>

#include "ember/ops/copy.h"
#include "ember/ops/factory.h"
#include "ember/ops/view.h"

namespace ember {

const char* qscheme_name(QScheme s) {
  switch (s) {
    case QScheme::PerTensorAffine: return "per_tensor_affine";
    case QScheme::PerChannelAffine: return "per_channel_affine";
    case QScheme::PerTensorSymmetric: return "per_tensor_symmetric";
    case QScheme::PerChannelSymmetric: return "per_channel_symmetric";
    case QScheme::PerChannelAffineFloatQParams: return "per_channel_affine_float_qparams";
  }
  EMBER_FAIL("unknown qscheme ", static_cast<int>(s));
}

namespace {
bool same_values(const Tensor& a, const Tensor& b) {
  if (a.numel() != b.numel() || a.dtype() != b.dtype()) return false;
  return std::memcmp(a.data_ptr(), b.data_ptr(), a.nbytes()) == 0;
}
}  // namespace

bool PerTensorAffineQuantizer::equal_to(const Quantizer& other) const {
  const auto* o = as_per_tensor(other);
  return o && o->dtype() == dtype() && o->scale_ == scale_ && o->zero_point_ == zero_point_;
}

bool PerChannelAffineQuantizer::equal_to(const Quantizer& other) const {
  const auto* o = as_per_channel(other);
  return o && o->dtype() == dtype() && o->axis_ == axis_ && same_values(o->scales_, scales_) &&
         same_values(o->zero_points_, zero_points_);
}

bool PerChannelAffineFloatQParamsQuantizer::equal_to(const Quantizer& other) const {
  const auto* o = as_per_channel_float_qparams(other);
  return o && o->dtype() == dtype() && o->axis_ == axis_ && same_values(o->scales_, scales_) &&
         same_values(o->zero_points_, zero_points_);
}

void check_quantized_dtype(ScalarType dtype) {
  EMBER_CHECK(is_quantized(dtype),
              "Creation of quantized tensor requires quantized dtype like ember.quint8");
}

QuantizerPtr make_per_tensor_affine_quantizer(double scale, int64_t zero_point, ScalarType dtype) {
  check_quantized_dtype(dtype);
  return make_intrusive<PerTensorAffineQuantizer>(dtype, scale, zero_point);
}

QuantizerPtr make_per_channel_affine_quantizer(const Tensor& scales, const Tensor& zero_points,
                                               int64_t axis, ScalarType dtype) {
  check_quantized_dtype(dtype);
  EMBER_CHECK(scales.dim() == 1, "scale tensor must have dimension 1");
  EMBER_CHECK(zero_points.dim() == 1, "zero_points tensor must have dimension 1");
  EMBER_CHECK(scales.numel() == zero_points.numel(),
              "number of elements in scales and zero_points must match");
  EMBER_CHECK(!scales.is_meta() && !zero_points.is_meta(),
              "per-channel quantization parameters must be CPU tensors, not meta tensors");
  EMBER_CHECK(is_floating(scales.dtype()), "scale tensor must be floating point");
  // Owned copies: a later in-place write to the caller's tensors must not change the quantizer.
  if (is_floating(zero_points.dtype())) {
    Tensor s = _to_copy(scales, kFloat32).contiguous();
    Tensor z = _to_copy(zero_points, kFloat32).contiguous();
    return make_intrusive<PerChannelAffineFloatQParamsQuantizer>(dtype, std::move(s),
                                                                 std::move(z), axis);
  }
  Tensor s = _to_copy(scales, kFloat64).contiguous();
  Tensor z = _to_copy(zero_points, kInt64).contiguous();
  return make_intrusive<PerChannelAffineQuantizer>(dtype, std::move(s), std::move(z), axis);
}

namespace {
// A tensor of a quantized dtype made by a plain factory (empty(2, dtype=quint8)) has no quantizer:
// PyTorch's UnknownQuantizer, which refuses every question with this text.
void check_has_quantizer(const Quantizer* q) {
  EMBER_CHECK(q, "cannot call qscheme on UnknownQuantizer");
}
}  // namespace

QuantizerPtr get_quantizer_ptr(const Tensor& t) {
  EMBER_CHECK(t.defined() && t.is_quantized(), "expected a quantized tensor, got ",
              t.defined() ? dtype_repr(t.dtype()) : std::string("an undefined tensor"));
  auto* q = static_cast<Quantizer*>(t.impl()->quantizer().get());
  check_has_quantizer(q);
  return QuantizerPtr(q);
}

const Quantizer& get_quantizer(const Tensor& t) {
  EMBER_CHECK(t.defined() && t.is_quantized(), "expected a quantized tensor, got ",
              t.defined() ? dtype_repr(t.dtype()) : std::string("an undefined tensor"));
  const auto* q = static_cast<const Quantizer*>(t.impl()->quantizer().get());
  check_has_quantizer(q);
  return *q;
}

Tensor new_qtensor(IntArrayRef sizes, QuantizerPtr q, Device device, MemoryFormat format) {
  // PyTorch's new_qtensor refuses non-quantized dtypes with this text.
  EMBER_CHECK(is_quantized(q->dtype()), "ScalarType ", scalar_type_name(q->dtype()),
              " is not supported in new_qtensor.");
  DimVector strides = format == MemoryFormat::Contiguous ? contiguous_strides(sizes)
                                                         : strides_for_memory_format(sizes, format);
  compute_numel(sizes);  // negative sizes, overflow
  const bool sub_byte = is_sub_byte(q->dtype());
  const int64_t nbytes = sub_byte ? qtensor_nbytes(sizes, q->dtype())
                                  : storage_nbytes(sizes, strides, element_size(q->dtype()));
  auto storage = Storage::allocate(static_cast<size_t>(nbytes), device);
  // Sub-byte kernels OR codes into their bytes and rows may end in unused bits: start from 0.
  if (sub_byte && device.is_cpu() && nbytes > 0) std::memset(storage->data(), 0, nbytes);
  auto impl = make_intrusive<TensorImpl>(std::move(storage), q->dtype(), sizes, strides, 0);
  impl->set_quantizer(std::move(q));
  return Tensor(std::move(impl));
}

int64_t qtensor_nbytes(IntArrayRef sizes, ScalarType qdtype) {
  const int64_t numel = compute_numel(sizes);
  if (!is_sub_byte(qdtype) || sizes.empty()) return numel * static_cast<int64_t>(element_size(qdtype));
  const int64_t per_byte = 8 / quantized_bit_width(qdtype);
  const int64_t cols = sizes.back();
  const int64_t rows = cols == 0 ? 0 : numel / cols;
  return rows * ((cols + per_byte - 1) / per_byte);
}

Tensor qtensor_over(const Tensor& codes, QuantizerPtr q) {
  EMBER_ASSERT(codes.dtype() == underlying_dtype(q->dtype()));
  auto impl = make_intrusive<TensorImpl>(codes.impl()->storage(), q->dtype(), codes.sizes(),
                                         codes.strides(), codes.storage_offset());
  impl->set_version_counter(codes.impl()->version_counter());
  impl->set_quantizer(std::move(q));
  return Tensor(std::move(impl));
}

Tensor codes_view(const Tensor& qtensor) {
  EMBER_ASSERT(qtensor.is_quantized());
  // A sub-byte tensor has fewer bytes than elements: no one-code-per-element view of it.
  EMBER_CHECK(!is_sub_byte(qtensor.dtype()), "this operation does not support quantized tensors "
              "of the sub-byte dtype ", dtype_repr(qtensor.dtype()), " (only quantize_per_channel"
              " / quantize_per_tensor, dequantize, int_repr and the embedding ops take them)");
  auto impl = make_intrusive<TensorImpl>(qtensor.impl()->storage(), underlying_dtype(qtensor.dtype()),
                                         qtensor.sizes(), qtensor.strides(),
                                         qtensor.storage_offset());
  impl->set_version_counter(qtensor.impl()->version_counter());
  return Tensor(std::move(impl));
}

ScalarType underlying_dtype(ScalarType qdtype) {
  switch (qdtype) {
    case kQUInt8: return kUInt8;
    case kQInt8: return kInt8;
    case kQInt32: return kInt32;
    case kQUInt4x2:
    case kQUInt2x4: return kUInt8;
    default: break;
  }
  EMBER_FAIL("expected a quantized dtype, got ", dtype_repr(qdtype));
}

ScalarType quantized_dtype_of(ScalarType underlying) {
  switch (underlying) {
    case kUInt8: return kQUInt8;
    case kInt8: return kQInt8;
    case kInt32: return kQInt32;
    default: break;
  }
  EMBER_FAIL("Creation of quantized tensor requires quantized dtype like ember.quint8");
}

void check_zero_point(const char* fn, int64_t zero_point, ScalarType qdtype) {
  EMBER_CHECK(zero_point <= qmax_of(qdtype), fn, " zero_point ", zero_point,
              " is above upper bound.");
  EMBER_CHECK(zero_point >= qmin_of(qdtype), fn, " zero_point ", zero_point,
              " is below lower bound.");
}

}  // namespace ember
