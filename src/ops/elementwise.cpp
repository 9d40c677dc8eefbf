#include "elementwise.h"

#include <algorithm>
#include <array>

namespace ember {

DimVector broadcast_shapes(IntArrayRef a, IntArrayRef b) {
  size_t n = std::max(a.size(), b.size());
  DimVector out(n);
  // Align from the right and check from the last dim, as PyTorch does (the first mismatch from the
  // right is the one reported); dims are named counted from the left of the broadcast shape.
  for (size_t i = n; i-- > 0;) {
    int64_t sa = i < n - a.size() ? 1 : a[i - (n - a.size())];
    int64_t sb = i < n - b.size() ? 1 : b[i - (n - b.size())];
    EMBER_CHECK(sa == sb || sa == 1 || sb == 1, "The size of tensor a (", sa,
                ") must match the size of tensor b (", sb, ") at non-singleton dimension ", i);
    out[i] = sa == 1 ? sb : sa;
  }
  return out;
}

namespace ops {

Device common_device(const char* op, ArrayRef<Tensor> operands) {
  std::optional<Device> dev;
  std::optional<Device> scalar_dev;
  for (const auto& t : operands) {
    if (!t.defined()) continue;
    if (t.dim() == 0 && t.is_cpu()) {
      scalar_dev = t.device();
      continue;
    }
    if (dev && *dev != t.device()) {
      EMBER_FAIL("Expected all tensors to be on the same device, but found at least two devices, ",
                 dev->str(), " and ", t.device().str(), "! (when checking arguments for ", op, ")");
    }
    dev = t.device();
  }
  return dev ? *dev : scalar_dev.value_or(kCPU);
}

DimVector broadcast_all(ArrayRef<Tensor> operands) {
  DimVector shape;
  bool first = true;
  for (const auto& t : operands) {
    if (!t.defined()) continue;
    shape = first ? t.sizes().vec() : broadcast_shapes(shape, t.sizes());
    first = false;
  }
  return shape;
}

void check_inplace(const char* /*op: PyTorch names none here*/, const Tensor& self, IntArrayRef broadcast_shape,
                   ScalarType compute_dtype) {
  EMBER_CHECK(can_cast(compute_dtype, self.dtype()), "result type ",
              scalar_type_name(compute_dtype), " can't be cast to the desired output type ",
              scalar_type_name(self.dtype()));
  EMBER_CHECK(self.sizes().equals(broadcast_shape), "output with shape ", self.sizes(),
              " doesn't match the broadcast shape ", broadcast_shape);
}

void check_not_quantized(const char* op, ArrayRef<Tensor> operands) {
  for (const auto& t : operands) {
    EMBER_CHECK_NOT_IMPLEMENTED(!t.defined() || !t.is_quantized(), "Could not run '", op,
                                "' with arguments from the 'QuantizedCPU' backend.");
  }
}

}  // namespace ops
}  // namespace ember

namespace ember::ops {

void check_no_internal_overlap(const char* op, const Tensor& self) {
  for (int64_t d = 0; d < self.dim(); ++d) {
    EMBER_CHECK(!(self.stride(d) == 0 && self.size(d) > 1), op,
                ": unsupported operation: more than one element of the written-to tensor refers "
                "to a single memory location. Please clone() the tensor before performing the "
                "operation.");
  }
}

bool may_overlap(const Tensor& a, const Tensor& b) {
  if (!a.defined() || !b.defined() || a.numel() == 0 || b.numel() == 0) return false;
  if (a.impl()->storage().get() != b.impl()->storage().get()) return false;
  auto range = [](const Tensor& t) {
    int64_t lo = t.storage_offset(), hi = t.storage_offset();
    for (int64_t d = 0; d < t.dim(); ++d) {
      int64_t span = (t.size(d) - 1) * t.stride(d);
      (span < 0 ? lo : hi) += span;
    }
    int64_t item = static_cast<int64_t>(t.element_size());
    return std::pair<int64_t, int64_t>{lo * item, (hi + 1) * item};
  };
  auto [alo, ahi] = range(a);
  auto [blo, bhi] = range(b);
  return alo < bhi && blo < ahi;
}

DimVector dense_strides_or_empty(const Tensor& t) {
  if (t.is_contiguous()) return contiguous_strides(t.sizes());
  const int64_t nd = t.dim();
  std::vector<int64_t> order;  // non-size-1 dims, outermost (largest stride) first
  for (int64_t d = 0; d < nd; ++d)
    if (t.size(d) != 1) order.push_back(d);
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t a, int64_t b) { return t.stride(a) > t.stride(b); });
  DimVector strides(static_cast<size_t>(nd), 0);
  int64_t expected = 1;
  for (size_t i = order.size(); i-- > 0;) {
    if (t.stride(order[i]) != expected) return {};
    strides[order[i]] = expected;
    expected *= t.size(order[i]);
  }
  // Size-1 dims take the stride a contiguous layout would give them after their right neighbour.
  for (int64_t d = nd - 1; d >= 0; --d) {
    if (t.size(d) == 1) strides[d] = d + 1 < nd ? strides[d + 1] * t.size(d + 1) : 1;
  }
  return strides;
}

