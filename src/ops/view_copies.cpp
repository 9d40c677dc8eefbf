// The *_copy twins of the views (PyTorch's functionalization ops): the view's values as a fresh
// contiguous tensor that shares nothing with self (view(...).clone(contiguous_format), as
// PyTorch's generated composites). Gradients flow through the view and the clone.
#include "ember/ops/view_more.h"

#include "ember/ops/copy.h"
#include "ember/ops/pointwise.h"
#include "ember/ops/shape.h"
#include "ember/ops/view.h"

#include "../dispatch/boxing.h"

namespace ember {

using dispatch::OpId;

namespace {

Tensor fresh(const Tensor& view) { return view.clone(MemoryFormat::Contiguous); }
std::vector<Tensor> fresh(const std::vector<Tensor>& views) {
  std::vector<Tensor> out;
  out.reserve(views.size());
  for (const Tensor& v : views) out.push_back(fresh(v));
  return out;
}

Tensor view_copy_impl(const Tensor& self, IntArrayRef size) { return fresh(view(self, size)); }
Tensor permute_copy_impl(const Tensor& self, IntArrayRef dims) { return fresh(permute(self, dims)); }
Tensor select_copy_impl(const Tensor& self, int64_t dim, int64_t index) { return fresh(select(self, dim, index)); }
Tensor slice_copy_impl(const Tensor& self, int64_t dim, std::optional<int64_t> start, std::optional<int64_t> end,
                       int64_t step) {
  return fresh(slice(self, dim, start, end, step));
}
std::vector<Tensor> split_copy_impl(const Tensor& self, int64_t split_size, int64_t dim) {
  return fresh(split(self, split_size, dim));
}
std::vector<Tensor> split_with_sizes_copy_impl(const Tensor& self, IntArrayRef split_sizes, int64_t dim) {
  return fresh(split_with_sizes(self, split_sizes, dim));
}
Tensor squeeze_copy_impl(const Tensor& self) { return fresh(squeeze(self)); }
Tensor squeeze_copy_dim_impl(const Tensor& self, int64_t dim) { return fresh(squeeze(self, dim)); }
Tensor unsqueeze_copy_impl(const Tensor& self, int64_t dim) { return fresh(unsqueeze(self, dim)); }
Tensor t_copy_impl(const Tensor& self) { return fresh(t(self)); }
Tensor transpose_copy_impl(const Tensor& self, int64_t dim0, int64_t dim1) { return fresh(transpose(self, dim0, dim1)); }
std::vector<Tensor> unbind_copy_impl(const Tensor& self, int64_t dim) { return fresh(unbind(self, dim)); }
Tensor unfold_copy_impl(const Tensor& self, int64_t dimension, int64_t size, int64_t step) {
  return fresh(unfold(self, dimension, size, step));
}
Tensor expand_copy_impl(const Tensor& self, IntArrayRef size, bool implicit) {
  (void)implicit;  // only tracing tells the two apart
  return fresh(expand(self, size));
}
Tensor diagonal_copy_impl(const Tensor& self, int64_t offset, int64_t dim1, int64_t dim2) {
  return fresh(diagonal(self, offset, dim1, dim2));
}
Tensor detach_copy_impl(const Tensor& self) { return fresh(detach(self)); }
Tensor alias_copy_impl(const Tensor& self) { return fresh(alias(self)); }
Tensor as_strided_copy_impl(const Tensor& self, IntArrayRef size, IntArrayRef stride,
                            std::optional<int64_t> storage_offset) {
  return fresh(as_strided(self, size, stride, storage_offset));
}
Tensor _reshape_alias_copy_impl(const Tensor& self, IntArrayRef size, IntArrayRef stride) {
  return fresh(_reshape_alias(self, size, stride));
}
// ember has no lazy negative views: the copy of one is the negation.
Tensor _neg_view_copy_impl(const Tensor& self) { return neg(self); }

}  // namespace

Tensor view_copy(const Tensor& self, IntArrayRef size) {
  return dispatch::call<view_copy_impl>(OpId::view_copy, self, size);
}
Tensor permute_copy(const Tensor& self, IntArrayRef dims) {
  return dispatch::call<permute_copy_impl>(OpId::permute_copy, self, dims);
}
Tensor select_copy(const Tensor& self, int64_t dim, int64_t index) {
  return dispatch::call<select_copy_impl>(OpId::select_copy_int, self, dim, index);
}
Tensor slice_copy(const Tensor& self, int64_t dim, std::optional<int64_t> start, std::optional<int64_t> end,
                  int64_t step) {
  return dispatch::call<slice_copy_impl>(OpId::slice_copy_Tensor, self, dim, start, end, step);
}
std::vector<Tensor> split_copy(const Tensor& self, int64_t split_size, int64_t dim) {
  return dispatch::call<split_copy_impl>(OpId::split_copy_Tensor, self, split_size, dim);
}
std::vector<Tensor> split_with_sizes_copy(const Tensor& self, IntArrayRef split_sizes, int64_t dim) {
  return dispatch::call<split_with_sizes_copy_impl>(OpId::split_with_sizes_copy, self, split_sizes, dim);
}
Tensor squeeze_copy(const Tensor& self) { return dispatch::call<squeeze_copy_impl>(OpId::squeeze_copy, self); }
Tensor squeeze_copy(const Tensor& self, int64_t dim) {
  return dispatch::call<squeeze_copy_dim_impl>(OpId::squeeze_copy_dim, self, dim);
}
Tensor unsqueeze_copy(const Tensor& self, int64_t dim) {
  return dispatch::call<unsqueeze_copy_impl>(OpId::unsqueeze_copy, self, dim);
}
Tensor t_copy(const Tensor& self) { return dispatch::call<t_copy_impl>(OpId::t_copy, self); }
Tensor transpose_copy(const Tensor& self, int64_t dim0, int64_t dim1) {
  return dispatch::call<transpose_copy_impl>(OpId::transpose_copy_int, self, dim0, dim1);
}
std::vector<Tensor> unbind_copy(const Tensor& self, int64_t dim) {
  return dispatch::call<unbind_copy_impl>(OpId::unbind_copy_int, self, dim);
}
Tensor unfold_copy(const Tensor& self, int64_t dimension, int64_t size, int64_t step) {
  return dispatch::call<unfold_copy_impl>(OpId::unfold_copy, self, dimension, size, step);
}
Tensor expand_copy(const Tensor& self, IntArrayRef size, bool implicit) {
  return dispatch::call<expand_copy_impl>(OpId::expand_copy, self, size, implicit);
}
Tensor diagonal_copy(const Tensor& self, int64_t offset, int64_t dim1, int64_t dim2) {
  return dispatch::call<diagonal_copy_impl>(OpId::diagonal_copy, self, offset, dim1, dim2);
}
Tensor detach_copy(const Tensor& self) { return dispatch::call<detach_copy_impl>(OpId::detach_copy, self); }
Tensor alias_copy(const Tensor& self) { return dispatch::call<alias_copy_impl>(OpId::alias_copy, self); }
Tensor as_strided_copy(const Tensor& self, IntArrayRef size, IntArrayRef stride,
                       std::optional<int64_t> storage_offset) {
  return dispatch::call<as_strided_copy_impl>(OpId::as_strided_copy, self, size, stride, storage_offset);
}
Tensor _reshape_alias_copy(const Tensor& self, IntArrayRef size, IntArrayRef stride) {
  return dispatch::call<_reshape_alias_copy_impl>(OpId::_reshape_alias_copy, self, size, stride);
}
Tensor _neg_view_copy(const Tensor& self) { return dispatch::call<_neg_view_copy_impl>(OpId::_neg_view_copy, self); }

using SqueezeCopyFn = Tensor (*)(const Tensor&);
using SqueezeCopyDimFn = Tensor (*)(const Tensor&, int64_t);
EMBER_REGISTER_OP(view_copy, &view_copy);
EMBER_REGISTER_OP(permute_copy, &permute_copy);
EMBER_REGISTER_OP(select_copy_int, &select_copy);
EMBER_REGISTER_OP(slice_copy_Tensor, &slice_copy);
EMBER_REGISTER_OP(split_copy_Tensor, &split_copy);
EMBER_REGISTER_OP(split_with_sizes_copy, &split_with_sizes_copy);
EMBER_REGISTER_OP(squeeze_copy, static_cast<SqueezeCopyFn>(&squeeze_copy));
EMBER_REGISTER_OP(squeeze_copy_dim, static_cast<SqueezeCopyDimFn>(&squeeze_copy));
EMBER_REGISTER_OP(unsqueeze_copy, &unsqueeze_copy);
EMBER_REGISTER_OP(t_copy, &t_copy);
EMBER_REGISTER_OP(transpose_copy_int, &transpose_copy);
EMBER_REGISTER_OP(unbind_copy_int, &unbind_copy);
EMBER_REGISTER_OP(unfold_copy, &unfold_copy);
EMBER_REGISTER_OP(expand_copy, &expand_copy);
EMBER_REGISTER_OP(diagonal_copy, &diagonal_copy);
EMBER_REGISTER_OP(detach_copy, &detach_copy);
EMBER_REGISTER_OP(alias_copy, &alias_copy);
EMBER_REGISTER_OP(as_strided_copy, &as_strided_copy);
EMBER_REGISTER_OP(_reshape_alias_copy, &_reshape_alias_copy);
EMBER_REGISTER_OP(_neg_view_copy, &_neg_view_copy);

}  // namespace ember
