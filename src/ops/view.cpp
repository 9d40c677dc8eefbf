// Views: new TensorImpls over the same storage and version counter, with new geometry.
// reshape / flatten / unflatten / narrow / chunk are composites over the primitive views.
#include "ember/ops/view.h"

#include <algorithm>
#include <limits>
#include <numeric>

#include "../autograd/functions.h"
#include "../autograd/record.h"
#include "../dispatch/boxing.h"
#include "autograd_views.h"
#include "elementwise.h"
#include "ember/grad_mode.h"
#include "ember/ops/index_ops.h"

namespace ember {

using dispatch::OpId;

int64_t wrap_dim(int64_t dim, int64_t ndim) {
  int64_t n = std::max<int64_t>(ndim, 1);  // a 0-d tensor accepts dims -1 and 0, as in PyTorch
  EMBER_CHECK_INDEX(dim >= -n && dim < n, "Dimension out of range (expected to be in range of [",
                    -n, ", ", n - 1, "], but got ", dim, ")");
  return dim < 0 ? dim + n : dim;
}

namespace ops {
Tensor make_view(const Tensor& self, IntArrayRef sizes, IntArrayRef strides, int64_t offset) {
  auto impl = make_intrusive<TensorImpl>(self.impl()->storage(), self.dtype(), sizes, strides, offset);
  impl->set_version_counter(self.impl()->version_counter());
  impl->set_quantizer(self.impl()->quantizer());
  impl->set_view_of(*self.impl(), GradMode::is_enabled());  // Note [View tracking]
  return Tensor(std::move(impl));
}
}  // namespace ops

namespace {

// ---- shape helpers ----

// Resolves a single -1 in `shape` against `numel`, with PyTorch's messages.
DimVector infer_size(IntArrayRef shape, int64_t numel) {
  DimVector out = shape.vec();
  std::optional<size_t> infer;
  int64_t known = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      EMBER_CHECK(!infer, "only one dimension can be inferred");
      infer = i;
    } else {
      EMBER_CHECK(shape[i] >= 0, "invalid shape dimension ", shape[i]);
      known *= shape[i];
    }
  }
  if (infer) {
    // As PyTorch: "ambiguous" only when the input is empty too; [0, -1] on 6 elements is invalid.
    EMBER_CHECK(known != 0 || numel == 0, "shape '", shape, "' is invalid for input of size ", numel);
    EMBER_CHECK(known != 0, "cannot reshape tensor of 0 elements into shape ", shape,
                " because the unspecified dimension size -1 can be any value and is ambiguous");
    EMBER_CHECK(numel % known == 0, "shape '", shape, "' is invalid for input of size ", numel);
    out[*infer] = numel / known;
  } else {
    EMBER_CHECK(known == numel, "shape '", shape, "' is invalid for input of size ", numel);
  }
  return out;
}

