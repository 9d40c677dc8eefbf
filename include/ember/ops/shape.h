// Shape, indexing, scatter and sorting ops beyond the basic views: PyTorch's names and
// semantics (torch.flip, torch.tril, torch.einsum, torch.unique, ...).
//
//   auto d = ember::diagonal(m);                  // a view of m's main diagonal
//   auto l = ember::tril(m, -1);                  // strictly lower triangle
//   auto e = ember::einsum("ij,jk->ik", {a, b});  // a.mm(b)
//   auto [u, inv, cnt] = ember::unique(t, true, true, true);
#pragma once

#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "ember/tensor.h"

namespace ember {

// ---- views (src/ops/shape_views.cpp) ----
Tensor diagonal(const Tensor& self, int64_t offset = 0, int64_t dim1 = 0, int64_t dim2 = 1);
/// Removes the listed dims that have size 1 (others are kept, as PyTorch's squeeze.dims).
Tensor squeeze(const Tensor& self, IntArrayRef dims);
Tensor movedim(const Tensor& self, IntArrayRef source, IntArrayRef destination);
Tensor movedim(const Tensor& self, int64_t source, int64_t destination);
Tensor swapaxes(const Tensor& self, int64_t axis0, int64_t axis1);
Tensor broadcast_to(const Tensor& self, IntArrayRef size);
std::vector<Tensor> broadcast_tensors(ArrayRef<Tensor> tensors);
Tensor atleast_1d(const Tensor& self);
Tensor atleast_2d(const Tensor& self);
Tensor atleast_3d(const Tensor& self);
std::vector<Tensor> tensor_split(const Tensor& self, int64_t sections, int64_t dim = 0);
std::vector<Tensor> tensor_split(const Tensor& self, IntArrayRef indices, int64_t dim = 0);
std::vector<Tensor> hsplit(const Tensor& self, int64_t sections);
std::vector<Tensor> vsplit(const Tensor& self, int64_t sections);
std::vector<Tensor> dsplit(const Tensor& self, int64_t sections);

// ---- shape ops that copy (src/ops/shape_copies.cpp) ----
Tensor flip(const Tensor& self, IntArrayRef dims);
Tensor fliplr(const Tensor& self);
Tensor flipud(const Tensor& self);
Tensor roll(const Tensor& self, IntArrayRef shifts, IntArrayRef dims = {});
Tensor rot90(const Tensor& self, int64_t k = 1, IntArrayRef dims = {0, 1});
Tensor repeat(const Tensor& self, IntArrayRef repeats);
Tensor tile(const Tensor& self, IntArrayRef dims);
/// repeat_interleave(repeats): each i repeated repeats[i] times (int64 1-d).
Tensor repeat_interleave(const Tensor& repeats, std::optional<int64_t> output_size = std::nullopt);
Tensor repeat_interleave(const Tensor& self, const Tensor& repeats, std::optional<int64_t> dim = std::nullopt,
                         std::optional<int64_t> output_size = std::nullopt);
Tensor repeat_interleave(const Tensor& self, int64_t repeats, std::optional<int64_t> dim = std::nullopt,
                         std::optional<int64_t> output_size = std::nullopt);
Tensor tril(const Tensor& self, int64_t diagonal = 0);
Tensor triu(const Tensor& self, int64_t diagonal = 0);
Tensor& tril_(Tensor& self, int64_t diagonal = 0);
Tensor& triu_(Tensor& self, int64_t diagonal = 0);
Tensor tril_indices(int64_t row, int64_t col, int64_t offset = 0, TensorOptions options = kInt64);
Tensor triu_indices(int64_t row, int64_t col, int64_t offset = 0, TensorOptions options = kInt64);
Tensor diag(const Tensor& self, int64_t diagonal = 0);
Tensor diag_embed(const Tensor& self, int64_t offset = 0, int64_t dim1 = -2, int64_t dim2 = -1);
Tensor diagflat(const Tensor& self, int64_t offset = 0);
Tensor trace(const Tensor& self);
Tensor block_diag(ArrayRef<Tensor> tensors);
/// Resizes self in place (keeping its storage when it is large enough; new elements are
/// uninitialised), as Tensor.resize_.
Tensor& resize_(Tensor& self, IntArrayRef size);
/// aten::copy: a new tensor of self's shape, dtype and layout holding src (broadcast).
Tensor copy(const Tensor& self, const Tensor& src, bool non_blocking = false);
Tensor any(const Tensor& self, std::optional<IntArrayRef> dims, bool keepdim = false);

// ---- stacking and products (src/ops/shape_join.cpp) ----
Tensor hstack(ArrayRef<Tensor> tensors);
Tensor vstack(ArrayRef<Tensor> tensors);
Tensor dstack(ArrayRef<Tensor> tensors);
Tensor column_stack(ArrayRef<Tensor> tensors);
/// indexing: "ij" or "xy".
std::vector<Tensor> meshgrid(ArrayRef<Tensor> tensors, const std::string& indexing = "ij");
Tensor cartesian_prod(ArrayRef<Tensor> tensors);
Tensor outer(const Tensor& self, const Tensor& vec2);
Tensor kron(const Tensor& self, const Tensor& other);
Tensor tensordot(const Tensor& self, const Tensor& other, IntArrayRef dims_self, IntArrayRef dims_other);
Tensor einsum(const std::string& equation, ArrayRef<Tensor> tensors);
Tensor diff(const Tensor& self, int64_t n = 1, int64_t dim = -1,
            const std::optional<Tensor>& prepend = std::nullopt,
            const std::optional<Tensor>& append = std::nullopt);
Tensor cov(const Tensor& self, int64_t correction = 1, const std::optional<Tensor>& fweights = std::nullopt,
           const std::optional<Tensor>& aweights = std::nullopt);
Tensor corrcoef(const Tensor& self);

// ---- indexing (src/ops/index_more.cpp) ----
Tensor index_put(const Tensor& self, const std::vector<std::optional<Tensor>>& indices,
                 const Tensor& values, bool accumulate = false);
Tensor masked_select(const Tensor& self, const Tensor& mask);
Tensor masked_scatter(const Tensor& self, const Tensor& mask, const Tensor& source);
Tensor& masked_scatter_(Tensor& self, const Tensor& mask, const Tensor& source);
Tensor take(const Tensor& self, const Tensor& index);
Tensor take_along_dim(const Tensor& self, const Tensor& indices, std::optional<int64_t> dim = std::nullopt);
Tensor put(const Tensor& self, const Tensor& index, const Tensor& source, bool accumulate = false);
Tensor& put_(Tensor& self, const Tensor& index, const Tensor& source, bool accumulate = false);
Tensor index_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                 const Scalar& alpha = 1);
Tensor& index_add_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                   const Scalar& alpha = 1);
Tensor index_copy(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source);
Tensor& index_copy_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& source);
Tensor index_fill(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value);
Tensor& index_fill_(Tensor& self, int64_t dim, const Tensor& index, const Scalar& value);
Tensor index_fill(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& value);
Tensor& index_fill_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& value);

