// Tensors from a checkpoint's rebuild arguments, each checked against its storage record first:
// a crafted file cannot make a tensor that reads outside its storage.
#include <limits>

#include "ember/ops/factory.h"
#include "ember/tensor_impl.h"
#include "serialization/pickle.h"

namespace ember::serialization::detail {
namespace {

[[noreturn]] void bad(const std::string& where, const std::string& msg) {
  throw UnpicklingError(where + ": " + msg);
}

// The number of elements the view needs from the start of the storage, or fails.
int64_t required_numel(int64_t offset, const std::vector<int64_t>& sizes,
                       const std::vector<int64_t>& strides, const std::string& where) {
  if (sizes.size() != strides.size()) {
    bad(where, "size has " + std::to_string(sizes.size()) + " dimensions but stride has " +
                   std::to_string(strides.size()));
  }
  if (sizes.size() > 64) bad(where, std::to_string(sizes.size()) + " dimensions is too many");
  if (offset < 0) bad(where, "negative storage offset " + std::to_string(offset));
  int64_t last = offset;  // index of the furthest element
  int64_t numel = 1;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] < 0) bad(where, "negative size " + std::to_string(sizes[d]) + " in dimension " + std::to_string(d));
    if (strides[d] < 0) bad(where, "negative stride " + std::to_string(strides[d]) + " in dimension " + std::to_string(d));
    if (__builtin_mul_overflow(numel, sizes[d], &numel)) bad(where, "the number of elements overflows");
  }
  if (numel == 0) return 0;
  for (size_t d = 0; d < sizes.size(); ++d) {
    int64_t span;
    if (__builtin_mul_overflow(sizes[d] - 1, strides[d], &span) ||
        __builtin_add_overflow(last, span, &last)) {
      bad(where, "the tensor's extent overflows");
    }
  }
  return last + 1;
}

}  // namespace

ScalarType storage_type_dtype(const std::string& name) {
  for (int i = 0; i < kNumScalarTypes; ++i) {
    auto t = static_cast<ScalarType>(i);
    if (name == std::string("torch.") + storage_type_name(t)) return t;
  }
  return ScalarType::Undefined;
}

const char* storage_type_name(ScalarType t) {
  switch (t) {
    case kFloat32: return "FloatStorage";
    case kFloat64: return "DoubleStorage";
    case kFloat16: return "HalfStorage";
    case kBFloat16: return "BFloat16Storage";
    case kInt8: return "CharStorage";
    case kUInt8: return "ByteStorage";
    case kInt16: return "ShortStorage";
    case kInt32: return "IntStorage";
    case kInt64: return "LongStorage";
    case kBool: return "BoolStorage";
    case kQUInt8: return "QUInt8Storage";
    case kQInt8: return "QInt8Storage";
    case kQInt32: return "QInt32Storage";
    case kComplexFloat: return "ComplexFloatStorage";
    case kComplexDouble: return "ComplexDoubleStorage";
    case kQUInt4x2: return "QUInt4x2Storage";
    case kQUInt2x4: return "QUInt2x4Storage";
    default: return "UntypedStorage";
  }
}

Tensor rebuild_tensor(const Node& storage, int64_t offset, const std::vector<int64_t>& sizes,
                      const std::vector<int64_t>& strides, const std::string& where) {
  int64_t need = required_numel(offset, sizes, strides, where);
  // integer == -1: a meta storage (no data, no bound); else the storage's element count.
  if (storage.integer >= 0 && need > storage.integer) {
    bad(where, "the tensor (offset " + std::to_string(offset) + ", sizes and strides reaching " +
                   "element " + std::to_string(need - 1) + ") does not fit in its storage of " +
                   std::to_string(storage.integer) + " elements");
  }
  auto impl = make_intrusive<TensorImpl>(storage.storage, storage.dtype, sizes, strides, offset);
  return Tensor(std::move(impl));
}

