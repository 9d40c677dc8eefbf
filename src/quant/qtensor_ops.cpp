// What works on a quantized tensor besides the quantize / dequantize ops: views and shape ops,
// clone, copy_, fill_, empty_like / full_like, the comparisons, equal. Each is a QuantizedCPU
// kernel of the op's row; every other op on a quantized tensor has no kernel and raises
// PyTorch's NotImplementedError (the dispatcher's no_kernel_error, naming the op PyTorch names).
//
// Note [Quantized views]
// The geometry of a view is computed by the op's plain implementation, reached by calling the op
// again with the QuantizedCPU key excluded (below_quantized); it keeps the input's quantizer
// (ops::make_view). Per-tensor quantizers are then right as they are. A per-channel quantizer
// names a dim (its axis) and holds one scale per index of it, so each view fixes it up as
// PyTorch 1.13 does: select / unsqueeze / squeeze shift the axis, slicing along it slices the
// scales, a view that leaves one channel becomes per-tensor, squeezing the axis is refused, and
// the ops that set arbitrary strides (transpose, permute, expand, as_strided) are refused with
// PyTorch's "Setting strides is possible only on uniformly quantized tensor". Two PyTorch 1.13
// bugs are not reproduced: selecting a dim after the axis keeps the axis (PyTorch decrements
// it), and view / reshape keep the channel dim as a dim or refuse (PyTorch keeps the axis number
// whatever the new shape, describing the wrong dim).
#include "../dispatch/boxing.h"
#include "ember/ops/pointwise.h"
#include "ember/ops/copy.h"
#include "ember/ops/factory.h"
#include "ember/ops/index_ops.h"
#include "ember/ops/indexing.h"
#include "ember/ops/view.h"
#include "quantize_kernels.h"
#include "quantizer.h"

