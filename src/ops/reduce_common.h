// Shared steps of the reduction frontends (reduce.cpp, reduce_stats.cpp): dim lists and output
// shapes, with PyTorch's error texts.
#pragma once

#include "ember/tensor.h"

namespace ember::ops {

/// The dims a reduction runs over: wrapped, sorted, unique ("dim 0 appears multiple times in the
/// list of dims"). An empty list means every dim when `empty_means_all`. A 0-d tensor accepts
/// dims 0 and -1 and reduces nothing (its one element is the block), so the result is empty.
DimVector reduction_dims(IntArrayRef dims, int64_t ndim, bool empty_means_all = true);

/// `sizes` with the reduced dims removed, or set to 1 with keepdim.
DimVector reduced_shape(IntArrayRef sizes, IntArrayRef dims, bool keepdim);

/// The size of dim `d` (already wrapped) as a reduction sees it: 1 for a 0-d tensor.
inline int64_t reduction_size(const Tensor& t, int64_t d) { return t.dim() == 0 ? 1 : t.size(d); }

}  // namespace ember::ops
