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
    EMBER_CHECK(is_floating(*dtype),
                "mean(): could not infer output dtype. Optional dtype must be either a floating "
                "point or complex dtype. Got: ", scalar_type_name(*dtype));
    return *dtype;
  }
  EMBER_CHECK(is_floating(self.dtype()),
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

// Reductions over `dims` with keepdim=false drop those dims; their gradients put them back.
Tensor unsqueeze_to(const Tensor& g, IntArrayRef dims, int64_t ndim) {
  if (ndim == 0) return g;
  DimVector sorted;
  for (int64_t d : dims) sorted.push_back(wrap_dim(d, ndim));
  if (dims.empty()) return g;  // all dims reduced: g is 0-d
  std::sort(sorted.begin(), sorted.end());
  Tensor r = g;
  for (int64_t d : sorted) r = r.unsqueeze(d);
  return r;
}

// d sum(self) = grad expanded back to self's shape.
Tensor sum_autograd(const Tensor& self, const std::optional<ScalarType>& dtype) {
  autograd::Recorder r("SumBackward0", self);
  Tensor out = r.forward([&] { return dispatch::call<sum_impl>(OpId::sum, self, dtype); });
  if (!r) return out;
  DimVector sizes = self.sizes().vec();
  return r.finish(out, [sizes](OpNode&, const tensor_list& g) {
    return tensor_list{g[0].expand(sizes)};
  });
}

Tensor sum_dim_autograd(const Tensor& self, const std::optional<std::vector<int64_t>>& dims,
                        const bool& keepdim, const std::optional<ScalarType>& dtype) {
  autograd::Recorder r("SumBackward1", self);
  Tensor out = r.forward(
      [&] { return dispatch::call<sum_dim_impl>(OpId::sum_dim_IntList, self, dims, keepdim, dtype); });
  if (!r) return out;
  DimVector sizes = self.sizes().vec();
  std::vector<int64_t> reduced = dims.value_or(std::vector<int64_t>{});
  return r.finish(out, [sizes, reduced, keepdim](OpNode&, const tensor_list& g) {
    Tensor grad = keepdim ? g[0] : unsqueeze_to(g[0], reduced, static_cast<int64_t>(sizes.size()));
    return tensor_list{grad.expand(sizes)};
  });
}
}  // namespace

EMBER_REGISTER_AUTOGRAD(sum, &sum_autograd);
EMBER_REGISTER_AUTOGRAD(sum_dim_IntList, &sum_dim_autograd);

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