namespace ember {

using dispatch::OpId;

namespace {

// Runs `f` (a call of the op's frontend) on the op's plain implementation.
template <class F>
auto below_quantized(F&& f) {
  dispatch::ExcludeKeysGuard g(DispatchKey::QuantizedCPU);
  return f();
}

const PerChannelAffineQuantizer* per_channel(const Tensor& t) {
  return as_per_channel(get_quantizer(t));
}

// Note [Views of float-qparams tensors]
// PyTorch 1.13 keeps a per_channel_affine_float_qparams quantizer unchanged through the views
// that take the tensor's strides (view, reshape, unsqueeze, squeeze, detach: the axis is not
// moved, so a view that moves the channel dim fails in dequantize with "length of scales must
// equal to channel"), refuses the ones that set strides (slicing, split, select off the axis:
// "... uniformly or per channel quantized tensors"; transpose and the like: "... uniformly
// quantized tensor"), and turns a select along the axis into a per-tensor tensor whose zero
// point is the float zero point truncated to an integer. ember does the same.
const PerChannelAffineFloatQParamsQuantizer* float_qparams(const Tensor& t) {
  return as_per_channel_float_qparams(get_quantizer(t));
}
bool any_per_channel(const Tensor& t) { return per_channel(t) || float_qparams(t); }
[[noreturn]] void refuse_float_qparams_strides() {
  EMBER_FAIL("Setting strides is possible only on uniformly or per channel quantized tensors");
}

// The quantizer of a view that keeps channels [start, start + step * k) of a per-channel
// quantizer (slice along the axis), with the axis moved to `axis`; one channel left: per-tensor.
QuantizerPtr channels_quantizer(const PerChannelAffineQuantizer& pc, const Tensor& scales,
                                const Tensor& zero_points, int64_t axis) {
  if (scales.numel() == 1) {
    return make_intrusive<PerTensorAffineQuantizer>(pc.dtype(), scales.item().to<double>(),
                                                    zero_points.item().to<int64_t>());
  }
  return make_per_channel_affine_quantizer(scales, zero_points, axis, pc.dtype());
}

void set_quantizer(const Tensor& t, QuantizerPtr q) { t.impl()->set_quantizer(std::move(q)); }

[[noreturn]] void refuse_strides() {
  EMBER_FAIL("Setting strides is possible only on uniformly quantized tensor");
}

// PyTorch's bound check of a view (setStorage) counts a sub-byte tensor's elements as bytes
// (itemsize 1) against its storage's bytes (Note [Sub-byte quantized dtypes]): the same check
// here, with its text, so that no view of packed codes reads past them.
Tensor check_sub_byte_view(Tensor out) {
  if (!is_sub_byte(out.dtype()) || out.numel() == 0 || out.is_meta()) return out;
  int64_t need = out.storage_offset() + 1;
  for (int64_t d = 0; d < out.dim(); ++d) need += (out.size(d) - 1) * out.stride(d);
  const auto have = static_cast<int64_t>(out.impl()->storage()->nbytes());
  EMBER_CHECK(need <= have, "setStorage: sizes ", out.sizes(), ", strides ", out.strides(),
              ", storage offset ", out.storage_offset(), ", and itemsize 1 requiring a storage "
              "size of ", need, " are out of bounds for storage of size ", have);
  return out;
}

// ---- views ----
// Where the per-channel axis of `old_sizes` lands in `new_sizes`: the new dim with the same size
// and the same number of elements before it (Note [Quantized views]).
int64_t mapped_axis(IntArrayRef old_sizes, IntArrayRef new_sizes, int64_t axis) {
  int64_t before = 1;
  for (int64_t d = 0; d < axis; ++d) before *= old_sizes[d];
  int64_t acc = 1;
  for (size_t j = 0; j < new_sizes.size(); ++j) {
    if (acc == before && new_sizes[j] == old_sizes[axis]) return static_cast<int64_t>(j);
    acc *= new_sizes[j];
  }
  EMBER_FAIL("view / reshape of a per-channel quantized tensor must keep its channel axis (dim ",
             axis, " of size ", old_sizes[axis], " in ", size_str(old_sizes),
             ") as a dimension; the new shape ", size_str(new_sizes), " does not");
}

Tensor fix_view_axis(const Tensor& self, Tensor out) {
  check_sub_byte_view(out);
  if (const auto* pc = per_channel(self)) {
    const int64_t axis = mapped_axis(self.sizes(), out.sizes(), pc->axis());
    if (axis != pc->axis())
      set_quantizer(out, make_per_channel_affine_quantizer(pc->scales(), pc->zero_points(), axis, pc->dtype()));
  }
  return out;
}

Tensor q_view(const Tensor& self, const IntArrayRef& size) {
  return fix_view_axis(self, below_quantized([&] { return self.view(size); }));
}
// reshape of a viewable layout is _reshape_alias (as PyTorch 1.13): a view like any other.
Tensor q_reshape_alias(const Tensor& self, const IntArrayRef& size, const IntArrayRef& stride) {
  return fix_view_axis(self, below_quantized([&] { return _reshape_alias(self, size, stride); }));
}
Tensor q_unsafe_view(const Tensor& self, const IntArrayRef& size) {
  return fix_view_axis(self, below_quantized([&] { return _unsafe_view(self, size); }));
}

Tensor q_t(const Tensor& self) {
  if (any_per_channel(self)) refuse_strides();
  return below_quantized([&] { return self.t(); });
}
Tensor q_transpose(const Tensor& self, const int64_t& dim0, const int64_t& dim1) {
  if (any_per_channel(self)) refuse_strides();
  return below_quantized([&] { return self.transpose(dim0, dim1); });
}
Tensor q_permute(const Tensor& self, const IntArrayRef& dims) {
  if (any_per_channel(self)) refuse_strides();
  return below_quantized([&] { return self.permute(dims); });
}
Tensor q_expand(const Tensor& self, const IntArrayRef& size, const bool& /*implicit*/) {
  if (any_per_channel(self)) refuse_strides();
  return below_quantized([&] { return expand(self, size); });
}
Tensor q_as_strided(const Tensor& self, const IntArrayRef& size, const IntArrayRef& stride,
                    const std::optional<int64_t>& offset) {
  if (any_per_channel(self)) refuse_strides();
  return below_quantized([&] { return self.as_strided(size, stride, offset); });
}

Tensor q_unsqueeze(const Tensor& self, const int64_t& dim) {
  Tensor out = below_quantized([&] { return self.unsqueeze(dim); });
  if (const auto* pc = per_channel(self)) {
    const int64_t d = wrap_dim(dim, self.dim() + 1);
    if (d <= pc->axis())
      set_quantizer(out, make_per_channel_affine_quantizer(pc->scales(), pc->zero_points(),
                                                           pc->axis() + 1, pc->dtype()));
  }
  return out;
}

// squeeze() / squeeze(dim): the axis moves down past the squeezed dims before it; squeezing the
// axis itself is refused (PyTorch's text).
Tensor fix_squeeze(const Tensor& self, Tensor out, std::optional<int64_t> only_dim) {
  if (const auto* pc = per_channel(self)) {
    int64_t shift = 0;
    for (int64_t d = 0; d < self.dim(); ++d) {
      if ((only_dim && d != *only_dim) || self.size(d) != 1) continue;
      EMBER_CHECK(d != pc->axis(),
                  "Squeeze is only possible on non-axis dimension for Per-Channel Quantized Tensors.");
      if (d < pc->axis()) ++shift;
    }
    if (shift)
      set_quantizer(out, make_per_channel_affine_quantizer(pc->scales(), pc->zero_points(),
                                                           pc->axis() - shift, pc->dtype()));
  }
  return out;
}
Tensor q_squeeze(const Tensor& self) {
  return fix_squeeze(self, below_quantized([&] { return self.squeeze(); }), std::nullopt);
}
Tensor q_squeeze_dim(const Tensor& self, const int64_t& dim) {
  Tensor out = below_quantized([&] { return self.squeeze(dim); });
  return fix_squeeze(self, out, self.dim() == 0 ? 0 : wrap_dim(dim, self.dim()));
}

// The quantizer of self[..., start:end:step, ...] along `d` (already wrapped and clamped).
void fix_slice(const Tensor& self, const Tensor& out, int64_t d, int64_t start, int64_t step) {
  const auto* pc = per_channel(self);
  if (!pc) return;
  Tensor s = pc->scales(), z = pc->zero_points();
  if (d == pc->axis()) {
    const int64_t n = out.size(d);
    s = s.slice(0, start, start + n * step, step);
    z = z.slice(0, start, start + n * step, step);
  }
  if (d == pc->axis() || s.numel() == 1) set_quantizer(out, channels_quantizer(*pc, s, z, pc->axis()));
}

// The start a slice kept (PyTorch's clamping of start / end), read back from the view's offset.
int64_t slice_start(const Tensor& self, const Tensor& out, int64_t d) {
  const int64_t stride = self.stride(d);
  if (out.numel() == 0 || stride == 0) return 0;
  return (out.storage_offset() - self.storage_offset()) / stride;
}

Tensor q_slice(const Tensor& self, const int64_t& dim, const std::optional<int64_t>& start,
               const std::optional<int64_t>& end, const int64_t& step) {
  if (float_qparams(self)) refuse_float_qparams_strides();
  Tensor out = check_sub_byte_view(below_quantized([&] { return self.slice(dim, start, end, step); }));
  if (per_channel(self)) {
    const int64_t d = wrap_dim(dim, self.dim());
    fix_slice(self, out, d, slice_start(self, out, d), step);
  }
  return out;
}

void fix_select(const Tensor& self, const Tensor& out, int64_t d, int64_t index) {
  if (const auto* pf = float_qparams(self)) {
    if (d != pf->axis()) refuse_float_qparams_strides();
    const int64_t i = index < 0 ? index + self.size(d) : index;
    set_quantizer(out, make_intrusive<PerTensorAffineQuantizer>(
                           pf->dtype(), static_cast<double>(pf->scales().data_ptr<float>()[i]),
                           static_cast<int64_t>(pf->zero_points().data_ptr<float>()[i])));
    return;
  }
  const auto* pc = per_channel(self);
  if (!pc) return;
  if (d == pc->axis()) {
    const int64_t i = index < 0 ? index + self.size(d) : index;
    set_quantizer(out, make_intrusive<PerTensorAffineQuantizer>(
                           pc->dtype(), pc->scales().data_ptr<double>()[i],
                           pc->zero_points().data_ptr<int64_t>()[i]));
  } else {
    set_quantizer(out, channels_quantizer(*pc, pc->scales(), pc->zero_points(),
                                          d < pc->axis() ? pc->axis() - 1 : pc->axis()));
  }
}

Tensor q_select(const Tensor& self, const int64_t& dim, const int64_t& index) {
  if (const auto* pf = float_qparams(self); pf && wrap_dim(dim, self.dim()) != pf->axis())
    refuse_float_qparams_strides();
  Tensor out = check_sub_byte_view(below_quantized([&] { return self.select(dim, index); }));
  fix_select(self, out, wrap_dim(dim, self.dim()), index);
  return out;
}

std::vector<Tensor> fix_pieces(const Tensor& self, std::vector<Tensor> pieces, int64_t dim) {
  if (float_qparams(self)) refuse_float_qparams_strides();
  if (!per_channel(self)) return pieces;
  const int64_t d = wrap_dim(dim, self.dim());
  for (const Tensor& p : pieces) fix_slice(self, p, d, slice_start(self, p, d), 1);
  return pieces;
}
std::vector<Tensor> q_split(const Tensor& self, const int64_t& split_size, const int64_t& dim) {
  return fix_pieces(self, below_quantized([&] { return self.split(split_size, dim); }), dim);
}
std::vector<Tensor> q_split_with_sizes(const Tensor& self, const IntArrayRef& sizes,
                                       const int64_t& dim) {
  return fix_pieces(self, below_quantized([&] { return self.split(sizes, dim); }), dim);
}
std::vector<Tensor> q_unbind(const Tensor& self, const int64_t& dim) {
  if (const auto* pf = float_qparams(self); pf && wrap_dim(dim, self.dim()) != pf->axis())
    refuse_float_qparams_strides();
  std::vector<Tensor> pieces = below_quantized([&] { return self.unbind(dim); });
  if (any_per_channel(self)) {
    const int64_t d = wrap_dim(dim, self.dim());
    for (size_t i = 0; i < pieces.size(); ++i) fix_select(self, pieces[i], d, static_cast<int64_t>(i));
  }
  return pieces;
}

Tensor q_detach(const Tensor& self) { return below_quantized([&] { return self.detach(); }); }
Tensor q_alias(const Tensor& self) { return below_quantized([&] { return alias(self); }); }

// ---- copies ----
// A new quantized tensor like self (same quantizer) in `format` on `device`.
Tensor new_like(const Tensor& self, MemoryFormat format, Device device) {
  return new_qtensor(self.sizes(), get_quantizer_ptr(self), device, format);
}

void copy_codes(const Tensor& dst, const Tensor& src) {
  if (dst.is_meta() || dst.numel() == 0) return;
  Tensor d = codes_view(dst);
  copy_(d, codes_view(src));
}

// PyTorch's quantized clone: no memory format means contiguous; preserve means the suggested one.
Tensor q_clone(const Tensor& self, const std::optional<int64_t>& memory_format) {
  EMBER_CHECK(!float_qparams(self), "clone for quantized Tensor only works for       "
              "PerTensorAffine and PerChannelAffine qscheme right now");
  MemoryFormat f = memory_format ? memory_format_from_int(*memory_format) : MemoryFormat::Contiguous;
  if (f == MemoryFormat::Preserve) f = self.suggest_memory_format();
  // PyTorch 1.13's clone copies element by element, which it has no kernel for.
  EMBER_CHECK(!is_sub_byte(self.dtype()), "\"copy_kernel\" not implemented for '",
              scalar_type_name(self.dtype()), "'");
  Tensor out = new_like(self, f, self.device());
  copy_codes(out, self);
  return out;
}

// Quantizes a float tensor into self's codes with self's quantizer (PyTorch's
// quantized_copy_from_float_, with its checks).
void quantize_into(const Tensor& self, const Tensor& src) {
  EMBER_CHECK(src.dtype() == kFloat32, "Quantized copy only works with kFloat as source Tensor");
  EMBER_CHECK(self.is_contiguous() && src.is_contiguous(),
              "Quantized copy only works with contiguous and NHWC Tensors");
  EMBER_CHECK(self.sizes().equals(src.sizes()),
              "Quantized copy only works with Tensors with the same shape");
  // PyTorch's copy reads float zero points as int64 here.
  EMBER_CHECK(!float_qparams(self), "expected scalar type Long but found Float");
  if (self.is_meta() || self.numel() == 0) return;
  const Quantizer& q = get_quantizer(self);
  visit_codes(self.dtype(), [&]<class T>() {
    T* out = static_cast<T*>(self.data_ptr());
    if (const auto* pt = as_per_tensor(q)) {
      qkernels::quantize(src.data_ptr<float>(), out, self.numel(), pt->scale(), pt->zero_point());
      return;
    }
    const auto* pc = as_per_channel(q);
    const int64_t axis = pc->axis();
    EMBER_CHECK(axis >= 0 && axis < self.dim() && self.size(axis) == pc->channels(),
                "length of scales must equal to channel");
    const int64_t inner = self.stride(axis), channels = pc->channels();
    const int64_t outer = channels * inner == 0 ? 0 : self.numel() / (channels * inner);
    qkernels::quantize_per_channel(src.data_ptr<float>(), out, outer, channels, inner,
                                   pc->scales().data_ptr<double>(),
                                   pc->zero_points().data_ptr<int64_t>());
  });
}

Tensor q_copy_(const Tensor& self, const Tensor& src, const bool&) {
  EMBER_CHECK(self.is_quantized(),
              "Copying from quantized Tensor to non-quantized Tensor is not allowed, please use "
              "dequantize to get a float Tensor from a quantized Tensor");
  if (src.is_quantized()) {
    EMBER_CHECK(get_quantizer(self).qscheme() == get_quantizer(src).qscheme(),
                "Quantized Copy only works with same qscheme");
    EMBER_CHECK(self.dtype() == src.dtype(),
                "Expected self.scalar_type() == src.scalar_type() to be true, but got false.  "
                "(Could this error message be improved?  If so, please report an enhancement "
                "request to PyTorch.)");
    // PyTorch's copy_ gives self the source's quantizer along with its codes.
    Tensor codes = codes_view(self);
    copy_(codes, codes_view(src));
    set_quantizer(self, get_quantizer_ptr(src));
  } else {
    quantize_into(self, src);
  }
  self.impl()->bump_version();
  return self;
}

// fill_ quantizes the value with self's qparams (PyTorch: self.copy_(full(sizes, value))).
Tensor q_fill_(const Tensor& self, const Scalar& value) {
  Tensor f = full(self.sizes(), value, TensorOptions(kFloat32).device(self.device()));
  return q_copy_(self, f, false);
}

Tensor q_to_copy(const Tensor& self, const std::optional<ScalarType>& dtype,
                 const std::optional<int64_t>&, const std::optional<Device>& device,
                 const std::optional<bool>&, const bool&, const std::optional<int64_t>& memory_format) {
  const ScalarType dt = dtype.value_or(self.dtype());
  check_quantized_dtype(dt);
  EMBER_CHECK(dt == self.dtype(),
              "Expected self.scalar_type() == src.scalar_type() to be true, but got false.  "
              "(Could this error message be improved?  If so, please report an enhancement "
              "request to PyTorch.)");
  const Device dev = device.value_or(self.device());
  EMBER_CHECK(!self.is_meta() || dev.is_meta(),
              "Cannot copy out of meta tensor; no data! (a quantized meta tensor has shapes and "
              "qparams only)");
  MemoryFormat f = memory_format ? memory_format_from_int(*memory_format) : MemoryFormat::Preserve;
  if (f == MemoryFormat::Preserve) f = self.suggest_memory_format();
  Tensor out = new_like(self, f, dev);
  copy_codes(out, self);
  return out;
}

// ---- indexing: the codes are indexed, the quantizer kept (per-tensor only, as PyTorch) ----
Tensor q_index_select(const Tensor& self, const int64_t& dim, const Tensor& index) {
  EMBER_CHECK(!any_per_channel(self),
              "Only per_tensor quantized quantized tensors are supported by index_select.");
  return qtensor_over(index_select(codes_view(self), dim, index), get_quantizer_ptr(self));
}

Tensor q_index(const Tensor& self, const Value::OptionalTensorList& indices) {
  EMBER_CHECK(!any_per_channel(self),
              "self.qscheme() == c10::kPerTensorAffine || self.qscheme() == c10::kPerTensorSymmetric "
              "INTERNAL ASSERT FAILED: advanced indexing of a per-channel quantized tensor");
  return qtensor_over(index(codes_view(self), indices), get_quantizer_ptr(self));
}

// The value is quantized with self's parameters and written where mask is set.
Tensor masked_fill_codes(const Tensor& self, const Tensor& mask, double value) {
  const auto* pt = as_per_tensor(get_quantizer(self));
  EMBER_CHECK(pt, "masked_fill__quantized_cpu for quantized tensors is currently only supported "
                  "for per tensor quantized tensors");
  const int64_t code = quantize_val(inv_scale_of(pt->scale()), pt->zero_point(),
                                    static_cast<float>(value), qmin_of(self.dtype()),
                                    qmax_of(self.dtype()));
  Tensor codes = codes_view(self);
  masked_fill_(codes, mask, Scalar(code));
  return self;
}
Tensor q_masked_fill_scalar(const Tensor& self, const Tensor& mask, const Scalar& value) {
  return masked_fill_codes(self, mask, value.to<double>());
}
Tensor q_masked_fill_tensor(const Tensor& self, const Tensor& mask, const Tensor& value) {
  EMBER_CHECK(value.dim() == 0, "masked_fill_ only supports a 0-dimensional value tensor, but got "
                                "tensor with ", value.dim(), " dimension(s).");
  return masked_fill_codes(self, mask, value.item().to<double>());
}

// ---- factories like a quantized tensor ----
using OptDtype = std::optional<ScalarType>;
using OptInt = std::optional<int64_t>;
using OptDevice = std::optional<Device>;
using OptBool = std::optional<bool>;

// caffe2::TypeMeta's names, which PyTorch's empty_like message prints.
const char* type_meta_name(ScalarType t) {
  switch (t) {
    case kFloat32: return "float";
    case kFloat64: return "double";
    case kFloat16: return "c10::Half";
    case kBFloat16: return "c10::BFloat16";
    case kInt8: return "signed char";
    case kUInt8: return "unsigned char";
    case kInt16: return "short int";
    case kInt32: return "int";
    case kInt64: return "long int";
    case kBool: return "bool";
    case kQUInt8: return "c10::quint8";
    case kQInt8: return "c10::qint8";
    case kQInt32: return "c10::qint32";
    case kQUInt4x2: return "c10::quint4x2";
    case kQUInt2x4: return "c10::quint2x4";
    default: return "?";
  }
}

Tensor q_empty_like(const Tensor& self, const OptDtype& dtype, const OptInt&, const OptDevice& device,
                    const OptBool&, const OptInt& memory_format) {
  EMBER_CHECK(!dtype || *dtype == self.dtype(),
              "It is currently not supported to specify a dtype that doesn't match the input "
              "tensor's dtype via empty_like.  Specified: ", type_meta_name(dtype.value_or(self.dtype())),
              " Input tensor's dtype: ", type_meta_name(self.dtype()));
  EMBER_CHECK(!float_qparams(self), "Unsupported qscheme: per_channel_affine_float_qparams");
  MemoryFormat f = memory_format ? memory_format_from_int(*memory_format) : MemoryFormat::Preserve;
  if (f == MemoryFormat::Preserve) f = self.suggest_memory_format();
  return new_like(self, f, device.value_or(self.device()));
}

Tensor q_full_like(const Tensor& self, const Scalar& value, const OptDtype& dtype,
                   const OptInt& layout, const OptDevice& device, const OptBool& pin,
                   const OptInt& memory_format) {
  Tensor out = q_empty_like(self, dtype, layout, device, pin, memory_format);
  return q_fill_(out, value);
}
Tensor q_ones_like(const Tensor& self, const OptDtype& dtype, const OptInt& layout,
                   const OptDevice& device, const OptBool& pin, const OptInt& memory_format) {
  return q_full_like(self, 1, dtype, layout, device, pin, memory_format);
}
// PyTorch's zeros_like calls zero_, which quantized tensors lack.
Tensor q_zeros_like(const Tensor&, const OptDtype&, const OptInt&, const OptDevice&, const OptBool&,
                    const OptInt&) {
  dispatch::no_kernel_error(OpId::zero_, "QuantizedCPU");
}

// ---- comparisons: on the dequantized values (PyTorch's eq_quantized_cpu and friends) ----
Tensor float_of(const Tensor& t) { return t.is_quantized() ? dequantize(t) : t; }

template <Tensor (*Op)(const Tensor&, const Tensor&)>
Tensor q_compare(const Tensor& self, const Tensor& other) {
  return Op(float_of(self), float_of(other));
}

// ---- arithmetic (and the other type-promoting binary ops): PyTorch refuses them on quantized
// tensors, with the error of the step that fails
// first: type promotion (a quantized dtype meets a float wrapped number or another dimensioned
// dtype), allocating a quantized result (an int scalar: "empty_strided not supported"), or the
// missing kernel (two quantized tensors: 'aten::add.out'). This is PyTorch's result_type, which
// promotes across priority classes where ember's (type_promotion.cpp) need not.
ScalarType torch_result_type(const Tensor& a, const Tensor& b) {
  ScalarType cls[3] = {ScalarType::Undefined, ScalarType::Undefined, ScalarType::Undefined};
  for (const Tensor* t : {&a, &b}) {
    const bool wrapped = t->impl()->is_wrapped_number();
    ScalarType cur = t->dtype();
    if (wrapped && is_floating(cur)) cur = default_dtype();
    ScalarType& slot = cls[wrapped ? 2 : t->dim() == 0 ? 1 : 0];
    slot = slot == ScalarType::Undefined ? cur : promote_types(slot, cur);
  }
  auto combine = [](ScalarType higher, ScalarType lower) {
    if (is_floating(higher)) return higher;
    if (higher == kBool || is_floating(lower)) {
      if (higher == ScalarType::Undefined) return lower;
      if (lower == ScalarType::Undefined) return higher;
      return promote_types(higher, lower);
    }
    return higher != ScalarType::Undefined ? higher : lower;
  };
  return combine(cls[0], combine(cls[1], cls[2]));
}

template <OpId Op>
[[noreturn]] void refuse_arithmetic(const Tensor& a, const Tensor& b) {
  if (!(a.is_quantized() && b.is_quantized()) && is_quantized(torch_result_type(a, b)))
    EMBER_FAIL("empty_strided not supported on quantized tensors yet see "
               "https://github.com/pytorch/pytorch/issues/74540");
  dispatch::no_kernel_error(Op, "QuantizedCPU");
}
template <OpId Op>
Tensor q_arith_alpha(const Tensor& a, const Tensor& b, const Scalar&) { refuse_arithmetic<Op>(a, b); }
template <OpId Op>
Tensor q_arith(const Tensor& a, const Tensor& b) { refuse_arithmetic<Op>(a, b); }

// PyTorch's backward kernels (TensorIterator binary ops) promote their two tensors first, in the
// order their meta functions add them: threshold_backward adds self before grad.
template <OpId Op>
Tensor q_backward2(const Tensor& grad, const Tensor& other) { refuse_arithmetic<Op>(grad, other); }
Tensor q_threshold_backward(const Tensor& grad, const Tensor& self, const Scalar&) {
  refuse_arithmetic<OpId::threshold_backward>(self, grad);
}
Tensor q_gelu_backward(const Tensor& grad, const Tensor& self, const std::string&) {
  refuse_arithmetic<OpId::gelu_backward>(grad, self);
}
// mul.Scalar / div.Scalar are mul / div with the scalar wrapped as a 0-d tensor.
template <OpId Op>
Tensor q_arith_scalar(const Tensor& self, const Scalar& other) {
  refuse_arithmetic<Op>(self, wrapped_scalar_tensor(other));
}

}  // namespace

Tensor empty_quantized(IntArrayRef size, const Tensor& qtensor, MemoryFormat memory_format,
                       std::optional<Device> device) {
  EMBER_CHECK(memory_format != MemoryFormat::Preserve,
              "Preserve memory format is unsupported by the contiguous operator.");
  return new_qtensor(size, get_quantizer_ptr(qtensor), device.value_or(qtensor.device()),
                     memory_format);
}

bool equal_quantized(const Tensor& self, const Tensor& other) {
  if (!self.is_quantized() || !other.is_quantized()) return false;
  if (!get_quantizer(self).equal_to(get_quantizer(other))) return false;
  if (!self.sizes().equals(other.sizes()) || self.dtype() != other.dtype()) return false;
  return equal(codes_view(self), codes_view(other));
}

namespace {
// Ops without a QuantizedCPU kernel whose error PyTorch 1.13 words with another overload's name
// (its structured kernels' out= overloads), measured by running each op on a quantized tensor.
constexpr std::pair<const char*, const char*> kQuantizedErrorNames[] = {
    {"aten::_log_softmax", "aten::_log_softmax.out"}, {"aten::_softmax", "aten::_softmax.out"},
    {"aten::abs", "aten::abs.out"}, {"aten::abs_", "aten::abs.out"},
    {"aten::adaptive_max_pool2d", "aten::adaptive_max_pool2d.out"},
    {"aten::add.Tensor", "aten::add.out"}, {"aten::add_.Tensor", "aten::add.out"},
    {"aten::sub.Tensor", "aten::sub.out"}, {"aten::sub_.Tensor", "aten::sub.out"},
    {"aten::mul.Tensor", "aten::mul.out"}, {"aten::mul_.Tensor", "aten::mul.out"},
    {"aten::div.Tensor", "aten::div.out"}, {"aten::div_.Tensor", "aten::div.out"},
    {"aten::all", "aten::all.all_out"}, {"aten::amax", "aten::amax.out"},
    {"aten::amin", "aten::amin.out"}, {"aten::any", "aten::any.all_out"},
    {"aten::any.dim", "aten::any.out"}, {"aten::argmax", "aten::argmax.out"},
    {"aten::argmin", "aten::argmin.out"}, {"aten::bitwise_not", "aten::bitwise_not.out"},
    {"aten::bmm", "aten::bmm.out"}, {"aten::clamp_", "aten::clamp.out"},
    {"aten::cos", "aten::cos.out"}, {"aten::cumsum", "aten::cumsum.out"},
    {"aten::exp", "aten::exp.out"}, {"aten::exp_", "aten::exp.out"},
    {"aten::expm1", "aten::expm1.out"}, {"aten::gather", "aten::gather.out"},
    {"aten::log", "aten::log.out"}, {"aten::log1p", "aten::log1p.out"},
    {"aten::logical_and", "aten::logical_and.out"}, {"aten::logical_not", "aten::logical_not.out"},
    {"aten::logical_or", "aten::logical_or.out"}, {"aten::logical_xor", "aten::logical_xor.out"},
    {"aten::max_pool2d_with_indices", "aten::max_pool2d_with_indices.out"},
    {"aten::mm", "aten::mm.out"}, {"aten::addmm", "aten::mm.out"}, {"aten::neg", "aten::neg.out"},
    {"aten::neg_", "aten::neg.out"}, {"aten::pow.Tensor_Scalar", "aten::pow.Tensor_Scalar_out"},
    {"aten::prod.dim_int", "aten::prod.int_out"},
    {"aten::replication_pad1d", "aten::replication_pad1d.out"},
    {"aten::replication_pad2d", "aten::replication_pad2d.out"}, {"aten::rsqrt", "aten::rsqrt.out"},
    {"aten::scatter.value", "aten::scatter.value_out"}, {"aten::sigmoid_", "aten::sigmoid.out"},
    {"aten::sign", "aten::sign.out"}, {"aten::silu", "aten::silu.out"},
    {"aten::silu_", "aten::silu.out"}, {"aten::sin", "aten::sin.out"},
    {"aten::sqrt", "aten::sqrt.out"}, {"aten::sqrt_", "aten::sqrt.out"},
    {"aten::sum", "aten::sum.IntList_out"}, {"aten::sum.dim_IntList", "aten::sum.IntList_out"},
    {"aten::native_group_norm", "aten::native_batch_norm"},
    {"aten::_softmax_backward_data", "aten::_softmax_backward_data.out"},
    {"aten::_log_softmax_backward_data", "aten::_log_softmax_backward_data.out"},
    {"aten::nll_loss_forward", "aten::nll_loss_forward.output"},
    // namesb: ember.special's Bessel functions (structured kernels in PyTorch)
    {"aten::special_airy_ai", "aten::special_airy_ai.out"},
    {"aten::special_bessel_j0", "aten::special_bessel_j0.out"},
    {"aten::special_bessel_j1", "aten::special_bessel_j1.out"},
    {"aten::special_bessel_y0", "aten::special_bessel_y0.out"},
    {"aten::special_bessel_y1", "aten::special_bessel_y1.out"},
    {"aten::special_modified_bessel_i0", "aten::special_modified_bessel_i0.out"},
    {"aten::special_modified_bessel_i1", "aten::special_modified_bessel_i1.out"},
    {"aten::special_modified_bessel_k0", "aten::special_modified_bessel_k0.out"},
    {"aten::special_modified_bessel_k1", "aten::special_modified_bessel_k1.out"},
    {"aten::special_scaled_modified_bessel_k0", "aten::special_scaled_modified_bessel_k0.out"},
    {"aten::special_scaled_modified_bessel_k1", "aten::special_scaled_modified_bessel_k1.out"},
    {"aten::special_spherical_bessel_j0", "aten::special_spherical_bessel_j0.out"},
};

[[maybe_unused]] const bool registered = [] {
  for (const auto& [ours, theirs] : kQuantizedErrorNames) {
    const std::string full = ours;
    const auto dot = full.find('.');
    const std::string name = full.substr(0, dot);
    const std::string overload = dot == std::string::npos ? "default" : full.substr(dot + 1);
    for (const OpHandle& op : all_ops()) {
      if (op.name() == name && op.overload() == overload)
        dispatch::set_quantized_error_name(static_cast<OpId>(op.id()), theirs);
    }
  }
  using dispatch::register_quantized;
  register_quantized(OpId::view, &q_view);
  register_quantized(OpId::_unsafe_view, &q_unsafe_view);
  register_quantized(OpId::_reshape_alias, &q_reshape_alias);
  register_quantized(OpId::t, &q_t);
  register_quantized(OpId::transpose_int, &q_transpose);
  register_quantized(OpId::permute, &q_permute);
  register_quantized(OpId::expand, &q_expand);
  register_quantized(OpId::as_strided, &q_as_strided);
  register_quantized(OpId::unsqueeze, &q_unsqueeze);
  register_quantized(OpId::squeeze, &q_squeeze);
  register_quantized(OpId::squeeze_dim, &q_squeeze_dim);
  register_quantized(OpId::slice_Tensor, &q_slice);
  register_quantized(OpId::select_int, &q_select);
  register_quantized(OpId::split_Tensor, &q_split);
  register_quantized(OpId::split_with_sizes, &q_split_with_sizes);
  register_quantized(OpId::unbind_int, &q_unbind);
  register_quantized(OpId::detach, &q_detach);
  register_quantized(OpId::alias, &q_alias);
  register_quantized(OpId::clone, &q_clone);
  register_quantized(OpId::copy_, &q_copy_);
  register_quantized(OpId::fill__Scalar, &q_fill_);
  register_quantized(OpId::_to_copy, &q_to_copy);
  register_quantized(OpId::empty_like, &q_empty_like);
  register_quantized(OpId::full_like, &q_full_like);
  register_quantized(OpId::ones_like, &q_ones_like);
  register_quantized(OpId::zeros_like, &q_zeros_like);
  register_quantized(OpId::add_Tensor, &q_arith_alpha<OpId::add_Tensor>);
  register_quantized(OpId::add__Tensor, &q_arith_alpha<OpId::add__Tensor>);
  register_quantized(OpId::sub_Tensor, &q_arith_alpha<OpId::sub_Tensor>);
  register_quantized(OpId::sub__Tensor, &q_arith_alpha<OpId::sub__Tensor>);
  register_quantized(OpId::mul_Tensor, &q_arith<OpId::mul_Tensor>);
  register_quantized(OpId::mul__Tensor, &q_arith<OpId::mul__Tensor>);
  register_quantized(OpId::div_Tensor, &q_arith<OpId::div_Tensor>);
  register_quantized(OpId::div__Tensor, &q_arith<OpId::div__Tensor>);
  register_quantized(OpId::remainder_Tensor, &q_arith<OpId::remainder_Tensor>);
  // namesb: the orthogonal polynomials and the incomplete gamma functions promote as arithmetic
  register_quantized(OpId::special_chebyshev_polynomial_t, &q_arith<OpId::special_chebyshev_polynomial_t>);
  register_quantized(OpId::special_chebyshev_polynomial_u, &q_arith<OpId::special_chebyshev_polynomial_u>);
  register_quantized(OpId::special_chebyshev_polynomial_v, &q_arith<OpId::special_chebyshev_polynomial_v>);
  register_quantized(OpId::special_chebyshev_polynomial_w, &q_arith<OpId::special_chebyshev_polynomial_w>);
  register_quantized(OpId::special_shifted_chebyshev_polynomial_t,
                     &q_arith<OpId::special_shifted_chebyshev_polynomial_t>);
  register_quantized(OpId::special_shifted_chebyshev_polynomial_u,
                     &q_arith<OpId::special_shifted_chebyshev_polynomial_u>);
  register_quantized(OpId::special_shifted_chebyshev_polynomial_v,
                     &q_arith<OpId::special_shifted_chebyshev_polynomial_v>);
  register_quantized(OpId::special_shifted_chebyshev_polynomial_w,
                     &q_arith<OpId::special_shifted_chebyshev_polynomial_w>);
  register_quantized(OpId::special_hermite_polynomial_h, &q_arith<OpId::special_hermite_polynomial_h>);
  register_quantized(OpId::special_hermite_polynomial_he, &q_arith<OpId::special_hermite_polynomial_he>);
  register_quantized(OpId::special_laguerre_polynomial_l, &q_arith<OpId::special_laguerre_polynomial_l>);
  register_quantized(OpId::special_legendre_polynomial_p, &q_arith<OpId::special_legendre_polynomial_p>);
  register_quantized(OpId::igamma, &q_arith<OpId::igamma>);
  register_quantized(OpId::igammac, &q_arith<OpId::igammac>);
  register_quantized(OpId::remainder__Tensor, &q_arith<OpId::remainder__Tensor>);
  register_quantized(OpId::pow_Tensor_Tensor, &q_arith<OpId::pow_Tensor_Tensor>);
  register_quantized(OpId::pow__Tensor, &q_arith<OpId::pow__Tensor>);
  register_quantized(OpId::maximum, &q_arith<OpId::maximum>);
  register_quantized(OpId::minimum, &q_arith<OpId::minimum>);
  register_quantized(OpId::bitwise_and_Tensor, &q_arith<OpId::bitwise_and_Tensor>);
  register_quantized(OpId::bitwise_or_Tensor, &q_arith<OpId::bitwise_or_Tensor>);
  register_quantized(OpId::bitwise_xor_Tensor, &q_arith<OpId::bitwise_xor_Tensor>);
  register_quantized(OpId::eq__Tensor, &q_arith<OpId::eq__Tensor>);
  register_quantized(OpId::ne__Tensor, &q_arith<OpId::ne__Tensor>);
  register_quantized(OpId::lt__Tensor, &q_arith<OpId::lt__Tensor>);
  register_quantized(OpId::le__Tensor, &q_arith<OpId::le__Tensor>);
  register_quantized(OpId::gt__Tensor, &q_arith<OpId::gt__Tensor>);
  register_quantized(OpId::ge__Tensor, &q_arith<OpId::ge__Tensor>);
  register_quantized(OpId::threshold_backward, &q_threshold_backward);
  register_quantized(OpId::gelu_backward, &q_gelu_backward);
  register_quantized(OpId::tanh_backward, &q_backward2<OpId::tanh_backward>);
  register_quantized(OpId::sigmoid_backward, &q_backward2<OpId::sigmoid_backward>);
  register_quantized(OpId::hardsigmoid_backward, &q_backward2<OpId::hardsigmoid_backward>);
  register_quantized(OpId::silu_backward, &q_backward2<OpId::silu_backward>);
  register_quantized(OpId::mul_Scalar, &q_arith_scalar<OpId::mul_Scalar>);
  register_quantized(OpId::div_Scalar, &q_arith_scalar<OpId::div_Scalar>);
  register_quantized(OpId::index_select, &q_index_select);
  register_quantized(OpId::index_Tensor, &q_index);
  register_quantized(OpId::masked_fill__Scalar, &q_masked_fill_scalar);
  register_quantized(OpId::masked_fill__Tensor, &q_masked_fill_tensor);
  register_quantized(OpId::eq_Tensor, &q_compare<eq>);
  register_quantized(OpId::ne_Tensor, &q_compare<ne>);
  register_quantized(OpId::lt_Tensor, &q_compare<lt>);
  register_quantized(OpId::le_Tensor, &q_compare<le>);
  register_quantized(OpId::gt_Tensor, &q_compare<gt>);
  register_quantized(OpId::ge_Tensor, &q_compare<ge>);
  return true;
}();
}  // namespace

}  // namespace ember