Tensor rebuild_qtensor(const Node& storage, int64_t offset, const std::vector<int64_t>& sizes,
                       const std::vector<int64_t>& strides, const Node& qparams,
                       const std::string& where) {
  if (!is_quantized(storage.dtype)) {
    bad(where, std::string("a quantized tensor needs a quantized storage, got ") +
                   storage_type_name(storage.dtype));
  }
  const auto& q = qparams.items;
  if (q.empty() || !q[0]->is(Node::Kind::QScheme)) bad(where, "quantizer_params must start with a qscheme");
  auto num = [&](const NodePtr& n, const char* what) {
    if (n->is(Node::Kind::Float)) return n->real;
    if (n->is(Node::Kind::Int)) return double(n->integer);
    bad(where, std::string(what) + " must be a number, got " + n->type_name());
  };
  Tensor proto;  // an empty tensor carrying the quantizer
  QScheme s = q[0]->qscheme;
  if (s == QScheme::PerTensorAffine) {
    if (q.size() != 3 || !q[2]->is(Node::Kind::Int)) bad(where, "per-tensor quantizer_params are (qscheme, scale, zero_point)");
    double scale = num(q[1], "scale");
    proto = _empty_affine_quantized({0}, storage.dtype, scale, q[2]->integer);
  } else if (s == QScheme::PerChannelAffine || s == QScheme::PerChannelAffineFloatQParams) {
    if (q.size() != 4 || !q[3]->is(Node::Kind::Int)) bad(where, "per-channel quantizer_params are (qscheme, scales, zero_points, axis)");
    auto as_tensor = [&](const NodePtr& n, ScalarType dt) -> Tensor {
      if (n->is(Node::Kind::Tensor)) {
        // Loaded to meta (map_location='meta'): the parameters have no values; placeholders.
        if (n->tensor.device().is_meta()) return ember::ones(n->tensor.sizes(), dt);
        return n->tensor.to(dt);
      }
      if (n->is(Node::Kind::List) || n->is(Node::Kind::Tuple)) {
        std::vector<double> v;
        for (const auto& x : n->items) v.push_back(num(x, "a per-channel parameter"));
        return ember::tensor(v).to(dt);
      }
      bad(where, std::string("per-channel scales and zero points must be tensors, got ") + n->type_name());
    };
    Tensor scales = as_tensor(q[1], kFloat64);
    // PyTorch writes per_channel_affine for float-qparams tensors too: floating zero points
    // (a tensor of a floating dtype) are what make the scheme per_channel_affine_float_qparams.
    const bool float_zps = s == QScheme::PerChannelAffineFloatQParams ||
                           (q[2]->is(Node::Kind::Tensor) && is_floating(q[2]->tensor.dtype()));
    Tensor zps = as_tensor(q[2], float_zps ? kFloat32 : kInt64);
    int64_t axis = q[3]->integer;
    if (axis < 0 || axis >= int64_t(sizes.size())) bad(where, "axis " + std::to_string(axis) + " is out of range");
    if (scales.dim() != 1 || zps.dim() != 1 || scales.numel() != sizes[static_cast<size_t>(axis)] ||
        zps.numel() != sizes[static_cast<size_t>(axis)]) {
      bad(where, "per-channel scales and zero_points must have size " +
                     std::to_string(sizes[static_cast<size_t>(axis)]) +
                     " (the size of dimension " + std::to_string(axis) + ")");
    }
    // An empty tensor of the same rank carries the quantizer (its axis is the tensor's).
    std::vector<int64_t> empty_shape(sizes.size(), 0);
    empty_shape[static_cast<size_t>(axis)] = sizes[static_cast<size_t>(axis)];
    proto = _empty_per_channel_affine_quantized(empty_shape, scales, zps, axis, storage.dtype);
  } else {
    bad(where, std::string("Can't deserialize quantized tensor with qscheme ") + qscheme_name(s));
  }
  if (is_sub_byte(storage.dtype)) {
    // Sub-byte codes: bytes, fewer than the elements (Note [Sub-byte quantized dtypes]); a
    // contiguous tensor over its storage from `offset`, as PyTorch's kernels read it.
    const int64_t bits = quantized_bit_width(storage.dtype);
    int64_t numel = 1;
    for (int64_t d : sizes) numel *= d;
    if (storage.integer >= 0 && offset + (numel * bits + 7) / 8 > storage.integer) {
      bad(where, "the packed tensor does not fit in its storage of " +
                     std::to_string(storage.integer) + " bytes");
    }
    auto impl = make_intrusive<TensorImpl>(storage.storage, storage.dtype, sizes,
                                           contiguous_strides(sizes), offset);
    impl->set_quantizer(proto.impl()->quantizer());
    return Tensor(std::move(impl));
  }
  Tensor t = rebuild_tensor(storage, offset, sizes, strides, where);
  t.impl()->set_quantizer(proto.impl()->quantizer());
  return t;
}

}  // namespace ember::serialization::detail
