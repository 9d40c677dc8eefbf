// CPU kernels of advanced indexing (aten::index, aten::index_put_) and nonzero.
//
// Note [Advanced indexing geometry]
// The frontend (src/ops/indexing.cpp) arranges every advanced-indexing call into one shape:
// `src` has its k indexed dims as one block starting at dim `begin`, and k int64 index tensors,
// all already broadcast to one shape B. The result then has shape
//   pre + B + post,  pre = src.sizes()[:begin],  post = src.sizes()[begin + k:].
// The kernels first turn the index tensors into a table of element offsets into src, one per
// position of B (index_offsets, which also checks every index against its dim's size), then copy
// element by element between "pre x B x post" geometries: out[pre, p, post] = src[pre, table[p],
// post] for index, self[pre, table[p], post] (+)= values[pre, p, post] for index_put_. Because
// every index is checked before the first write, a failing index_put_ leaves self unchanged.
#pragma once

#include <vector>

#include "ember/tensor.h"

namespace ember::cpu {

/// The element offset (relative to src's storage offset) that each position of the broadcast
/// index space B selects, in row-major order of B: sum_j wrap(indices[j][p]) * src.stride(begin + j).
/// `indices` are int64 tensors of one shape B. Throws IndexError "index 7 is out of bounds for
/// dimension j with size 3" (j counts the index tensors, as PyTorch's kernel does) for the first
/// bad index in row-major order.
std::vector<int64_t> index_offsets(const Tensor& src, int64_t begin, ArrayRef<Tensor> indices);

/// out[pre, p, post] = src[pre, offsets[p], post]. out has shape pre + B + post, where B has
/// `index_dims` dims starting at dim `begin`; src's k indexed dims start at `begin` too.
void index_kernel(const Tensor& out, const Tensor& src, int64_t begin, int64_t k,
                  int64_t index_dims, const std::vector<int64_t>& offsets);

/// self[pre, offsets[p], post] = values[pre, p, post] (or += with accumulate), in row-major order
/// of the indexing result, so that with duplicates the last write wins. values has the result
/// shape pre + B + post (broadcast strides allowed) and self's dtype.
void index_put_kernel(const Tensor& self, const Tensor& values, int64_t begin, int64_t k,
                      int64_t index_dims, const std::vector<int64_t>& offsets, bool accumulate);

/// Scalar references of the two kernels above, straight from the definition (one multi-index
/// at a time, no offset tables, no threads); used by the tests.
void index_kernel_ref(const Tensor& out, const Tensor& src, int64_t begin,
                      ArrayRef<Tensor> indices);
void index_put_kernel_ref(const Tensor& self, const Tensor& values, int64_t begin,
                          ArrayRef<Tensor> indices, bool accumulate);

/// [n, self.dim()] int64 indices of the non-zero elements of self, in row-major order.
Tensor nonzero_kernel(const Tensor& self);

}  // namespace ember::cpu
