// CPU kernels of the reductions. The op frontends (src/ops/reduce.cpp, reduce_stats.cpp) check
// arguments, convert the input to the kernel's dtype where the op says so, and allocate
// contiguous outputs; `dims` arrive wrapped, unique and non-empty-or-explicit (an empty list here
// reduces nothing: a 0-d input). Outputs hold the kept dims in order, with or without keepdim's 1s.
// Each kernel is a small Op run by run_reduce (src/backends/cpu/reduce_loop.h); the *_ref
// functions are plain scalar loops used by the tests.
#pragma once

#include "ember/tensor.h"

namespace ember::cpu {

/// out and in have the same dtype (the frontend casts). Floats accumulate in float (double for
/// float64), pairwise; integers in int64; bool sums are "any", bool products "all".
void sum_kernel(const Tensor& out, const Tensor& in, IntArrayRef dims);
/// out = sum / count, rounded to out's dtype after the sum, as PyTorch's sum-then-divide.
void mean_kernel(const Tensor& out, const Tensor& in, IntArrayRef dims);
void prod_kernel(const Tensor& out, const Tensor& in, IntArrayRef dims);
/// NaN propagates (any NaN in a block gives NaN). The frontends reject empty blocks.
void amax_kernel(const Tensor& out, const Tensor& in, IntArrayRef dims);
void amin_kernel(const Tensor& out, const Tensor& in, IntArrayRef dims);
/// Value and index along one dim; NaN wins, ties and NaNs give the first index.
/// `values` may be undefined (argmax / argmin).
void max_dim_kernel(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t dim);
void min_dim_kernel(const Tensor& values, const Tensor& indices, const Tensor& in, int64_t dim);
/// out (bool or uint8) = 1 where every / some element of the block is non-zero.
void all_kernel(const Tensor& out, const Tensor& in, IntArrayRef dims);
void any_kernel(const Tensor& out, const Tensor& in, IntArrayRef dims);
/// Floating point in and out (same dtype). p: 2, 1, +-inf, 0 or any other real.
void norm_kernel(const Tensor& out, const Tensor& in, IntArrayRef dims, double p);
/// Variance (Welford, accumulated in double) with divisor max(0, n - correction); std if take_sqrt.
void var_kernel(const Tensor& out, const Tensor& in, IntArrayRef dims, double correction,
                bool take_sqrt);
/// out (contiguous, in's shape and dtype) = running sum along dim; floats accumulate in double
/// (float for 16-bit floats), integers in int64.
void cumsum_kernel(const Tensor& out, const Tensor& in, int64_t dim);

// ---- scalar references (tests) ----
// Each returns a contiguous float64 tensor with the kept dims (no keepdim 1s), computed one
// output at a time in long double / plain comparisons over the logical elements.
enum class RefReduction { Sum, Prod, Max, Min, ArgMax, ArgMin, All, Any };
Tensor reduce_ref(const Tensor& in, IntArrayRef dims, RefReduction kind);
Tensor norm_ref(const Tensor& in, IntArrayRef dims, double p);
Tensor var_ref(const Tensor& in, IntArrayRef dims, double correction);
Tensor cumsum_ref(const Tensor& in, int64_t dim);

}  // namespace ember::cpu
