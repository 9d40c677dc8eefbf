#include "loop.h"

#include <algorithm>

namespace ember::cpu {

// The constructor runs once per elementwise op, so for small tensors it is the op's overhead:
// it allocates nothing and reads geometry through sizes()/strides() (no per-dim range checks).
ElementwiseLoop::ElementwiseLoop(std::initializer_list<Operand> operands) {
  EMBER_ASSERT(operands.size() >= 1 && operands.size() <= kMaxOperands);
  const Tensor& out = *operands.begin()->tensor;
  const IntArrayRef out_sizes = out.sizes();
  ntensors_ = static_cast<int>(operands.size());
  numel_ = out.numel();
  const int64_t nd = static_cast<int64_t>(out_sizes.size());

  // Fast path: every operand contiguous with the output's shape is one flat run; it gives the
  // same runs as the general path below, which would merge all dims into one.
  bool flat = true;
  int t = 0;
  for (const Operand& o : operands) {
    const Tensor& op = *o.tensor;
    base_[t] = static_cast<char*>(op.data_ptr());
    flat = flat && op.is_contiguous() && op.sizes().equals(out_sizes);
    ++t;
  }
  if (flat) {
    ndim_ = 1;
    shape_[0] = numel_;
    t = 0;
    for (const Operand& o : operands) strides_[0][t++] = static_cast<int64_t>(o.tensor->element_size());
    return;
  }

  // Only the output's dims of size > 1 take part (size-1 dims are dropped), so any number of
  // size-1 dims is fine, as in PyTorch; an empty output runs nothing, whatever its rank.
  if (numel_ == 0) {
    ndim_ = 1;
    shape_[0] = 0;
    strides_[0] = {};
    return;
  }
  std::array<int64_t, kMaxDims> dims;  // dims[i]: the output dim behind entry i
  int ndims = 0;
  for (int64_t d = 0; d < nd; ++d) {
    if (out_sizes[d] == 1) continue;
    EMBER_CHECK(ndims < kMaxDims, "elementwise ops support at most ", kMaxDims,
                " dims of size > 1, got a tensor of shape ", out_sizes);
    dims[ndims++] = d;
  }

  // Byte strides of every operand over those dims (0 where broadcast).
  std::array<std::array<int64_t, kMaxOperands>, kMaxDims> strides{};
  t = 0;
  for (const Operand& o : operands) {
    const Tensor& op = *o.tensor;
    const IntArrayRef sizes = op.sizes(), op_strides = op.strides();
    const int64_t off = nd - static_cast<int64_t>(sizes.size());
    EMBER_ASSERT(off >= 0, "operand has more dims than the output");
    const int64_t item = static_cast<int64_t>(op.element_size());
    for (int i = 0; i < ndims; ++i) {
      const int64_t d = dims[i], od = d - off;
      const bool broadcast = od < 0 || (sizes[od] == 1 && out_sizes[d] != 1);
      EMBER_ASSERT(broadcast || sizes[od] == out_sizes[d], "operand shape mismatch");
      strides[i][t] = broadcast ? 0 : op_strides[od] * item;
    }
    ++t;
  }

  // Order entries outer→inner by the output's stride (then the inputs').
  // A stable insertion sort: at most kMaxDims entries, and no allocation.
  auto outer_before = [&](int64_t a, int64_t b) {
    for (int k = 0; k < ntensors_; ++k) {
      int64_t sa = std::abs(strides[a][k]), sb = std::abs(strides[b][k]);
      if (sa == 0 || sb == 0) continue;  // a broadcast dim says nothing about order
      if (sa != sb) return sa > sb;
    }
    return false;
  };
  std::array<int64_t, kMaxDims> order{};
  int norder = 0;
  for (int64_t e = 0; e < ndims; ++e) {
    int i = norder++;
    for (; i > 0 && outer_before(e, order[i - 1]); --i) order[i] = order[i - 1];
    order[i] = e;
  }

  // Merge a dim into the next inner one where every operand is contiguous across them.
  ndim_ = 0;
  for (int i = 0; i < norder; ++i) {
    const int64_t e = order[i], size = out_sizes[dims[e]];
    if (ndim_ > 0) {
      int prev = ndim_ - 1;
      bool mergeable = true;
      for (int k = 0; k < ntensors_ && mergeable; ++k)
        mergeable = strides_[prev][k] == strides[e][k] * size;
      if (mergeable) {
        shape_[prev] *= size;
        for (int k = 0; k < ntensors_; ++k) strides_[prev][k] = strides[e][k];
        continue;
      }
    }
    shape_[ndim_] = size;
    strides_[ndim_] = strides[e];
    ++ndim_;
  }
  if (ndim_ == 0) {  // 0-d or all size-1: one element
    shape_[0] = 1;
    strides_[0] = {};
    ndim_ = 1;
  }
}

}  // namespace ember::cpu