// ---- scatter (src/ops/scatter_more.cpp) ----
/// reduce: "sum", "prod", "mean", "amax" or "amin".
Tensor scatter_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                      const std::string& reduce, bool include_self = true);
Tensor& scatter_reduce_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                        const std::string& reduce, bool include_self = true);
Tensor select_scatter(const Tensor& self, const Tensor& src, int64_t dim, int64_t index);
Tensor slice_scatter(const Tensor& self, const Tensor& src, int64_t dim = 0,
                     std::optional<int64_t> start = std::nullopt, std::optional<int64_t> end = std::nullopt,
                     int64_t step = 1);
Tensor diagonal_scatter(const Tensor& self, const Tensor& src, int64_t offset = 0, int64_t dim1 = 0,
                        int64_t dim2 = 1);

// ---- sorting, searching, counting (src/ops/sort_more.cpp, unique.cpp) ----
Tensor argsort(const Tensor& self, int64_t dim = -1, bool descending = false, bool stable = false);
Tensor msort(const Tensor& self);
std::tuple<Tensor, Tensor> mode(const Tensor& self, int64_t dim = -1, bool keepdim = false);
/// interpolation: "linear", "lower", "higher", "midpoint" or "nearest".
Tensor quantile(const Tensor& self, const Tensor& q, std::optional<int64_t> dim = std::nullopt,
                bool keepdim = false, const std::string& interpolation = "linear");
Tensor quantile(const Tensor& self, double q, std::optional<int64_t> dim = std::nullopt,
                bool keepdim = false, const std::string& interpolation = "linear");
Tensor nanquantile(const Tensor& self, const Tensor& q, std::optional<int64_t> dim = std::nullopt,
                   bool keepdim = false, const std::string& interpolation = "linear");
Tensor nanquantile(const Tensor& self, double q, std::optional<int64_t> dim = std::nullopt,
                   bool keepdim = false, const std::string& interpolation = "linear");
Tensor searchsorted(const Tensor& sorted_sequence, const Tensor& self, bool out_int32 = false,
                    bool right = false, const std::optional<std::string>& side = std::nullopt,
                    const std::optional<Tensor>& sorter = std::nullopt);
Tensor bucketize(const Tensor& self, const Tensor& boundaries, bool out_int32 = false, bool right = false);
Tensor histc(const Tensor& self, int64_t bins = 100, const Scalar& min = 0, const Scalar& max = 0);
Tensor bincount(const Tensor& self, const std::optional<Tensor>& weights = std::nullopt, int64_t minlength = 0);
/// (values, inverse, counts); inverse / counts are empty unless asked for.
std::tuple<Tensor, Tensor, Tensor> unique(const Tensor& self, bool sorted = true, bool return_inverse = false,
                                          bool return_counts = false, std::optional<int64_t> dim = std::nullopt);
std::tuple<Tensor, Tensor, Tensor> unique_consecutive(const Tensor& self, bool return_inverse = false,
                                                      bool return_counts = false,
                                                      std::optional<int64_t> dim = std::nullopt);

}  // namespace ember
