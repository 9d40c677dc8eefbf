// Views (share storage and version counter with their base) and shape ops.
// Free-function forms of the Tensor methods; see tensor.h for the method forms.
#pragma once

#include <vector>

#include "ember/tensor.h"

namespace ember {

Tensor view(const Tensor& self, IntArrayRef sizes);
/// A view with new sizes even where `view` would refuse (used by reshape after a copy).
Tensor _unsafe_view(const Tensor& self, IntArrayRef sizes);
/// A view of self with the given sizes and strides (what reshape is when it can be a view).
Tensor _reshape_alias(const Tensor& self, IntArrayRef sizes, IntArrayRef strides);
Tensor reshape(const Tensor& self, IntArrayRef sizes);
Tensor flatten(const Tensor& self, int64_t start_dim = 0, int64_t end_dim = -1);
Tensor unflatten(const Tensor& self, int64_t dim, IntArrayRef sizes);
Tensor t(const Tensor& self);
Tensor transpose(const Tensor& self, int64_t dim0, int64_t dim1);
Tensor permute(const Tensor& self, IntArrayRef dims);
Tensor unsqueeze(const Tensor& self, int64_t dim);
Tensor squeeze(const Tensor& self);
Tensor squeeze(const Tensor& self, int64_t dim);
Tensor expand(const Tensor& self, IntArrayRef sizes);
Tensor expand_as(const Tensor& self, const Tensor& other);
Tensor narrow(const Tensor& self, int64_t dim, int64_t start, int64_t length);
Tensor slice(const Tensor& self, int64_t dim = 0, std::optional<int64_t> start = std::nullopt,
             std::optional<int64_t> end = std::nullopt, int64_t step = 1);
Tensor select(const Tensor& self, int64_t dim, int64_t index);
Tensor as_strided(const Tensor& self, IntArrayRef sizes, IntArrayRef strides,
                  std::optional<int64_t> storage_offset = std::nullopt);
std::vector<Tensor> chunk(const Tensor& self, int64_t chunks, int64_t dim = 0);
std::vector<Tensor> split(const Tensor& self, int64_t split_size, int64_t dim = 0);
std::vector<Tensor> split_with_sizes(const Tensor& self, IntArrayRef split_sizes, int64_t dim = 0);
std::vector<Tensor> unbind(const Tensor& self, int64_t dim = 0);

/// Shape helpers shared by ops: wrap a possibly negative dim into [0, ndim).
/// Error text as PyTorch's: "Dimension out of range (expected to be in range of [-2, 1], but got 2)".
int64_t wrap_dim(int64_t dim, int64_t ndim);
/// The broadcast shape of two shapes, or an error naming the mismatching sizes.
DimVector broadcast_shapes(IntArrayRef a, IntArrayRef b);

}  // namespace ember
