#include "elementwise.h"

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

}  // namespace ember::ops
