// Making and reading quantized tensors: quantize_per_tensor (three overloads), quantize_per_channel,
// dequantize, int_repr, the qparam accessors, _empty_*_quantized and _make_*_quantized_tensor.
//
// Ops whose argument is a quantized tensor reach their QuantizedCPU kernel (registered below);
// their plain backend implementation is what runs for a float tensor, and raises PyTorch's
// "Could not run 'aten::q_scale' with arguments from the 'CPU' backend" where PyTorch has no
// kernel. Outputs keep the input's suggested memory format (channels_last stays so), as
// PyTorch's quantizer does. Meta tensors carry quantized tensors too (shapes and qparams only).
#include <cstring>

#include "../dispatch/boxing.h"
#include "ember/ops/copy.h"
#include "ember/ops/factory.h"
#include "ember/ops/view.h"
#include "quantize_float_qparams.h"
#include "quantize_kernels.h"
#include "quantizer.h"

// QScheme results box as their int (c10 numbering); the Python layer turns them back into
// ember.qscheme objects (the op's schema says `-> QScheme`).
namespace ember::dispatch {
template <>
inline QScheme unbox_result<QScheme>(Stack&& out, const OpHandle& op) {
  EMBER_CHECK_TYPE(out.size() == 1 && out[0].is_int(), op.full_name(),
                   ": an override must return a qscheme");
  return static_cast<QScheme>(out[0].to_int());
}
}  // namespace ember::dispatch

