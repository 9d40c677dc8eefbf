// index_reduce / index_reduce_ (prod, mean, amax, amin over the rows index sends to each row of
// self): composites over scatter_reduce with the index spread along dim, which has the same
// include_self semantics and carries the backward rule; fill_diagonal_ (PyTorch's strided
// view of the diagonal, filled) and cumsum_ (cumsum written back).
#include "ember/ops/math_more.h"

#include "ember/ops/copy.h"
#include "ember/ops/reduce.h"
#include "ember/ops/shape.h"
#include "ember/ops/view.h"
#include "ember/warning.h"

#include "../dispatch/boxing.h"
#include "pointwise_helpers.h"

namespace ember {

using dispatch::OpId;

namespace {

// The checks and texts of PyTorch's index_reduce_ meta function.
Tensor spread_index(const Tensor& self, int64_t& dim, const Tensor& index, const Tensor& source,
                    const std::string& reduce) {
  static const bool warned = [] {
    warn("index_reduce() is in beta and the API may change at any time.");
    return true;
  }();
  (void)warned;
  EMBER_CHECK(reduce == "prod" || reduce == "mean" || reduce == "amax" || reduce == "amin",
              "index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got ", reduce, ".");
  dim = wrap_dim(dim, std::max<int64_t>(self.dim(), 1));
  EMBER_CHECK(index.dim() <= 1, "index_reduce_(): Index is supposed to be a vector");
  EMBER_CHECK(index.dtype() == kInt64 || index.dtype() == kInt32,
              "index_reduce_(): Expected dtype int32/int64 for index but got: ", scalar_type_name(index.dtype()));
  EMBER_CHECK(self.dtype() == source.dtype(), "index_reduce_(): self and source must have the same scalar type");
  EMBER_CHECK(dim == 0 || dim < source.dim(), "index_reduce_(): Indexing dim ", dim, " is out of bounds of tensor");
  const int64_t rows = source.dim() == 0 ? 1 : source.size(dim);
  EMBER_CHECK(index.numel() == rows, "index_reduce_(): Number of indices (", index.numel(),
              ") should be equal to source.size(dim): (", rows, "), for dim: ", dim);
  const int64_t nd = std::max<int64_t>(source.dim(), 1);
  DimVector shape(static_cast<size_t>(nd), 1);
  shape[static_cast<size_t>(dim)] = -1;
  const DimVector src_shape = source.dim() == 0 ? DimVector{1} : DimVector(source.sizes().begin(), source.sizes().end());
  return index.to(kInt64).reshape(shape).expand(src_shape);
}

Tensor index_reduce_impl(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                         const std::string& reduce, bool include_self) {
  const Tensor idx = spread_index(self, dim, index, source, reduce);
  const Tensor s = self.dim() == 0 ? self.reshape({1}) : self;
  const Tensor src = source.dim() == 0 ? source.reshape({1}) : source;
  Tensor out = scatter_reduce(s, dim, idx, src, reduce, include_self);
  return self.dim() == 0 ? out.reshape({}) : out;
}

Tensor index_reduce__impl(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                          const std::string& reduce, bool include_self) {
  const Tensor idx = spread_index(self, dim, index, source, reduce);
  Tensor s = self.dim() == 0 ? self.reshape({1}) : self;
  const Tensor src = source.dim() == 0 ? source.reshape({1}) : source;
  scatter_reduce_(s, dim, idx, src, reduce, include_self);
  return self;
}

Tensor fill_diagonal__impl(const Tensor& self, const Scalar& fill_value, bool wrap) {
  const int64_t nd = self.dim();
  EMBER_CHECK(nd >= 2, "dimensions must larger than 1");
  const int64_t height = self.size(0), width = self.size(1);
  if (nd > 2) {
    for (int64_t i = 1; i < nd; ++i)
      EMBER_CHECK(self.size(i) == height, "all dimensions of input must be of equal length");
  }
  int64_t stride = 0;
  for (int64_t i = 0; i < nd; ++i) stride += self.stride(i);
  const int64_t size = std::min(height, width);
  Tensor main_diag = as_strided(self, {size}, {stride}, self.storage_offset());
  fill_(main_diag, fill_value);
  if (wrap && nd == 2 && height > width + 1) {
    const int64_t step = width + 1;
    const int64_t wrap_size = (self.numel() + step - 1) / step - size;
    Tensor wrap_diag = as_strided(self, {wrap_size}, {stride}, self.storage_offset() + self.stride(0) * (width + 1));
    fill_(wrap_diag, fill_value);
  }
  return self;
}

Tensor cumsum__impl(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  // PyTorch's structured in-place check: the result dtype must be self's.
  EMBER_CHECK(!dtype || *dtype == self.dtype(), "Bad in-place call: input tensor dtype ",
              ops::typemeta_name(self.dtype()), " and output tensor dtype ", ops::typemeta_name(*dtype),
              " should match");
  Tensor s = self;
  return s.copy_(cumsum(self, dim, dtype));
}

}  // namespace

Tensor index_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                    const std::string& reduce, bool include_self) {
  return dispatch::call<index_reduce_impl>(OpId::index_reduce, self, dim, index, source, reduce, include_self);
}
Tensor& index_reduce_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, const std::string& reduce,
                      bool include_self) {
  dispatch::call<index_reduce__impl>(OpId::index_reduce_, self, dim, index, source, reduce, include_self);
  return self;
}
Tensor& fill_diagonal_(Tensor& self, const Scalar& fill_value, bool wrap) {
  dispatch::call<fill_diagonal__impl>(OpId::fill_diagonal_, self, fill_value, wrap);
  return self;
}
Tensor& cumsum_(Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  dispatch::call<cumsum__impl>(OpId::cumsum_, self, dim, dtype);
  return self;
}

EMBER_REGISTER_OP(index_reduce, &index_reduce);
EMBER_REGISTER_OP(index_reduce_, &index_reduce_);
EMBER_REGISTER_OP(fill_diagonal_, &fill_diagonal_);
EMBER_REGISTER_OP(cumsum_, &cumsum_);

}  // namespace ember
