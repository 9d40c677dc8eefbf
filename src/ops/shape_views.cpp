// Views beyond view.cpp's primitives: diagonal and squeeze.dims (primitives with backward
// rules), and the composites over views that PyTorch writes as composites too (movedim,
// swapaxes, broadcast_to, atleast_Nd, tensor_split and hsplit / vsplit / dsplit), plus the eager
// values of the symbolic-shape queries (sym_size, ...). Error texts are PyTorch 1.13's.
#include <algorithm>

#include "../autograd/record.h"
#include "../dispatch/boxing.h"
#include "autograd_views.h"
#include "elementwise.h"
#include "ember/ops/shape.h"

namespace ember {

namespace dispatch {
// sym_is_contiguous is the one op of the table returning a bool (SymBool): an override's boxed
// result converts here (declared in this file, the only one that calls such an op).
template <>
inline bool unbox_result<bool>(Stack&& out, const OpHandle& op) {
  EMBER_CHECK_TYPE(out.size() == 1 && out[0].is_bool(), op.full_name(), ": an override must return a bool");
  return out[0].to_bool();
}
}  // namespace dispatch

using dispatch::OpId;

namespace {

// ---- diagonal ----

// The geometry of self.diagonal(offset, dim1, dim2): dim1 and dim2 removed, the diagonal
// appended as the last dim (PyTorch's diagonal view).
Tensor diagonal_impl(const Tensor& self, int64_t offset, int64_t dim1, int64_t dim2) {
  const int64_t nd = self.dim();
  const int64_t d1 = wrap_dim(dim1, nd), d2 = wrap_dim(dim2, nd);
  EMBER_CHECK(d1 != d2, "diagonal dimensions cannot be identical ", dim1, ", ", dim2);
  int64_t storage_offset = self.storage_offset();
  int64_t diag_size;
  if (offset >= 0) {
    diag_size = std::max<int64_t>(std::min(self.size(d1), self.size(d2) - offset), 0);
  } else {
    diag_size = std::max<int64_t>(std::min(self.size(d1) + offset, self.size(d2)), 0);
  }
  if (diag_size > 0) {
    storage_offset += offset >= 0 ? offset * self.stride(d2) : -offset * self.stride(d1);
  }
  DimVector sizes, strides;
  for (int64_t d = 0; d < nd; ++d) {
    if (d == d1 || d == d2) continue;
    sizes.push_back(self.size(d));
    strides.push_back(self.stride(d));
  }
  sizes.push_back(diag_size);
  strides.push_back(self.stride(d1) + self.stride(d2));
  return ops::make_view(self, sizes, strides, storage_offset);
}

// ---- squeeze.dims ----

Tensor squeeze_dims_impl(const Tensor& self, IntArrayRef dims) {
  const int64_t nd = self.dim();
  std::vector<bool> drop(static_cast<size_t>(std::max<int64_t>(nd, 1)), false);
  for (int64_t d : dims) {
    const int64_t w = wrap_dim(d, nd);
    if (nd > 0 && self.size(w) == 1) drop[static_cast<size_t>(w)] = true;
  }
  DimVector sizes, strides;
  for (int64_t d = 0; d < nd; ++d) {
    if (drop[static_cast<size_t>(d)]) continue;
    sizes.push_back(self.size(d));
    strides.push_back(self.stride(d));
  }
  return ops::make_view(self, sizes, strides, self.storage_offset());
}

// ---- autograd ----
using autograd::OpNode;
using autograd::tensor_list;

Tensor finish_view(autograd::Recorder& r, const Tensor& self, const Tensor& out, OpNode::Formula f) {
  ops::propagate_view_creation(self, out, r.node().name());
  return r.finish(out, std::move(f));
}

// d diagonal(self) = zeros of self's shape with grad written on the same diagonal
Tensor diagonal_autograd(const Tensor& self, const int64_t& offset, const int64_t& dim1, const int64_t& dim2) {
  autograd::Recorder r("DiagonalBackward0", self);
  Tensor out = r.forward(
      [&] { return dispatch::call<diagonal_impl>(OpId::diagonal, self, offset, dim1, dim2); });
  if (!r) return out;
  r.values("dim1", dim1, "dim2", dim2, "offset", offset, "self_sym_sizes", self.sizes());
  return finish_view(r, self, out, [offset, dim1, dim2](OpNode& n, const tensor_list& g) {
    Tensor grad = zeros(n.value(3).to_int_list(), TensorOptions(g[0].dtype()).device(g[0].device()));
    grad.diagonal(offset, dim1, dim2).copy_(g[0]);
    return tensor_list{grad};
  });
}

// d squeeze(self, dims) = grad with the squeezed dims put back (ascending)
Tensor squeeze_dims_autograd(const Tensor& self, const IntArrayRef& dims) {
  autograd::Recorder r("SqueezeBackward2", self);
  Tensor out = r.forward([&] { return dispatch::call<squeeze_dims_impl>(OpId::squeeze_dims, self, dims); });
  if (!r) return out;
  r.values("self_sizes", self.sizes());
  return finish_view(r, self, out, [](OpNode& n, const tensor_list& g) {
    return tensor_list{g[0].reshape(n.value(0).to_int_list())};
  });
}

EMBER_REGISTER_AUTOGRAD(diagonal, &diagonal_autograd);
EMBER_REGISTER_AUTOGRAD(squeeze_dims, &squeeze_dims_autograd);

// ---- composites ----

Tensor movedim_intlist_impl(const Tensor& self, IntArrayRef source, IntArrayRef destination) {
  const int64_t nd = self.dim();
  EMBER_CHECK(source.size() == destination.size(), "movedim: Invalid source or destination dims: source (",
              source, " dims) should contain the same number of dims as destination (", destination, " dims)");
  std::vector<int64_t> src(source.size()), dst(destination.size());
  for (size_t i = 0; i < source.size(); ++i) {
    src[i] = wrap_dim(source[i], nd);
    dst[i] = wrap_dim(destination[i], nd);
  }
  auto check_unique = [](const std::vector<int64_t>& v, const char* what, IntArrayRef given) {
    std::vector<int64_t> s = v;
    std::sort(s.begin(), s.end());
    EMBER_CHECK(std::adjacent_find(s.begin(), s.end()) == s.end(), "movedim: repeated dim in `", what,
                "` (", given, ")");
  };
  check_unique(src, "source", source);
  check_unique(dst, "destination", destination);
  if (nd <= 1) return ember::permute(self, DimVector(static_cast<size_t>(nd), 0));
  // Each destination slot takes its source dim; the remaining dims keep their order.
  DimVector order(static_cast<size_t>(nd), -1);
  std::vector<bool> used(static_cast<size_t>(nd), false);
  for (size_t i = 0; i < src.size(); ++i) {
    order[static_cast<size_t>(dst[i])] = src[i];
    used[static_cast<size_t>(src[i])] = true;
  }
  int64_t next = 0;
  for (auto& o : order) {
    if (o != -1) continue;
    while (used[static_cast<size_t>(next)]) ++next;
    o = next++;
  }
  return ember::permute(self, order);
}
Tensor movedim_int_impl(const Tensor& self, int64_t source, int64_t destination) {
  return ember::movedim(self, IntArrayRef{source}, IntArrayRef{destination});
}

Tensor swapaxes_impl(const Tensor& self, int64_t a, int64_t b) { return ember::transpose(self, a, b); }

Tensor broadcast_to_impl(const Tensor& self, IntArrayRef size) { return ember::expand(self, size); }

std::vector<Tensor> broadcast_tensors_impl(ArrayRef<Tensor> tensors) {
  DimVector shape = ops::broadcast_all(tensors);
  std::vector<Tensor> out;
  for (const Tensor& t : tensors) out.push_back(ember::expand(t, shape));
  return out;
}

Tensor atleast_1d_impl(const Tensor& self) { return self.dim() == 0 ? self.reshape({1}) : self; }
Tensor atleast_2d_impl(const Tensor& self) {
  if (self.dim() == 0) return self.reshape({1, 1});
  if (self.dim() == 1) return self.unsqueeze(0);
  return self;
}
Tensor atleast_3d_impl(const Tensor& self) {
  if (self.dim() == 0) return self.reshape({1, 1, 1});
  if (self.dim() == 1) return self.unsqueeze(0).unsqueeze(-1);
  if (self.dim() == 2) return self.unsqueeze(-1);
  return self;
}
template <Tensor (*one)(const Tensor&)>
std::vector<Tensor> atleast_seq_impl(ArrayRef<Tensor> tensors) {
  std::vector<Tensor> out;
  for (const Tensor& t : tensors) out.push_back(one(t));
  return out;
}

std::vector<Tensor> tensor_split_sections_impl(const Tensor& self, int64_t sections, int64_t dim) {
  EMBER_CHECK(self.dim() > 0, "tensor_split expected at least a 1-dimensional tensor, but got a tensor with ",
              self.dim(), " dims");
  const int64_t d = wrap_dim(dim, self.dim());
  EMBER_CHECK(sections > 0, "number of sections must be larger than 0, got ", sections);
  const int64_t size = self.size(d);
  const int64_t base = size / sections, extra = size % sections;
  std::vector<Tensor> out;
  int64_t start = 0;
  for (int64_t i = 0; i < sections; ++i) {
    const int64_t len = base + (i < extra ? 1 : 0);
    out.push_back(ember::slice(self, d, start, start + len, 1));
    start += len;
  }
  return out;
}

std::vector<Tensor> tensor_split_indices_impl(const Tensor& self, IntArrayRef indices, int64_t dim) {
  EMBER_CHECK(self.dim() > 0, "tensor_split expected at least a 1-dimensional tensor, but got a tensor with ",
              self.dim(), " dims");
  const int64_t d = wrap_dim(dim, self.dim());
  std::vector<Tensor> out;
  int64_t start = 0;
  for (int64_t idx : indices) {
    out.push_back(ember::slice(self, d, start, idx, 1));
    start = idx;
  }
  out.push_back(ember::slice(self, d, start, std::nullopt, 1));
  return out;
}

std::vector<Tensor> tensor_split_tensor_impl(const Tensor& self, const Tensor& ios, int64_t dim) {
  EMBER_CHECK(ios.device() == kCPU, "tensor_split expected tensor_indices_or_sections to be on cpu, but it's on ",
              ios.device().str());
  EMBER_CHECK(ios.dtype() == kInt64, "tensor_split expected tensor_indices_or_sections to have dtype of long, but got ",
              scalar_type_name(ios.dtype()));
  EMBER_CHECK(ios.dim() <= 1, "tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
              "one-dimensional tensor, but got a tensor with ", ios.dim(), " dims");
  if (ios.dim() == 0) return ember::tensor_split(self, ios.item<int64_t>(), dim);
  Tensor c = ios.contiguous();
  std::vector<int64_t> idx(c.data_ptr<int64_t>(), c.data_ptr<int64_t>() + c.numel());
  return ember::tensor_split(self, IntArrayRef(idx), dim);
}

// hsplit / vsplit / dsplit: tensor_split along dim 1 (0 for 1-d), 0 and 2.
template <int kind>
int64_t split_dim_checked(const Tensor& self) {
  static constexpr const char* names[] = {"hsplit", "vsplit", "dsplit"};
  static constexpr int64_t min_dims[] = {1, 2, 3};
  EMBER_CHECK(self.dim() >= min_dims[kind], "ember.", names[kind], " requires a tensor with at least ",
              min_dims[kind], " dimension, but got a tensor with ", self.dim(), " dimensions!");
  if (kind == 0) return self.dim() == 1 ? 0 : 1;
  return kind == 1 ? 0 : 2;
}
template <int kind>
std::vector<Tensor> hvd_split_int_impl(const Tensor& self, int64_t sections) {
  static constexpr const char* names[] = {"hsplit", "vsplit", "dsplit"};
  const int64_t d = split_dim_checked<kind>(self);
  EMBER_CHECK(sections != 0 && self.size(d) % sections == 0, "ember.", names[kind],
              " attempted to split along dimension ", d, ", but the size of the dimension ", self.size(d),
              " is not divisible by the split_size ", sections, "!");
  return ember::tensor_split(self, sections, d);
}
template <int kind>
std::vector<Tensor> hvd_split_array_impl(const Tensor& self, IntArrayRef indices) {
  return ember::tensor_split(self, indices, split_dim_checked<kind>(self));
}

// ---- symbolic-shape queries: eager values ----
int64_t sym_size_impl(const Tensor& self, int64_t dim) { return self.size(wrap_dim(dim, self.dim())); }
int64_t sym_stride_impl(const Tensor& self, int64_t dim) { return self.stride(wrap_dim(dim, self.dim())); }
int64_t sym_numel_impl(const Tensor& self) { return self.numel(); }
int64_t sym_storage_offset_impl(const Tensor& self) { return self.storage_offset(); }
bool sym_is_contiguous_impl(const Tensor& self, int64_t memory_format) {
  return self.is_contiguous(static_cast<MemoryFormat>(memory_format));
}

// ---- schema-shaped frontends ----
Tensor diagonal_op(const Tensor& self, int64_t offset, int64_t dim1, int64_t dim2) {
  return dispatch::call<diagonal_impl>(OpId::diagonal, self, offset, dim1, dim2);
}
Tensor squeeze_dims_op(const Tensor& self, IntArrayRef dims) {
  return dispatch::call<squeeze_dims_impl>(OpId::squeeze_dims, self, dims);
}
Tensor movedim_intlist_op(const Tensor& self, IntArrayRef s, IntArrayRef d) {
  return dispatch::call<movedim_intlist_impl>(OpId::movedim_intlist, self, s, d);
}
Tensor movedim_int_op(const Tensor& self, int64_t s, int64_t d) {
  return dispatch::call<movedim_int_impl>(OpId::movedim_int, self, s, d);
}
Tensor moveaxis_intlist_op(const Tensor& self, IntArrayRef s, IntArrayRef d) {
  return dispatch::call<movedim_intlist_impl>(OpId::moveaxis_intlist, self, s, d);
}
Tensor moveaxis_int_op(const Tensor& self, int64_t s, int64_t d) {
  return dispatch::call<movedim_int_impl>(OpId::moveaxis_int, self, s, d);
}
Tensor swapaxes_op(const Tensor& self, int64_t a, int64_t b) {
  return dispatch::call<swapaxes_impl>(OpId::swapaxes, self, a, b);
}
Tensor swapdims_op(const Tensor& self, int64_t a, int64_t b) {
  return dispatch::call<swapaxes_impl>(OpId::swapdims, self, a, b);
}
Tensor broadcast_to_op(const Tensor& self, IntArrayRef size) {
  return dispatch::call<broadcast_to_impl>(OpId::broadcast_to, self, size);
}
Tensor atleast_1d_op(const Tensor& self) { return dispatch::call<atleast_1d_impl>(OpId::atleast_1d, self); }
Tensor atleast_2d_op(const Tensor& self) { return dispatch::call<atleast_2d_impl>(OpId::atleast_2d, self); }
Tensor atleast_3d_op(const Tensor& self) { return dispatch::call<atleast_3d_impl>(OpId::atleast_3d, self); }
std::vector<Tensor> atleast_1d_seq_op(ArrayRef<Tensor> ts) {
  return dispatch::call<atleast_seq_impl<atleast_1d_op>>(OpId::atleast_1d_Sequence, ts);
}
std::vector<Tensor> atleast_2d_seq_op(ArrayRef<Tensor> ts) {
  return dispatch::call<atleast_seq_impl<atleast_2d_op>>(OpId::atleast_2d_Sequence, ts);
}
std::vector<Tensor> atleast_3d_seq_op(ArrayRef<Tensor> ts) {
  return dispatch::call<atleast_seq_impl<atleast_3d_op>>(OpId::atleast_3d_Sequence, ts);
}
std::vector<Tensor> tensor_split_tensor_op(const Tensor& self, const Tensor& ios, int64_t dim) {
  return dispatch::call<tensor_split_tensor_impl>(OpId::tensor_split_tensor_indices_or_sections, self, ios, dim);
}
std::vector<Tensor> hsplit_array_op(const Tensor& self, IntArrayRef indices) {
  return dispatch::call<hvd_split_array_impl<0>>(OpId::hsplit_array, self, indices);
}
std::vector<Tensor> vsplit_array_op(const Tensor& self, IntArrayRef indices) {
  return dispatch::call<hvd_split_array_impl<1>>(OpId::vsplit_array, self, indices);
}
std::vector<Tensor> dsplit_array_op(const Tensor& self, IntArrayRef indices) {
  return dispatch::call<hvd_split_array_impl<2>>(OpId::dsplit_array, self, indices);
}
int64_t sym_size_op(const Tensor& self, int64_t dim) { return dispatch::call<sym_size_impl>(OpId::sym_size_int, self, dim); }
int64_t sym_stride_op(const Tensor& self, int64_t dim) {
  return dispatch::call<sym_stride_impl>(OpId::sym_stride_int, self, dim);
}
int64_t sym_numel_op(const Tensor& self) { return dispatch::call<sym_numel_impl>(OpId::sym_numel, self); }
int64_t sym_storage_offset_op(const Tensor& self) {
  return dispatch::call<sym_storage_offset_impl>(OpId::sym_storage_offset, self);
}
bool sym_is_contiguous_op(const Tensor& self, int64_t memory_format) {
  return dispatch::call<sym_is_contiguous_impl>(OpId::sym_is_contiguous, self, memory_format);
}

}  // namespace

// ---- public API ----
Tensor diagonal(const Tensor& self, int64_t offset, int64_t dim1, int64_t dim2) {
  return diagonal_op(self, offset, dim1, dim2);
}
Tensor squeeze(const Tensor& self, IntArrayRef dims) { return squeeze_dims_op(self, dims); }
Tensor movedim(const Tensor& self, IntArrayRef source, IntArrayRef destination) {
  return movedim_intlist_op(self, source, destination);
}
Tensor movedim(const Tensor& self, int64_t source, int64_t destination) {
  return movedim_int_op(self, source, destination);
}
Tensor swapaxes(const Tensor& self, int64_t axis0, int64_t axis1) { return swapaxes_op(self, axis0, axis1); }
Tensor broadcast_to(const Tensor& self, IntArrayRef size) { return broadcast_to_op(self, size); }
std::vector<Tensor> broadcast_tensors(ArrayRef<Tensor> tensors) {
  return dispatch::call<broadcast_tensors_impl>(OpId::broadcast_tensors, tensors);
}
Tensor atleast_1d(const Tensor& self) { return atleast_1d_op(self); }
Tensor atleast_2d(const Tensor& self) { return atleast_2d_op(self); }
Tensor atleast_3d(const Tensor& self) { return atleast_3d_op(self); }
std::vector<Tensor> tensor_split(const Tensor& self, int64_t sections, int64_t dim) {
  return dispatch::call<tensor_split_sections_impl>(OpId::tensor_split_sections, self, sections, dim);
}
std::vector<Tensor> tensor_split(const Tensor& self, IntArrayRef indices, int64_t dim) {
  return dispatch::call<tensor_split_indices_impl>(OpId::tensor_split_indices, self, indices, dim);
}
std::vector<Tensor> hsplit(const Tensor& self, int64_t sections) {
  return dispatch::call<hvd_split_int_impl<0>>(OpId::hsplit_int, self, sections);
}
std::vector<Tensor> vsplit(const Tensor& self, int64_t sections) {
  return dispatch::call<hvd_split_int_impl<1>>(OpId::vsplit_int, self, sections);
}
std::vector<Tensor> dsplit(const Tensor& self, int64_t sections) {
  return dispatch::call<hvd_split_int_impl<2>>(OpId::dsplit_int, self, sections);
}

using SplitSectionsFn = std::vector<Tensor> (*)(const Tensor&, int64_t, int64_t);
using SplitIndicesFn = std::vector<Tensor> (*)(const Tensor&, IntArrayRef, int64_t);
using HvdIntFn = std::vector<Tensor> (*)(const Tensor&, int64_t);
EMBER_REGISTER_OP(diagonal, &diagonal_op);
EMBER_REGISTER_OP(squeeze_dims, &squeeze_dims_op);
EMBER_REGISTER_OP(movedim_intlist, &movedim_intlist_op);
EMBER_REGISTER_OP(movedim_int, &movedim_int_op);
EMBER_REGISTER_OP(moveaxis_intlist, &moveaxis_intlist_op);
EMBER_REGISTER_OP(moveaxis_int, &moveaxis_int_op);
EMBER_REGISTER_OP(swapaxes, &swapaxes_op);
EMBER_REGISTER_OP(swapdims, &swapdims_op);
EMBER_REGISTER_OP(broadcast_to, &broadcast_to_op);
EMBER_REGISTER_OP(broadcast_tensors, &broadcast_tensors);
EMBER_REGISTER_OP(atleast_1d, &atleast_1d_op);
EMBER_REGISTER_OP(atleast_2d, &atleast_2d_op);
EMBER_REGISTER_OP(atleast_3d, &atleast_3d_op);
EMBER_REGISTER_OP(atleast_1d_Sequence, &atleast_1d_seq_op);
EMBER_REGISTER_OP(atleast_2d_Sequence, &atleast_2d_seq_op);
EMBER_REGISTER_OP(atleast_3d_Sequence, &atleast_3d_seq_op);
EMBER_REGISTER_OP(tensor_split_sections, static_cast<SplitSectionsFn>(&tensor_split));
EMBER_REGISTER_OP(tensor_split_indices, static_cast<SplitIndicesFn>(&tensor_split));
EMBER_REGISTER_OP(tensor_split_tensor_indices_or_sections, &tensor_split_tensor_op);
EMBER_REGISTER_OP(hsplit_int, static_cast<HvdIntFn>(&hsplit));
EMBER_REGISTER_OP(vsplit_int, static_cast<HvdIntFn>(&vsplit));
EMBER_REGISTER_OP(dsplit_int, static_cast<HvdIntFn>(&dsplit));
EMBER_REGISTER_OP(hsplit_array, &hsplit_array_op);
EMBER_REGISTER_OP(vsplit_array, &vsplit_array_op);
EMBER_REGISTER_OP(dsplit_array, &dsplit_array_op);
EMBER_REGISTER_OP(sym_size_int, &sym_size_op);
EMBER_REGISTER_OP(sym_stride_int, &sym_stride_op);
EMBER_REGISTER_OP(sym_numel, &sym_numel_op);
EMBER_REGISTER_OP(sym_storage_offset, &sym_storage_offset_op);
EMBER_REGISTER_OP(sym_is_contiguous, &sym_is_contiguous_op);

// ---- Tensor methods ----
Tensor Tensor::diagonal(int64_t offset, int64_t dim1, int64_t dim2) const {
  return ember::diagonal(*this, offset, dim1, dim2);
}
Tensor Tensor::movedim(IntArrayRef source, IntArrayRef destination) const {
  return ember::movedim(*this, source, destination);
}
Tensor Tensor::swapaxes(int64_t axis0, int64_t axis1) const { return ember::swapaxes(*this, axis0, axis1); }
Tensor Tensor::broadcast_to(IntArrayRef size) const { return ember::broadcast_to(*this, size); }

}  // namespace ember