namespace ember {

using dispatch::OpId;

inline Stack box_result(QScheme s) { return {Value(static_cast<int64_t>(s))}; }  // found by ADL

namespace {

// A backend with no kernel for this op (the float twin of a quantized-only op).
[[noreturn]] void no_backend_kernel(OpId op, const Tensor& t) {
  dispatch::no_kernel_error(op, t.is_meta() ? "Meta" : "CPU");
}

// [outer][channels][inner] of a dense tensor whose channel dim `axis` has stride `inner`
// (quantize_kernels.h).
struct ChannelLayout {
  int64_t outer, channels, inner;
};
ChannelLayout channel_layout(const Tensor& dense, int64_t axis) {
  const int64_t channels = dense.size(axis);
  const int64_t inner = dense.stride(axis);
  const int64_t outer = channels * inner == 0 ? 0 : dense.numel() / (channels * inner);
  return {outer, channels, inner};
}

// PyTorch's checks of a per-channel quantizer against the tensor it describes (its quantize and
// dequantize kernels spell the axis message slightly differently).
void check_per_channel(bool quantizing, const Tensor& t, int64_t axis, int64_t channels) {
  if (quantizing) {
    EMBER_CHECK(axis >= 0 && axis < t.dim(),
                "Channel axis out of range in per channel affine quantization. Got: ", axis,
                "Expected: [0, ", t.dim(), ")");
  } else {
    EMBER_CHECK(axis >= 0 && axis < t.dim(),
                "Channel axis out of range in per channel affine dequantization. Got:", axis,
                " Expected: [0, ", t.dim(), ")");
  }
  EMBER_CHECK(t.size(axis) == channels, "length of scales must equal to channel");
}

// The number of channels of a per-channel quantizer (integer or float qparams).
int64_t quantizer_channels(const Quantizer& q) {
  if (const auto* pc = as_per_channel(q)) return pc->channels();
  const auto* pf = as_per_channel_float_qparams(q);
  EMBER_ASSERT(pf);
  return pf->channels();
}

// The bytes of codes a kernel reads or writes: a sub-byte tensor's own bytes from its data
// pointer, in flat order (PyTorch's kernels ignore a sub-byte view's strides: Note [Sub-byte
// quantized dtypes]); otherwise the codes, dense in `fmt`.
Tensor dense_codes(const Tensor& self, MemoryFormat fmt) {
  return is_sub_byte(self.dtype()) ? Tensor() : codes_view(self).contiguous(fmt);
}
const void* codes_ptr(const Tensor& self, const Tensor& dense) {
  return dense.defined() ? dense.data_ptr() : self.data_ptr();
}

// ---- quantize_per_tensor ----
Tensor quantize_per_tensor_impl(const Tensor& self, const double& scale, const int64_t& zero_point,
                                const ScalarType& dtype) {
  EMBER_CHECK(self.dtype() == kFloat32, "Quantize only works on Float Tensor, got ",
              scalar_type_name(self.dtype()));
  const MemoryFormat fmt = self.suggest_memory_format();
  Tensor out = new_qtensor(self.sizes(), make_intrusive<PerTensorAffineQuantizer>(dtype, scale, zero_point),
                           self.device(), fmt);
  check_zero_point("quantize_tensor_per_tensor_affine", zero_point,
                   is_sub_byte(dtype) ? kQUInt8 : dtype);
  if (out.is_meta() || out.numel() == 0) return out;
  const Tensor x = self.contiguous(fmt);
  if (is_sub_byte(dtype)) {
    qkernels::quantize_per_tensor_sub_byte(dtype, x.data_ptr<float>(),
                                           static_cast<uint8_t*>(out.data_ptr()), out.numel(),
                                           scale, zero_point);
    return out;
  }
  visit_codes(dtype, [&]<class T>() {
    qkernels::quantize(x.data_ptr<float>(), static_cast<T*>(out.data_ptr()), out.numel(), scale,
                       zero_point);
  });
  return out;
}

double scalar_qparam_double(const Tensor& t) { return t.item().to<double>(); }
int64_t scalar_qparam_int(const Tensor& t) { return t.item().to<int64_t>(); }

Tensor quantize_per_tensor_tensor_qparams_impl(const Tensor& self, const Tensor& scale,
                                               const Tensor& zero_point, const ScalarType& dtype) {
  return quantize_per_tensor(self, scalar_qparam_double(scale), scalar_qparam_int(zero_point),
                             dtype);
}

std::vector<Tensor> quantize_per_tensor_tensors_impl(const std::vector<Tensor>& tensors,
                                                     const Tensor& scales,
                                                     const Tensor& zero_points,
                                                     const ScalarType& dtype) {
  std::vector<Tensor> out;
  out.reserve(tensors.size());
  for (size_t i = 0; i < tensors.size(); ++i) {
    const auto k = static_cast<int64_t>(i);
    out.push_back(quantize_per_tensor(tensors[i], scalar_qparam_double(scales.select(0, k)),
                                      scalar_qparam_int(zero_points.select(0, k)), dtype));
  }
  return out;
}

// ---- quantize_per_channel ----
Tensor quantize_per_channel_impl(const Tensor& self, const Tensor& scales,
                                 const Tensor& zero_points, const int64_t& axis,
                                 const ScalarType& dtype) {
  EMBER_CHECK(scales.dim() == 1, "scale tensor must have dimension 1");
  EMBER_CHECK(zero_points.dim() == 1, "zero_points tensor must have dimension 1");
  EMBER_CHECK(scales.numel() == zero_points.numel(),
              "number of elements in scales and zero_points must match");
  EMBER_CHECK(is_floating(scales.dtype()), "scale tensor must be floating point");
  EMBER_CHECK(is_quantized(dtype), "ScalarType ", scalar_type_name(dtype),
              " is not supported in new_qtensor.");
  const MemoryFormat fmt = self.suggest_memory_format();
  QuantizerPtr q = make_per_channel_affine_quantizer(scales, zero_points, axis, dtype);
  Tensor out = new_qtensor(self.sizes(), q, self.device(), fmt);
  if (const auto* pf = as_per_channel_float_qparams(*q)) {
    // PyTorch's quantize_tensor_per_channel_float_qparams, its checks in its order.
    EMBER_CHECK(self.dtype() == kFloat32, "Quantize only works on Float Tensor, got ",
                scalar_type_name(self.dtype()));
    EMBER_CHECK(axis >= 0 && axis < self.dim(),
                "Channel axis out of range in per channel float qparams quantization. Got: ", axis,
                "Expected: [0, ", self.dim(), ")");
    EMBER_CHECK(self.size(axis) == pf->channels(), "length of scales must equal to channel");
    if (out.is_meta() || out.numel() == 0) return out;
    const Tensor x = self.contiguous(fmt);
    const ChannelLayout l = channel_layout(out, axis);
    qkernels::quantize_per_channel_float_qparams(dtype, x.data_ptr<float>(), out.data_ptr(),
                                                 l.outer, l.channels, l.inner,
                                                 pf->scales().data_ptr<float>(),
                                                 pf->zero_points().data_ptr<float>());
    return out;
  }
  EMBER_CHECK(self.dtype() == kFloat32, "quantize_tensor_per_channel_affine expects a Float Tensor, got ",
              scalar_type_name(self.dtype()));
  const auto& pc = static_cast<const PerChannelAffineQuantizer&>(*q);
  const int64_t* zp = pc.zero_points().data_ptr<int64_t>();
  for (int64_t c = 0; c < pc.channels(); ++c)
    check_zero_point("quantize_tensor_per_channel_affine", zp[c], dtype);
  check_per_channel(true, self, axis, pc.channels());
  EMBER_CHECK(self.dim() != 4 || !self.is_contiguous(MemoryFormat::ChannelsLast) || axis <= 1,
              "If tensor is channels_last contig then per channel quantization is supported only "
              "for axis = 0 or 1.");
  if (out.is_meta() || out.numel() == 0) return out;
  const Tensor x = self.contiguous(fmt);
  const ChannelLayout l = channel_layout(out, axis);
  visit_codes(dtype, [&]<class T>() {
    qkernels::quantize_per_channel(x.data_ptr<float>(), static_cast<T*>(out.data_ptr()), l.outer,
                                   l.channels, l.inner, pc.scales().data_ptr<double>(), zp);
  });
  return out;
}

// ---- dequantize ----
Tensor dequantize_impl(const Tensor& self) { return self.to(kFloat32); }

Tensor dequantize_quantized(const Tensor& self) {
  const MemoryFormat fmt = self.suggest_memory_format();
  Tensor out = empty(self.sizes(), TensorOptions(kFloat32).device(self.device()), fmt);
  const Quantizer& q = get_quantizer(self);
  if (const auto* pf = as_per_channel_float_qparams(q)) {
    EMBER_CHECK(pf->axis() >= 0 && pf->axis() < self.dim(),
                "Channel axis out of range in per channel float qparams dequantization. Got:",
                pf->axis(), " Expected: [0, ", self.dim(), ")");
    EMBER_CHECK(self.size(pf->axis()) == pf->channels(), "length of scales must equal to channel");
    if (out.is_meta() || out.numel() == 0) return out;
    const Tensor dense = dense_codes(self, fmt);
    const ChannelLayout l = channel_layout(out, pf->axis());
    qkernels::dequantize_per_channel_float_qparams(self.dtype(), codes_ptr(self, dense),
                                                   out.data_ptr<float>(), l.outer, l.channels,
                                                   l.inner, pf->scales().data_ptr<float>(),
                                                   pf->zero_points().data_ptr<float>());
    return out;
  }
  if (const auto* pt = as_per_tensor(q)) {
    check_zero_point("dequantize_tensor_per_tensor_affine", pt->zero_point(),
                     is_sub_byte(self.dtype()) ? kQUInt8 : self.dtype());
    if (out.is_meta() || out.numel() == 0) return out;
    if (is_sub_byte(self.dtype())) {
      qkernels::dequantize_per_tensor_sub_byte(self.dtype(),
                                               static_cast<const uint8_t*>(self.data_ptr()),
                                               out.data_ptr<float>(), out.numel(), pt->scale(),
                                               pt->zero_point());
      return out;
    }
    const Tensor codes = codes_view(self).contiguous(fmt);
    visit_codes(self.dtype(), [&]<class T>() {
      qkernels::dequantize(static_cast<const T*>(codes.data_ptr()), out.data_ptr<float>(),
                           out.numel(), pt->scale(), pt->zero_point());
    });
    return out;
  }
  const auto* pc = as_per_channel(q);
  EMBER_ASSERT(pc);
  const int64_t* zp = pc->zero_points().data_ptr<int64_t>();
  for (int64_t c = 0; c < pc->channels(); ++c)
    check_zero_point("dequantize_tensor_per_channel_affine", zp[c], self.dtype());
  check_per_channel(false, self, pc->axis(), pc->channels());
  if (out.is_meta() || out.numel() == 0) return out;
  const Tensor codes = codes_view(self).contiguous(fmt);
  const ChannelLayout l = channel_layout(out, pc->axis());
  visit_codes(self.dtype(), [&]<class T>() {
    qkernels::dequantize_per_channel(static_cast<const T*>(codes.data_ptr()), out.data_ptr<float>(),
                                     l.outer, l.channels, l.inner,
                                     pc->scales().data_ptr<double>(), zp);
  });
  return out;
}

// A list without a quantized tensor: PyTorch has only the QuantizedCPU kernel.
std::vector<Tensor> dequantize_tensors_impl(const std::vector<Tensor>& tensors) {
  EMBER_CHECK_NOT_IMPLEMENTED(
      !tensors.empty(),
      "There were no tensor arguments to this function (e.g., you passed an empty list of "
      "Tensors), but no fallback function is registered for schema aten::dequantize.tensors.  "
      "This usually means that this function requires a non-empty list of Tensors, or that you "
      "(the operator writer) forgot to register a fallback function.");
  no_backend_kernel(OpId::dequantize_tensors, tensors.front());
}
std::vector<Tensor> dequantize_tensors_quantized(const std::vector<Tensor>& tensors) {
  std::vector<Tensor> out;
  out.reserve(tensors.size());
  for (const Tensor& t : tensors) out.push_back(dequantize(t));
  return out;
}

// ---- int_repr and the accessors ----
Tensor int_repr_impl(const Tensor& self) { no_backend_kernel(OpId::int_repr, self); }
Tensor int_repr_quantized(const Tensor& self) {
  if (is_sub_byte(self.dtype())) {
    // PyTorch's: the packed bytes, 1-d, read from the data pointer.
    const int64_t bits = quantized_bit_width(self.dtype());
    Tensor out = empty({(self.numel() * bits + 7) / 8}, TensorOptions(kUInt8).device(self.device()));
    if (!out.is_meta() && out.numel() > 0)
      std::memcpy(out.data_ptr(), self.data_ptr(), static_cast<size_t>(out.numel()));
    return out;
  }
  Tensor out = empty(self.sizes(), TensorOptions(underlying_dtype(self.dtype())).device(self.device()),
                     self.suggest_memory_format());
  Tensor codes = codes_view(self);
  return copy_(out, codes);
}

constexpr const char* kPerTensorExpected =
    "Expected quantizer->qscheme() == kPerTensorAffine to be true, but got false.  (Could this "
    "error message be improved?  If so, please report an enhancement request to PyTorch.)";
constexpr const char* kPerChannelExpected =
    "Expected quantizer->qscheme() == kPerChannelAffine || quantizer->qscheme() == "
    "kPerChannelAffineFloatQParams to be true, but got false.  (Could this error message be "
    "improved?  If so, please report an enhancement request to PyTorch.)";

const PerTensorAffineQuantizer& per_tensor_of(const Tensor& self) {
  const auto* pt = as_per_tensor(get_quantizer(self));
  EMBER_CHECK(pt, kPerTensorExpected);
  return *pt;
}
// The scales, zero points and axis of a per-channel quantizer, integer or float qparams.
struct ChannelQParams {
  const Tensor& scales;
  const Tensor& zero_points;
  int64_t axis;
};
ChannelQParams per_channel_of(const Tensor& self) {
  const Quantizer& q = get_quantizer(self);
  if (const auto* pf = as_per_channel_float_qparams(q)) {
    return {pf->scales(), pf->zero_points(), pf->axis()};
  }
  const auto* pc = as_per_channel(q);
  EMBER_CHECK(pc, kPerChannelExpected);
  return {pc->scales(), pc->zero_points(), pc->axis()};
}

double q_scale_impl(const Tensor& self) { no_backend_kernel(OpId::q_scale, self); }
double q_scale_quantized(const Tensor& self) { return per_tensor_of(self).scale(); }
int64_t q_zero_point_impl(const Tensor& self) { no_backend_kernel(OpId::q_zero_point, self); }
int64_t q_zero_point_quantized(const Tensor& self) { return per_tensor_of(self).zero_point(); }
Tensor q_per_channel_scales_impl(const Tensor& self) {
  no_backend_kernel(OpId::q_per_channel_scales, self);
}
Tensor q_per_channel_scales_quantized(const Tensor& self) {
  return clone(per_channel_of(self).scales);  // a copy: the quantizer's stays immutable
}
Tensor q_per_channel_zero_points_impl(const Tensor& self) {
  no_backend_kernel(OpId::q_per_channel_zero_points, self);
}
Tensor q_per_channel_zero_points_quantized(const Tensor& self) {
  return clone(per_channel_of(self).zero_points);
}
int64_t q_per_channel_axis_impl(const Tensor& self) {
  no_backend_kernel(OpId::q_per_channel_axis, self);
}
int64_t q_per_channel_axis_quantized(const Tensor& self) { return per_channel_of(self).axis; }
QScheme qscheme_impl(const Tensor& self) { no_backend_kernel(OpId::qscheme, self); }
QScheme qscheme_quantized(const Tensor& self) { return get_quantizer(self).qscheme(); }

// ---- empty quantized tensors ----
using OptDtype = std::optional<ScalarType>;
using OptInt = std::optional<int64_t>;
using OptDevice = std::optional<Device>;
using OptBool = std::optional<bool>;

MemoryFormat format_of(const OptInt& memory_format) {
  const MemoryFormat f = memory_format ? memory_format_from_int(*memory_format) : MemoryFormat::Contiguous;
  EMBER_CHECK(f != MemoryFormat::Preserve, "Preserve memory format is unsupported by the contiguous operator.");
  return f;
}

Tensor empty_affine_quantized_impl(IntArrayRef size, const OptDtype& dtype, const OptInt&,
                                   const OptDevice& device, const OptBool&, const double& scale,
                                   const int64_t& zero_point, const OptInt& memory_format) {
  const ScalarType dt = dtype.value_or(default_dtype());
  check_quantized_dtype(dt);
  return new_qtensor(size, make_intrusive<PerTensorAffineQuantizer>(dt, scale, zero_point),
                     device.value_or(default_device()), format_of(memory_format));
}

Tensor empty_per_channel_affine_quantized_impl(IntArrayRef size, const Tensor& scales,
                                               const Tensor& zero_points, const int64_t& axis,
                                               const OptDtype& dtype, const OptInt&,
                                               const OptDevice& device, const OptBool&,
                                               const OptInt& memory_format) {
  const ScalarType dt = dtype.value_or(default_dtype());
  check_quantized_dtype(dt);
  EMBER_CHECK(dt == kQInt8 || dt == kQUInt8 || is_sub_byte(dt),
              "Supported data type for tensor creation is int8 or uint8");
  QuantizerPtr q = make_per_channel_affine_quantizer(scales, zero_points, axis, dt);
  Tensor out = new_qtensor(size, q, device.value_or(default_device()), format_of(memory_format));
  check_per_channel(false, out, axis, quantizer_channels(*q));
  return out;
}

// ---- _make_*_quantized_tensor: codes copied from an integer tensor ----
Tensor make_per_tensor_quantized_tensor_impl(const Tensor& self, const double& scale,
                                             const int64_t& zero_point) {
  const ScalarType qdt = quantized_dtype_of(self.dtype());
  Tensor out = new_qtensor(self.sizes(), make_intrusive<PerTensorAffineQuantizer>(qdt, scale, zero_point),
                           self.device(), self.suggest_memory_format());
  if (!out.is_meta()) {
    Tensor codes = codes_view(out);
    copy_(codes, self);
  }
  return out;
}

Tensor make_per_channel_quantized_tensor_impl(const Tensor& self, const Tensor& scale,
                                              const Tensor& zero_point, const int64_t& axis) {
  const ScalarType qdt = quantized_dtype_of(self.dtype());
  QuantizerPtr q = make_per_channel_affine_quantizer(scale, zero_point, axis, qdt);
  check_per_channel(false, self, axis, quantizer_channels(*q));
  Tensor out = new_qtensor(self.sizes(), q, self.device(), self.suggest_memory_format());
  if (!out.is_meta()) {
    Tensor codes = codes_view(out);
    copy_(codes, self);
  }
  return out;
}

}  // namespace

// ---- schema-shaped frontends and the public API ----
Tensor quantize_per_tensor(const Tensor& self, double scale, int64_t zero_point, ScalarType dtype) {
  return dispatch::call<quantize_per_tensor_impl>(OpId::quantize_per_tensor, self, scale,
                                                  zero_point, dtype);
}
Tensor quantize_per_tensor(const Tensor& self, const Tensor& scale, const Tensor& zero_point,
                           ScalarType dtype) {
  return dispatch::call<quantize_per_tensor_tensor_qparams_impl>(
      OpId::quantize_per_tensor_tensor_qparams, self, scale, zero_point, dtype);
}
std::vector<Tensor> quantize_per_tensor(const std::vector<Tensor>& tensors, const Tensor& scales,
                                        const Tensor& zero_points, ScalarType dtype) {
  return dispatch::call<quantize_per_tensor_tensors_impl>(OpId::quantize_per_tensor_tensors,
                                                          tensors, scales, zero_points, dtype);
}
Tensor quantize_per_channel(const Tensor& self, const Tensor& scales, const Tensor& zero_points,
                            int64_t axis, ScalarType dtype) {
  return dispatch::call<quantize_per_channel_impl>(OpId::quantize_per_channel, self, scales,
                                                   zero_points, axis, dtype);
}
Tensor dequantize(const Tensor& self) {
  return dispatch::call<dequantize_impl>(OpId::dequantize_self, self);
}
std::vector<Tensor> dequantize(const std::vector<Tensor>& tensors) {
  return dispatch::call<dequantize_tensors_impl>(OpId::dequantize_tensors, tensors);
}
Tensor int_repr(const Tensor& self) { return dispatch::call<int_repr_impl>(OpId::int_repr, self); }
double q_scale(const Tensor& self) { return dispatch::call<q_scale_impl>(OpId::q_scale, self); }
int64_t q_zero_point(const Tensor& self) {
  return dispatch::call<q_zero_point_impl>(OpId::q_zero_point, self);
}
Tensor q_per_channel_scales(const Tensor& self) {
  return dispatch::call<q_per_channel_scales_impl>(OpId::q_per_channel_scales, self);
}
Tensor q_per_channel_zero_points(const Tensor& self) {
  return dispatch::call<q_per_channel_zero_points_impl>(OpId::q_per_channel_zero_points, self);
}
int64_t q_per_channel_axis(const Tensor& self) {
  return dispatch::call<q_per_channel_axis_impl>(OpId::q_per_channel_axis, self);
}
QScheme qscheme(const Tensor& self) { return dispatch::call<qscheme_impl>(OpId::qscheme, self); }

namespace {
Tensor empty_affine_quantized_op(IntArrayRef size, OptDtype dtype, OptInt layout, OptDevice device,
                                 OptBool pin, double scale, int64_t zero_point, OptInt memory_format) {
  return dispatch::call<empty_affine_quantized_impl>(OpId::_empty_affine_quantized, size, dtype,
                                                     layout, device, pin, scale, zero_point,
                                                     memory_format);
}
Tensor empty_per_channel_affine_quantized_op(IntArrayRef size, const Tensor& scales,
                                             const Tensor& zero_points, int64_t axis,
                                             OptDtype dtype, OptInt layout, OptDevice device,
                                             OptBool pin, OptInt memory_format) {
  return dispatch::call<empty_per_channel_affine_quantized_impl>(
      OpId::_empty_per_channel_affine_quantized, size, scales, zero_points, axis, dtype, layout,
      device, pin, memory_format);
}
}  // namespace

Tensor _empty_affine_quantized(IntArrayRef size, ScalarType dtype, double scale,
                               int64_t zero_point, MemoryFormat memory_format,
                               std::optional<Device> device) {
  return empty_affine_quantized_op(size, dtype, std::nullopt, device, std::nullopt, scale,
                                   zero_point, memory_format_to_int(memory_format));
}
Tensor _empty_per_channel_affine_quantized(IntArrayRef size, const Tensor& scales,
                                           const Tensor& zero_points, int64_t axis,
                                           ScalarType dtype, MemoryFormat memory_format,
                                           std::optional<Device> device) {
  return empty_per_channel_affine_quantized_op(size, scales, zero_points, axis, dtype,
                                               std::nullopt, device, std::nullopt,
                                               memory_format_to_int(memory_format));
}
Tensor _make_per_tensor_quantized_tensor(const Tensor& self, double scale, int64_t zero_point) {
  return dispatch::call<make_per_tensor_quantized_tensor_impl>(
      OpId::_make_per_tensor_quantized_tensor, self, scale, zero_point);
}
Tensor _make_per_channel_quantized_tensor(const Tensor& self, const Tensor& scale,
                                          const Tensor& zero_point, int64_t axis) {
  return dispatch::call<make_per_channel_quantized_tensor_impl>(
      OpId::_make_per_channel_quantized_tensor, self, scale, zero_point, axis);
}

// ---- Tensor methods ----
Tensor Tensor::dequantize() const { return ember::dequantize(*this); }
Tensor Tensor::int_repr() const { return ember::int_repr(*this); }
double Tensor::q_scale() const { return ember::q_scale(*this); }
int64_t Tensor::q_zero_point() const { return ember::q_zero_point(*this); }
Tensor Tensor::q_per_channel_scales() const { return ember::q_per_channel_scales(*this); }
Tensor Tensor::q_per_channel_zero_points() const { return ember::q_per_channel_zero_points(*this); }
int64_t Tensor::q_per_channel_axis() const { return ember::q_per_channel_axis(*this); }
QScheme Tensor::qscheme() const { return ember::qscheme(*this); }

// ---- registration ----
EMBER_REGISTER_OP(quantize_per_tensor,
                  static_cast<Tensor (*)(const Tensor&, double, int64_t, ScalarType)>(&quantize_per_tensor));
EMBER_REGISTER_OP(quantize_per_tensor_tensor_qparams,
                  static_cast<Tensor (*)(const Tensor&, const Tensor&, const Tensor&, ScalarType)>(
                      &quantize_per_tensor));
EMBER_REGISTER_OP(quantize_per_tensor_tensors,
                  static_cast<std::vector<Tensor> (*)(const std::vector<Tensor>&, const Tensor&,
                                                      const Tensor&, ScalarType)>(&quantize_per_tensor));
EMBER_REGISTER_OP(quantize_per_channel, &quantize_per_channel);
EMBER_REGISTER_OP(dequantize_self, static_cast<Tensor (*)(const Tensor&)>(&dequantize));
EMBER_REGISTER_OP(dequantize_tensors,
                  static_cast<std::vector<Tensor> (*)(const std::vector<Tensor>&)>(&dequantize));
EMBER_REGISTER_OP(int_repr, static_cast<Tensor (*)(const Tensor&)>(&int_repr));
EMBER_REGISTER_OP(q_scale, static_cast<double (*)(const Tensor&)>(&q_scale));
EMBER_REGISTER_OP(q_zero_point, static_cast<int64_t (*)(const Tensor&)>(&q_zero_point));
EMBER_REGISTER_OP(q_per_channel_scales, static_cast<Tensor (*)(const Tensor&)>(&q_per_channel_scales));
EMBER_REGISTER_OP(q_per_channel_zero_points,
                  static_cast<Tensor (*)(const Tensor&)>(&q_per_channel_zero_points));
EMBER_REGISTER_OP(q_per_channel_axis, static_cast<int64_t (*)(const Tensor&)>(&q_per_channel_axis));
EMBER_REGISTER_OP(qscheme, static_cast<QScheme (*)(const Tensor&)>(&qscheme));
EMBER_REGISTER_OP(_empty_affine_quantized, &empty_affine_quantized_op);
EMBER_REGISTER_OP(_empty_per_channel_affine_quantized, &empty_per_channel_affine_quantized_op);
EMBER_REGISTER_OP(_make_per_tensor_quantized_tensor, &_make_per_tensor_quantized_tensor);
EMBER_REGISTER_OP(_make_per_channel_quantized_tensor, &_make_per_channel_quantized_tensor);

namespace {
[[maybe_unused]] const bool registered_quantized_kernels = [] {
  using dispatch::register_quantized;
  register_quantized(OpId::dequantize_self, &dequantize_quantized);
  register_quantized(OpId::dequantize_tensors, &dequantize_tensors_quantized);
  register_quantized(OpId::int_repr, &int_repr_quantized);
  register_quantized(OpId::q_scale, &q_scale_quantized);
  register_quantized(OpId::q_zero_point, &q_zero_point_quantized);
  register_quantized(OpId::q_per_channel_scales, &q_per_channel_scales_quantized);
  register_quantized(OpId::q_per_channel_zero_points, &q_per_channel_zero_points_quantized);
  register_quantized(OpId::q_per_channel_axis, &q_per_channel_axis_quantized);
  register_quantized(OpId::qscheme, &qscheme_quantized);
  return true;
}();
}  // namespace

}  // namespace ember