// Note [Elementwise output layout]
// PyTorch's TensorIterator rule for the strides of an output it allocates, so that a
// channels_last activation stays channels_last through add, relu6, mul... (a row-major result
// would make every following convolution reorder). First its "fast setup": when every input has
// the output's shape and all are contiguous, or all channels_last (4-d), or all dense with equal
// strides, the output takes that layout (contiguous first, so an ambiguous N,C,1,1 tensor gives
// a contiguous result). Otherwise the dims are sorted by the inputs' strides (reorder_dimensions:
// an insertion sort from the innermost dim out, where the first input whose strides for the two
// dims are both non-zero and differ decides, equal strides put the smaller size inside, and
// broadcast dims (stride 0) abstain), and the output is dense in that order.
DimVector elementwise_output_strides(IntArrayRef shape, ArrayRef<Tensor> inputs) {
  const int64_t nd = static_cast<int64_t>(shape.size());
  if (nd <= 1) return {};
  bool same_shape = true, contiguous = true, channels_last = nd == 4, dense_equal = true;
  const Tensor* first = nullptr;
  for (const Tensor& t : inputs) {
    if (!t.defined()) continue;
    if (!t.sizes().equals(shape)) {
      same_shape = false;
      break;
    }
    contiguous = contiguous && t.is_contiguous();
    channels_last = channels_last && t.is_contiguous(MemoryFormat::ChannelsLast);
    if (!first) {
      first = &t;
      dense_equal = !dense_strides_or_empty(t).empty();
    } else {
      dense_equal = dense_equal && t.strides().equals(first->strides());
    }
  }
  if (same_shape && first) {
    if (contiguous) return {};
    if (channels_last) {
      const int64_t c = shape[1], h = shape[2], w = shape[3];
      return DimVector{h * w * c, 1, w * c, c};
    }
    if (dense_equal) return first->strides().vec();
  }
  // reorder_dimensions over the inputs' strides, aligned to the output's dims (0: broadcast).
  std::array<int64_t, 64> perm;  // perm[0] is the innermost dim
  EMBER_CHECK(nd <= 64, "elementwise ops support at most 64 dimensions, got ", nd);
  for (int64_t i = 0; i < nd; ++i) perm[i] = nd - 1 - i;
  auto stride_of = [&](const Tensor& t, int64_t d) -> int64_t {
    const int64_t offset = nd - t.dim();
    if (d < offset) return 0;
    const int64_t td = d - offset;
    return t.size(td) == 1 && shape[d] != 1 ? 0 : t.stride(td);
  };
  auto should_swap = [&](int64_t d0, int64_t d1) {
    for (const Tensor& t : inputs) {
      if (!t.defined()) continue;
      const int64_t s0 = stride_of(t, d0), s1 = stride_of(t, d1);
      if (s0 == 0 || s1 == 0) continue;
      if (s0 < s1) return -1;
      if (s0 > s1) return 1;
      if (shape[d0] > shape[d1]) return 1;
    }
    return 0;
  };
  for (int64_t i = 1; i < nd; ++i) {
    int64_t d1 = i;
    for (int64_t d0 = i - 1; d0 >= 0; --d0) {
      const int cmp = should_swap(perm[d0], perm[d1]);
      if (cmp > 0) {
        std::swap(perm[d0], perm[d1]);
        d1 = d0;
      } else if (cmp < 0) {
        break;
      }
    }
  }
  bool row_major = true;
  for (int64_t i = 0; i < nd; ++i) row_major = row_major && perm[i] == nd - 1 - i;
  if (row_major) return {};
  DimVector strides(static_cast<size_t>(nd), 0);
  int64_t next = 1;
  for (int64_t i = 0; i < nd; ++i) {
    strides[perm[i]] = next;
    next *= shape[perm[i]];
  }
  return strides;
}

}  // namespace ember::ops
