// Indexing ops beyond index / index_put_: masked_select and masked_scatter_, take and put_,
// index_add_ / index_copy_ / index_fill_ (primitives with backward rules whose data moves
// through index_put_ / index_select below autograd), and their out-of-place composites
// (clone, then the in-place op, as PyTorch's). Every check runs before the first write, so a
// failing in-place op leaves self unchanged. Error texts are PyTorch 1.13's.
#include "../autograd/record.h"
#include "../dispatch/boxing.h"
#include "elementwise.h"
#include "ember/ops/index_ops.h"
#include "ember/ops/indexing.h"
#include "ember/ops/reduce.h"
#include "ember/ops/shape.h"
#include "ember/warning.h"

namespace ember {

using dispatch::OpId;
using OptionalTensorList = std::vector<std::optional<Tensor>>;

namespace {

// The index list that puts `index` at dim d (the dims before it taken whole).
OptionalTensorList at_dim(int64_t d, const Tensor& index) {
  OptionalTensorList idx(static_cast<size_t>(d));
  idx.emplace_back(index.to(kInt64));
  return idx;
}

// A 0-d operand seen as 1-d (PyTorch's index_* ops treat a scalar self as one element).
Tensor as_1d(const Tensor& t) { return t.dim() == 0 ? t.view({1}) : t; }

// Index values in [-n, n) (CPU indices only; meta ones cannot be read): the first one outside,
// if any.
std::optional<int64_t> out_of_range(const Tensor& index, int64_t n, bool allow_negative = true) {
  if (index.is_meta() || index.numel() == 0) return std::nullopt;
  Tensor c = index.to(kInt64).contiguous();
  const int64_t* p = c.data_ptr<int64_t>();
  for (int64_t i = 0; i < c.numel(); ++i)
    if (p[i] < (allow_negative ? -n : 0) || p[i] >= n) return p[i];
  return std::nullopt;
}

// take / put_: flat indices in [-n, n).
void check_flat_range(const Tensor& index, int64_t n) {
  auto bad = out_of_range(index, n);
  EMBER_CHECK_INDEX(!bad, "out of range: tried to access index ", bad.value_or(0), " on a tensor of ", n, " elements.");
}

// ---- masked_select / masked_scatter_ ----

Tensor masked_select_impl(const Tensor& self, const Tensor& mask) {
  EMBER_CHECK(mask.dtype() == kBool || mask.dtype() == kUInt8, "masked_select: expected BoolTensor or ByteTensor for mask");
  if (mask.dtype() == kUInt8) {
    EMBER_WARN("masked_select received a mask with dtype ember.uint8, this behavior is now deprecated,please use a "
               "mask with dtype ember.bool instead.");
  }
  DimVector shape = ops::broadcast_all({mask, self});  // (mask first: PyTorch's message order)
  return ember::index(self.expand(shape), {mask.to(kBool).expand(shape)});
}

Tensor masked_scatter__impl(const Tensor& self, const Tensor& mask, const Tensor& source) {
  EMBER_CHECK(mask.dtype() == kBool, "masked_scatter_ only supports boolean masks, but got mask with dtype ",
              scalar_type_name(mask.dtype()));
  EMBER_CHECK(self.dtype() == source.dtype(), "masked_scatter: expected self and source to have same dtypes but got",
              scalar_type_name(self.dtype()), " and ", scalar_type_name(source.dtype()));
  Tensor m = mask.expand(self.sizes());
  if (self.is_meta() || m.is_meta()) return ops::mark_written(self);
  const int64_t count = m.sum().item<int64_t>();
  EMBER_CHECK(source.numel() >= count, "Number of elements of source < number of ones in mask");
  Tensor s = self;
  ember::index_put_(s, {m}, source.reshape({-1}).narrow(0, 0, count), false);
  return self;
}

// ---- take / put_ ----

Tensor take_impl(const Tensor& self, const Tensor& index) {
  EMBER_CHECK(index.dtype() == kInt64, "take(): Expected a long tensor for index, but got ",
              scalar_type_name(index.dtype()));
  const int64_t n = self.numel();
  EMBER_CHECK_INDEX(n > 0 || index.numel() == 0, "take(): tried to take from an empty tensor");
  check_flat_range(index, n);
  Tensor flat = self.reshape({-1});
  Tensor idx = index.reshape({-1});
  if (index.numel() > 0) idx = ember::where(idx < Scalar(0), idx + Scalar(n), idx);
  return ember::index_select(flat, 0, idx).view(index.sizes());
}

Tensor put__impl(const Tensor& self, const Tensor& index, const Tensor& source, bool accumulate) {
  EMBER_CHECK(index.dtype() == kInt64, "put_(): Expected a long tensor for index, but got ",
              scalar_type_name(index.dtype()));
  EMBER_CHECK(self.dtype() == source.dtype(), "put_(): self and source expected to have the same dtype, but got "
              "self.dtype = ", scalar_type_name(self.dtype()), " and source.dtype = ", scalar_type_name(source.dtype()));
  EMBER_CHECK_INDEX(source.numel() == index.numel(), "put_(): Expected source and index to have the same number of "
              "elements, but got source.numel() = ", source.numel(), ", index.numel() = ", index.numel());
  const int64_t n = self.numel();
  EMBER_CHECK_INDEX(n > 0 || index.numel() == 0, "put_(): Tried to put elements into an empty tensor");
  check_flat_range(index, n);
  if (index.numel() == 0 || self.is_meta()) return ops::mark_written(self);
  Tensor idx = index.reshape({-1});
  idx = ember::where(idx < Scalar(0), idx + Scalar(n), idx);
  Tensor vals = source.reshape({-1});
  if (self.is_contiguous()) {
    Tensor flat = self.view({-1});
    ember::index_put_(flat, {idx}, vals, accumulate);
    return self;
  }
  Tensor flat = self.contiguous().view({-1});
  ember::index_put_(flat, {idx}, vals, accumulate);
  Tensor s = self;
  s.copy_(flat.view(self.sizes()));
  return self;
}

// ---- index_add_ / index_copy_ / index_fill_ ----

Tensor index_add__impl(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                       const Scalar& alpha) {
  const int64_t d = wrap_dim(dim, self.dim());
  EMBER_CHECK_INDEX(index.dim() <= 1, "index_add_(): Index is supposed to be a vector, but got dim: ", index.dim(),
                    " with type: ", scalar_type_name(index.dtype()), " and size: ", index.sizes());
  EMBER_CHECK(index.dtype() == kInt64 || index.dtype() == kInt32,
              "index_add_(): Expected dtype int32/int64 for index but got: ", scalar_type_name(index.dtype()));
  EMBER_CHECK(self.dtype() == source.dtype(), "index_add_(): self (", scalar_type_name(self.dtype()),
              ") and source (", scalar_type_name(source.dtype()), ") must have the same scalar type");
  EMBER_CHECK(index.numel() == (source.dim() == 0 ? 1 : source.size(wrap_dim(d, source.dim()))),
              "index_add_(): Number of indices (", index.numel(), ") should be equal to source.size(dim): (",
              source.dim() == 0 ? 1 : source.size(wrap_dim(d, source.dim())), "), for dim: ", d);
  EMBER_CHECK_INDEX(!out_of_range(index, self.dim() == 0 ? 1 : self.size(d), false), "index out of range in self");
  if (self.is_meta() || index.numel() == 0) return ops::mark_written(self);
  Tensor s = as_1d(self);
  Tensor vals = as_1d(source);
  if (!(alpha.to<double>() == 1.0)) vals = vals * alpha;
  ember::index_put_(s, at_dim(d, index.reshape({-1})), vals.to(self.dtype()), true);
  return self;
}

Tensor index_copy__impl(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  const int64_t d = wrap_dim(dim, self.dim());
  EMBER_CHECK_INDEX(index.dim() < 2, "index_copy_(): Index should have dimension 1 or 0 (got ", index.dim(), ")");
  EMBER_CHECK(index.dtype() == kInt64, "index_copy_(): Expected a long tensor for index, but got ",
              scalar_type_name(index.dtype()));
  EMBER_CHECK(self.dtype() == source.dtype(), "index_copy_(): self and source expected to have the same dtype, "
              "but got (self) ", scalar_type_name(self.dtype()), " and (source) ", scalar_type_name(source.dtype()));
  const int64_t src_len = source.dim() == 0 ? 1 : source.size(wrap_dim(d, source.dim()));
  EMBER_CHECK_INDEX(index.numel() == src_len, "index_copy_(): Number of indices (", index.numel(),
                    ") should be equal to source.size(dim) (", src_len, ")");
  if (auto bad = out_of_range(index, self.dim() == 0 ? 1 : self.size(d), false)) {
    EMBER_CHECK_INDEX(false, "index_copy_(): index ", *bad, " is out of bounds for dimension ", d, " with size ",
                      self.dim() == 0 ? 1 : self.size(d));
  }
  if (self.is_meta() || index.numel() == 0) return ops::mark_written(self);
  Tensor s = as_1d(self);
  ember::index_put_(s, at_dim(d, index.reshape({-1})), as_1d(source), false);
  return self;
}

Tensor index_fill__tensor_impl(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& value) {
  const int64_t d = wrap_dim(dim, self.dim());
  EMBER_CHECK_INDEX(index.dtype() == kInt64, "index_fill_(): Expected dtype int64 for index.");
  EMBER_CHECK(index.dim() <= 1, "Index has to be a vector/scalar");
  EMBER_CHECK(value.dim() == 0, "index_fill_ only supports a 0-dimensional value tensor, but got tensor with ",
              value.dim(), " dimension(s).");
  if (auto bad = out_of_range(index, self.dim() == 0 ? 1 : self.size(d))) {
    EMBER_CHECK_INDEX(false, "index ", *bad, " is out of bounds for dimension ", d, " with size ",
                      self.dim() == 0 ? 1 : self.size(d));
  }
  if (self.is_meta() || index.numel() == 0) return ops::mark_written(self);
  Tensor s = as_1d(self);
  ember::index_put_(s, at_dim(d, index.reshape({-1})), value.to(self.dtype()), false);
  return self;
}
Tensor index_fill__scalar_impl(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  return index_fill__tensor_impl(self, dim, index, scalar_tensor(value, TensorOptions(self.dtype())));
}

// ---- autograd ----
using autograd::OpNode;
using autograd::tensor_list;

// d masked_select(self, mask) = grad scattered back into zeros of the broadcast shape
Tensor masked_select_autograd(const Tensor& self, const Tensor& mask) {
  autograd::Recorder r("MaskedSelectBackward0", self);
  Tensor out = r.forward([&] { return dispatch::call<masked_select_impl>(OpId::masked_select, self, mask); });
  if (!r) return out;
  const size_t mask_ = r.save(mask, "mask");
  r.save(self, "self");  // as PyTorch (the rule reads only its sizes)
  return r.finish(out, [mask_, sizes = self.sizes().vec()](OpNode& n, const tensor_list& g) {
    Tensor m = n.saved(mask_).to(kBool);
    DimVector shape = broadcast_shapes(sizes, m.sizes());
    Tensor grad = zeros(shape, TensorOptions(g[0].dtype()).device(g[0].device()));
    ember::masked_scatter_(grad, m.expand(shape), g[0]);
    return tensor_list{grad};
  });
}

// d masked_scatter_(self, mask, source): self keeps grad where mask is false; source gets the
// masked elements of grad, in order, zero-padded to its size
Tensor masked_scatter__autograd(const Tensor& self, const Tensor& mask, const Tensor& source) {
  autograd::Recorder r("MaskedScatterBackward0", self, source);
  autograd::check_inplace_if(r, self);
  r.forward([&] { return dispatch::call<masked_scatter__impl>(OpId::masked_scatter_, self, mask, source); });
  if (!r) return self;
  const size_t mask_ = r.save(mask, "mask");
  r.values("source_sizes", source.sizes());
  r.finish_inplace(self, [mask_, src_sizes = source.sizes().vec()](OpNode& n, const tensor_list& g) {
    Tensor m = n.saved(mask_).expand(g[0].sizes());
    Tensor self_grad = n.needs(0) ? g[0].masked_fill(m, 0) : Tensor();
    Tensor src_grad;
    if (n.needs(1)) {
      Tensor sel = ember::masked_select(g[0], m);
      const int64_t numel = compute_numel(src_sizes);
      if (sel.numel() < numel)
        sel = ember::cat({sel, zeros({numel - sel.numel()}, TensorOptions(sel.dtype()).device(sel.device()))}, 0);
      src_grad = sel.view(src_sizes);
    }
    return tensor_list{self_grad, src_grad};
  });
  return self;
}

// d take(self, index) = zeros of self with grad put back at index (accumulating)
Tensor take_autograd(const Tensor& self, const Tensor& index) {
  autograd::Recorder r("TakeBackward0", self);
  Tensor out = r.forward([&] { return dispatch::call<take_impl>(OpId::take, self, index); });
  if (!r) return out;
  const size_t index_ = r.save(index, "index");
  r.save(self, "self");  // as PyTorch (the rule reads only its sizes)
  return r.finish(out, [index_, sizes = self.sizes().vec()](OpNode& n, const tensor_list& g) {
    Tensor grad = zeros(sizes, TensorOptions(g[0].dtype()).device(g[0].device()));
    ember::put_(grad, n.saved(index_), g[0], true);
    return tensor_list{grad};
  });
}

// d put_(self, index, source, accumulate): self keeps grad (zeroed at index unless
// accumulating); source = grad.take(index)
Tensor put__autograd(const Tensor& self, const Tensor& index, const Tensor& source, const bool& accumulate) {
  autograd::Recorder r("PutBackward0", self, source);
  autograd::check_inplace_if(r, self);
  r.forward([&] { return dispatch::call<put__impl>(OpId::put_, self, index, source, accumulate); });
  if (!r) return self;
  const size_t index_ = r.save(index, "index");
  r.save(source, "source");  // as PyTorch (the rule reads only its sizes)
  r.values("accumulate", accumulate);
  r.finish_inplace(self, [index_, accumulate, src_sizes = source.sizes().vec()](OpNode& n, const tensor_list& g) {
    Tensor idx = n.saved(index_);
    Tensor self_grad;
    if (n.needs(0)) {
      self_grad = accumulate ? g[0] : ember::put(g[0], idx, zeros(src_sizes, TensorOptions(g[0].dtype()).device(g[0].device())), false);
    }
    return tensor_list{self_grad, n.needs(1) ? ember::take(g[0], idx).reshape(src_sizes) : Tensor()};
  });
  return self;
}

// The gradient for source of index_add_ / index_copy_: grad's slices at index, in source's shape.
Tensor selected(const Tensor& grad, int64_t dim, const Tensor& index, IntArrayRef src_sizes) {
  Tensor g = grad.dim() == 0 ? grad.view({1}) : grad;
  return ember::index_select(g, dim, index.reshape({-1})).reshape(src_sizes);
}

// d index_add_(self, dim, index, source, alpha): self = grad, source = alpha * grad[index]
Tensor index_add__autograd(const Tensor& self, const int64_t& dim, const Tensor& index, const Tensor& source,
                           const Scalar& alpha) {
  autograd::Recorder r("IndexAddBackward0", self, source);
  autograd::check_inplace_if(r, self);
  r.forward([&] { return dispatch::call<index_add__impl>(OpId::index_add_, self, dim, index, source, alpha); });
  if (!r) return self;
  const size_t index_ = r.save(index, "index");
  r.save(source, "source");  // as PyTorch (the rule reads only its sizes)
  r.values("alpha", alpha, "dim", dim, "source_dim", source.dim());
  const int64_t d = wrap_dim(dim, self.dim());
  r.finish_inplace(self, [index_, d, alpha, src_sizes = source.sizes().vec()](OpNode& n, const tensor_list& g) {
    Tensor src_grad;
    if (n.needs(1)) {
      src_grad = selected(g[0], d, n.saved(index_), src_sizes);
      if (!(alpha.to<double>() == 1.0)) src_grad = src_grad * alpha;
    }
    return tensor_list{n.needs(0) ? g[0] : Tensor(), src_grad};
  });
  return self;
}

// d index_copy_(self, dim, index, source): self = grad zeroed at index, source = grad[index]
Tensor index_copy__autograd(const Tensor& self, const int64_t& dim, const Tensor& index, const Tensor& source) {
  autograd::Recorder r("IndexCopyBackward0", self, source);
  autograd::check_inplace_if(r, self);
  r.forward([&] { return dispatch::call<index_copy__impl>(OpId::index_copy_, self, dim, index, source); });
  if (!r) return self;
  const size_t index_ = r.save(index, "index");
  r.save(source, "source");  // as PyTorch (the rule reads only its sizes)
  r.values("dim", dim, "source_dim", source.dim());
  const int64_t d = wrap_dim(dim, self.dim());
  r.finish_inplace(self, [index_, d, src_sizes = source.sizes().vec()](OpNode& n, const tensor_list& g) {
    Tensor idx = n.saved(index_);
    return tensor_list{n.needs(0) ? ember::index_fill(g[0], d, idx.reshape({-1}), Scalar(0)) : Tensor(),
                       n.needs(1) ? selected(g[0], d, idx, src_sizes) : Tensor()};
  });
  return self;
}

// d index_fill_(self, dim, index, value) = grad zeroed at index; a tensor value gets the sum of
// grad there
Tensor index_fill__scalar_autograd(const Tensor& self, const int64_t& dim, const Tensor& index, const Scalar& value) {
  autograd::Recorder r("IndexFillBackward0", self);
  autograd::check_inplace_if(r, self);
  r.forward([&] {
    return dispatch::call<index_fill__scalar_impl>(OpId::index_fill__int_Scalar, self, dim, index, value);
  });
  if (!r) return self;
  const size_t index_ = r.save(index, "index");
  r.values("dim", dim);
  const int64_t d = wrap_dim(dim, self.dim());
  r.finish_inplace(self, [index_, d](OpNode& n, const tensor_list& g) {
    return tensor_list{ember::index_fill(g[0], d, n.saved(index_), Scalar(0))};
  });
  return self;
}
Tensor index_fill__tensor_autograd(const Tensor& self, const int64_t& dim, const Tensor& index, const Tensor& value) {
  autograd::Recorder r("IndexFillBackward1", self, value);
  autograd::check_inplace_if(r, self);
  r.forward([&] {
    return dispatch::call<index_fill__tensor_impl>(OpId::index_fill__int_Tensor, self, dim, index, value);
  });
  if (!r) return self;
  const size_t index_ = r.save(index, "index");
  r.values("dim", dim);
  const int64_t d = wrap_dim(dim, self.dim());
  r.finish_inplace(self, [index_, d](OpNode& n, const tensor_list& g) {
    Tensor idx = n.saved(index_);
    return tensor_list{n.needs(0) ? ember::index_fill(g[0], d, idx, Scalar(0)) : Tensor(),
                       // each filled position once, duplicates in index or not (PyTorch's rule)
                       n.needs(1) ? selected(g[0], d, std::get<0>(ember::unique(idx.reshape({-1}))), {-1}).sum()
                                  : Tensor()};
  });
  return self;
}

EMBER_REGISTER_AUTOGRAD(masked_select, &masked_select_autograd);
EMBER_REGISTER_AUTOGRAD(masked_scatter_, &masked_scatter__autograd);
EMBER_REGISTER_AUTOGRAD(take, &take_autograd);
EMBER_REGISTER_AUTOGRAD(put_, &put__autograd);
EMBER_REGISTER_AUTOGRAD(index_add_, &index_add__autograd);
EMBER_REGISTER_AUTOGRAD(index_copy_, &index_copy__autograd);
EMBER_REGISTER_AUTOGRAD(index_fill__int_Scalar, &index_fill__scalar_autograd);
EMBER_REGISTER_AUTOGRAD(index_fill__int_Tensor, &index_fill__tensor_autograd);

// ---- composites ----
Tensor index_put_impl(const Tensor& self, const OptionalTensorList& indices, const Tensor& values, bool accumulate) {
  Tensor out = self.clone();
  ember::index_put_(out, indices, values, accumulate);
  return out;
}
Tensor masked_scatter_impl(const Tensor& self, const Tensor& mask, const Tensor& source) {
  DimVector shape = ops::broadcast_all({self, mask});
  Tensor out = self.expand(shape).clone(MemoryFormat::Contiguous);
  // (the mask itself when of that shape: masked_scatter_'s node saves it)
  return ember::masked_scatter_(out, mask.sizes() == IntArrayRef(shape) ? mask : mask.expand(shape), source);
}
Tensor take_along_dim_impl(const Tensor& self, const Tensor& indices, std::optional<int64_t> dim) {
  EMBER_CHECK(indices.dtype() == kInt64, "ember.take_along_dim(): dtype of indices should be Long but got ",
              scalar_type_name(indices.dtype()));
  if (!dim) return self.reshape({-1}).gather(0, indices.reshape({-1}));
  const int64_t d = wrap_dim(*dim, self.dim());
  EMBER_CHECK(self.dim() == indices.dim(), "ember.take_along_dim(): input and indices should have the same number "
              "of dimensions, but got ", self.dim(), " dimensions for input, and ", indices.dim(),
              " dimensions for indices");
  DimVector self_shape = self.sizes().vec(), idx_shape = indices.sizes().vec();
  self_shape[static_cast<size_t>(d)] = 1;
  idx_shape[static_cast<size_t>(d)] = 1;
  DimVector b = broadcast_shapes(self_shape, idx_shape);
  DimVector self_b = b, idx_b = b;
  self_b[static_cast<size_t>(d)] = self.size(d);
  idx_b[static_cast<size_t>(d)] = indices.size(d);
  return self.expand(self_b).gather(d, indices.expand(idx_b));
}
Tensor put_impl(const Tensor& self, const Tensor& index, const Tensor& source, bool accumulate) {
  Tensor out = self.clone();
  return ember::put_(out, index, source, accumulate);
}
Tensor index_add_impl(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha) {
  Tensor out = self.clone();
  return ember::index_add_(out, dim, index, source, alpha);
}
Tensor index_copy_impl(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  Tensor out = self.clone();
  return ember::index_copy_(out, dim, index, source);
}
Tensor index_fill_scalar_impl(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  Tensor out = self.clone();
  return ember::index_fill_(out, dim, index, value);
}
Tensor index_fill_tensor_impl(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& value) {
  Tensor out = self.clone();
  return ember::index_fill_(out, dim, index, value);
}

// ---- schema-shaped frontends ----
Tensor index_put_op(const Tensor& self, const OptionalTensorList& indices, const Tensor& values, bool accumulate) {
  return dispatch::call<index_put_impl>(OpId::index_put, self, indices, values, accumulate);
}
Tensor masked_select_op(const Tensor& self, const Tensor& mask) {
  return dispatch::call<masked_select_impl>(OpId::masked_select, self, mask);
}
Tensor masked_scatter_op(const Tensor& self, const Tensor& mask, const Tensor& source) {
  return dispatch::call<masked_scatter_impl>(OpId::masked_scatter, self, mask, source);
}
Tensor& masked_scatter__op(Tensor& self, const Tensor& mask, const Tensor& source) {
  dispatch::call<masked_scatter__impl>(OpId::masked_scatter_, self, mask, source);
  return self;
}
Tensor take_op(const Tensor& self, const Tensor& index) { return dispatch::call<take_impl>(OpId::take, self, index); }
Tensor take_along_dim_op(const Tensor& self, const Tensor& indices, std::optional<int64_t> dim) {
  return dispatch::call<take_along_dim_impl>(OpId::take_along_dim, self, indices, dim);
}
Tensor& put__op(Tensor& self, const Tensor& index, const Tensor& source, bool accumulate) {
  dispatch::call<put__impl>(OpId::put_, self, index, source, accumulate);
  return self;
}
Tensor put_op(const Tensor& self, const Tensor& index, const Tensor& source, bool accumulate) {
  return dispatch::call<put_impl>(OpId::put, self, index, source, accumulate);
}
Tensor index_add_op(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha) {
  return dispatch::call<index_add_impl>(OpId::index_add, self, dim, index, source, alpha);
}
Tensor& index_add__op(Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha) {
  dispatch::call<index_add__impl>(OpId::index_add_, self, dim, index, source, alpha);
  return self;
}
Tensor index_copy_op(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  return dispatch::call<index_copy_impl>(OpId::index_copy, self, dim, index, source);
}
Tensor& index_copy__op(Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  dispatch::call<index_copy__impl>(OpId::index_copy_, self, dim, index, source);
  return self;
}
Tensor index_fill_scalar_op(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  return dispatch::call<index_fill_scalar_impl>(OpId::index_fill_int_Scalar, self, dim, index, value);
}
Tensor& index_fill__scalar_op(Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  dispatch::call<index_fill__scalar_impl>(OpId::index_fill__int_Scalar, self, dim, index, value);
  return self;
}
Tensor index_fill_tensor_op(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& value) {
  return dispatch::call<index_fill_tensor_impl>(OpId::index_fill_int_Tensor, self, dim, index, value);
}
Tensor& index_fill__tensor_op(Tensor& self, int64_t dim, const Tensor& index, const Tensor& value) {
  dispatch::call<index_fill__tensor_impl>(OpId::index_fill__int_Tensor, self, dim, index, value);
  return self;
}

}  // namespace

// ---- public API ----
Tensor index_put(const Tensor& self, const OptionalTensorList& indices, const Tensor& values, bool accumulate) {
  return index_put_op(self, indices, values, accumulate);
}
Tensor masked_select(const Tensor& self, const Tensor& mask) { return masked_select_op(self, mask); }
Tensor masked_scatter(const Tensor& self, const Tensor& mask, const Tensor& source) {
  return masked_scatter_op(self, mask, source);
}
Tensor& masked_scatter_(Tensor& self, const Tensor& mask, const Tensor& source) {
  return masked_scatter__op(self, mask, source);
}
Tensor take(const Tensor& self, const Tensor& index) { return take_op(self, index); }
Tensor take_along_dim(const Tensor& self, const Tensor& indices, std::optional<int64_t> dim) {
  return take_along_dim_op(self, indices, dim);
}
Tensor put(const Tensor& self, const Tensor& index, const Tensor& source, bool accumulate) {
  return put_op(self, index, source, accumulate);
}
Tensor& put_(Tensor& self, const Tensor& index, const Tensor& source, bool accumulate) {
  return put__op(self, index, source, accumulate);
}
Tensor index_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha) {
  return index_add_op(self, dim, index, source, alpha);
}
Tensor& index_add_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha) {
  return index_add__op(self, dim, index, source, alpha);
}
Tensor index_copy(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  return index_copy_op(self, dim, index, source);
}
Tensor& index_copy_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  return index_copy__op(self, dim, index, source);
}
Tensor index_fill(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  return index_fill_scalar_op(self, dim, index, value);
}
Tensor& index_fill_(Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  return index_fill__scalar_op(self, dim, index, value);
}
Tensor index_fill(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& value) {
  return index_fill_tensor_op(self, dim, index, value);
}
Tensor& index_fill_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& value) {
  return index_fill__tensor_op(self, dim, index, value);
}

