// Python-style indexing from C++: Tensor::index / Tensor::index_put_ over TensorIndex lists.
// Mirrors PyTorch's at::indexing::get_item / set_item (ATen/TensorIndexing.h, the C++ twin of
// torch/csrc/autograd/python_variable_indexing.cpp): integers, slices, None, Ellipsis and bools
// are applied first, as views; the tensor indices left over go to ember::index /
// ember::index_put_ (src/ops/indexing.cpp) on that view.
#include "ember/ops/indexing.h"

#include "ember/grad_mode.h"
#include "ember/ops/copy.h"
#include "ember/ops/factory.h"
#include "ember/ops/view.h"

namespace ember {
namespace {

using Kind = TensorIndex::Kind;
using OptionalTensorList = std::vector<std::optional<Tensor>>;

// PyTorch (1.13) lets several ellipses through and then indexes past the tensor's dims; ember
// refuses them up front with numpy's message.
void check_single_ellipsis(ArrayRef<TensorIndex> indices) {
  int n = 0;
  for (const auto& i : indices) n += i.kind() == Kind::Ellipsis;
  EMBER_CHECK_INDEX(n <= 1, "an index can only have a single ellipsis ('...')");
}

// The dims of self the indices consume: everything but None, Ellipsis and bools; a mask
// consumes as many dims as it has.
int64_t count_specified_dims(ArrayRef<TensorIndex> indices) {
  int64_t count = 0;
  for (const auto& i : indices) {
    if (i.kind() == Kind::Tensor) {
      const Tensor& t = i.tensor();
      EMBER_CHECK(t.defined(), "an undefined tensor cannot be used as an index");
      count += t.dtype() == kBool || t.dtype() == kUInt8 ? t.dim() : 1;
    } else if (i.kind() != Kind::None && i.kind() != Kind::Ellipsis && i.kind() != Kind::Boolean) {
      ++count;
    }
  }
  return count;
}

// An integer index: a select() view, with the IndexError Python gives. `real_dim` is the
// position of the index in the list, which PyTorch names in the message.
Tensor apply_select(const Tensor& self, int64_t dim, int64_t index, int64_t real_dim) {
  EMBER_CHECK_INDEX(!(index == 0 && dim == 0 && self.dim() == 0),
                    "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                    "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number");
  // A 0-d tensor has no dim to index: PyTorch reports it as a dim of size 0.
  const int64_t size = dim < self.dim() ? self.size(dim) : 0;
  EMBER_CHECK_INDEX(index >= -size && index < size, "index ", index, " is out of bounds for dimension ",
                    real_dim, " with size ", size);
  return self.select(dim, index);
}

Tensor apply_slice(const Tensor& self, int64_t dim, const indexing::Slice& s) {
  EMBER_CHECK_VALUE(s.step() > 0, "step must be greater than zero");
  EMBER_CHECK_INDEX(self.dim() > 0, "slice() cannot be applied to a 0-dim tensor.");
  return self.slice(dim, s.start(), s.stop(), s.step());
}

// A bool index adds a dim of size 1 (unsqueeze) and indexes it with [0] (true: keep it) or
// with nothing (false: the result is empty).
Tensor bool_to_index(const Tensor& like, bool value) {
  TensorOptions opts = TensorOptions(kInt64).device(like.device());
  return value ? zeros({1}, opts) : empty({0}, opts);
}

void record_tensor_index(const Tensor& t, OptionalTensorList& out, int64_t& dim) {
  out.resize(static_cast<size_t>(dim + 1));
  out[static_cast<size_t>(dim)] = t;
  ++dim;
}

// One entry of the index list, applied to the result so far (PyTorch's
// handleDimInMultiDimIndexing). `dim` is the next dim of `prev` to index.
Tensor apply_one(const Tensor& prev, const Tensor& original, const TensorIndex& index, int64_t& dim,
                 int64_t specified_dims, int64_t real_dim, OptionalTensorList& out) {
  switch (index.kind()) {
    case Kind::Integer:
      return apply_select(prev, dim, index.integer(), real_dim);
    case Kind::Slice: {
      Tensor r = apply_slice(prev, dim, index.slice());
      ++dim;
      return r;
    }
    case Kind::Ellipsis:
      dim += original.dim() - specified_dims;
      return prev;
    case Kind::None: {
      Tensor r = prev.unsqueeze(dim);
      ++dim;
      return r;
    }
    case Kind::Boolean: {
      Tensor r = prev.unsqueeze(dim);
      record_tensor_index(bool_to_index(r, index.boolean()), out, dim);
      return r;
    }
    case Kind::Tensor: {
      const Tensor& t = index.tensor();
      if (t.dim() == 0 && is_integral(t.dtype(), /*include_bool=*/true)) {
        // A 0-d integer tensor is an integer, a 0-d bool / uint8 tensor a bool.
        if (t.dtype() != kBool && t.dtype() != kUInt8) {
          return apply_select(prev, dim, t.item<int64_t>(), real_dim);
        }
        Tensor r = prev.unsqueeze(dim);
        record_tensor_index(bool_to_index(r, t.item<bool>()), out, dim);
        return r;
      }
      record_tensor_index(t, out, dim);
      return prev;
    }
  }
  EMBER_ASSERT(false, "unknown TensorIndex kind");
}

// Applies every basic index as a view; collects the tensor indices (by the dim of the result
// they index) into `out`.
Tensor apply_slicing(const Tensor& self, ArrayRef<TensorIndex> indices, OptionalTensorList& out) {
  const int64_t specified = count_specified_dims(indices);
  EMBER_CHECK_INDEX(specified <= self.dim(), "too many indices for tensor of dimension ", self.dim());
  Tensor result = self;
  int64_t dim = 0;
  for (size_t i = 0; i < indices.size(); ++i) {
    result = apply_one(result, self, indices[i], dim, specified, static_cast<int64_t>(i), out);
  }
  return result;
}

Tensor get_item(const Tensor& self, ArrayRef<TensorIndex> indices) {
  check_single_ellipsis(indices);
  if (indices.size() == 1) {
    const TensorIndex& i = indices[0];
    switch (i.kind()) {
      case Kind::Integer: return apply_select(self, 0, i.integer(), 0);
      case Kind::Slice: return apply_slice(self, 0, i.slice());
      case Kind::None: return self.unsqueeze(0);
      case Kind::Ellipsis: return alias(self);
      case Kind::Boolean: {
        Tensor r = self.unsqueeze(0);
        return index(r, {bool_to_index(r, i.boolean())});
      }
      case Kind::Tensor: break;
    }
  }
  OptionalTensorList tensor_indices;
  Tensor sliced = apply_slicing(self, indices, tensor_indices);
  if (tensor_indices.empty()) {
    // Basic indexing always returns a new view, even t[:, :] or t[{}].
    return sliced.is_same(self) ? alias(sliced) : sliced;
  }
  return index(sliced, tensor_indices);
}

// numpy's backwards-compatible rule: leading size-1 dims of an assigned value are dropped.
DimVector strip_leading_ones(IntArrayRef sizes) {
  size_t first = 0;
  while (first < sizes.size() && sizes[first] == 1) ++first;
  return sizes.slice(first).vec();
}

// dst = src, src broadcast to dst (PyTorch's copy_to). PyTorch fills from a 0-d src with
// fill_(Tensor), which is differentiable in src; ember's fill_ takes a Scalar, so a src that
// requires grad is copied (broadcast) instead, and its gradient flows.
void copy_to(const Tensor& dst, const Tensor& src) {
  Tensor d = dst;
  if (dst.sizes().equals(src.sizes())) {
    d.copy_(src);
  } else if (src.dim() == 0 && src.is_cpu() && !(GradMode::is_enabled() && src.requires_grad())) {
    d.fill_(src.item());
  } else {
    d.copy_(src.view(strip_leading_ones(src.sizes())).expand(dst.sizes()));
  }
}

void set_item(const Tensor& self, ArrayRef<TensorIndex> indices, const Tensor& value) {
  check_single_ellipsis(indices);
  if (indices.size() == 1) {
    const TensorIndex& i = indices[0];
    switch (i.kind()) {
      case Kind::Boolean:
        if (i.boolean()) copy_to(self.unsqueeze(0), value);
        return;  // t[false] = v selects nothing
      case Kind::Ellipsis: copy_to(self, value); return;
      case Kind::None: copy_to(self.unsqueeze(0), value); return;
      case Kind::Integer: copy_to(apply_select(self, 0, i.integer(), 0), value); return;
      case Kind::Slice: copy_to(apply_slice(self, 0, i.slice()), value); return;
      case Kind::Tensor: break;
    }
  }
  OptionalTensorList tensor_indices;
  Tensor sliced = apply_slicing(self, indices, tensor_indices);
  if (tensor_indices.empty()) {
    copy_to(sliced, value);
    return;
  }
  DimVector stripped = strip_leading_ones(value.sizes());
  Tensor v = stripped.size() == static_cast<size_t>(value.dim()) ? value : value.view(stripped);
  index_put_(sliced, tensor_indices, v);
}

}  // namespace

Tensor Tensor::index(ArrayRef<TensorIndex> indices) const { return get_item(*this, indices); }

Tensor& Tensor::index_put_(ArrayRef<TensorIndex> indices, const Tensor& value) {
  EMBER_CHECK(value.defined(), "index_put_: expected a defined value tensor, got an undefined one");
  set_item(*this, indices, value);
  return *this;
}

Tensor& Tensor::index_put_(ArrayRef<TensorIndex> indices, const Scalar& value) {
  // The value becomes a 0-d tensor of self's dtype on self's device (PyTorch's valueToTensor);
  // quantized tensors take a float, which their quantizer converts.
  TensorOptions opts = is_quantized() ? TensorOptions(kFloat32).device(kCPU)
                                      : TensorOptions(dtype()).device(device());
  set_item(*this, indices, scalar_tensor(value, opts));
  return *this;
}

}  // namespace ember
