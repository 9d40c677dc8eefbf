// LayerNorm's fused CPU kernels (native_layer_norm and native_layer_norm_backward), over `rows`
// contiguous rows of `cols` elements (the normalised dims flattened), and their scalar
// references for the tests (tests/cpp/perf16/test_layer_norm_kernels.cpp).
//
// Forward: one read of the row for the mean, one for the biased variance (two passes, so no
// cancellation), one to write y = ((x - mean) * rstd) * w + b; mean and rstd are kept per row.
// Backward: with xhat = (x - mean) * rstd and g = dy * w, per row
//   dx = rstd * (g - mean(g) - xhat * mean(g * xhat)),
// and dw = sum over rows of dy * xhat, db = sum of dy, accumulated in double in one buffer per
// thread chunk and added in chunk order (deterministic for a thread count).
// Floating dtypes; float16 / bfloat16 compute in float, with float mean / rstd (as ember's
// composite form did). Row sums use 16 partial accumulators (the order differs from the
// reference's by float rounding only).
#pragma once

#include <cstdint>

#include "ember/tensor.h"

namespace ember::cpu {

/// y, x: [rows, cols] of one dtype; w, b: [cols] or undefined; mean, rstd: rows elements of
/// float (16-bit x) or x's dtype. All contiguous.
void layer_norm_kernel(const Tensor& y, const Tensor& mean, const Tensor& rstd, const Tensor& x,
                       const Tensor& w, const Tensor& b, int64_t rows, int64_t cols, double eps);
void layer_norm_ref(const Tensor& y, const Tensor& mean, const Tensor& rstd, const Tensor& x,
                    const Tensor& w, const Tensor& b, int64_t rows, int64_t cols, double eps);

/// dx (or undefined), dw, db ([cols], or undefined: not computed) from dy, x, the saved mean and
/// rstd, and w (undefined: 1). All contiguous.
void layer_norm_backward_kernel(const Tensor& dx, const Tensor& dw, const Tensor& db,
                                const Tensor& dy, const Tensor& x, const Tensor& mean,
                                const Tensor& rstd, const Tensor& w, int64_t rows, int64_t cols);
void layer_norm_backward_ref(const Tensor& dx, const Tensor& dw, const Tensor& db,
                             const Tensor& dy, const Tensor& x, const Tensor& mean,
                             const Tensor& rstd, const Tensor& w, int64_t rows, int64_t cols);

}  // namespace ember::cpu
