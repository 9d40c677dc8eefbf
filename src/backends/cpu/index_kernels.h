// CPU kernels of index_select, gather and scatter / scatter_add (src/ops/index_ops.cpp).
//
// Callers (the op layer) have already validated shapes, dtypes and every index value
// (find_out_of_range), and viewed 0-d operands as 1-d of size 1, so these kernels only move
// data. Each optimized kernel has a plain element-by-element *_ref beside it for tests.
#pragma once

#include <optional>

#include "ember/tensor.h"

namespace ember::cpu {

/// The first value of `index` (int32 or int64, any layout) in row-major order that lies outside
/// [0, size), if any. Row-major order makes the reported value deterministic.
std::optional<int64_t> find_out_of_range(const Tensor& index, int64_t size);

/// out = self.index_select(dim, index). self and out have the same ndim (>= 1) and dtype;
/// out.size(dim) == index.numel(); index is 1-D int32 or int64.
void index_select_kernel(const Tensor& out, const Tensor& self, int64_t dim, const Tensor& index);
void index_select_kernel_ref(const Tensor& out, const Tensor& self, int64_t dim, const Tensor& index);

/// out = self.gather(dim, index): out has index's sizes; self, index and out have the same
/// ndim (>= 1); index.size(d) <= self.size(d) for d != dim.
void gather_kernel(const Tensor& out, const Tensor& self, int64_t dim, const Tensor& index);
void gather_kernel_ref(const Tensor& out, const Tensor& self, int64_t dim, const Tensor& index);

enum class ScatterMode { Assign, Add };

/// self[..., index[i], ...] = src[i] (Assign) or += src[i] (Add) for every position i of index.
/// src has self's dtype, the same ndim and src.size(d) >= index.size(d) (a stride-0 src is
/// fine: scatter.value passes an expanded 0-d tensor). Writes to one location happen in
/// row-major order of index, so duplicates resolve deterministically (last write wins, sums
/// are added in order). self must not overlap src or index.
void scatter_kernel(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                    ScatterMode mode);
void scatter_kernel_ref(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                        ScatterMode mode);

}  // namespace ember::cpu
