// Shared steps of elementwise op frontends: broadcasting, the common device, type promotion,
// output allocation and in-place checks. Each op family file composes these with its kernel.
#pragma once

#include <optional>

#include "ember/ops/copy.h"
#include "ember/ops/factory.h"
#include "ember/ops/pointwise.h"
#include "ember/ops/view.h"
#include "ember/tensor.h"

namespace ember::ops {

/// The device an op on these operands runs on. 0-d CPU tensors (e.g. wrapped scalars) go with
/// any device, as in PyTorch; otherwise devices must agree.
Device common_device(const char* op, ArrayRef<Tensor> operands);

/// Broadcast shape of all operands ("The size of tensor a (3) must match ...").
DimVector broadcast_all(ArrayRef<Tensor> operands);

/// `t` converted to `dtype` (a no-op when it already is).
inline Tensor cast(const Tensor& t, ScalarType dtype) {
  return t.dtype() == dtype ? t : _to_copy(t, dtype);
}

/// In-place ops: `self` must hold the broadcast shape and accept the computed dtype.
/// Error texts as PyTorch's.
void check_inplace(const char* op, const Tensor& self, IntArrayRef broadcast_shape,
                   ScalarType compute_dtype);

/// Quantized tensors reach elementwise kernels only through the quantized layer.
void check_not_quantized(const char* op, ArrayRef<Tensor> operands);

/// Marks an in-place write on `self` (version counter) and returns it.
inline const Tensor& mark_written(const Tensor& self) {
  self.impl()->bump_version();
  return self;
}

}  // namespace ember::ops

namespace ember::ops {

/// In-place writes into a tensor whose elements alias each other (an expanded view) are refused,
/// as PyTorch refuses them.
void check_no_internal_overlap(const char* op, const Tensor& self);
/// Whether a and b may share memory (same storage and overlapping byte ranges).
bool may_overlap(const Tensor& a, const Tensor& b);
/// The strides of a permutation of a contiguous tensor, if `t` is one (dense, non-overlapping);
/// empty otherwise. empty_like / _to_copy keep such layouts (memory_format=preserve).
DimVector dense_strides_or_empty(const Tensor& t);
/// The strides a new elementwise output of `shape` takes from its inputs, or empty for row-major
/// (Note [Elementwise output layout]): a channels_last input gives a channels_last result, as
/// PyTorch's TensorIterator does.
DimVector elementwise_output_strides(IntArrayRef shape, ArrayRef<Tensor> inputs);

}  // namespace ember::ops

namespace ember::ops {
/// A view of `self` with the given geometry, sharing storage, version counter and quantizer.
Tensor make_view(const Tensor& self, IntArrayRef sizes, IntArrayRef strides, int64_t offset);
}  // namespace ember::ops
