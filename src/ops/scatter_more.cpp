// scatter_reduce_ (sum, prod, mean, amax, amin; include_self) with PyTorch's backward rules,
// its out-of-place composite, and the *_scatter ops (select_scatter, slice_scatter,
// diagonal_scatter: self with one view of it replaced by src). Error texts are PyTorch 1.13's.
#include <cmath>
#include <limits>

#include "../autograd/record.h"
#include "../dispatch/boxing.h"
#include "elementwise.h"
#include "ember/ops/index_ops.h"
#include "ember/ops/reduce.h"
#include "ember/ops/shape.h"

namespace ember {

using dispatch::OpId;

namespace {

enum class Reduce { Sum, Prod, Mean, Amax, Amin };

Reduce parse_reduce(const std::string& reduce) {
  if (reduce == "sum") return Reduce::Sum;
  if (reduce == "prod") return Reduce::Prod;
  if (reduce == "mean") return Reduce::Mean;
  if (reduce == "amax") return Reduce::Amax;
  if (reduce == "amin") return Reduce::Amin;
  EMBER_CHECK(false, "reduce argument must be either sum, prod, mean, amax or amin.");
  return Reduce::Sum;
}

void check_scatter_reduce(const Tensor& self, int64_t d, const Tensor& index, const Tensor& src) {
  EMBER_CHECK(index.dtype() == kInt64, "scatter(): Expected dtype int64 for index");
  EMBER_CHECK(self.dtype() == src.dtype(), "scatter_reduce(): Expected self.dtype to be equal to src.dtype");
  const int64_t nd = std::max<int64_t>(self.dim(), 1);
  EMBER_CHECK(std::max<int64_t>(index.dim(), 1) == nd || index.numel() == 0,
              "Index tensor must have the same number of dimensions as self tensor");
  EMBER_CHECK(std::max<int64_t>(src.dim(), 1) == std::max<int64_t>(index.dim(), 1) || index.numel() == 0,
              "Index tensor must have the same number of dimensions as src tensor");
  if (index.numel() == 0) return;
  auto sz = [](const Tensor& t, int64_t i) { return t.dim() == 0 ? int64_t{1} : t.size(i); };
  for (int64_t i = 0; i < nd; ++i) {
    EMBER_CHECK((i == d || sz(index, i) <= sz(self, i)) && sz(index, i) <= sz(src, i),
                "Size does not match at dimension ", i, " expected index ", index.sizes(),
                " to be smaller than self ", self.sizes(), " apart from dimension ", d,
                " and to be smaller size than src ", src.sizes());
  }
}

// The data step, on float64 copies (integer results are rounded down for mean, as PyTorch's
// floor division): every index position combines src into self's element at that index.
void scatter_reduce_data(const Tensor& self, int64_t d, const Tensor& index, const Tensor& src, Reduce op,
                         bool include_self) {
  const int64_t nd = std::max<int64_t>(self.dim(), 1);
  DimVector self_sizes = self.dim() == 0 ? DimVector{1} : self.sizes().vec();
  DimVector idx_sizes = index.dim() == 0 ? DimVector{1} : index.sizes().vec();
  DimVector src_sizes = src.dim() == 0 ? DimVector{1} : src.sizes().vec();
  Tensor acc_t = self.to(kFloat64).contiguous().clone();
  Tensor idx_t = index.contiguous();
  Tensor src_t = src.to(kFloat64).contiguous();
  double* acc = acc_t.data_ptr<double>();
  const int64_t* idx = idx_t.data_ptr<int64_t>();
  const double* sv = src_t.data_ptr<double>();
  DimVector self_strides = contiguous_strides(self_sizes), src_strides = contiguous_strides(src_sizes);
  const int64_t n = self.numel();
  std::vector<int64_t> count(static_cast<size_t>(n), include_self ? 1 : 0);
  DimVector pos(static_cast<size_t>(nd), 0);
  const int64_t total = index.numel();
  for (int64_t k = 0; k < total; ++k) {
    const int64_t i = idx[k];
    EMBER_CHECK(i >= -self_sizes[static_cast<size_t>(d)] && i < self_sizes[static_cast<size_t>(d)], "index ", i,
                      " is out of bounds for dimension ", d, " with size ", self_sizes[static_cast<size_t>(d)]);
    int64_t so = 0, ro = 0;
    for (int64_t j = 0; j < nd; ++j) {
      const int64_t p = j == d ? (i < 0 ? i + self_sizes[static_cast<size_t>(d)] : i) : pos[static_cast<size_t>(j)];
      so += p * self_strides[static_cast<size_t>(j)];
      ro += pos[static_cast<size_t>(j)] * src_strides[static_cast<size_t>(j)];
    }
    const double v = sv[ro];
    double& a = acc[so];
    int64_t& c = count[static_cast<size_t>(so)];
    if (c == 0) {
      a = v;
    } else {
      switch (op) {
        case Reduce::Sum:
        case Reduce::Mean: a += v; break;
        case Reduce::Prod: a *= v; break;
        case Reduce::Amax: a = (std::isnan(a) || std::isnan(v)) ? std::numeric_limits<double>::quiet_NaN() : std::max(a, v); break;
        case Reduce::Amin: a = (std::isnan(a) || std::isnan(v)) ? std::numeric_limits<double>::quiet_NaN() : std::min(a, v); break;
      }
    }
    ++c;
    for (int64_t j = nd - 1; j >= 0; --j) {  // next position of index, row-major
      if (++pos[static_cast<size_t>(j)] < idx_sizes[static_cast<size_t>(j)]) break;
      pos[static_cast<size_t>(j)] = 0;
    }
  }
  if (op == Reduce::Mean) {
    const bool integral = !is_floating(self.dtype());
    for (int64_t e = 0; e < n; ++e) {
      if (count[static_cast<size_t>(e)] > 1) {
        acc[e] /= static_cast<double>(count[static_cast<size_t>(e)]);
        if (integral) acc[e] = std::floor(acc[e]);
      }
    }
  }
  Tensor s = self;
  s.copy_(acc_t.view(self.sizes()));
}

Tensor scatter_reduce__impl(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                            const std::string& reduce, bool include_self) {
  const Reduce op = parse_reduce(reduce);
  const int64_t d = wrap_dim(dim, self.dim());
  check_scatter_reduce(self, d, index, src);
  ops::check_no_internal_overlap("scatter_reduce_", self);
  if (self.is_meta() || index.is_meta() || src.is_meta() || index.numel() == 0) return ops::mark_written(self);
  scatter_reduce_data(self, d, index, src, op, include_self);
  return self;
}

// ---- the *_scatter ops ----

void check_slice_shape(const Tensor& slice, const Tensor& src) {
  EMBER_CHECK(slice.sizes().equals(src.sizes()), "expected src to have a size equal to the slice of self. src size = ",
              src.sizes(), ", slice size = ", slice.sizes());
}

Tensor select_scatter_impl(const Tensor& self, const Tensor& src, int64_t dim, int64_t index) {
  Tensor out = self.clone(MemoryFormat::Contiguous);
  Tensor slice = out.select(dim, index);
  check_slice_shape(slice, src);
  slice.copy_(src);
  return out;
}

Tensor slice_scatter_impl(const Tensor& self, const Tensor& src, int64_t dim, std::optional<int64_t> start,
                          std::optional<int64_t> end, int64_t step) {
  Tensor out = self.clone(MemoryFormat::Contiguous);
  Tensor slice = out.slice(dim, start, end, step);
  check_slice_shape(slice, src);
  slice.copy_(src);
  return out;
}

Tensor diagonal_scatter_impl(const Tensor& self, const Tensor& src, int64_t offset, int64_t dim1, int64_t dim2) {
  Tensor out = self.clone(MemoryFormat::Contiguous);
  Tensor slice = out.diagonal(offset, dim1, dim2);
  check_slice_shape(slice, src);
  slice.copy_(src);
  return out;
}

// ---- autograd ----
using autograd::OpNode;
using autograd::tensor_list;

// `g` (index's shape) placed in zeros of src's shape, where src is larger than index.
Tensor fit_to_src(const Tensor& g, IntArrayRef src_sizes) {
  if (g.sizes().equals(src_sizes)) return g;
  if (g.numel() == compute_numel(src_sizes)) return g.reshape(src_sizes);
  Tensor out = zeros(src_sizes, TensorOptions(g.dtype()).device(g.device()));
  Tensor view = out;
  for (int64_t i = 0; i < g.dim(); ++i) view = view.narrow(i, 0, g.size(i));
  view.copy_(g);
  return out;
}

// PyTorch's scatter_reduce_backward; `self` is self's value before the op, `result` after.
tensor_list scatter_reduce_grads(OpNode& n, const Tensor& grad, const Tensor& self, int64_t d, const Tensor& index,
                                 const Tensor& src, const Tensor& result, Reduce op, const std::string& reduce,
                                 bool include_self) {
  Tensor grad_self, grad_src;
  switch (op) {
    case Reduce::Sum:
      grad_self = grad;
      grad_src = grad.gather(d, index);
      break;
    case Reduce::Mean: {
      Tensor N = include_self ? ones_like(grad) : zeros_like(grad);
      N = N.scatter_add(d, index, ones_like(src));
      N = N.masked_fill(N == Scalar(0), 1);
      grad_self = grad / N;
      grad_src = grad_self.gather(d, index);
      break;
    }
    case Reduce::Prod: {
      Tensor masked_self = self.masked_fill(self == Scalar(0), 1);
      Tensor masked_self_result = ember::scatter_reduce(masked_self, d, index, src, reduce, include_self);
      grad_self = grad * masked_self_result / masked_self;
      Tensor src_zero = src == Scalar(0);
      Tensor src_num_zeros = zeros_like(self).scatter_add(d, index, src_zero.to(self.dtype())).gather(d, index);
      Tensor src_single_zero = ember::logical_and(src_zero, src_num_zeros == Scalar(1));
      Tensor masked_src = src.masked_fill(src_single_zero, 1);
      Tensor masked_src_result = ember::scatter_reduce(self, d, index, masked_src, reduce, include_self);
      grad_src = ember::where(src_single_zero, (grad * masked_src_result).gather(d, index),
                              (grad * result).gather(d, index) / src.masked_fill(src_zero, 1));
      break;
    }
    case Reduce::Amax:
    case Reduce::Amin: {
      Tensor value = result.gather(d, index);
      Tensor self_is_result = (self == result).to(self.dtype());
      Tensor src_is_result = (src == value).to(self.dtype());
      Tensor N = self_is_result.scatter_add(d, index, src_is_result);
      Tensor grad_distributed = grad / N;
      grad_self = self_is_result * grad_distributed;
      grad_src = src_is_result * grad_distributed.gather(d, index);
      break;
    }
  }
  if (!include_self) {
    Tensor touched = zeros_like(grad, TensorOptions(kBool)).scatter(d, index, Scalar(true));
    grad_self = grad_self.masked_fill(touched, 0);
  }
  return tensor_list{n.needs(0) ? grad_self : Tensor(), n.needs(1) ? fit_to_src(grad_src, src.sizes()) : Tensor()};
}

Tensor scatter_reduce__autograd(const Tensor& self, const int64_t& dim, const Tensor& index, const Tensor& src,
                                const std::string& reduce, const bool& include_self) {
  autograd::Recorder r("ScatterReduceBackward0", self, src);
  autograd::check_inplace_if(r, self);
  Tensor old = r ? self.clone() : Tensor();
  r.forward([&] {
    return dispatch::call<scatter_reduce__impl>(OpId::scatter_reduce__two, self, dim, index, src, reduce, include_self);
  });
  if (!r) return self;
  const Reduce op = parse_reduce(reduce);
  const int64_t d = wrap_dim(dim, self.dim());
  const size_t old_ = r.save(old, "self"), index_ = r.save(index, "index"), src_ = r.save(src, "src");
  r.values("dim", dim, "include_self", include_self, "reduce", reduce);
  r.finish_inplace(self, [=](OpNode& n, const tensor_list& g) {
    Tensor result = op == Reduce::Prod || op == Reduce::Amax || op == Reduce::Amin
                        ? ember::scatter_reduce(n.saved(old_), d, n.saved(index_), n.saved(src_), reduce, include_self)
                        : Tensor();
    return scatter_reduce_grads(n, g[0], n.saved(old_), d, n.saved(index_), n.saved(src_), result, op, reduce,
                                include_self);
  });
  r.save_output(self, "result");  // as PyTorch's node (this rule recomputes it from the old self)
  return self;
}

// d select_scatter(self, src, dim, index): self = grad with the slice zeroed, src = the slice
Tensor select_scatter_autograd(const Tensor& self, const Tensor& src, const int64_t& dim, const int64_t& index) {
  autograd::Recorder r("SelectScatterBackward0", self, src);
  Tensor out = r.forward([&] { return dispatch::call<select_scatter_impl>(OpId::select_scatter, self, src, dim, index); });
  if (!r) return out;
  r.values("dim", dim, "index", index);
  return r.finish(out, [dim, index, src_sizes = src.sizes().vec()](OpNode& n, const tensor_list& g) {
    return tensor_list{
        n.needs(0) ? ember::select_scatter(g[0], zeros(src_sizes, TensorOptions(g[0].dtype()).device(g[0].device())), dim, index) : Tensor(),
        n.needs(1) ? g[0].select(dim, index) : Tensor()};
  });
}

Tensor slice_scatter_autograd(const Tensor& self, const Tensor& src, const int64_t& dim,
                              const std::optional<int64_t>& start, const std::optional<int64_t>& end,
                              const int64_t& step) {
  autograd::Recorder r("SliceScatterBackward0", self, src);
  Tensor out = r.forward(
      [&] { return dispatch::call<slice_scatter_impl>(OpId::slice_scatter, self, src, dim, start, end, step); });
  if (!r) return out;
  r.values("dim", dim, "end", end, "start", start, "step", step);
  return r.finish(out, [=, src_sizes = src.sizes().vec()](OpNode& n, const tensor_list& g) {
    return tensor_list{
        n.needs(0) ? ember::slice_scatter(g[0], zeros(src_sizes, TensorOptions(g[0].dtype()).device(g[0].device())), dim, start, end, step) : Tensor(),
        n.needs(1) ? g[0].slice(dim, start, end, step) : Tensor()};
  });
}

Tensor diagonal_scatter_autograd(const Tensor& self, const Tensor& src, const int64_t& offset, const int64_t& dim1,
                                 const int64_t& dim2) {
  autograd::Recorder r("DiagonalScatterBackward0", self, src);
  Tensor out = r.forward([&] {
    return dispatch::call<diagonal_scatter_impl>(OpId::diagonal_scatter, self, src, offset, dim1, dim2);
  });
  if (!r) return out;
  r.values("dim1", dim1, "dim2", dim2, "offset", offset);
  return r.finish(out, [=, src_sizes = src.sizes().vec()](OpNode& n, const tensor_list& g) {
    return tensor_list{
        n.needs(0) ? ember::diagonal_scatter(g[0], zeros(src_sizes, TensorOptions(g[0].dtype()).device(g[0].device())), offset, dim1, dim2) : Tensor(),
        n.needs(1) ? g[0].diagonal(offset, dim1, dim2) : Tensor()};
  });
}

EMBER_REGISTER_AUTOGRAD(scatter_reduce__two, &scatter_reduce__autograd);
EMBER_REGISTER_AUTOGRAD(select_scatter, &select_scatter_autograd);
EMBER_REGISTER_AUTOGRAD(slice_scatter, &slice_scatter_autograd);
EMBER_REGISTER_AUTOGRAD(diagonal_scatter, &diagonal_scatter_autograd);

// ---- composite and frontends ----
Tensor scatter_reduce_impl(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                           const std::string& reduce, bool include_self) {
  Tensor out = self.clone();
  return ember::scatter_reduce_(out, dim, index, src, reduce, include_self);
}
Tensor scatter_reduce_op(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                         const std::string& reduce, bool include_self) {
  return dispatch::call<scatter_reduce_impl>(OpId::scatter_reduce_two, self, dim, index, src, reduce, include_self);
}
Tensor& scatter_reduce__op(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, const std::string& reduce,
                           bool include_self) {
  dispatch::call<scatter_reduce__impl>(OpId::scatter_reduce__two, self, dim, index, src, reduce, include_self);
  return self;
}
Tensor select_scatter_op(const Tensor& self, const Tensor& src, int64_t dim, int64_t index) {
  return dispatch::call<select_scatter_impl>(OpId::select_scatter, self, src, dim, index);
}
Tensor slice_scatter_op(const Tensor& self, const Tensor& src, int64_t dim, std::optional<int64_t> start,
                        std::optional<int64_t> end, int64_t step) {
  return dispatch::call<slice_scatter_impl>(OpId::slice_scatter, self, src, dim, start, end, step);
}
Tensor diagonal_scatter_op(const Tensor& self, const Tensor& src, int64_t offset, int64_t dim1, int64_t dim2) {
  return dispatch::call<diagonal_scatter_impl>(OpId::diagonal_scatter, self, src, offset, dim1, dim2);
}

}  // namespace

Tensor scatter_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, const std::string& reduce,
                      bool include_self) {
  return scatter_reduce_op(self, dim, index, src, reduce, include_self);
}
Tensor& scatter_reduce_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, const std::string& reduce,
                        bool include_self) {
  return scatter_reduce__op(self, dim, index, src, reduce, include_self);
}
Tensor select_scatter(const Tensor& self, const Tensor& src, int64_t dim, int64_t index) {
  return select_scatter_op(self, src, dim, index);
}
Tensor slice_scatter(const Tensor& self, const Tensor& src, int64_t dim, std::optional<int64_t> start,
                     std::optional<int64_t> end, int64_t step) {
  return slice_scatter_op(self, src, dim, start, end, step);
}
Tensor diagonal_scatter(const Tensor& self, const Tensor& src, int64_t offset, int64_t dim1, int64_t dim2) {
  return diagonal_scatter_op(self, src, offset, dim1, dim2);
}

EMBER_REGISTER_OP(scatter_reduce_two, &scatter_reduce_op);
EMBER_REGISTER_OP(scatter_reduce__two, &scatter_reduce__op);
EMBER_REGISTER_OP(select_scatter, &select_scatter_op);
EMBER_REGISTER_OP(slice_scatter, &slice_scatter_op);
EMBER_REGISTER_OP(diagonal_scatter, &diagonal_scatter_op);

Tensor Tensor::scatter_reduce(int64_t dim, const Tensor& index, const Tensor& src, const std::string& reduce,
                              bool include_self) const {
  return ember::scatter_reduce(*this, dim, index, src, reduce, include_self);
}
Tensor& Tensor::scatter_reduce_(int64_t dim, const Tensor& index, const Tensor& src, const std::string& reduce,
                                bool include_self) {
  return ember::scatter_reduce_(*this, dim, index, src, reduce, include_self);
}

}  // namespace ember
