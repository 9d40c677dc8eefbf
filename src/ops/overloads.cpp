// The other overloads of ops ember has (include/ember/ops/overloads.h): PyTorch's older or
// alternative spellings, each a Composite row of ops.def whose body calls the primary op, so the
// override layers below the function layer, autograd and the kernels see the primary op only.
#include "ember/ops/overloads.h"

#include "../dispatch/boxing.h"
#include <cmath>

#include "ember/ops/copy.h"
#include "ember/ops/factory.h"
#include "ember/ops/indexing.h"
#include "ember/ops/pointwise.h"
#include "ember/ops/random.h"
#include "ember/ops/reduce.h"
#include "ember/ops/view.h"

namespace ember {

using dispatch::OpId;

namespace {

std::tuple<Tensor, Tensor> sort_default_impl(const Tensor& self, int64_t dim, bool descending) {
  return ember::sort(self, std::optional<bool>(false), dim, descending);
}
Tensor max_other_impl(const Tensor& self, const Tensor& other) { return maximum(self, other); }
Tensor min_other_impl(const Tensor& self, const Tensor& other) { return minimum(self, other); }

Scalar correction_of(bool unbiased) { return Scalar(unbiased ? int64_t{1} : int64_t{0}); }
Tensor var_unbiased_impl(const Tensor& self, bool unbiased) {
  return ember::var(self, std::nullopt, correction_of(unbiased), false);
}
Tensor var_dim_impl(const Tensor& self, std::optional<std::vector<int64_t>> dims, bool unbiased,
                    bool keepdim) {
  return ember::var(self, std::move(dims), correction_of(unbiased), keepdim);
}
Tensor std_unbiased_impl(const Tensor& self, bool unbiased) {
  return ember::std(self, std::nullopt, correction_of(unbiased), false);
}
Tensor std_dim_impl(const Tensor& self, std::optional<std::vector<int64_t>> dims, bool unbiased,
                    bool keepdim) {
  return ember::std(self, std::move(dims), correction_of(unbiased), keepdim);
}

std::tuple<Tensor, Tensor> var_mean_impl(const Tensor& self,
                                         std::optional<std::vector<int64_t>> dims,
                                         std::optional<Scalar> correction, bool keepdim) {
  return {ember::var(self, dims, correction, keepdim), ember::mean(self, dims, keepdim)};
}
std::tuple<Tensor, Tensor> std_mean_impl(const Tensor& self,
                                         std::optional<std::vector<int64_t>> dims,
                                         std::optional<Scalar> correction, bool keepdim) {
  return {ember::std(self, dims, correction, keepdim), ember::mean(self, dims, keepdim)};
}
std::tuple<Tensor, Tensor> var_mean_dim_impl(const Tensor& self,
                                             std::optional<std::vector<int64_t>> dims,
                                             bool unbiased, bool keepdim) {
  return var_mean(self, std::move(dims), correction_of(unbiased), keepdim);
}
std::tuple<Tensor, Tensor> std_mean_dim_impl(const Tensor& self,
                                             std::optional<std::vector<int64_t>> dims,
                                             bool unbiased, bool keepdim) {
  return std_mean(self, std::move(dims), correction_of(unbiased), keepdim);
}
std::tuple<Tensor, Tensor> var_mean_unbiased_impl(const Tensor& self, bool unbiased) {
  return var_mean(self, std::nullopt, correction_of(unbiased), false);
}
std::tuple<Tensor, Tensor> std_mean_unbiased_impl(const Tensor& self, bool unbiased) {
  return std_mean(self, std::nullopt, correction_of(unbiased), false);
}

std::tuple<Tensor, Tensor> aminmax_impl(const Tensor& self, std::optional<int64_t> dim,
                                        bool keepdim) {
  if (!dim) {
    EMBER_CHECK(self.numel() > 0, "aminmax(): cannot compute aminmax over an empty dimension as "
                "the operation has no identity.");
    return {amin(self, {}, keepdim), amax(self, {}, keepdim)};
  }
  const std::vector<int64_t> dims{*dim};
  return {amin(self, dims, keepdim), amax(self, dims, keepdim)};
}

// The k-th entry of the ascending sort along dim (sort orders NaN last, as kthvalue does).
std::tuple<Tensor, Tensor> kthvalue_impl(const Tensor& self, int64_t k, int64_t dim, bool keepdim) {
  const int64_t d = wrap_dim(dim, std::max<int64_t>(self.dim(), 1));
  const int64_t len = self.dim() == 0 ? 1 : self.size(d);
  EMBER_CHECK(k >= 1 && k <= len, "kthvalue(): selected number k out of range for dimension ", dim);
  if (self.dim() == 0) return {self.clone(), zeros({}, TensorOptions(kInt64).device(self.device()))};
  auto [values, indices] = ember::sort(self, std::optional<bool>(true), d, false);
  Tensor v = values.narrow(d, k - 1, 1), i = indices.narrow(d, k - 1, 1);
  if (!keepdim) {
    v = v.squeeze(d);
    i = i.squeeze(d);
  }
  return {v.contiguous(), i.contiguous()};
}

// Median along dim from the stable ascending sort (NaNs last): position (n - 1) / 2 of the
// values, or, where the slice has NaNs, the first NaN (median) / position (valid - 1) / 2 of the
// valid values (nanmedian).
std::tuple<Tensor, Tensor> median_impl(const char* op, const Tensor& self, int64_t dim,
                                       bool keepdim, bool ignore_nan) {
  const int64_t d = wrap_dim(dim, std::max<int64_t>(self.dim(), 1));
  if (self.dim() == 0) return {self.clone(), zeros({}, TensorOptions(kInt64).device(self.device()))};
  const int64_t n = self.size(d);
  EMBER_CHECK_INDEX(n > 0, op, "(): Expected reduction dim ", d, " to have non-zero size.");
  auto [values, indices] = ember::sort(self, std::optional<bool>(true), d, false);
  Tensor nans = ne(self, self).sum(std::vector<int64_t>{d}, true, kInt64);
  Tensor valid = sub(full({}, Scalar(n), TensorOptions(kInt64).device(self.device())), nans);
  Tensor pos = ignore_nan
      ? floor_divide(clamp(sub(valid, wrapped_scalar_tensor(Scalar(int64_t{1}))), Scalar(int64_t{0})),
                     wrapped_scalar_tensor(Scalar(int64_t{2})))
      : where(gt(nans, wrapped_scalar_tensor(Scalar(int64_t{0}))), valid,
              full({}, Scalar((n - 1) / 2), TensorOptions(kInt64).device(self.device())));
  Tensor v = values.gather(d, pos), i = indices.gather(d, pos);
  if (!keepdim) {
    v = v.squeeze(d);
    i = i.squeeze(d);
  }
  return {v, i};
}
Tensor median_all(const char* op, const Tensor& self, bool ignore_nan) {
  if (self.numel() == 0) return full({}, Scalar(std::nan("")), TensorOptions(self.dtype()).device(self.device()));
  return std::get<0>(median_impl(op, self.reshape({-1}), 0, false, ignore_nan));
}
Tensor median_self_impl(const Tensor& self) { return median_all("median", self, false); }
Tensor nanmedian_self_impl(const Tensor& self) { return median_all("nanmedian", self, true); }
std::tuple<Tensor, Tensor> median_dim_impl(const Tensor& self, int64_t dim, bool keepdim) {
  return median_impl("median", self, dim, keepdim, false);
}
std::tuple<Tensor, Tensor> nanmedian_dim_impl(const Tensor& self, int64_t dim, bool keepdim) {
  return median_impl("nanmedian", self, dim, keepdim, true);
}

Tensor bernoulli_p_impl(const Tensor& self, double p, Generator* gen) {
  Tensor out = empty_like(self);
  return bernoulli_(out, p, gen);
}

Tensor norm_scalar_impl(const Tensor& self, const Scalar& p) { return ember::norm(self, p, {}, false); }
// PyTorch computes a norm with dtype= in that dtype (a floating one).
Tensor norm_dtype_impl(const Tensor& self, std::optional<Scalar> p, IntArrayRef dims, bool keepdim,
                       ScalarType dtype) {
  EMBER_CHECK(is_floating(dtype) || is_complex(dtype), "norm(): the desired output dtype should be either floating point "
              "or complex. Got ", scalar_type_name(dtype), " instead.");
  EMBER_CHECK(is_floating(self.dtype()) || is_complex(self.dtype()),
              "norm(): input dtype should be either floating point or complex. Got ",
              scalar_type_name(self.dtype()), " instead.");
  return ember::norm(self.to(dtype), p, dims, keepdim);
}
Tensor norm_opt_dtype_impl(const Tensor& self, std::optional<Scalar> p, ScalarType dtype) {
  return norm_dtype_impl(self, p, {}, false, dtype);
}

std::vector<Tensor> split_sizes_impl(const Tensor& self, IntArrayRef sizes, int64_t dim) {
  return split_with_sizes(self, sizes, dim);
}

// numpy's nonzero: a 0-d input counts as 1-d.
std::vector<Tensor> nonzero_numpy_impl(const Tensor& self) {
  return nonzero(self.dim() == 0 ? self.unsqueeze(0) : self).unbind(1);
}
std::vector<Tensor> where_condition_impl(const Tensor& condition) {
  return nonzero_numpy(condition);
}

Tensor clamp_tensor_impl(const Tensor& self, const std::optional<Tensor>& min,
                         const std::optional<Tensor>& max) {
  const bool has_min = min && min->defined(), has_max = max && max->defined();
  EMBER_CHECK(has_min || has_max, "ember.clamp: At least one of 'min' or 'max' must not be None");
  EMBER_CHECK(!self.is_complex(), "clamp is not supported for complex types");
  Tensor out = self;
  if (has_min) out = maximum(out, *min);
  if (has_max) out = minimum(out, *max);
  // Only max given: minimum already promoted; only min: maximum did. Both: one dtype for all.
  return out;
}
Tensor clamp__tensor_impl(const Tensor& self, const std::optional<Tensor>& min,
                          const std::optional<Tensor>& max) {
  Tensor r = clamp_tensor_impl(self, min, max);
  EMBER_CHECK(can_cast(r.dtype(), self.dtype()), "result type ", scalar_type_name(r.dtype()),
              " can't be cast to the desired output type ", scalar_type_name(self.dtype()));
  Tensor s = self;
  s.copy_(r);
  return self;
}

Tensor floor_divide_impl(const Tensor& self, const Tensor& other) {
  return div(self, other, std::string("floor"));
}
Tensor floor_divide__impl(const Tensor& self, const Tensor& other) {
  Tensor s = self;
  div_(s, other, std::string("floor"));
  return self;
}

Tensor norm_opt_dtype(const Tensor& self, std::optional<Scalar> p, ScalarType dtype) {
  return dispatch::call<norm_opt_dtype_impl>(OpId::norm_ScalarOpt_dtype, self, p, dtype);
}
Tensor norm_dim_dtype(const Tensor& self, std::optional<Scalar> p, IntArrayRef dims, bool keepdim,
                      ScalarType dtype) {
  return dispatch::call<norm_dtype_impl>(OpId::norm_ScalarOpt_dim_dtype, self, p, dims, keepdim,
                                         dtype);
}

Tensor bernoulli_p(const Tensor& self, double p, Generator* gen) {
  return dispatch::call<bernoulli_p_impl>(OpId::bernoulli_p, self, p, gen);
}

}  // namespace

std::tuple<Tensor, Tensor> var_mean(const Tensor& self, std::optional<std::vector<int64_t>> dims,
                                    std::optional<Scalar> correction, bool keepdim) {
  return dispatch::call<var_mean_impl>(OpId::var_mean_correction, self, dims, correction, keepdim);
}
std::tuple<Tensor, Tensor> std_mean(const Tensor& self, std::optional<std::vector<int64_t>> dims,
                                    std::optional<Scalar> correction, bool keepdim) {
  return dispatch::call<std_mean_impl>(OpId::std_mean_correction, self, dims, correction, keepdim);
}
std::tuple<Tensor, Tensor> aminmax(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  return dispatch::call<aminmax_impl>(OpId::aminmax, self, dim, keepdim);
}
Tensor median(const Tensor& self) { return dispatch::call<median_self_impl>(OpId::median, self); }
std::tuple<Tensor, Tensor> median(const Tensor& self, int64_t dim, bool keepdim) {
  return dispatch::call<median_dim_impl>(OpId::median_dim, self, dim, keepdim);
}
Tensor nanmedian(const Tensor& self) {
  return dispatch::call<nanmedian_self_impl>(OpId::nanmedian, self);
}
std::tuple<Tensor, Tensor> nanmedian(const Tensor& self, int64_t dim, bool keepdim) {
  return dispatch::call<nanmedian_dim_impl>(OpId::nanmedian_dim, self, dim, keepdim);
}
std::tuple<Tensor, Tensor> kthvalue(const Tensor& self, int64_t k, int64_t dim, bool keepdim) {
  return dispatch::call<kthvalue_impl>(OpId::kthvalue, self, k, dim, keepdim);
}

namespace {
std::tuple<Tensor, Tensor> var_mean_dim(const Tensor& self, std::optional<std::vector<int64_t>> dims,
                                        bool unbiased, bool keepdim) {
  return dispatch::call<var_mean_dim_impl>(OpId::var_mean_dim, self, dims, unbiased, keepdim);
}
std::tuple<Tensor, Tensor> std_mean_dim(const Tensor& self, std::optional<std::vector<int64_t>> dims,
                                        bool unbiased, bool keepdim) {
  return dispatch::call<std_mean_dim_impl>(OpId::std_mean_dim, self, dims, unbiased, keepdim);
}
std::tuple<Tensor, Tensor> var_mean_unbiased(const Tensor& self, bool unbiased) {
  return dispatch::call<var_mean_unbiased_impl>(OpId::var_mean, self, unbiased);
}
std::tuple<Tensor, Tensor> std_mean_unbiased(const Tensor& self, bool unbiased) {
  return dispatch::call<std_mean_unbiased_impl>(OpId::std_mean, self, unbiased);
}
}  // namespace

std::tuple<Tensor, Tensor> sort(const Tensor& self, int64_t dim, bool descending) {
  return dispatch::call<sort_default_impl>(OpId::sort, self, dim, descending);
}
Tensor max(const Tensor& self, const Tensor& other) {
  return dispatch::call<max_other_impl>(OpId::max_other, self, other);
}
Tensor min(const Tensor& self, const Tensor& other) {
  return dispatch::call<min_other_impl>(OpId::min_other, self, other);
}
Tensor var(const Tensor& self, bool unbiased) {
  return dispatch::call<var_unbiased_impl>(OpId::var, self, unbiased);
}
Tensor var(const Tensor& self, std::optional<std::vector<int64_t>> dims, bool unbiased, bool keepdim) {
  return dispatch::call<var_dim_impl>(OpId::var_dim, self, dims, unbiased, keepdim);
}
Tensor std(const Tensor& self, bool unbiased) {
  return dispatch::call<std_unbiased_impl>(OpId::std, self, unbiased);
}
Tensor std(const Tensor& self, std::optional<std::vector<int64_t>> dims, bool unbiased, bool keepdim) {
  return dispatch::call<std_dim_impl>(OpId::std_dim, self, dims, unbiased, keepdim);
}
Tensor norm(const Tensor& self, const Scalar& p) {
  return dispatch::call<norm_scalar_impl>(OpId::norm_Scalar, self, p);
}
Tensor norm(const Tensor& self, std::optional<Scalar> p, ScalarType dtype) {
  return norm_opt_dtype(self, std::move(p), dtype);
}
Tensor norm(const Tensor& self, std::optional<Scalar> p, IntArrayRef dims, bool keepdim,
            ScalarType dtype) {
  return norm_dim_dtype(self, std::move(p), dims, keepdim, dtype);
}
std::vector<Tensor> split(const Tensor& self, IntArrayRef split_sizes, int64_t dim) {
  return dispatch::call<split_sizes_impl>(OpId::split_sizes, self, split_sizes, dim);
}
std::vector<Tensor> nonzero_numpy(const Tensor& self) {
  return dispatch::call<nonzero_numpy_impl>(OpId::nonzero_numpy, self);
}
std::vector<Tensor> where(const Tensor& condition) {
  return dispatch::call<where_condition_impl>(OpId::where, condition);
}
namespace {
Tensor clamp_tensor_op(const Tensor& self, const std::optional<Tensor>& min,
                       const std::optional<Tensor>& max) {
  return dispatch::call<clamp_tensor_impl>(OpId::clamp_Tensor, self, min, max);
}
Tensor& clamp__tensor_op(Tensor& self, const std::optional<Tensor>& min,
                         const std::optional<Tensor>& max) {
  dispatch::call<clamp__tensor_impl>(OpId::clamp__Tensor, self, min, max);
  return self;
}
std::optional<Tensor> bound(const Tensor& t) {
  return t.defined() ? std::optional<Tensor>(t) : std::nullopt;
}
}  // namespace

Tensor clamp(const Tensor& self, const Tensor& min, const Tensor& max) {
  return clamp_tensor_op(self, bound(min), bound(max));
}
Tensor& clamp_(Tensor& self, const Tensor& min, const Tensor& max) {
  return clamp__tensor_op(self, bound(min), bound(max));
}
Tensor floor_divide(const Tensor& self, const Tensor& other) {
  return dispatch::call<floor_divide_impl>(OpId::floor_divide, self, other);
}
Tensor& floor_divide_(Tensor& self, const Tensor& other) {
  dispatch::call<floor_divide__impl>(OpId::floor_divide__Tensor, self, other);
  return self;
}

using SortFn = std::tuple<Tensor, Tensor> (*)(const Tensor&, int64_t, bool);
using BinaryFn = Tensor (*)(const Tensor&, const Tensor&);
using UnbiasedFn = Tensor (*)(const Tensor&, bool);
using DimUnbiasedFn = Tensor (*)(const Tensor&, std::optional<std::vector<int64_t>>, bool, bool);
EMBER_REGISTER_OP(sort, static_cast<SortFn>(&sort));
EMBER_REGISTER_OP(max_other, static_cast<BinaryFn>(&max));
EMBER_REGISTER_OP(min_other, static_cast<BinaryFn>(&min));
EMBER_REGISTER_OP(var, static_cast<UnbiasedFn>(&var));
EMBER_REGISTER_OP(var_dim, static_cast<DimUnbiasedFn>(&var));
EMBER_REGISTER_OP(std, static_cast<UnbiasedFn>(&std));
EMBER_REGISTER_OP(std_dim, static_cast<DimUnbiasedFn>(&std));
using StatsMeanFn = std::tuple<Tensor, Tensor> (*)(const Tensor&, std::optional<std::vector<int64_t>>,
                                                   std::optional<Scalar>, bool);
EMBER_REGISTER_OP(var_mean_correction, static_cast<StatsMeanFn>(&var_mean));
EMBER_REGISTER_OP(std_mean_correction, static_cast<StatsMeanFn>(&std_mean));
EMBER_REGISTER_OP(var_mean_dim, &var_mean_dim);
EMBER_REGISTER_OP(std_mean_dim, &std_mean_dim);
EMBER_REGISTER_OP(var_mean, &var_mean_unbiased);
EMBER_REGISTER_OP(std_mean, &std_mean_unbiased);
EMBER_REGISTER_OP(aminmax, &aminmax);
EMBER_REGISTER_OP(bernoulli_p, &bernoulli_p);
EMBER_REGISTER_OP(kthvalue, &kthvalue);
using MedianFn = Tensor (*)(const Tensor&);
using MedianDimFn = std::tuple<Tensor, Tensor> (*)(const Tensor&, int64_t, bool);
EMBER_REGISTER_OP(median, static_cast<MedianFn>(&median));
EMBER_REGISTER_OP(median_dim, static_cast<MedianDimFn>(&median));
EMBER_REGISTER_OP(nanmedian, static_cast<MedianFn>(&nanmedian));
EMBER_REGISTER_OP(nanmedian_dim, static_cast<MedianDimFn>(&nanmedian));
EMBER_REGISTER_OP(norm_Scalar, static_cast<Tensor (*)(const Tensor&, const Scalar&)>(&norm));
EMBER_REGISTER_OP(norm_ScalarOpt_dtype, &norm_opt_dtype);
EMBER_REGISTER_OP(norm_ScalarOpt_dim_dtype, &norm_dim_dtype);
EMBER_REGISTER_OP(split_sizes,
                  static_cast<std::vector<Tensor> (*)(const Tensor&, IntArrayRef, int64_t)>(&split));
EMBER_REGISTER_OP(nonzero_numpy, &nonzero_numpy);
EMBER_REGISTER_OP(where, static_cast<std::vector<Tensor> (*)(const Tensor&)>(&where));
EMBER_REGISTER_OP(clamp_Tensor, &clamp_tensor_op);
EMBER_REGISTER_OP(clamp__Tensor, &clamp__tensor_op);
EMBER_REGISTER_OP(floor_divide, &floor_divide);
EMBER_REGISTER_OP(floor_divide__Tensor, &floor_divide_);

}  // namespace ember
