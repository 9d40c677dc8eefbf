// Reductions: sum, mean, prod, max / min (full and along a dim), amax / amin, argmax / argmin,
// all / any, cumsum. var / std / norm live in reduce_stats.cpp. Each impl infers the output
// dtype and shape (PyTorch's rules and errors), allocates a contiguous output and, unless it is
// meta, runs the kernel of src/backends/cpu/reduce_kernels.cpp.
#include "ember/ops/reduce.h"

#include <algorithm>

#include "../backends/cpu/reduce_kernels.h"
#include "../autograd/record.h"
#include "../dispatch/boxing.h"
#include "elementwise.h"
#include "ember/ops/complex.h"
#include "ember/ops/factory.h"
#include "ember/ops/index_ops.h"
#include "reduce_common.h"

namespace ember {

using dispatch::OpId;

namespace ops {

DimVector reduction_dims(IntArrayRef dims, int64_t ndim, bool empty_means_all) {
  DimVector out;
  if (dims.empty()) {
    if (empty_means_all) {
      for (int64_t d = 0; d < ndim; ++d) out.push_back(d);
    }
    return out;
  }
  std::vector<bool> seen(static_cast<size_t>(std::max<int64_t>(ndim, 1)), false);
  for (int64_t d : dims) {
    int64_t w = wrap_dim(d, ndim);
    EMBER_CHECK(!seen[static_cast<size_t>(w)], "dim ", w, " appears multiple times in the list of dims");
    seen[static_cast<size_t>(w)] = true;
    if (ndim > 0) out.push_back(w);
  }
  std::sort(out.begin(), out.end());
  return out;
}

DimVector reduced_shape(IntArrayRef sizes, IntArrayRef dims, bool keepdim) {
  DimVector out;
  for (int64_t d = 0; d < static_cast<int64_t>(sizes.size()); ++d) {
    bool reduced = std::find(dims.begin(), dims.end(), d) != dims.end();
    if (!reduced) out.push_back(sizes[d]);
    else if (keepdim) out.push_back(1);
  }
  return out;
}

Tensor unsqueeze_to(const Tensor& g, IntArrayRef dims, int64_t ndim) {
  if (ndim == 0 || dims.empty()) return g;
  DimVector sorted;
  for (int64_t d : dims) sorted.push_back(wrap_dim(d, ndim));
  std::sort(sorted.begin(), sorted.end());
  Tensor r = g;
  for (int64_t d : sorted) r = r.unsqueeze(d);
  return r;
}

int64_t reduced_numel(IntArrayRef sizes, IntArrayRef dims) {
  if (dims.empty()) return compute_numel(sizes);
  int64_t n = 1;
  for (int64_t d : dims) {
    n *= sizes.empty() ? 1 : sizes[static_cast<size_t>(wrap_dim(d, static_cast<int64_t>(sizes.size())))];
  }
  return n;
}

Tensor value_selecting_backward(const Tensor& grad, int64_t dim, const Tensor& indices,
                                IntArrayRef sizes, bool keepdim) {
  Tensor g = grad, index = indices;
  if (!keepdim && !sizes.empty()) {
    const int64_t d = wrap_dim(dim, static_cast<int64_t>(sizes.size()));
    g = g.unsqueeze(d);
    index = index.unsqueeze(d);
  }
  return zeros(sizes, TensorOptions(grad.dtype()).device(grad.device())).scatter(dim, index, g);
}

}  // namespace ops

namespace {

Tensor alloc(IntArrayRef shape, ScalarType dtype, const Tensor& like) {
  return empty(shape, TensorOptions(dtype).device(like.device()));
}

// sum / prod: integers and bool accumulate to int64 unless a dtype is given; with a dtype the
// input is converted first (PyTorch: [1.5, 1.5].sum(dtype=int32) == 2).
ScalarType sum_dtype(const Tensor& self, std::optional<ScalarType> dtype) {
  if (dtype) return *dtype;
  return is_integral(self.dtype(), /*include_bool=*/true) ? kInt64 : self.dtype();
}

using SumLikeKernel = void (*)(const Tensor&, const Tensor&, IntArrayRef);

Tensor sum_like(const char* op, SumLikeKernel kernel, const Tensor& self, IntArrayRef dims,
                bool keepdim, ScalarType dtype) {
  ops::check_not_quantized(op, {self});
  Tensor out = alloc(ops::reduced_shape(self.sizes(), dims, keepdim), dtype, self);
  if (!out.is_meta()) kernel(out, ops::cast(self, dtype), dims);
  return out;
}

Tensor sum_impl(const Tensor& self, std::optional<ScalarType> dtype) {
  return sum_like("aten::sum", cpu::sum_kernel, self, ops::reduction_dims({}, self.dim()), false,
                  sum_dtype(self, dtype));
}

// In 1.13 both dim=None and dim=[] reduce every dim.
Tensor sum_dim_impl(const Tensor& self, std::optional<std::vector<int64_t>> dim, bool keepdim,
                    std::optional<ScalarType> dtype) {
  DimVector dims = ops::reduction_dims(dim ? IntArrayRef(*dim) : IntArrayRef(), self.dim());
  return sum_like("aten::sum", cpu::sum_kernel, self, dims, keepdim, sum_dtype(self, dtype));
}

ScalarType mean_dtype(const Tensor& self, std::optional<ScalarType> dtype) {
  if (dtype) {
    EMBER_CHECK(is_floating(*dtype) || is_complex(*dtype),
                "mean(): could not infer output dtype. Optional dtype must be either a floating "
                "point or complex dtype. Got: ", scalar_type_name(*dtype));
    return *dtype;
  }
  EMBER_CHECK(is_floating(self.dtype()) || self.is_complex(),
              "mean(): could not infer output dtype. Input dtype must be either a floating point "
              "or complex dtype. Got: ", scalar_type_name(self.dtype()));
  return self.dtype();
}

Tensor mean_impl(const Tensor& self, std::optional<ScalarType> dtype) {
  return sum_like("aten::mean", cpu::mean_kernel, self, ops::reduction_dims({}, self.dim()), false,
                  mean_dtype(self, dtype));
}

Tensor mean_dim_impl(const Tensor& self, std::optional<std::vector<int64_t>> dim, bool keepdim,
                     std::optional<ScalarType> dtype) {
  ScalarType out_dtype = mean_dtype(self, dtype);
  DimVector dims = ops::reduction_dims(dim ? IntArrayRef(*dim) : IntArrayRef(), self.dim());
  return sum_like("aten::mean", cpu::mean_kernel, self, dims, keepdim, out_dtype);
}

Tensor prod_impl(const Tensor& self, std::optional<ScalarType> dtype) {
  return sum_like("aten::prod", cpu::prod_kernel, self, ops::reduction_dims({}, self.dim()), false,
                  sum_dtype(self, dtype));
}

Tensor prod_dim_impl(const Tensor& self, int64_t dim, bool keepdim, std::optional<ScalarType> dtype) {
  return sum_like("aten::prod", cpu::prod_kernel, self, ops::reduction_dims(IntArrayRef(dim), self.dim()),
                  keepdim, sum_dtype(self, dtype));
}

// ---- max / min / amax / amin / argmax / argmin ----

void check_no_empty_dims(const char* op, const Tensor& self, IntArrayRef dims) {
  for (int64_t d : dims) {
    EMBER_CHECK_INDEX(self.size(d) != 0, op, "(): Expected reduction dim ", d,
                      " to have non-zero size.");
  }
}

Tensor amax_like(const char* op, SumLikeKernel kernel, const Tensor& self, IntArrayRef dim,
                 bool keepdim) {
  ops::check_not_quantized(op, {self});
  DimVector dims = ops::reduction_dims(dim, self.dim());
  EMBER_CHECK(!(dim.empty() && self.numel() == 0), op,
              "(): Expected reduction dim to be specified for input.numel() == 0. Specify the "
              "reduction dim with the 'dim' argument.");
  check_no_empty_dims(op, self, dims);
  Tensor out = alloc(ops::reduced_shape(self.sizes(), dims, keepdim), self.dtype(), self);
  if (!out.is_meta()) kernel(out, self, dims);
  return out;
}

Tensor max_impl(const Tensor& self) { return amax_like("max", cpu::amax_kernel, self, {}, false); }
Tensor min_impl(const Tensor& self) { return amax_like("min", cpu::amin_kernel, self, {}, false); }
Tensor amax_impl(const Tensor& self, IntArrayRef dim, bool keepdim) {
  return amax_like("amax", cpu::amax_kernel, self, dim, keepdim);
}
Tensor amin_impl(const Tensor& self, IntArrayRef dim, bool keepdim) {
  return amax_like("amin", cpu::amin_kernel, self, dim, keepdim);
}

using ArgKernel = void (*)(const Tensor&, const Tensor&, const Tensor&, int64_t);

// Values (unless `with_values` is false) and first indices of the extremum along one dim.
std::tuple<Tensor, Tensor> arg_like(const char* op, ArgKernel kernel, const Tensor& self,
                                    int64_t dim, bool keepdim, bool with_values) {
  ops::check_not_quantized(op, {self});
  const int64_t d = wrap_dim(dim, self.dim());
  EMBER_CHECK_INDEX(ops::reduction_size(self, d) != 0, op, "(): Expected reduction dim ", d,
                    " to have non-zero size.");
  DimVector dims = ops::reduction_dims({d}, self.dim());
  DimVector shape = ops::reduced_shape(self.sizes(), dims, keepdim);
  Tensor values = with_values ? alloc(shape, self.dtype(), self) : Tensor();
  Tensor indices = alloc(shape, kInt64, self);
  if (!indices.is_meta()) kernel(values, indices, self, self.dim() == 0 ? 0 : d);
  return {values, indices};
}

std::tuple<Tensor, Tensor> max_dim_impl(const Tensor& self, int64_t dim, bool keepdim) {
  return arg_like("max", cpu::max_dim_kernel, self, dim, keepdim, true);
}
std::tuple<Tensor, Tensor> min_dim_impl(const Tensor& self, int64_t dim, bool keepdim) {
  return arg_like("min", cpu::min_dim_kernel, self, dim, keepdim, true);
}

// Without a dim the index is into the flattened input; keepdim keeps every dim as size 1.
Tensor argmax_like(const char* op, ArgKernel kernel, const Tensor& self, std::optional<int64_t> dim,
                   bool keepdim) {
  if (dim) return std::get<1>(arg_like(op, kernel, self, *dim, keepdim, false));
  EMBER_CHECK_INDEX(self.numel() != 0, op,
                    "(): Expected reduction dim to be specified for input.numel() == 0.");
  Tensor flat = std::get<1>(arg_like(op, kernel, self.reshape({-1}), 0, false, false));
  return keepdim ? flat.reshape(DimVector(static_cast<size_t>(self.dim()), 1)) : flat;
}

Tensor argmax_impl(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  return argmax_like("argmax", cpu::max_dim_kernel, self, dim, keepdim);
}
Tensor argmin_impl(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  return argmax_like("argmin", cpu::min_dim_kernel, self, dim, keepdim);
}

// ---- all / any: bool results, except uint8 inputs keep uint8 (PyTorch 1.13) ----

Tensor logical_like(const char* op, SumLikeKernel kernel, const Tensor& self, IntArrayRef dims,
                    bool keepdim) {
  ops::check_not_quantized(op, {self});
  ScalarType dtype = self.dtype() == kUInt8 ? kUInt8 : kBool;
  Tensor out = alloc(ops::reduced_shape(self.sizes(), dims, keepdim), dtype, self);
  if (!out.is_meta()) kernel(out, self, dims);
  return out;
}

Tensor all_impl(const Tensor& self) {
  return logical_like("aten::all", cpu::all_kernel, self, ops::reduction_dims({}, self.dim()), false);
}
Tensor all_dim_impl(const Tensor& self, int64_t dim, bool keepdim) {
  return logical_like("aten::all", cpu::all_kernel, self, ops::reduction_dims(IntArrayRef(dim), self.dim()), keepdim);
}
Tensor any_impl(const Tensor& self) {
  return logical_like("aten::any", cpu::any_kernel, self, ops::reduction_dims({}, self.dim()), false);
}
Tensor any_dim_impl(const Tensor& self, int64_t dim, bool keepdim) {
  return logical_like("aten::any", cpu::any_kernel, self, ops::reduction_dims(IntArrayRef(dim), self.dim()), keepdim);
}

// ---- cumsum ----

Tensor cumsum_impl(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  ops::check_not_quantized("aten::cumsum", {self});
  const int64_t d = wrap_dim(dim, self.dim());
  ScalarType out_dtype = sum_dtype(self, dtype);
  EMBER_CHECK(out_dtype != kBool, "\"cumsum_out_cpu\" not implemented for 'Bool'");
  Tensor out = alloc(self.sizes(), out_dtype, self);
  if (!out.is_meta()) cpu::cumsum_kernel(out, ops::cast(self, out_dtype), d);
  return out;
}

}  // namespace

// ---- autograd ----
namespace {
using autograd::OpNode;
using autograd::tensor_list;
using ops::unsqueeze_to;

// d sum(self) = grad expanded back to self's shape.
Tensor sum_autograd(const Tensor& self, const std::optional<ScalarType>& dtype) {
  autograd::Recorder r("SumBackward0", self);
  Tensor out = r.forward([&] { return dispatch::call<sum_impl>(OpId::sum, self, dtype); });
  if (!r) return out;
  r.values("self_sym_sizes", self.sizes());
  return r.finish(out, [](OpNode& n, const tensor_list& g) {
    return tensor_list{g[0].expand(n.value(0).to_int_list())};
  });
}

Tensor sum_dim_autograd(const Tensor& self, const std::optional<std::vector<int64_t>>& dims,
                        const bool& keepdim, const std::optional<ScalarType>& dtype) {
  autograd::Recorder r("SumBackward1", self);
  Tensor out = r.forward(
      [&] { return dispatch::call<sum_dim_impl>(OpId::sum_dim_IntList, self, dims, keepdim, dtype); });
  if (!r) return out;
  r.values("dim", dims, "keepdim", keepdim, "self_sym_sizes", self.sizes());
  return r.finish(out, [](OpNode& n, const tensor_list& g) {
    const auto& sizes = n.value(2).to_int_list();
    const Value& dim = n.value(0);
    Tensor grad = n.value(1).to_bool() || dim.is_none()
                      ? g[0] : unsqueeze_to(g[0], dim.to_int_list(), static_cast<int64_t>(sizes.size()));
    return tensor_list{grad.expand(sizes)};
  });
}

// d mean(self) = grad expanded back, divided by the number of elements each output averaged.
Tensor mean_autograd(const Tensor& self, const std::optional<ScalarType>& dtype) {
  autograd::Recorder r("MeanBackward0", self);
  Tensor out = r.forward([&] { return dispatch::call<mean_impl>(OpId::mean, self, dtype); });
  if (!r) return out;
  r.values("self_numel", self.numel(), "self_sizes", self.sizes());
  return r.finish(out, [](OpNode& n, const tensor_list& g) {
    return tensor_list{div(g[0].expand(n.value(1).to_int_list()), n.value(0).to_int())};  // div.Scalar, as PyTorch
  });
}

Tensor mean_dim_autograd(const Tensor& self, const std::optional<std::vector<int64_t>>& dims,
                         const bool& keepdim, const std::optional<ScalarType>& dtype) {
  autograd::Recorder r("MeanBackward1", self);
  Tensor out = r.forward(
      [&] { return dispatch::call<mean_dim_impl>(OpId::mean_dim, self, dims, keepdim, dtype); });
  if (!r) return out;
  // PyTorch 1.13 saves self too (its formula reads self.sizes()); ember reads the sizes.
  r.save(self, "self");
  r.values("dim", dims, "keepdim", keepdim, "self_sym_sizes", self.sizes());
  return r.finish(out, [](OpNode& n, const tensor_list& g) {
    const auto& sizes = n.value(2).to_int_list();
    const Value& dim = n.value(0);
    const IntArrayRef reduced = dim.is_none() ? IntArrayRef() : IntArrayRef(dim.to_int_list());
    Tensor grad = n.value(1).to_bool() ? g[0] : unsqueeze_to(g[0], reduced, static_cast<int64_t>(sizes.size()));
    return tensor_list{div(grad.expand(sizes), ops::reduced_numel(sizes, reduced))};
  });
}

// ---- prod ----
// d prod(x)/dx_i is the product of the other elements. Without zeros that is result / x_i; with
// zeros it is built from exclusive products, so that (as PyTorch's prod_backward) a slice with
// one zero gives that element the product of the others and every other element 0, a slice with
// two or more zeros all 0, and the formula stays differentiable (double backward sees the
// polynomial, not a constant).

// The products of the elements before (`reverse`: after) each element along `dim`: a
// Hillis-Steele scan, log2(n) multiplications by a copy shifted s places and padded with ones.
// PyTorch builds the same from cumprod and flip, which ember does not have; this uses only
// differentiable ops (narrow, cat, mul).
Tensor exclusive_prod(const Tensor& x, int64_t dim, bool reverse) {
  const int64_t n = x.size(dim);
  auto shifted = [&](const Tensor& y, int64_t s) {
    DimVector pad_shape = x.sizes().vec();
    pad_shape[static_cast<size_t>(dim)] = std::min(s, n);
    Tensor pad = ones(pad_shape, TensorOptions(x.dtype()).device(x.device()));
    if (s >= n) return pad;
    return reverse ? cat({y.narrow(dim, s, n - s), pad}, dim) : cat({pad, y.narrow(dim, 0, n - s)}, dim);
  };
  Tensor y = shifted(x, 1);
  for (int64_t s = 1; s < n; s *= 2) y = y * shifted(y, s);
  return y;
}

// `grad` has `input`'s dims (the reduced one of size 1).
Tensor prod_safe_zeros_backward(const Tensor& grad, const Tensor& input, int64_t dim) {
  if (input.numel() == 0) return grad.expand(input.sizes());
  // Conjugated for complex input (Note [Complex autograd]), as PyTorch's prod_backward.
  return grad * conj_if_complex(exclusive_prod(input, dim, false) * exclusive_prod(input, dim, true));
}

int64_t count_zeros(const Tensor& t) { return (t == 0).sum().item<int64_t>(); }

Tensor prod_backward(const Tensor& grad, const Tensor& input, const Tensor& result) {
  if (input.dim() == 0) return grad;
  // Meta tensors have no values to look for zeros in: take the path correct for any input.
  const int64_t zeros_count = input.is_meta() ? -1 : count_zeros(input);
  if (zeros_count == 0) return grad * conj_if_complex(result / input);
  // Two zeros make every derivative 0; only double backward needs the polynomial behind it.
  if (zeros_count > 1 && !GradMode::is_enabled()) return zeros_like(input);
  return prod_safe_zeros_backward(grad, input.reshape({-1}), 0).reshape(input.sizes());
}

Tensor prod_dim_backward(Tensor grad, const Tensor& input, Tensor result, int64_t dim, bool keepdim) {
  if (input.dim() == 0) return grad;
  dim = wrap_dim(dim, input.dim());
  if (!keepdim) {
    grad = grad.unsqueeze(dim);
    result = result.unsqueeze(dim);
  }
  if (!input.is_meta() && count_zeros(input) == 0) return grad * conj_if_complex(result / input);
  return prod_safe_zeros_backward(grad, input, dim);
}

// PyTorch saves self and the result; self is used in the gradient's dtype (prod(dtype=...)).
Tensor prod_autograd(const Tensor& self, const std::optional<ScalarType>& dtype) {
  autograd::Recorder r("ProdBackward0", self);
  Tensor out = r.forward([&] { return dispatch::call<prod_impl>(OpId::prod, self, dtype); });
  if (!r) return out;
  const size_t self_ = r.save(self, "self"), result_ = 1;
  r.finish(out, [=](OpNode& n, const tensor_list& g) {
    return tensor_list{prod_backward(g[0], n.saved(self_).to(g[0].dtype()), n.saved(result_))};
  });
  ops::save_output_at(r, out, result_, "result");
  return out;
}

Tensor prod_dim_autograd(const Tensor& self, const int64_t& dim, const bool& keepdim,
                         const std::optional<ScalarType>& dtype) {
  autograd::Recorder r("ProdBackward1", self);
  Tensor out = r.forward(
      [&] { return dispatch::call<prod_dim_impl>(OpId::prod_dim_int, self, dim, keepdim, dtype); });
  if (!r) return out;
  const size_t self_ = r.save(self, "self"), result_ = 1;
  r.values("dim", dim, "keepdim", keepdim);
  r.finish(out, [=](OpNode& n, const tensor_list& g) {
    return tensor_list{
        prod_dim_backward(g[0], n.saved(self_).to(g[0].dtype()), n.saved(result_), dim, keepdim)};
  });
  ops::save_output_at(r, out, result_, "result");
  return out;
}

// ---- max / min / amax / amin ----

// max() / min(): the gradient split evenly among the elements equal to the result (all NaNs when
// the result is NaN), as PyTorch's evenly_distribute_backward.
Tensor evenly_distribute_backward(const Tensor& grad, const Tensor& input, const Tensor& value) {
  if (input.is_meta()) {  // no values to branch on
    Tensor mask = (input == value).logical_or((input != input).logical_and(value != value));
    return mask * (grad / mask.sum());
  }
  Tensor mask = (value != value).item<bool>() ? input != input : input == value;
  return zeros(input.sizes(), TensorOptions(grad.dtype()).device(grad.device()))
      .masked_fill(mask, grad / mask.sum());
}

template <OpId id, Tensor (*impl)(const Tensor&)>
Tensor max_min_autograd(const Tensor& self) {
  autograd::Recorder r(id == OpId::max ? "MaxBackward1" : "MinBackward1", self);
  Tensor out = r.forward([&] { return dispatch::call<impl>(id, self); });
  if (!r) return out;
  const size_t self_ = r.save(self, "self"), result_ = 1;
  r.finish(out, [=](OpNode& n, const tensor_list& g) {
    return tensor_list{evenly_distribute_backward(g[0], n.saved(self_), n.saved(result_))};
  });
  ops::save_output_at(r, out, result_, "result");
  return out;
}

// max.dim / min.dim: the gradient goes to the index each value came from; the indices are not
// differentiable (finish attaches history to floating outputs only).
template <OpId id, std::tuple<Tensor, Tensor> (*impl)(const Tensor&, int64_t, bool)>
std::tuple<Tensor, Tensor> max_min_dim_autograd(const Tensor& self, const int64_t& dim,
                                                const bool& keepdim) {
  autograd::Recorder r(id == OpId::max_dim ? "MaxBackward0" : "MinBackward0", self);
  auto outs = r.forward([&] { return dispatch::call<impl>(id, self, dim, keepdim); });
  if (!r) return outs;
  const size_t indices_ = 0;
  r.values("dim", dim, "keepdim", keepdim, "self_sizes", self.sizes());
  r.finish(outs, [=](OpNode& n, const tensor_list& g) {
    return tensor_list{ops::value_selecting_backward(g[0], dim, n.saved(indices_),
                                                     n.value(2).to_int_list(), keepdim)};
  });
  ops::save_output_at(r, std::get<1>(outs), indices_, "indices");
  return outs;
}

// amax / amin: ties share the gradient equally (PyTorch's scale_grad_by_count).
template <OpId id, Tensor (*impl)(const Tensor&, IntArrayRef, bool)>
Tensor amax_amin_autograd(const Tensor& self, const IntArrayRef& dims, const bool& keepdim) {
  autograd::Recorder r(id == OpId::amax ? "AmaxBackward0" : "AminBackward0", self);
  Tensor out = r.forward([&] { return dispatch::call<impl>(id, self, dims, keepdim); });
  if (!r) return out;
  const size_t self_ = r.save(self, "self"), result_ = 1;
  r.values("dim", dims, "keepdim", keepdim);
  r.finish(out, [=](OpNode& n, const tensor_list& g) {
    const std::vector<int64_t>& reduced = n.value(0).to_int_list();
    const Tensor input = n.saved(self_);
    Tensor grad = g[0], result = n.saved(result_);
    if (!keepdim) {
      grad = unsqueeze_to(grad, reduced, input.dim());
      result = unsqueeze_to(result, reduced, input.dim());
    }
    Tensor mask = result == input;
    return tensor_list{(grad / mask.sum(reduced, true)) * mask};
  });
  ops::save_output_at(r, out, result_, "result");
  return out;
}

// ---- cumsum ----

// d cumsum(x)_j/dx_i = [i <= j]: the gradient is the reversed cumulative sum of grad (flip,
// cumsum, flip; the flip is an index_select, ember has no flip op).
Tensor reversed_cumsum(const Tensor& g, int64_t dim) {
  Tensor rev = arange(g.size(dim) - 1, -1, -1, TensorOptions(kInt64).device(g.device()));
  return g.index_select(dim, rev).cumsum(dim).index_select(dim, rev);
}

Tensor cumsum_autograd(const Tensor& self, const int64_t& dim, const std::optional<ScalarType>& dtype) {
  autograd::Recorder r("CumsumBackward0", self);
  Tensor out = r.forward([&] { return dispatch::call<cumsum_impl>(OpId::cumsum, self, dim, dtype); });
  if (!r) return out;
  r.values("dim", dim);
  return r.finish(out, [self_dtype = self.dtype()](OpNode& n, const tensor_list& g) {
    Tensor grad = g[0].to(self_dtype);
    const int64_t d = wrap_dim(n.value(0).to_int(), grad.dim());
    if (grad.numel() <= 1 || grad.size(d) == 1) return tensor_list{grad};
    return tensor_list{reversed_cumsum(grad, d)};
  });
}
}  // namespace

EMBER_REGISTER_AUTOGRAD(sum, &sum_autograd);
EMBER_REGISTER_AUTOGRAD(sum_dim_IntList, &sum_dim_autograd);
EMBER_REGISTER_AUTOGRAD(mean, &mean_autograd);
EMBER_REGISTER_AUTOGRAD(mean_dim, &mean_dim_autograd);
EMBER_REGISTER_AUTOGRAD(prod, &prod_autograd);
EMBER_REGISTER_AUTOGRAD(prod_dim_int, &prod_dim_autograd);
EMBER_REGISTER_AUTOGRAD(max, (&max_min_autograd<OpId::max, max_impl>));
EMBER_REGISTER_AUTOGRAD(min, (&max_min_autograd<OpId::min, min_impl>));
EMBER_REGISTER_AUTOGRAD(max_dim, (&max_min_dim_autograd<OpId::max_dim, max_dim_impl>));
EMBER_REGISTER_AUTOGRAD(min_dim, (&max_min_dim_autograd<OpId::min_dim, min_dim_impl>));
EMBER_REGISTER_AUTOGRAD(amax, (&amax_amin_autograd<OpId::amax, amax_impl>));
EMBER_REGISTER_AUTOGRAD(amin, (&amax_amin_autograd<OpId::amin, amin_impl>));
EMBER_REGISTER_AUTOGRAD(cumsum, &cumsum_autograd);

// ---- frontends (schema order) and boxed registration ----

Tensor sum(const Tensor& self, std::optional<ScalarType> dtype) {
  return dispatch::call<sum_impl>(OpId::sum, self, dtype);
}
Tensor sum(const Tensor& self, std::optional<std::vector<int64_t>> dims, bool keepdim,
           std::optional<ScalarType> dtype) {
  return dispatch::call<sum_dim_impl>(OpId::sum_dim_IntList, self, dims, keepdim, dtype);
}
Tensor mean(const Tensor& self, std::optional<ScalarType> dtype) {
  return dispatch::call<mean_impl>(OpId::mean, self, dtype);
}
Tensor mean(const Tensor& self, std::optional<std::vector<int64_t>> dims, bool keepdim,
            std::optional<ScalarType> dtype) {
  return dispatch::call<mean_dim_impl>(OpId::mean_dim, self, dims, keepdim, dtype);
}
Tensor prod(const Tensor& self, std::optional<ScalarType> dtype) {
  return dispatch::call<prod_impl>(OpId::prod, self, dtype);
}
Tensor prod(const Tensor& self, int64_t dim, bool keepdim, std::optional<ScalarType> dtype) {
  return dispatch::call<prod_dim_impl>(OpId::prod_dim_int, self, dim, keepdim, dtype);
}
Tensor max(const Tensor& self) { return dispatch::call<max_impl>(OpId::max, self); }
std::tuple<Tensor, Tensor> max(const Tensor& self, int64_t dim, bool keepdim) {
  return dispatch::call<max_dim_impl>(OpId::max_dim, self, dim, keepdim);
}
Tensor min(const Tensor& self) { return dispatch::call<min_impl>(OpId::min, self); }
std::tuple<Tensor, Tensor> min(const Tensor& self, int64_t dim, bool keepdim) {
  return dispatch::call<min_dim_impl>(OpId::min_dim, self, dim, keepdim);
}
Tensor amax(const Tensor& self, IntArrayRef dims, bool keepdim) {
  return dispatch::call<amax_impl>(OpId::amax, self, dims, keepdim);
}
Tensor amin(const Tensor& self, IntArrayRef dims, bool keepdim) {
  return dispatch::call<amin_impl>(OpId::amin, self, dims, keepdim);
}
Tensor argmax(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  return dispatch::call<argmax_impl>(OpId::argmax, self, dim, keepdim);
}
Tensor argmin(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  return dispatch::call<argmin_impl>(OpId::argmin, self, dim, keepdim);
}
Tensor all(const Tensor& self) { return dispatch::call<all_impl>(OpId::all, self); }
Tensor all(const Tensor& self, int64_t dim, bool keepdim) {
  return dispatch::call<all_dim_impl>(OpId::all_dim, self, dim, keepdim);
}
Tensor any(const Tensor& self) { return dispatch::call<any_impl>(OpId::any, self); }
Tensor any(const Tensor& self, int64_t dim, bool keepdim) {
  return dispatch::call<any_dim_impl>(OpId::any_dim, self, dim, keepdim);
}
Tensor cumsum(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  return dispatch::call<cumsum_impl>(OpId::cumsum, self, dim, dtype);
}

using DtypeFn = Tensor (*)(const Tensor&, std::optional<ScalarType>);
using DimListDtypeFn = Tensor (*)(const Tensor&, std::optional<std::vector<int64_t>>, bool,
                                  std::optional<ScalarType>);
using UnaryFn = Tensor (*)(const Tensor&);
using DimFn = Tensor (*)(const Tensor&, int64_t, bool);
using DimPairFn = std::tuple<Tensor, Tensor> (*)(const Tensor&, int64_t, bool);
using DimsFn = Tensor (*)(const Tensor&, IntArrayRef, bool);
using OptDimFn = Tensor (*)(const Tensor&, std::optional<int64_t>, bool);
EMBER_REGISTER_OP(sum, static_cast<DtypeFn>(&sum));
EMBER_REGISTER_OP(sum_dim_IntList, static_cast<DimListDtypeFn>(&sum));
EMBER_REGISTER_OP(mean, static_cast<DtypeFn>(&mean));
EMBER_REGISTER_OP(mean_dim, static_cast<DimListDtypeFn>(&mean));
EMBER_REGISTER_OP(prod, static_cast<DtypeFn>(&prod));
EMBER_REGISTER_OP(prod_dim_int,
                  static_cast<Tensor (*)(const Tensor&, int64_t, bool, std::optional<ScalarType>)>(&prod));
EMBER_REGISTER_OP(max, static_cast<UnaryFn>(&max));
EMBER_REGISTER_OP(max_dim, static_cast<DimPairFn>(&max));
EMBER_REGISTER_OP(min, static_cast<UnaryFn>(&min));
EMBER_REGISTER_OP(min_dim, static_cast<DimPairFn>(&min));
EMBER_REGISTER_OP(amax, static_cast<DimsFn>(&amax));
EMBER_REGISTER_OP(amin, static_cast<DimsFn>(&amin));
EMBER_REGISTER_OP(argmax, static_cast<OptDimFn>(&argmax));
EMBER_REGISTER_OP(argmin, static_cast<OptDimFn>(&argmin));
EMBER_REGISTER_OP(all, static_cast<UnaryFn>(&all));
EMBER_REGISTER_OP(all_dim, static_cast<DimFn>(&all));
EMBER_REGISTER_OP(any, static_cast<UnaryFn>(&any));
EMBER_REGISTER_OP(any_dim, static_cast<DimFn>(&any));
EMBER_REGISTER_OP(cumsum,
                  static_cast<Tensor (*)(const Tensor&, int64_t, std::optional<ScalarType>)>(&cumsum));

// ---- Tensor methods ----
Tensor Tensor::sum(std::optional<ScalarType> dtype) const { return ember::sum(*this, dtype); }
Tensor Tensor::sum(IntArrayRef dims, bool keepdim, std::optional<ScalarType> dtype) const {
  return ember::sum(*this, dims.vec(), keepdim, dtype);
}
Tensor Tensor::mean(std::optional<ScalarType> dtype) const { return ember::mean(*this, dtype); }
Tensor Tensor::mean(IntArrayRef dims, bool keepdim, std::optional<ScalarType> dtype) const {
  return ember::mean(*this, dims.vec(), keepdim, dtype);
}
Tensor Tensor::prod(std::optional<ScalarType> dtype) const { return ember::prod(*this, dtype); }
Tensor Tensor::prod(int64_t dim, bool keepdim, std::optional<ScalarType> dtype) const {
  return ember::prod(*this, dim, keepdim, dtype);
}
Tensor Tensor::max() const { return ember::max(*this); }
std::tuple<Tensor, Tensor> Tensor::max(int64_t dim, bool keepdim) const {
  return ember::max(*this, dim, keepdim);
}
Tensor Tensor::min() const { return ember::min(*this); }
std::tuple<Tensor, Tensor> Tensor::min(int64_t dim, bool keepdim) const {
  return ember::min(*this, dim, keepdim);
}
Tensor Tensor::amax(IntArrayRef dims, bool keepdim) const { return ember::amax(*this, dims, keepdim); }
Tensor Tensor::amin(IntArrayRef dims, bool keepdim) const { return ember::amin(*this, dims, keepdim); }
Tensor Tensor::argmax(std::optional<int64_t> dim, bool keepdim) const {
  return ember::argmax(*this, dim, keepdim);
}
Tensor Tensor::argmin(std::optional<int64_t> dim, bool keepdim) const {
  return ember::argmin(*this, dim, keepdim);
}
Tensor Tensor::all() const { return ember::all(*this); }
Tensor Tensor::all(int64_t dim, bool keepdim) const { return ember::all(*this, dim, keepdim); }
Tensor Tensor::any() const { return ember::any(*this); }
Tensor Tensor::any(int64_t dim, bool keepdim) const { return ember::any(*this, dim, keepdim); }
Tensor Tensor::cumsum(int64_t dim, std::optional<ScalarType> dtype) const {
  return ember::cumsum(*this, dim, dtype);
}

}  // namespace ember
