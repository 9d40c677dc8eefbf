#include "loop.h"

#include <algorithm>
#include <numeric>

namespace ember::cpu {

ElementwiseLoop::ElementwiseLoop(std::initializer_list<Tensor> operands) {
  EMBER_ASSERT(operands.size() >= 1 && operands.size() <= kMaxOperands);
  const Tensor& out = *operands.begin();
  ntensors_ = static_cast<int>(operands.size());
  numel_ = out.numel();
  const int64_t nd = out.dim();
  EMBER_CHECK(nd <= kMaxDims, "elementwise ops support at most ", kMaxDims, " dims, got ", nd);

  // Byte strides of every operand over the output's dims (0 where broadcast).
  std::array<std::array<int64_t, kMaxOperands>, kMaxDims> strides{};
  int t = 0;
  for (const Tensor& op : operands) {
    base_[t] = static_cast<char*>(op.data_ptr());
    const int64_t off = nd - op.dim();
    EMBER_ASSERT(off >= 0, "operand has more dims than the output");
    const int64_t item = static_cast<int64_t>(op.element_size());
    for (int64_t d = 0; d < nd; ++d) {
      int64_t od = d - off;
      bool broadcast = od < 0 || (op.size(od) == 1 && out.size(d) != 1);
      EMBER_ASSERT(broadcast || od < 0 || op.size(od) == out.size(d), "operand shape mismatch");
      strides[d][t] = broadcast ? 0 : op.stride(od) * item;
    }
    ++t;
  }

  // Order dims outer→inner by the output's stride (then the inputs'), dropping size-1 dims.
  std::vector<int64_t> order;
  for (int64_t d = 0; d < nd; ++d)
    if (out.size(d) != 1) order.push_back(d);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    for (int k = 0; k < ntensors_; ++k) {
      int64_t sa = std::abs(strides[a][k]), sb = std::abs(strides[b][k]);
      if (sa == 0 || sb == 0) continue;  // a broadcast dim says nothing about order
      if (sa != sb) return sa > sb;
    }
    return false;
  });

  // Merge a dim into the next inner one where every operand is contiguous across them.
  ndim_ = 0;
  for (int64_t d : order) {
    if (ndim_ > 0) {
      int prev = ndim_ - 1;
      bool mergeable = true;
      for (int k = 0; k < ntensors_ && mergeable; ++k)
        mergeable = strides_[prev][k] == strides[d][k] * out.size(d);
      if (mergeable) {
        shape_[prev] *= out.size(d);
        for (int k = 0; k < ntensors_; ++k) strides_[prev][k] = strides[d][k];
        continue;
      }
    }
    shape_[ndim_] = out.size(d);
    strides_[ndim_] = strides[d];
    ++ndim_;
  }
  if (ndim_ == 0) {  // 0-d or all size-1: one element
    shape_[0] = 1;
    strides_[0] = {};
    ndim_ = 1;
  }
}

}  // namespace ember::cpu
