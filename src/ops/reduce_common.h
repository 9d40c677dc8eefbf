// Shared steps of the reduction frontends (reduce.cpp, reduce_stats.cpp): dim lists and output
// shapes, with PyTorch's error texts.
#pragma once

#include "../autograd/record.h"
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

// ---- shared by the backward rules of the reductions, softmax and sort ----

/// A reduction's gradient `g` (keepdim=false) with the reduced `dims` put back as size-1 dims of
/// an `ndim`-d input, so it broadcasts against the input. Empty `dims` (every dim) leaves g 0-d.
Tensor unsqueeze_to(const Tensor& g, IntArrayRef dims, int64_t ndim);

/// How many elements each output element of a reduction over `dims` of `sizes` reduced (all of
/// them for empty `dims`; 1 for a 0-d input).
int64_t reduced_numel(IntArrayRef sizes, IntArrayRef dims);

/// The gradient of an op that picks elements of an input of `sizes` along `dim` at `indices`
/// (max.dim, sort, topk): `grad` scattered into zeros (PyTorch's
/// value_selecting_reduction_backward). `keepdim` false: grad and indices lack `dim`.
Tensor value_selecting_backward(const Tensor& grad, int64_t dim, const Tensor& indices,
                                IntArrayRef sizes, bool keepdim);

/// PyTorch's norm_backward (reduce_stats.cpp): the gradient of the p-norm `norm` of `self`
/// over `dims` (linalg.vector_norm's rule too).
Tensor norm_backward(Tensor grad, const Tensor& self, double p, Tensor norm,
                     const std::vector<int64_t>& dims, bool keepdim);

/// Saves output `t` of a recorded call (after finish) into slot `slot`: the formula, made before
/// finish, captured that number (the count of tensors saved before).
/// `name`: its attribute name (Note [Saved values of built-in nodes]).
inline void save_output_at(autograd::Recorder& r, const Tensor& t, size_t slot,
                           const char* name = nullptr) {
  const size_t got = r.save_output(t, name);
  EMBER_ASSERT(got == slot, "saved output landed in slot ", got, ", the formula reads ", slot);
}

}  // namespace ember::ops
