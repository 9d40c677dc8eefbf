// unfold (sliding windows: a primitive view with its backward rule), adjoint, the in-place views
// (squeeze_, unsqueeze_, t_, transpose_, as_strided_: self's own sizes and strides change, its
// storage stays; swapaxes_ / swapdims_ are transpose_), as_strided_scatter, the unsafe splits
// and resize_as_. Error texts are PyTorch 1.13's.
//
// Note [In-place views]
// An in-place view op rewrites self's geometry (TensorImpl::set_geometry) and bumps its version,
// as PyTorch does; autograd records it like any in-place op (PyTorch's node names: SqueezeBackward2,
// TBackward1, ...), the rule mapping the gradient of the new geometry back to the old one.
#include "ember/ops/view_more.h"

#include "ember/ops/complex.h"
#include "ember/ops/factory.h"
#include "ember/ops/math.h"
#include "ember/ops/shape.h"
#include "ember/ops/view.h"
#include "ember/tensor_impl.h"

#include "../autograd/functions.h"
#include "../autograd/record.h"
#include "../dispatch/boxing.h"
#include "autograd_views.h"
#include "elementwise.h"

namespace ember {

using dispatch::OpId;

namespace {

// ---- unfold ----

Tensor unfold_impl(const Tensor& self, int64_t dimension, int64_t size, int64_t step) {
  const int64_t nd = self.dim();
  const int64_t d = wrap_dim(dimension, std::max<int64_t>(nd, 1));
  const int64_t max_size = nd == 0 ? 1 : self.size(d);
  EMBER_CHECK(size <= max_size, "maximum size for tensor at dimension ", d, " is ", max_size,
              " but size is ", size);
  EMBER_CHECK(size >= 0, "size is ", size, " but must be >= 0");
  EMBER_CHECK(step > 0, "step is ", step, " but must be > 0");
  DimVector sizes(self.sizes().begin(), self.sizes().end());
  DimVector strides(self.strides().begin(), self.strides().end());
  if (nd > 0) {
    sizes[d] = (self.size(d) - size) / step + 1;
    strides[d] = step * self.stride(d);
  }
  sizes.push_back(size);
  strides.push_back(nd == 0 ? 1 : self.stride(d));
  return ops::make_view(self, sizes, strides, self.storage_offset());
}

// ---- in-place views ----

Tensor set_geometry_of(const Tensor& self, const Tensor& like) {
  self.impl()->set_geometry(like.sizes(), like.strides(), like.storage_offset());
  return ops::mark_written(self);
}

Tensor squeeze__impl(const Tensor& self) { return set_geometry_of(self, squeeze(self)); }
Tensor squeeze__dim_impl(const Tensor& self, int64_t dim) { return set_geometry_of(self, squeeze(self, dim)); }
Tensor unsqueeze__impl(const Tensor& self, int64_t dim) { return set_geometry_of(self, unsqueeze(self, dim)); }
Tensor t__impl(const Tensor& self) {
  EMBER_CHECK(self.dim() <= 2, "t_() expects a tensor with <= 2 dimensions, but self is ", self.dim(), "D");
  return set_geometry_of(self, t(self));
}
Tensor transpose__impl(const Tensor& self, int64_t dim0, int64_t dim1) {
  return set_geometry_of(self, transpose(self, dim0, dim1));
}
Tensor as_strided__impl(const Tensor& self, IntArrayRef size, IntArrayRef stride,
                        std::optional<int64_t> storage_offset) {
  return set_geometry_of(self, as_strided(self, size, stride, storage_offset));
}

// ---- composites ----

Tensor adjoint_impl(const Tensor& self) {
  EMBER_CHECK(self.dim() >= 2, "tensor.adjoint() is only supported on matrices or batches of matrices. Got ",
              self.dim(), "-D tensor.");
  const Tensor tr = transpose(self, -2, -1);
  return self.is_complex() ? conj(tr) : tr;
}

Tensor swapaxes__impl(const Tensor& self, int64_t axis0, int64_t axis1) {
  Tensor s = self;
  return transpose_(s, axis0, axis1);
}

Tensor as_strided_scatter_impl(const Tensor& self, const Tensor& src, IntArrayRef size, IntArrayRef stride,
                               std::optional<int64_t> storage_offset) {
  Tensor out = self.clone();
  Tensor slice = as_strided(out, size, stride, storage_offset);
  EMBER_CHECK(slice.sizes().equals(src.sizes()),
              "expected src to have a size equal to the slice of self. src size = ", src.sizes(),
              ", slice size = ", slice.sizes());
  slice.copy_(src);
  return out;
}

// The pieces as plain slices: views that, unlike split's, may be written in place.
std::vector<Tensor> unsafe_split_with_sizes_impl(const Tensor& self, IntArrayRef split_sizes, int64_t dim) {
  std::vector<Tensor> pieces = split_with_sizes(self.detach(), split_sizes, dim);  // checks and texts
  const int64_t d = wrap_dim(dim, self.dim());
  std::vector<Tensor> out;
  int64_t start = 0;
  for (const Tensor& p : pieces) {
    out.push_back(narrow(self, d, start, p.size(d)));
    start += p.size(d);
  }
  return out;
}

DimVector sizes_of(const std::vector<Tensor>& pieces, int64_t d) {
  DimVector s;
  for (const Tensor& p : pieces) s.push_back(p.size(d));
  return s;
}

std::vector<Tensor> unsafe_split_impl(const Tensor& self, int64_t split_size, int64_t dim) {
  EMBER_CHECK(self.dim() != 0, "split expects at least a 1-dimensional tensor");
  const std::vector<Tensor> pieces = split(self.detach(), split_size, dim);
  return unsafe_split_with_sizes_impl(self, sizes_of(pieces, wrap_dim(dim, self.dim())), dim);
}

std::vector<Tensor> unsafe_chunk_impl(const Tensor& self, int64_t chunks, int64_t dim) {
  EMBER_CHECK(self.dim() > 0, "chunk expects at least a 1-dimensional tensor");
  const std::vector<Tensor> pieces = chunk(self.detach(), chunks, dim);
  return unsafe_split_with_sizes_impl(self, sizes_of(pieces, wrap_dim(dim, self.dim())), dim);
}

Tensor resize_as__impl(const Tensor& self, const Tensor& the_template, std::optional<int64_t> memory_format) {
  (void)memory_format;  // PyTorch's too: only the sizes are taken (the format picks strides)
  Tensor s = self;
  return resize_(s, the_template.sizes());
}

// ---- autograd ----
using autograd::OpNode;
using autograd::tensor_list;

// UnfoldBackward0: each window element's gradient added back at its position
// (index_add over the window positions, so overlapping windows sum).
Tensor unfold_autograd(const Tensor& self, const int64_t& dimension, const int64_t& size, const int64_t& step) {
  autograd::Recorder r("UnfoldBackward0", self);
  Tensor out = r.forward([&] { return dispatch::call<unfold_impl>(OpId::unfold, self, dimension, size, step); });
  if (!r) return out;
  ops::propagate_view_creation(self, out, r.node().name());
  const int64_t nd = self.dim();
  const int64_t d = nd == 0 ? 0 : wrap_dim(dimension, nd);
  r.values("dimension", dimension, "self_sizes", self.sizes(), "size", size, "step", step);
  return r.finish(out, [sizes = self.sizes().vec(), nd, d, size, step](OpNode&, const tensor_list& g) {
    if (nd == 0) return tensor_list{g[0].sum().reshape({})};
    const int64_t windows = g[0].size(d);
    const TensorOptions idx_opts = TensorOptions(kInt64).device(g[0].device());
    const Tensor starts = (arange(windows, idx_opts) * step).unsqueeze(1);
    const Tensor index = (starts + arange(size, idx_opts).unsqueeze(0)).reshape({-1});
    DimVector merged(sizes.begin(), sizes.end());
    merged[d] = windows * size;
    const Tensor source = movedim(g[0], -1, d + 1).reshape(merged);
    const Tensor zero = zeros(sizes, TensorOptions(g[0].dtype()).device(g[0].device()));
    return tensor_list{index_add(zero, d, index, source)};
  });
}

// `values(r)` records the node's non-tensor values (before the write: self's old geometry).
template <class Impl, class Formula, class Values>
Tensor inplace_view_record(const char* name, const Tensor& self, Impl&& impl, Formula&& formula,
                           Values&& values) {
  autograd::Recorder r(name, self);
  autograd::check_inplace_if(r, self);
  if (r) values(r);
  const DimVector old_sizes(self.sizes().begin(), self.sizes().end());
  // A view's in-place record goes through CopySlices, which hands the rule the gradient of the
  // view's memory in its new geometry and writes the result back there: the elements are the
  // same ones before and after a geometry change, so the rule is the identity for views.
  const bool is_view = self.impl()->is_view();
  r.forward([&] { return impl(); });
  if (!r) return self;
  r.finish_inplace(self, [old_sizes, formula, is_view](OpNode&, const tensor_list& g) {
    return tensor_list{is_view ? g[0] : formula(g[0], IntArrayRef(old_sizes))};
  });
  return self;
}

Tensor squeeze__autograd(const Tensor& self) {
  return inplace_view_record("SqueezeBackward2", self,
      [&] { return dispatch::call<squeeze__impl>(OpId::squeeze_, self); },
      [](const Tensor& g, IntArrayRef old) { return g.reshape(old); },
      [&](autograd::Recorder& r) { r.values("self_sizes", self.sizes()); });
}
Tensor squeeze__dim_autograd(const Tensor& self, const int64_t& dim) {
  return inplace_view_record("SqueezeBackward3", self,
      [&] { return dispatch::call<squeeze__dim_impl>(OpId::squeeze__dim, self, dim); },
      [](const Tensor& g, IntArrayRef old) { return g.reshape(old); },
      [&](autograd::Recorder& r) { r.values("dim", dim, "self_sizes", self.sizes()); });
}
Tensor unsqueeze__autograd(const Tensor& self, const int64_t& dim) {
  return inplace_view_record("UnsqueezeBackward1", self,
      [&] { return dispatch::call<unsqueeze__impl>(OpId::unsqueeze_, self, dim); },
      [](const Tensor& g, IntArrayRef old) { return g.reshape(old); },
      [&](autograd::Recorder& r) { r.values("dim", dim); });
}
Tensor t__autograd(const Tensor& self) {
  return inplace_view_record("TBackward1", self, [&] { return dispatch::call<t__impl>(OpId::t_, self); },
                             [](const Tensor& g, IntArrayRef) { return t(g); }, [](autograd::Recorder&) {});
}
Tensor transpose__autograd(const Tensor& self, const int64_t& dim0, const int64_t& dim1) {
  return inplace_view_record("TransposeBackward1", self,
      [&] { return dispatch::call<transpose__impl>(OpId::transpose_, self, dim0, dim1); },
      [dim0, dim1](const Tensor& g, IntArrayRef) { return transpose(g, dim0, dim1); },
      [&](autograd::Recorder& r) { r.values("dim0", dim0, "dim1", dim1); });
}
Tensor as_strided__autograd(const Tensor& self, const IntArrayRef& size, const IntArrayRef& stride,
                            const std::optional<int64_t>& storage_offset) {
  const autograd::TensorGeometry input(self);
  const int64_t offset = storage_offset.value_or(self.storage_offset());
  return inplace_view_record("AsStridedBackward1", self,
      [&] { return dispatch::call<as_strided__impl>(OpId::as_strided_, self, size, stride, storage_offset); },
      [input, sizes = size.vec(), strides = stride.vec(), offset](const Tensor& g, IntArrayRef) {
        return autograd::as_strided_backward(g, input, sizes, strides, offset);
      },
      [&](autograd::Recorder& r) { r.values("size", size, "storage_offset", storage_offset, "stride", stride); });
}

}  // namespace

EMBER_REGISTER_AUTOGRAD(unfold, &unfold_autograd);
EMBER_REGISTER_AUTOGRAD(squeeze_, &squeeze__autograd);
EMBER_REGISTER_AUTOGRAD(squeeze__dim, &squeeze__dim_autograd);
EMBER_REGISTER_AUTOGRAD(unsqueeze_, &unsqueeze__autograd);
EMBER_REGISTER_AUTOGRAD(t_, &t__autograd);
EMBER_REGISTER_AUTOGRAD(transpose_, &transpose__autograd);
EMBER_REGISTER_AUTOGRAD(as_strided_, &as_strided__autograd);

// ---- frontends ----
Tensor unfold(const Tensor& self, int64_t dimension, int64_t size, int64_t step) {
  return dispatch::call<unfold_impl>(OpId::unfold, self, dimension, size, step);
}
Tensor adjoint(const Tensor& self) { return dispatch::call<adjoint_impl>(OpId::adjoint, self); }
Tensor& squeeze_(Tensor& self) {
  dispatch::call<squeeze__impl>(OpId::squeeze_, self);
  return self;
}
Tensor& squeeze_(Tensor& self, int64_t dim) {
  dispatch::call<squeeze__dim_impl>(OpId::squeeze__dim, self, dim);
  return self;
}
Tensor& unsqueeze_(Tensor& self, int64_t dim) {
  dispatch::call<unsqueeze__impl>(OpId::unsqueeze_, self, dim);
  return self;
}
Tensor& t_(Tensor& self) {
  dispatch::call<t__impl>(OpId::t_, self);
  return self;
}
Tensor& transpose_(Tensor& self, int64_t dim0, int64_t dim1) {
  dispatch::call<transpose__impl>(OpId::transpose_, self, dim0, dim1);
  return self;
}
Tensor& swapaxes_(Tensor& self, int64_t axis0, int64_t axis1) {
  dispatch::call<swapaxes__impl>(OpId::swapaxes_, self, axis0, axis1);
  return self;
}
Tensor& swapdims_(Tensor& self, int64_t dim0, int64_t dim1) {
  dispatch::call<swapaxes__impl>(OpId::swapdims_, self, dim0, dim1);
  return self;
}
Tensor& as_strided_(Tensor& self, IntArrayRef size, IntArrayRef stride, std::optional<int64_t> storage_offset) {
  dispatch::call<as_strided__impl>(OpId::as_strided_, self, size, stride, storage_offset);
  return self;
}
Tensor as_strided_scatter(const Tensor& self, const Tensor& src, IntArrayRef size, IntArrayRef stride,
                          std::optional<int64_t> storage_offset) {
  return dispatch::call<as_strided_scatter_impl>(OpId::as_strided_scatter, self, src, size, stride, storage_offset);
}
std::vector<Tensor> unsafe_chunk(const Tensor& self, int64_t chunks, int64_t dim) {
  return dispatch::call<unsafe_chunk_impl>(OpId::unsafe_chunk, self, chunks, dim);
}
std::vector<Tensor> unsafe_split(const Tensor& self, int64_t split_size, int64_t dim) {
  return dispatch::call<unsafe_split_impl>(OpId::unsafe_split_Tensor, self, split_size, dim);
}
std::vector<Tensor> unsafe_split_with_sizes(const Tensor& self, IntArrayRef split_sizes, int64_t dim) {
  return dispatch::call<unsafe_split_with_sizes_impl>(OpId::unsafe_split_with_sizes, self, split_sizes, dim);
}
namespace {
Tensor& resize_as__op(Tensor& self, const Tensor& the_template, std::optional<int64_t> memory_format) {
  dispatch::call<resize_as__impl>(OpId::resize_as_, self, the_template, memory_format);
  return self;
}
}  // namespace
Tensor& resize_as_(Tensor& self, const Tensor& the_template) {
  return resize_as__op(self, the_template, std::nullopt);
}

using SqueezeInplaceFn = Tensor& (*)(Tensor&);
using SqueezeDimInplaceFn = Tensor& (*)(Tensor&, int64_t);
EMBER_REGISTER_OP(unfold, &unfold);
EMBER_REGISTER_OP(adjoint, &adjoint);
EMBER_REGISTER_OP(squeeze_, static_cast<SqueezeInplaceFn>(&squeeze_));
EMBER_REGISTER_OP(squeeze__dim, static_cast<SqueezeDimInplaceFn>(&squeeze_));
EMBER_REGISTER_OP(unsqueeze_, &unsqueeze_);
EMBER_REGISTER_OP(t_, &t_);
EMBER_REGISTER_OP(transpose_, &transpose_);
EMBER_REGISTER_OP(swapaxes_, &swapaxes_);
EMBER_REGISTER_OP(swapdims_, &swapdims_);
EMBER_REGISTER_OP(as_strided_, &as_strided_);
EMBER_REGISTER_OP(as_strided_scatter, &as_strided_scatter);
EMBER_REGISTER_OP(unsafe_chunk, &unsafe_chunk);
EMBER_REGISTER_OP(unsafe_split_Tensor, &unsafe_split);
EMBER_REGISTER_OP(unsafe_split_with_sizes, &unsafe_split_with_sizes);
EMBER_REGISTER_OP(resize_as_, &resize_as__op);


}  // namespace ember
