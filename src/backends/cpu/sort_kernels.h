// CPU kernels of sort and topk along one dim. `in` may have any strides; `values` (in's dtype)
// and `indices` (int64) are contiguous with in's shape, except that topk's have k along dim.
#pragma once

#include "ember/tensor.h"

namespace ember::cpu {

/// Sorts every line along `dim`. NaN counts as larger than every number (last ascending, first
/// descending); equal elements keep their order (the result is always stable).
void sort_kernel(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t dim,
                 bool descending);

/// The k largest (or smallest) elements of every line along `dim`, best first, in sort's order
/// (NaN largest; among equal elements the lower index first).
void topk_kernel(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t k,
                 int64_t dim, bool largest);

/// Scalar reference (tests): indices of a stable insertion sort of every line, float64 values.
void sort_ref(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t dim,
              bool descending);

}  // namespace ember::cpu