// Strides that let `old` geometry be viewed with `new_shape`, if any (PyTorch's computeStride):
// walk "chunks" of old dims that are contiguous with each other; each chunk must be covered by
// whole new dims.
std::optional<DimVector> view_strides(IntArrayRef old_shape, IntArrayRef old_strides,
                                      IntArrayRef new_shape) {
  const int64_t numel = compute_numel(old_shape);
  if (numel == 0) {
    if (old_shape.equals(new_shape)) return old_strides.vec();
    return contiguous_strides(new_shape);
  }
  if (old_shape.empty()) return contiguous_strides(new_shape);
  DimVector new_strides(new_shape.size());
  int64_t view_d = static_cast<int64_t>(new_shape.size()) - 1;
  int64_t chunk_base_stride = old_strides.back();
  int64_t tensor_numel = 1, view_numel = 1;
  for (int64_t d = static_cast<int64_t>(old_shape.size()) - 1; d >= 0; --d) {
    tensor_numel *= old_shape[d];
    if (d == 0 || (old_shape[d - 1] != 1 && old_strides[d - 1] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 && (view_numel < tensor_numel || new_shape[view_d] == 1)) {
        new_strides[view_d] = view_numel * chunk_base_stride;
        view_numel *= new_shape[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) return std::nullopt;
      if (d > 0) {
        chunk_base_stride = old_strides[d - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  if (view_d != -1) return std::nullopt;
  return new_strides;
}

// ---- primitive views ----

Tensor view_impl(const Tensor& self, IntArrayRef size) {
  DimVector shape = infer_size(size, self.numel());
  auto strides = view_strides(self.sizes(), self.strides(), shape);
  EMBER_CHECK(strides.has_value(),
              "view size is not compatible with input tensor's size and stride (at least one "
              "dimension spans across two contiguous subspaces). Use .reshape(...) instead.");
  return ops::make_view(self, shape, *strides, self.storage_offset());
}

Tensor unsafe_view_impl(const Tensor& self, IntArrayRef size) {
  DimVector shape = infer_size(size, self.numel());
  auto strides = view_strides(self.sizes(), self.strides(), shape);
  EMBER_ASSERT(strides.has_value(), "_unsafe_view on a layout that cannot be viewed");
  return ops::make_view(self, shape, *strides, self.storage_offset());
}

// PyTorch's reshape, where the shape can be a view: the strides are computed by the caller.
Tensor reshape_alias_impl(const Tensor& self, IntArrayRef size, IntArrayRef stride) {
  EMBER_CHECK(size.size() == stride.size(), "_reshape_alias: mismatch in length of strides and shape (",
              size.size(), " vs ", stride.size(), ")");
  return ops::make_view(self, size, stride, self.storage_offset());
}

Tensor transpose_impl(const Tensor& self, int64_t dim0, int64_t dim1) {
  int64_t nd = self.dim();
  int64_t a = wrap_dim(dim0, nd), b = wrap_dim(dim1, nd);
  DimVector sizes = self.sizes().vec(), strides = self.strides().vec();
  if (nd > 0) {
    std::swap(sizes[a], sizes[b]);
    std::swap(strides[a], strides[b]);
  }
  return ops::make_view(self, sizes, strides, self.storage_offset());
}

Tensor t_impl(const Tensor& self) {
  EMBER_CHECK(self.dim() <= 2, "t() expects a tensor with <= 2 dimensions, but self is ",
              self.dim(), "D");
  return transpose_impl(self, 0, self.dim() < 2 ? 0 : 1);
}

Tensor permute_impl(const Tensor& self, IntArrayRef dims) {
  int64_t nd = self.dim();
  EMBER_CHECK(static_cast<int64_t>(dims.size()) == nd,
              "permute(sparse_coo): number of dimensions in the tensor input does not match the "
              "length of the desired ordering of dimensions i.e. input.dim() = ", nd,
              " is not equal to len(dims) = ", dims.size());
  DimVector sizes(nd), strides(nd);
  std::vector<bool> seen(static_cast<size_t>(nd), false);
  for (int64_t i = 0; i < nd; ++i) {
    int64_t d = wrap_dim(dims[i], nd);
    EMBER_CHECK(!seen[d], "permute(): duplicate dims are not allowed.");
    seen[d] = true;
    sizes[i] = self.size(d);
    strides[i] = self.stride(d);
  }
  return ops::make_view(self, sizes, strides, self.storage_offset());
}

Tensor unsqueeze_impl(const Tensor& self, int64_t dim) {
  int64_t d = wrap_dim(dim, self.dim() + 1);
  DimVector sizes = self.sizes().vec(), strides = self.strides().vec();
  int64_t stride = d >= self.dim() ? 1 : sizes[d] * strides[d];
  sizes.insert(sizes.begin() + d, 1);
  strides.insert(strides.begin() + d, stride);
  return ops::make_view(self, sizes, strides, self.storage_offset());
}

Tensor squeeze_impl(const Tensor& self) {
  DimVector sizes, strides;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (self.size(d) == 1) continue;
    sizes.push_back(self.size(d));
    strides.push_back(self.stride(d));
  }
  return ops::make_view(self, sizes, strides, self.storage_offset());
}

Tensor squeeze_dim_impl(const Tensor& self, int64_t dim) {
  int64_t d = wrap_dim(dim, self.dim());
  if (self.dim() == 0 || self.size(d) != 1) return ops::make_view(self, self.sizes(), self.strides(), self.storage_offset());
  DimVector sizes = self.sizes().vec(), strides = self.strides().vec();
  sizes.erase(sizes.begin() + d);
  strides.erase(strides.begin() + d);
  return ops::make_view(self, sizes, strides, self.storage_offset());
}

Tensor expand_impl(const Tensor& self, IntArrayRef sizes, bool /*implicit*/) {
  const int64_t nd = static_cast<int64_t>(sizes.size());
  EMBER_CHECK(nd >= self.dim(), "expand(ember.", scalar_type_name(self.dtype()), "Tensor{",
              self.sizes(), "}, size=", sizes, "): the number of sizes provided (", nd,
              ") must be greater or equal to the number of dimensions in the tensor (", self.dim(), ")");
  DimVector out_sizes(nd), out_strides(nd);
  for (int64_t i = nd - 1; i >= 0; --i) {
    int64_t od = i - (nd - self.dim());
    int64_t size = sizes[i];
    if (od < 0) {
      EMBER_CHECK(size >= 0, "The expanded size of the tensor (", size,
                  ") isn't allowed in a leading, non-existing dimension ", i);
      out_sizes[i] = size;
      out_strides[i] = 0;
      continue;
    }
    int64_t cur = self.size(od);
    if (size == -1) size = cur;
    EMBER_CHECK(cur == size || cur == 1, "The expanded size of the tensor (", size,
                ") must match the existing size (", cur, ") at non-singleton dimension ", i,
                ".  Target sizes: ", sizes, ".  Tensor sizes: ", self.sizes());
    out_sizes[i] = size;
    out_strides[i] = cur == size ? self.stride(od) : 0;
  }
  return ops::make_view(self, out_sizes, out_strides, self.storage_offset());
}

Tensor slice_impl(const Tensor& self, int64_t dim, std::optional<int64_t> start,
                  std::optional<int64_t> end, int64_t step) {
  EMBER_CHECK_INDEX(self.dim() > 0, "slice() cannot be applied to a 0-dim tensor.");
  // aten::slice's text; Python-style indexing (indexing_basic.cpp) refuses steps first with its own.
  EMBER_CHECK(step > 0, "slice step must be positive");
  int64_t d = wrap_dim(dim, self.dim());
  int64_t size = self.size(d);
  // Python slice clamping: negative counts from the end, then clamp into [0, size].
  auto clamp_index = [size](int64_t i) {
    if (i < 0) i += size;
    return std::clamp<int64_t>(i, 0, size);
  };
  int64_t s = clamp_index(start.value_or(0));
  int64_t e = clamp_index(end.value_or(size));
  if (e < s) e = s;
  DimVector sizes = self.sizes().vec(), strides = self.strides().vec();
  sizes[d] = (e - s + step - 1) / step;
  strides[d] *= step;
  return ops::make_view(self, sizes, strides, self.storage_offset() + s * self.stride(d));
}

Tensor select_impl(const Tensor& self, int64_t dim, int64_t index) {
  EMBER_CHECK_INDEX(self.dim() > 0, "select() cannot be applied to a 0-dim tensor.");
  int64_t d = wrap_dim(dim, self.dim());
  int64_t size = self.size(d);
  EMBER_CHECK_INDEX(index >= -size && index < size, "select(): index ", index,
                    " out of range for tensor of size ", self.sizes(), " at dimension ", dim);
  if (index < 0) index += size;
  DimVector sizes = self.sizes().vec(), strides = self.strides().vec();
  sizes.erase(sizes.begin() + d);
  strides.erase(strides.begin() + d);
  return ops::make_view(self, sizes, strides, self.storage_offset() + index * self.stride(d));
}

Tensor as_strided_impl(const Tensor& self, IntArrayRef size, IntArrayRef stride,
                       std::optional<int64_t> storage_offset) {
  int64_t offset = storage_offset.value_or(self.storage_offset());
  EMBER_CHECK(size.size() == stride.size(), "mismatch in length of strides and shape");
  EMBER_CHECK(offset >= 0, "Tensor: invalid storage offset ", offset);
  for (int64_t s : stride) EMBER_CHECK(s >= 0, "as_strided: Negative strides are not supported at the moment, got strides: ", stride);
  for (int64_t sz : size)
    EMBER_CHECK(sz >= 0, "Trying to create tensor with negative dimension ", sz, ": ", size);
  // The view must stay inside the storage (meta storages record their size too).
  const uint64_t needed = static_cast<uint64_t>(storage_nbytes(size, stride, self.element_size(), offset));
  const uint64_t have = self.impl()->storage()->nbytes();
  EMBER_CHECK(needed <= have, "setStorage: sizes ", size, ", strides ", stride, ", storage offset ",
              offset, ", and itemsize ", self.element_size(), " requiring a storage size of ", needed,
              " are out of bounds for storage of size ", have);
  return ops::make_view(self, size, stride, offset);
}

std::vector<Tensor> split_with_sizes_impl(const Tensor& self, IntArrayRef split_sizes, int64_t dim) {
  EMBER_CHECK(self.dim() != 0, "split expects at least a 1-dimensional tensor");
  int64_t d = wrap_dim(dim, self.dim());
  int64_t size = self.size(d);
  int64_t total = 0;
  for (int64_t s : split_sizes) {
    EMBER_CHECK(s >= 0, "split_with_sizes expects split_sizes have only non-negative entries, but got split_sizes=", split_sizes);
    total += s;
  }
  EMBER_CHECK(total == size, "split_with_sizes expects split_sizes to sum exactly to ", size,
              " (input tensor's size at dimension ", d, "), but got split_sizes=", split_sizes);
  std::vector<Tensor> out;
  int64_t start = 0;
  for (int64_t s : split_sizes) {
    out.push_back(slice_impl(self, d, start, start + s, 1));
    start += s;
  }
  return out;
}

std::vector<Tensor> split_impl(const Tensor& self, int64_t split_size, int64_t dim) {
  EMBER_CHECK(self.dim() != 0, "split expects at least a 1-dimensional tensor");
  EMBER_CHECK(split_size >= 0, "split expects split_size be non-negative, but got split_size=", split_size);
  int64_t d = wrap_dim(dim, self.dim());
  int64_t size = self.size(d);
  EMBER_CHECK(split_size != 0 || size == 0, "split_size can only be 0 if dimension size is 0, but got dimension size of ", size);
  int64_t n = split_size == 0 ? 1 : std::max<int64_t>((size + split_size - 1) / split_size, 1);
  std::vector<Tensor> out;
  for (int64_t i = 0; i < n; ++i) {
    int64_t start = i * split_size;
    out.push_back(slice_impl(self, d, start, std::min(size, start + split_size), 1));
  }
  return out;
}

std::vector<Tensor> unbind_impl(const Tensor& self, int64_t dim) {
  EMBER_CHECK_INDEX(self.dim() > 0, "Dimension specified as ", dim, " but tensor has no dimensions");
  int64_t d = wrap_dim(dim, self.dim());
  std::vector<Tensor> out;
  for (int64_t i = 0; i < self.size(d); ++i) out.push_back(select_impl(self, d, i));
  return out;
}

// ---- autograd: a view's gradient is the gradient reshaped back to its input ----
using autograd::OpNode;
using autograd::tensor_list;

// Attaches a single-output view's node; the view inherits how self was made, if self is a
// view that refuses in-place writes (ops::propagate_view_creation).
Tensor finish_view(autograd::Recorder& r, const Tensor& self, const Tensor& out, OpNode::Formula f) {
  ops::propagate_view_creation(self, out, r.node().name());
  return r.finish(out, std::move(f));
}

// d view(self, size) = grad.reshape(self.sizes)
template <OpId id, Tensor (*impl)(const Tensor&, IntArrayRef)>
Tensor view_autograd(const Tensor& self, const IntArrayRef& size) {
  autograd::Recorder r(id == OpId::view ? "ViewBackward0" : "UnsafeViewBackward0", self);
  Tensor out = r.forward([&] { return dispatch::call<impl>(id, self, size); });
  if (!r) return out;
  r.values("self_sym_sizes", self.sizes());
  return finish_view(r, self, out, [](OpNode& n, const tensor_list& g) {
    return tensor_list{g[0].reshape(n.value(0).to_int_list())};
  });
}

// d _reshape_alias(self, size, stride) = grad.reshape(self.sizes)
Tensor reshape_alias_autograd(const Tensor& self, const IntArrayRef& size, const IntArrayRef& stride) {
  autograd::Recorder r("ReshapeAliasBackward0", self);
  Tensor out = r.forward(
      [&] { return dispatch::call<reshape_alias_impl>(OpId::_reshape_alias, self, size, stride); });
  if (!r) return out;
  r.values("self_sym_sizes", self.sizes());
  return finish_view(r, self, out, [](OpNode& n, const tensor_list& g) {
    return tensor_list{g[0].reshape(n.value(0).to_int_list())};
  });
}

// d expand(self, sizes) = grad summed down to self's shape (the engine's sum_to)
Tensor expand_autograd(const Tensor& self, const IntArrayRef& sizes, const bool& implicit) {
  autograd::Recorder r("ExpandBackward0", self);
  Tensor out = r.forward([&] { return dispatch::call<expand_impl>(OpId::expand, self, sizes, implicit); });
  if (!r) return out;
  r.values("self_sym_sizes", self.sizes());
  return finish_view(r, self, out, [](OpNode& n, const tensor_list& g) {
    return tensor_list{autograd::sum_to(g[0], n.value(0).to_int_list())};
  });
}

// d unsqueeze(self, dim) = grad.squeeze(dim)
Tensor unsqueeze_autograd(const Tensor& self, const int64_t& dim) {
  autograd::Recorder r("UnsqueezeBackward0", self);
  Tensor out = r.forward([&] { return dispatch::call<unsqueeze_impl>(OpId::unsqueeze, self, dim); });
  if (!r) return out;
  r.values("dim", dim);
  return finish_view(r, self, out, [](OpNode& n, const tensor_list& g) {
    return tensor_list{g[0].squeeze(wrap_dim(n.value(0).to_int(), g[0].dim()))};
  });
}

// A view op's rules map the view's gradient back onto its input's geometry; they save no tensor
// (only sizes and arguments), as PyTorch's, so writing the input in place never invalidates them.

// d t(self) = grad.t()
Tensor t_autograd(const Tensor& self) {
  autograd::Recorder r("TBackward0", self);
  Tensor out = r.forward([&] { return dispatch::call<t_impl>(OpId::t, self); });
  if (!r) return out;
  return finish_view(r, self, out, [](OpNode&, const tensor_list& g) { return tensor_list{g[0].t()}; });
}

// d transpose(self, a, b) = grad.transpose(a, b)
Tensor transpose_autograd(const Tensor& self, const int64_t& dim0, const int64_t& dim1) {
  autograd::Recorder r("TransposeBackward0", self);
  Tensor out = r.forward([&] { return dispatch::call<transpose_impl>(OpId::transpose_int, self, dim0, dim1); });
  if (!r) return out;
  r.values("dim0", dim0, "dim1", dim1);
  return finish_view(r, self, out, [dim0, dim1](OpNode&, const tensor_list& g) {
    return tensor_list{g[0].transpose(dim0, dim1)};
  });
}

// d permute(self, dims) = grad permuted by the inverse permutation
Tensor permute_autograd(const Tensor& self, const IntArrayRef& dims) {
  autograd::Recorder r("PermuteBackward0", self);
  Tensor out = r.forward([&] { return dispatch::call<permute_impl>(OpId::permute, self, dims); });
  if (!r) return out;
  r.values("dims", dims);
  return finish_view(r, self, out, [](OpNode& n, const tensor_list& g) {
    const auto& dims = n.value(0).to_int_list();
    const int64_t nd = static_cast<int64_t>(dims.size());
    DimVector inverse(dims.size());
    for (int64_t i = 0; i < nd; ++i) inverse[static_cast<size_t>(wrap_dim(dims[static_cast<size_t>(i)], nd))] = i;
    return tensor_list{g[0].permute(inverse)};
  });
}

// d squeeze(self) = grad with self's size-1 dims put back
Tensor squeeze_autograd(const Tensor& self) {
  autograd::Recorder r("SqueezeBackward0", self);
  Tensor out = r.forward([&] { return dispatch::call<squeeze_impl>(OpId::squeeze, self); });
  if (!r) return out;
  r.values("self_sizes", self.sizes());
  return finish_view(r, self, out, [](OpNode& n, const tensor_list& g) {
    const auto& sizes = n.value(0).to_int_list();
    Tensor grad = g[0];
    for (size_t d = 0; d < sizes.size(); ++d)
      if (sizes[d] == 1) grad = grad.unsqueeze(static_cast<int64_t>(d));
    return tensor_list{grad};
  });
}

// d squeeze(self, dim) = grad.unsqueeze(dim) when that dim was squeezed, else grad
Tensor squeeze_dim_autograd(const Tensor& self, const int64_t& dim) {
  autograd::Recorder r("SqueezeBackward1", self);
  Tensor out = r.forward([&] { return dispatch::call<squeeze_dim_impl>(OpId::squeeze_dim, self, dim); });
  if (!r) return out;
  const int64_t d = wrap_dim(dim, self.dim());
  const bool squeezed = self.dim() > 0 && self.size(d) == 1;
  r.values("dim", dim, "self_sizes", self.sizes());
  return finish_view(r, self, out, [d, squeezed](OpNode&, const tensor_list& g) {
    return tensor_list{squeezed ? g[0].unsqueeze(d) : g[0]};
  });
}

// Zeros of `sizes` with grad's dtype and device (the canvas of the index-like backwards).
Tensor zeros_for(const Tensor& grad, IntArrayRef sizes) {
  return zeros(sizes, TensorOptions(grad.dtype()).device(grad.device()));
}

// d slice(self, ...) = zeros of self's shape with grad written into the same slice. Written with
// copy_ into a view so that, under create_graph, the result records (CopySlices) and is
// differentiable in grad.
Tensor slice_autograd(const Tensor& self, const int64_t& dim, const std::optional<int64_t>& start,
                      const std::optional<int64_t>& end, const int64_t& step) {
  autograd::Recorder r("SliceBackward0", self);
  Tensor out = r.forward([&] { return dispatch::call<slice_impl>(OpId::slice_Tensor, self, dim, start, end, step); });
  if (!r) return out;
  r.values("dim", dim, "end", end, "self_sym_sizes", self.sizes(), "start", start, "step", step);
  return finish_view(r, self, out, [](OpNode& n, const tensor_list& g) {
    const auto opt = [&](size_t i) {
      return n.value(i).is_none() ? std::nullopt : std::optional<int64_t>(n.value(i).to_int());
    };
    Tensor grad = zeros_for(g[0], n.value(2).to_int_list());
    grad.slice(n.value(0).to_int(), opt(3), opt(1), n.value(4).to_int()).copy_(g[0]);
    return tensor_list{grad};
  });
}

// d select(self, dim, index) = zeros of self's shape with grad written at that index
Tensor select_autograd(const Tensor& self, const int64_t& dim, const int64_t& index) {
  autograd::Recorder r("SelectBackward0", self);
  Tensor out = r.forward([&] { return dispatch::call<select_impl>(OpId::select_int, self, dim, index); });
  if (!r) return out;
  r.values("dim", dim, "index", index, "self_sizes", self.sizes());
  return finish_view(r, self, out, [dim, index](OpNode& n, const tensor_list& g) {
    Tensor grad = zeros_for(g[0], n.value(2).to_int_list());
    grad.select(dim, index).copy_(g[0]);
    return tensor_list{grad};
  });
}

// Whether elements of a geometry may share memory (PyTorch's _maybe_overlapping_memory): with
// the dims sorted by stride, each stride must exceed the span of the smaller ones.
bool maybe_overlapping(IntArrayRef sizes, IntArrayRef strides) {
  std::vector<std::pair<int64_t, int64_t>> dims;  // (stride, size) of dims with size > 1
  for (size_t d = 0; d < sizes.size(); ++d)
    if (sizes[d] > 1) dims.emplace_back(strides[d], sizes[d]);
  std::sort(dims.begin(), dims.end());
  int64_t span = 0;
  for (const auto& [stride, size] : dims) {
    if (stride <= span) return true;
    span += (size - 1) * stride;
  }
  return false;
}

// d as_strided(self, size, stride, offset): gradients of output elements that share memory add
// up (autograd::as_strided_backward). When self's own elements share memory (an expanded
// input), each memory location's gradient is split evenly between the elements that alias it,
// as PyTorch does, so that the input's backward (summing its aliases) counts it once.
Tensor as_strided_autograd(const Tensor& self, const IntArrayRef& size, const IntArrayRef& stride,
                           const std::optional<int64_t>& storage_offset) {
  autograd::Recorder r("AsStridedBackward0", self);
  Tensor out = r.forward([&] {
    return dispatch::call<as_strided_impl>(OpId::as_strided, self, size, stride, storage_offset);
  });
  if (!r) return out;
  autograd::TensorGeometry input(self);
  const int64_t offset = storage_offset.value_or(self.storage_offset());
  Tensor share;  // 1 / (number of self's elements at each element's memory location)
  if (maybe_overlapping(self.sizes(), self.strides()) && self.numel() > 0) {
    NoGradGuard no_grad;
    const int64_t n = self.storage_offset() + 1 + [&] {
      int64_t last = 0;
      for (int64_t d = 0; d < self.dim(); ++d) last += (self.size(d) - 1) * self.stride(d);
      return last;
    }();
    Tensor positions = arange(n, kInt64).as_strided(self.sizes(), self.strides(), self.storage_offset());
    Tensor count = zeros({n}, kFloat64)
                       .scatter_add(0, positions.contiguous().view({-1}), ones({self.numel()}, kFloat64));
    share = 1.0 / count.as_strided(self.sizes(), self.strides(), self.storage_offset());
  }
  r.values("size", size, "storage_offset", storage_offset, "stride", stride);
  return finish_view(r, self, out, [input, offset, share](OpNode& n, const tensor_list& g) {
    Tensor grad = autograd::as_strided_backward(g[0], input, n.value(0).to_int_list(),
                                                n.value(2).to_int_list(), offset);
    return tensor_list{share.defined() ? grad * share.to(grad.dtype()) : grad};
  });
}

// d split(self, ...) / split_with_sizes(self, ...) = the pieces' gradients concatenated back (an
// absent one counts as zeros: OpNode fills it). The outputs are views that refuse in-place
// writes (CreationMeta::MultiOutputNode), as PyTorch's.
// `size_name` / `size`: split_size or split_sizes, as the node saves it.
template <class Size, class Forward>
std::vector<Tensor> split_record(const char* name, const Tensor& self, int64_t dim, const char* size_name,
                                 const Size& size, Forward&& forward) {
  autograd::Recorder r(name, self);
  std::vector<Tensor> outs = r.forward(forward);
  for (const Tensor& o : outs) autograd::set_view_creation(o, autograd::CreationMeta::MultiOutputNode, name);
  if (!r) return outs;
  const int64_t d = wrap_dim(dim, self.dim());
  r.values("dim", dim, "self_sizes", self.sizes(), size_name, size);
  return r.finish(std::move(outs), [d](OpNode&, const tensor_list& g) { return tensor_list{cat(g, d)}; });
}

std::vector<Tensor> split_autograd(const Tensor& self, const int64_t& split_size, const int64_t& dim) {
  return split_record("SplitBackward0", self, dim, "split_size", split_size, [&] {
    return dispatch::call<split_impl>(OpId::split_Tensor, self, split_size, dim);
  });
}

std::vector<Tensor> split_with_sizes_autograd(const Tensor& self, const IntArrayRef& split_sizes,
                                              const int64_t& dim) {
  return split_record("SplitWithSizesBackward0", self, dim, "split_sizes", split_sizes, [&] {
    return dispatch::call<split_with_sizes_impl>(OpId::split_with_sizes, self, split_sizes, dim);
  });
}

// d unbind(self, dim) = the pieces' gradients stacked back along dim
std::vector<Tensor> unbind_autograd(const Tensor& self, const int64_t& dim) {
  autograd::Recorder r("UnbindBackward0", self);
  std::vector<Tensor> outs = r.forward([&] { return dispatch::call<unbind_impl>(OpId::unbind_int, self, dim); });
  for (const Tensor& o : outs)
    autograd::set_view_creation(o, autograd::CreationMeta::MultiOutputNode, "UnbindBackward0");
  if (!r) return outs;
  const int64_t d = wrap_dim(dim, self.dim());
  r.values("dim", dim);
  return r.finish(std::move(outs), [d](OpNode&, const tensor_list& g) { return tensor_list{stack(g, d)}; });
}

EMBER_REGISTER_AUTOGRAD(view, (&view_autograd<OpId::view, view_impl>));
EMBER_REGISTER_AUTOGRAD(_reshape_alias, &reshape_alias_autograd);
EMBER_REGISTER_AUTOGRAD(_unsafe_view, (&view_autograd<OpId::_unsafe_view, unsafe_view_impl>));
EMBER_REGISTER_AUTOGRAD(expand, &expand_autograd);
EMBER_REGISTER_AUTOGRAD(unsqueeze, &unsqueeze_autograd);
EMBER_REGISTER_AUTOGRAD(t, &t_autograd);
EMBER_REGISTER_AUTOGRAD(transpose_int, &transpose_autograd);
EMBER_REGISTER_AUTOGRAD(permute, &permute_autograd);
EMBER_REGISTER_AUTOGRAD(squeeze, &squeeze_autograd);
EMBER_REGISTER_AUTOGRAD(squeeze_dim, &squeeze_dim_autograd);
EMBER_REGISTER_AUTOGRAD(slice_Tensor, &slice_autograd);
EMBER_REGISTER_AUTOGRAD(select_int, &select_autograd);
EMBER_REGISTER_AUTOGRAD(as_strided, &as_strided_autograd);
EMBER_REGISTER_AUTOGRAD(split_Tensor, &split_autograd);
EMBER_REGISTER_AUTOGRAD(split_with_sizes, &split_with_sizes_autograd);
EMBER_REGISTER_AUTOGRAD(unbind_int, &unbind_autograd);

// ---- schema-shaped frontends of the primitives ----
Tensor view_op(const Tensor& self, IntArrayRef size) { return dispatch::call<view_impl>(OpId::view, self, size); }
Tensor unsafe_view_op(const Tensor& self, IntArrayRef size) {
  return dispatch::call<unsafe_view_impl>(OpId::_unsafe_view, self, size);
}
Tensor expand_op(const Tensor& self, IntArrayRef sizes, bool implicit) {
  return dispatch::call<expand_impl>(OpId::expand, self, sizes, implicit);
}
Tensor slice_op(const Tensor& self, int64_t dim, std::optional<int64_t> start,
                std::optional<int64_t> end, int64_t step) {
  return dispatch::call<slice_impl>(OpId::slice_Tensor, self, dim, start, end, step);
}

// ---- composites ----
Tensor reshape_impl(const Tensor& self, IntArrayRef shape) {
  DimVector sizes = infer_size(shape, self.numel());
  // As PyTorch 1.13: a shape that can be a view is aten::_reshape_alias (ReshapeAliasBackward0).
  if (auto strides = view_strides(self.sizes(), self.strides(), sizes))
    return _reshape_alias(self, sizes, *strides);
  return unsafe_view_op(self.clone(MemoryFormat::Contiguous), sizes);  // one clone, as PyTorch
}
Tensor reshape_op(const Tensor& self, IntArrayRef shape) {
  return dispatch::call<reshape_impl>(OpId::reshape, self, shape);
}

Tensor flatten_impl(const Tensor& self, int64_t start_dim, int64_t end_dim) {
  int64_t s = wrap_dim(start_dim, self.dim()), e = wrap_dim(end_dim, self.dim());
  if (self.dim() == 0) return reshape_op(self, {1});
  EMBER_CHECK(s <= e, "flatten() has invalid args: start_dim cannot come after end_dim");
  if (s == e) return self;
  DimVector shape;
  for (int64_t d = 0; d < s; ++d) shape.push_back(self.size(d));
  int64_t flat = 1;
  for (int64_t d = s; d <= e; ++d) flat *= self.size(d);
  shape.push_back(flat);
  for (int64_t d = e + 1; d < self.dim(); ++d) shape.push_back(self.size(d));
  return reshape_op(self, shape);
}
Tensor flatten_op(const Tensor& self, int64_t start_dim, int64_t end_dim) {
  return dispatch::call<flatten_impl>(OpId::flatten_using_ints, self, start_dim, end_dim);
}

Tensor unflatten_impl(const Tensor& self, int64_t dim, IntArrayRef sizes) {
  int64_t d = wrap_dim(dim, self.dim());
  EMBER_CHECK(!sizes.empty(), "unflatten: sizes must be non-empty");
  int64_t known = 1, infer = -1;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == -1) {
      EMBER_CHECK(infer < 0, "only one dimension can be inferred");
      infer = static_cast<int64_t>(i);
    } else {
      known *= sizes[i];
    }
  }
  DimVector inner = sizes.vec();
  if (infer >= 0) {
    EMBER_CHECK(known != 0 && self.size(d) % known == 0, "unflatten: Provided sizes ", sizes,
                " don't multiply up to the size of dim ", dim, " (", self.size(d), ") in the input tensor");
    inner[infer] = self.size(d) / known;
  } else {
    EMBER_CHECK(known == self.size(d), "unflatten: Provided sizes ", sizes,
                " don't multiply up to the size of dim ", dim, " (", self.size(d), ") in the input tensor");
  }
  DimVector shape = self.sizes().vec();
  shape.erase(shape.begin() + d);
  shape.insert(shape.begin() + d, inner.begin(), inner.end());
  return view_op(self, shape);
}
Tensor unflatten_op(const Tensor& self, int64_t dim, IntArrayRef sizes) {
  return dispatch::call<unflatten_impl>(OpId::unflatten_int, self, dim, sizes);
}

Tensor expand_as_impl(const Tensor& self, const Tensor& other) { return expand_op(self, other.sizes(), false); }

Tensor narrow_impl(const Tensor& self, int64_t dim, int64_t start, int64_t length) {
  EMBER_CHECK(self.dim() > 0, "narrow() cannot be applied to a 0-dim tensor.");
  int64_t d = wrap_dim(dim, self.dim());
  int64_t size = self.size(d);
  EMBER_CHECK_INDEX(start >= -size && start <= size, "start out of range (expected to be in range of [",
                    -size, ", ", size, "], but got ", start, ")");
  if (start < 0) start += size;
  EMBER_CHECK(length >= 0 && start <= size - length, "start (", start, ") + length (", length,
              ") exceeds dimension size (", size, ").");
  return slice_op(self, d, start, start + length, 1);
}

std::vector<Tensor> chunk_impl(const Tensor& self, int64_t chunks, int64_t dim) {
  EMBER_CHECK(self.dim() > 0, "chunk expects at least a 1-dimensional tensor");
  EMBER_CHECK(chunks > 0, "chunk expects `chunks` to be greater than 0, got: ", chunks);
  int64_t d = wrap_dim(dim, self.dim());
  int64_t size = self.size(d);
  int64_t split_size = (size + chunks - 1) / chunks;
  // As PyTorch: a zero split size (empty dim) still yields `chunks` empty pieces.
  if (split_size == 0 && size == 0) {
    return ember::split_with_sizes(self, std::vector<int64_t>(static_cast<size_t>(chunks), 0), d);
  }
  return ember::split(self, split_size, d);
}

}  // namespace

// ---- public API ----
Tensor view(const Tensor& self, IntArrayRef sizes) { return view_op(self, sizes); }
Tensor _unsafe_view(const Tensor& self, IntArrayRef sizes) { return unsafe_view_op(self, sizes); }
Tensor _reshape_alias(const Tensor& self, IntArrayRef sizes, IntArrayRef strides) {
  return dispatch::call<reshape_alias_impl>(OpId::_reshape_alias, self, sizes, strides);
}
Tensor reshape(const Tensor& self, IntArrayRef sizes) { return reshape_op(self, sizes); }
Tensor flatten(const Tensor& self, int64_t start_dim, int64_t end_dim) {
  return flatten_op(self, start_dim, end_dim);
}
Tensor unflatten(const Tensor& self, int64_t dim, IntArrayRef sizes) { return unflatten_op(self, dim, sizes); }
Tensor t(const Tensor& self) { return dispatch::call<t_impl>(OpId::t, self); }
Tensor transpose(const Tensor& self, int64_t dim0, int64_t dim1) {
  return dispatch::call<transpose_impl>(OpId::transpose_int, self, dim0, dim1);
}
Tensor permute(const Tensor& self, IntArrayRef dims) {
  return dispatch::call<permute_impl>(OpId::permute, self, dims);
}
Tensor unsqueeze(const Tensor& self, int64_t dim) {
  return dispatch::call<unsqueeze_impl>(OpId::unsqueeze, self, dim);
}
Tensor squeeze(const Tensor& self) { return dispatch::call<squeeze_impl>(OpId::squeeze, self); }
Tensor squeeze(const Tensor& self, int64_t dim) {
  return dispatch::call<squeeze_dim_impl>(OpId::squeeze_dim, self, dim);
}
Tensor expand(const Tensor& self, IntArrayRef sizes) { return expand_op(self, sizes, false); }
Tensor expand_as(const Tensor& self, const Tensor& other) {
  return dispatch::call<expand_as_impl>(OpId::expand_as, self, other);
}
Tensor narrow(const Tensor& self, int64_t dim, int64_t start, int64_t length) {
  return dispatch::call<narrow_impl>(OpId::narrow, self, dim, start, length);
}
Tensor slice(const Tensor& self, int64_t dim, std::optional<int64_t> start, std::optional<int64_t> end,
             int64_t step) {
  return slice_op(self, dim, start, end, step);
}
Tensor select(const Tensor& self, int64_t dim, int64_t index) {
  return dispatch::call<select_impl>(OpId::select_int, self, dim, index);
}
Tensor as_strided(const Tensor& self, IntArrayRef sizes, IntArrayRef strides,
                  std::optional<int64_t> storage_offset) {
  return dispatch::call<as_strided_impl>(OpId::as_strided, self, sizes, strides, storage_offset);
}
std::vector<Tensor> chunk(const Tensor& self, int64_t chunks, int64_t dim) {
  return dispatch::call<chunk_impl>(OpId::chunk, self, chunks, dim);
}
std::vector<Tensor> split(const Tensor& self, int64_t split_size, int64_t dim) {
  return dispatch::call<split_impl>(OpId::split_Tensor, self, split_size, dim);
}
std::vector<Tensor> split_with_sizes(const Tensor& self, IntArrayRef split_sizes, int64_t dim) {
  return dispatch::call<split_with_sizes_impl>(OpId::split_with_sizes, self, split_sizes, dim);
}
std::vector<Tensor> unbind(const Tensor& self, int64_t dim) {
  return dispatch::call<unbind_impl>(OpId::unbind_int, self, dim);
}

using SqueezeDimFn = Tensor (*)(const Tensor&, int64_t);
using SqueezeFn = Tensor (*)(const Tensor&);
EMBER_REGISTER_OP(view, &view_op);
EMBER_REGISTER_OP(_unsafe_view, &unsafe_view_op);
EMBER_REGISTER_OP(_reshape_alias, &_reshape_alias);
EMBER_REGISTER_OP(reshape, &reshape_op);
EMBER_REGISTER_OP(flatten_using_ints, &flatten_op);
EMBER_REGISTER_OP(unflatten_int, &unflatten_op);
EMBER_REGISTER_OP(t, &t);
EMBER_REGISTER_OP(transpose_int, &transpose);
EMBER_REGISTER_OP(permute, &permute);
EMBER_REGISTER_OP(unsqueeze, &unsqueeze);
EMBER_REGISTER_OP(squeeze, static_cast<SqueezeFn>(&squeeze));
EMBER_REGISTER_OP(squeeze_dim, static_cast<SqueezeDimFn>(&squeeze));
EMBER_REGISTER_OP(expand, &expand_op);
EMBER_REGISTER_OP(expand_as, &expand_as);
EMBER_REGISTER_OP(narrow, &narrow);
EMBER_REGISTER_OP(slice_Tensor, &slice_op);
EMBER_REGISTER_OP(select_int, &select);
EMBER_REGISTER_OP(as_strided, &as_strided);
EMBER_REGISTER_OP(chunk, &chunk);
EMBER_REGISTER_OP(split_Tensor, &split);
EMBER_REGISTER_OP(split_with_sizes, &split_with_sizes);
EMBER_REGISTER_OP(unbind_int, &unbind);

// ---- Tensor methods ----
Tensor Tensor::view(IntArrayRef sizes) const { return ember::view(*this, sizes); }
Tensor Tensor::view_as(const Tensor& other) const { return ember::view(*this, other.sizes()); }
Tensor Tensor::reshape(IntArrayRef sizes) const { return ember::reshape(*this, sizes); }
Tensor Tensor::reshape_as(const Tensor& other) const { return ember::reshape(*this, other.sizes()); }
Tensor Tensor::flatten(int64_t s, int64_t e) const { return ember::flatten(*this, s, e); }
Tensor Tensor::unflatten(int64_t dim, IntArrayRef sizes) const { return ember::unflatten(*this, dim, sizes); }
Tensor Tensor::t() const { return ember::t(*this); }
Tensor Tensor::transpose(int64_t d0, int64_t d1) const { return ember::transpose(*this, d0, d1); }
Tensor Tensor::permute(IntArrayRef dims) const { return ember::permute(*this, dims); }
Tensor Tensor::unsqueeze(int64_t dim) const { return ember::unsqueeze(*this, dim); }
Tensor Tensor::squeeze() const { return ember::squeeze(*this); }
Tensor Tensor::squeeze(int64_t dim) const { return ember::squeeze(*this, dim); }
Tensor Tensor::expand(IntArrayRef sizes) const { return ember::expand(*this, sizes); }
Tensor Tensor::expand_as(const Tensor& other) const { return ember::expand_as(*this, other); }
Tensor Tensor::narrow(int64_t dim, int64_t start, int64_t length) const {
  return ember::narrow(*this, dim, start, length);
}
Tensor Tensor::slice(int64_t dim, std::optional<int64_t> start, std::optional<int64_t> end, int64_t step) const {
  return ember::slice(*this, dim, start, end, step);
}
Tensor Tensor::select(int64_t dim, int64_t index) const { return ember::select(*this, dim, index); }
Tensor Tensor::as_strided(IntArrayRef sizes, IntArrayRef strides, std::optional<int64_t> offset) const {
  return ember::as_strided(*this, sizes, strides, offset);
}
std::vector<Tensor> Tensor::chunk(int64_t chunks, int64_t dim) const { return ember::chunk(*this, chunks, dim); }
std::vector<Tensor> Tensor::split(int64_t split_size, int64_t dim) const {
  return ember::split(*this, split_size, dim);
}
std::vector<Tensor> Tensor::split(IntArrayRef split_sizes, int64_t dim) const {
  return ember::split_with_sizes(*this, split_sizes, dim);
}
std::vector<Tensor> Tensor::unbind(int64_t dim) const { return ember::unbind(*this, dim); }

}  // namespace ember
