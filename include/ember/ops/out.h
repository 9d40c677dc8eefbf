// PyTorch's out= contract, for an op computed functionally and then written into `out`
// (Python's `ember.add(a, b, out=t)`; src/ops/out.cpp).
//
//   Tensor r = ember::add(a, b);
//   ember::write_out(r, t);   // t resized to r's shape if needed, r cast into t's dtype
#pragma once

#include "ember/tensor.h"

namespace ember {

/// Resizes `out` to `shape` as at::native::resize_output: nothing when the shape already
/// matches; otherwise a warning when `out` had elements (PyTorch's deprecation text), then
/// fresh contiguous storage of that shape. Returns whether it resized.
bool resize_output(const Tensor& out, IntArrayRef shape);
/// Writes `result` into `out`: RuntimeError "result type Float can't be cast to the desired
/// output type Long" when the dtypes do not allow it (can_cast), else resize_output and copy.
void write_out(const Tensor& result, const Tensor& out);

}  // namespace ember
