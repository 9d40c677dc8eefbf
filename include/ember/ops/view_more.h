// More views (src/ops/view_inplace.cpp, view_copies.cpp): unfold (sliding windows), adjoint,
// the in-place views (squeeze_, unsqueeze_, t_, transpose_, swapaxes_ / swapdims_, as_strided_:
// self's own geometry changes), as_strided_scatter, the unsafe splits, and the *_copy twins of
// the views, which return fresh tensors instead of views.
//
//   auto w = x.unfold(0, 3, 1);         // windows of 3 along dim 0, a view
//   x.unsqueeze_(0);                     // x itself is now [1, ...]
//   auto c = ember::permute_copy(x, {1, 0});   // a contiguous copy, shares nothing with x
#pragma once

#include <optional>
#include <vector>

#include "ember/tensor.h"

namespace ember {

Tensor unfold(const Tensor& self, int64_t dimension, int64_t size, int64_t step);
Tensor adjoint(const Tensor& self);
Tensor& squeeze_(Tensor& self);
Tensor& squeeze_(Tensor& self, int64_t dim);
Tensor& unsqueeze_(Tensor& self, int64_t dim);
Tensor& t_(Tensor& self);
Tensor& transpose_(Tensor& self, int64_t dim0, int64_t dim1);
Tensor& swapaxes_(Tensor& self, int64_t axis0, int64_t axis1);
Tensor& swapdims_(Tensor& self, int64_t dim0, int64_t dim1);
Tensor& as_strided_(Tensor& self, IntArrayRef size, IntArrayRef stride,
                    std::optional<int64_t> storage_offset = std::nullopt);
Tensor as_strided_scatter(const Tensor& self, const Tensor& src, IntArrayRef size, IntArrayRef stride,
                          std::optional<int64_t> storage_offset = std::nullopt);
std::vector<Tensor> unsafe_chunk(const Tensor& self, int64_t chunks, int64_t dim = 0);
std::vector<Tensor> unsafe_split(const Tensor& self, int64_t split_size, int64_t dim = 0);
std::vector<Tensor> unsafe_split_with_sizes(const Tensor& self, IntArrayRef split_sizes, int64_t dim = 0);
Tensor& resize_as_(Tensor& self, const Tensor& the_template);

Tensor view_copy(const Tensor& self, IntArrayRef size);
Tensor permute_copy(const Tensor& self, IntArrayRef dims);
Tensor select_copy(const Tensor& self, int64_t dim, int64_t index);
Tensor slice_copy(const Tensor& self, int64_t dim = 0, std::optional<int64_t> start = std::nullopt,
                  std::optional<int64_t> end = std::nullopt, int64_t step = 1);
std::vector<Tensor> split_copy(const Tensor& self, int64_t split_size, int64_t dim = 0);
std::vector<Tensor> split_with_sizes_copy(const Tensor& self, IntArrayRef split_sizes, int64_t dim = 0);
Tensor squeeze_copy(const Tensor& self);
Tensor squeeze_copy(const Tensor& self, int64_t dim);
Tensor unsqueeze_copy(const Tensor& self, int64_t dim);
Tensor t_copy(const Tensor& self);
Tensor transpose_copy(const Tensor& self, int64_t dim0, int64_t dim1);
std::vector<Tensor> unbind_copy(const Tensor& self, int64_t dim = 0);
Tensor unfold_copy(const Tensor& self, int64_t dimension, int64_t size, int64_t step);
Tensor expand_copy(const Tensor& self, IntArrayRef size, bool implicit = false);
Tensor diagonal_copy(const Tensor& self, int64_t offset = 0, int64_t dim1 = 0, int64_t dim2 = 1);
Tensor detach_copy(const Tensor& self);
Tensor alias_copy(const Tensor& self);
Tensor as_strided_copy(const Tensor& self, IntArrayRef size, IntArrayRef stride,
                       std::optional<int64_t> storage_offset = std::nullopt);
Tensor _reshape_alias_copy(const Tensor& self, IntArrayRef size, IntArrayRef stride);
Tensor _neg_view_copy(const Tensor& self);

}  // namespace ember
