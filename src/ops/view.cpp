// Views: new TensorImpls over the same storage and version counter, with new geometry.
#include "ember/ops/view.h"

#include "../dispatch/boxing.h"
#include "elementwise.h"

namespace ember {

using dispatch::OpId;

int64_t wrap_dim(int64_t dim, int64_t ndim) {
  int64_t n = std::max<int64_t>(ndim, 1);  // a 0-d tensor accepts dims -1 and 0, as in PyTorch
  EMBER_CHECK_INDEX(dim >= -n && dim < n, "Dimension out of range (expected to be in range of [",
                    -n, ", ", n - 1, "], but got ", dim, ")");
  return dim < 0 ? dim + n : dim;
}

namespace ops {
// A view of `self` with the given geometry, sharing storage and version counter.
Tensor make_view(const Tensor& self, IntArrayRef sizes, IntArrayRef strides, int64_t offset) {
  auto impl = make_intrusive<TensorImpl>(self.impl()->storage(), self.dtype(), sizes, strides, offset);
  impl->set_version_counter(self.impl()->version_counter());
  impl->set_quantizer(self.impl()->quantizer());
  return Tensor(std::move(impl));
}
}  // namespace ops

namespace {

Tensor expand_impl(const Tensor& self, IntArrayRef sizes, bool /*implicit*/) {
  const int64_t nd = static_cast<int64_t>(sizes.size());
  EMBER_CHECK(nd >= self.dim(), "expand(", "ember.FloatTensor{", self.sizes(), "}, size=", sizes,
              "): the number of sizes provided (", nd,
              ") must be greater or equal to the number of dimensions in the tensor (", self.dim(), ")");
  DimVector out_sizes(nd), out_strides(nd);
  for (int64_t i = nd - 1; i >= 0; --i) {
    int64_t od = i - (nd - self.dim());
    int64_t size = sizes[i];
    if (od < 0) {
      EMBER_CHECK(size >= 0, "The expanded size of the tensor (", size,
                  ") isn't allowed in a leading, non-existing dimension ", i);
      out_sizes[i] = size;
      out_strides[i] = 0;
      continue;
    }
    int64_t cur = self.size(od);
    if (size == -1) size = cur;
    EMBER_CHECK(cur == size || cur == 1, "The expanded size of the tensor (", size,
                ") must match the existing size (", cur, ") at non-singleton dimension ", i,
                ".  Target sizes: ", sizes, ".  Tensor sizes: ", self.sizes());
    out_sizes[i] = size;
    out_strides[i] = cur == size ? self.stride(od) : 0;
  }
  return ops::make_view(self, out_sizes, out_strides, self.storage_offset());
}

Tensor expand_op(const Tensor& self, IntArrayRef sizes, bool implicit) {
  return dispatch::call<expand_impl>(OpId::expand, self, sizes, implicit);
}

}  // namespace

Tensor expand(const Tensor& self, IntArrayRef sizes) { return expand_op(self, sizes, false); }
EMBER_REGISTER_OP(expand, &expand_op);

Tensor Tensor::expand(IntArrayRef sizes) const { return ember::expand(*this, sizes); }

}  // namespace ember