EMBER_REGISTER_OP(index_put, &index_put_op);
EMBER_REGISTER_OP(masked_select, &masked_select_op);
EMBER_REGISTER_OP(masked_scatter, &masked_scatter_op);
EMBER_REGISTER_OP(masked_scatter_, &masked_scatter__op);
EMBER_REGISTER_OP(take, &take_op);
EMBER_REGISTER_OP(take_along_dim, &take_along_dim_op);
EMBER_REGISTER_OP(put_, &put__op);
EMBER_REGISTER_OP(put, &put_op);
EMBER_REGISTER_OP(index_add, &index_add_op);
EMBER_REGISTER_OP(index_add_, &index_add__op);
EMBER_REGISTER_OP(index_copy, &index_copy_op);
EMBER_REGISTER_OP(index_copy_, &index_copy__op);
EMBER_REGISTER_OP(index_fill_int_Scalar, &index_fill_scalar_op);
EMBER_REGISTER_OP(index_fill__int_Scalar, &index_fill__scalar_op);
EMBER_REGISTER_OP(index_fill_int_Tensor, &index_fill_tensor_op);
EMBER_REGISTER_OP(index_fill__int_Tensor, &index_fill__tensor_op);

// ---- Tensor methods ----
Tensor Tensor::masked_select(const Tensor& mask) const { return ember::masked_select(*this, mask); }
Tensor Tensor::masked_scatter(const Tensor& mask, const Tensor& source) const {
  return ember::masked_scatter(*this, mask, source);
}
Tensor& Tensor::masked_scatter_(const Tensor& mask, const Tensor& source) {
  return ember::masked_scatter_(*this, mask, source);
}
Tensor Tensor::take(const Tensor& index) const { return ember::take(*this, index); }
Tensor Tensor::index_add(int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha) const {
  return ember::index_add(*this, dim, index, source, alpha);
}
Tensor& Tensor::index_add_(int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha) {
  return ember::index_add_(*this, dim, index, source, alpha);
}
Tensor Tensor::index_copy(int64_t dim, const Tensor& index, const Tensor& source) const {
  return ember::index_copy(*this, dim, index, source);
}
Tensor& Tensor::index_copy_(int64_t dim, const Tensor& index, const Tensor& source) {
  return ember::index_copy_(*this, dim, index, source);
}
Tensor Tensor::index_fill(int64_t dim, const Tensor& index, const Scalar& value) const {
  return ember::index_fill(*this, dim, index, value);
}
Tensor& Tensor::index_fill_(int64_t dim, const Tensor& index, const Scalar& value) {
  return ember::index_fill_(*this, dim, index, value);
}

}  // namespace ember
