// Sorting, searching and counting beyond sort / topk: argsort and msort (composites of sort),
// mode (a primitive whose gradient goes back to the chosen element), quantile / nanquantile
// (composites: sort, then gather and interpolate, so they are differentiable through sort),
// searchsorted / bucketize, histc and bincount. Error texts are PyTorch 1.13's.
#include <algorithm>
#include <cmath>
#include <limits>

#include "../autograd/record.h"
#include "../dispatch/boxing.h"
#include "elementwise.h"
#include "ember/ops/index_ops.h"
#include "ember/ops/reduce.h"
#include "ember/ops/shape.h"
#include "reduce_common.h"

namespace ember {

using dispatch::OpId;

namespace {

// A CPU float64 copy of `t`, contiguous (the scalar loops below read it).
std::vector<double> as_doubles(const Tensor& t) {
  Tensor c = t.to(kFloat64).contiguous();
  const double* p = c.data_ptr<double>();
  return std::vector<double>(p, p + c.numel());
}

// ---- argsort / msort ----

Tensor argsort_impl(const Tensor& self, int64_t dim, bool descending) {
  return std::get<1>(self.sort(dim, descending, false));
}
Tensor argsort_stable_impl(const Tensor& self, bool stable, int64_t dim, bool descending) {
  return std::get<1>(self.sort(dim, descending, stable));
}
Tensor msort_impl(const Tensor& self) { return std::get<0>(self.sort(0, false, false)); }

// ---- mode ----

// The most frequent value of each slice along dim (the smallest among equally frequent ones)
// and the index of its last occurrence, as PyTorch's CPU kernel.
std::tuple<Tensor, Tensor> mode_impl(const Tensor& self, int64_t dim, bool keepdim) {
  ops::check_not_quantized("aten::mode", {self});
  const int64_t d = wrap_dim(dim, self.dim());
  const int64_t len = self.dim() == 0 ? 1 : self.size(d);
  EMBER_CHECK_INDEX(len > 0, "mode(): Expected reduction dim ", d, " to have non-zero size.");
  DimVector out_shape = self.sizes().vec();
  if (self.dim() > 0) {
    if (keepdim) {
      out_shape[static_cast<size_t>(d)] = 1;
    } else {
      out_shape.erase(out_shape.begin() + d);
    }
  }
  if (self.is_meta()) {
    return {empty(out_shape, TensorOptions(self.dtype()).device(kMeta)), empty(out_shape, TensorOptions(kInt64).device(kMeta))};
  }
  // Rows along the last dim; sort each (stable), then walk the runs.
  Tensor moved = self.dim() == 0 ? self.reshape({1, 1}) : self.movedim(d, -1).reshape({-1, len});
  auto [sorted, perm] = moved.sort(-1, false, true);
  std::vector<double> sv = as_doubles(sorted);
  Tensor perm_c = perm.contiguous();
  const int64_t* pp = perm_c.data_ptr<int64_t>();
  const int64_t rows = moved.size(0);
  Tensor pick = empty({rows}, TensorOptions(kInt64));  // position in the sorted row
  Tensor index = empty({rows}, TensorOptions(kInt64));
  for (int64_t r = 0; r < rows; ++r) {
    const double* v = sv.data() + r * len;
    int64_t best_start = 0, best_len = 0;
    for (int64_t i = 0; i < len;) {
      int64_t j = i + 1;
      while (j < len && (v[j] == v[i] || (std::isnan(v[j]) && std::isnan(v[i])))) ++j;
      if (j - i > best_len) {
        best_len = j - i;
        best_start = i;
      }
      i = j;
    }
    int64_t last = -1;
    for (int64_t k = best_start; k < best_start + best_len; ++k) last = std::max(last, pp[r * len + k]);
    pick.data_ptr<int64_t>()[r] = best_start;
    index.data_ptr<int64_t>()[r] = last;
  }
  Tensor values = sorted.gather(1, pick.unsqueeze(1)).reshape(out_shape);
  return {values.contiguous(), index.reshape(out_shape)};
}

// ---- quantile ----

enum class Interp { Linear, Lower, Higher, Midpoint, Nearest };

Tensor quantile_common(const Tensor& self, const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                       const std::string& interpolation, bool ignore_nan) {
  const char* fn = ignore_nan ? "nanquantile()" : "quantile()";
  EMBER_CHECK(self.numel() > 0, fn, " input tensor must be non-empty");
  EMBER_CHECK(q.dim() <= 1, fn, " q must be a scalar or 1D tensor");
  EMBER_CHECK(self.dtype() == kFloat32 || self.dtype() == kFloat64, fn,
              " input tensor must be either float or double dtype");
  EMBER_CHECK(self.dtype() == q.dtype(), fn, " q tensor must be same dtype as the input tensor");
  Interp mode;
  if (interpolation == "linear") mode = Interp::Linear;
  else if (interpolation == "lower") mode = Interp::Lower;
  else if (interpolation == "higher") mode = Interp::Higher;
  else if (interpolation == "midpoint") mode = Interp::Midpoint;
  else if (interpolation == "nearest") mode = Interp::Nearest;
  else EMBER_CHECK(false, fn, " interpolation must be one of linear, lower, higher, midpoint or nearest, but got ",
                   interpolation);
  std::vector<double> qs = as_doubles(q);
  for (double v : qs) {
    if (q.dim() == 0) EMBER_CHECK(v >= 0 && v <= 1, fn, " q must be in the range [0, 1] but got ", v);
    EMBER_CHECK(v >= 0 && v <= 1, fn, " q values must be in the range [0, 1]");
  }
  // Rows of the reduced values, sorted (NaN last).
  DimVector out_shape;
  Tensor rows;
  if (!dim) {
    rows = self.reshape({1, -1});
    if (keepdim) out_shape.assign(static_cast<size_t>(self.dim()), 1);
  } else {
    const int64_t d = wrap_dim(*dim, self.dim());
    const int64_t len = self.dim() == 0 ? 1 : self.size(d);
    rows = self.dim() == 0 ? self.reshape({1, 1}) : self.movedim(d, -1).reshape({-1, len});
    out_shape = self.sizes().vec();
    if (self.dim() > 0) {
      if (keepdim) out_shape[static_cast<size_t>(d)] = 1;
      else out_shape.erase(out_shape.begin() + d);
    }
  }
  Tensor sorted = std::get<0>(rows.sort(-1, false, false));
  const int64_t R = sorted.size(0), n = sorted.size(1), Q = static_cast<int64_t>(qs.size());
  std::vector<double> sv = as_doubles(sorted);
  Tensor below = empty({Q, R, 1}, TensorOptions(kInt64)), above = empty({Q, R, 1}, TensorOptions(kInt64));
  Tensor weight = empty({Q, R, 1}, TensorOptions(kFloat64));
  for (int64_t r = 0; r < R; ++r) {
    int64_t valid = 0;
    bool has_nan = false;
    for (int64_t i = 0; i < n; ++i) {
      if (std::isnan(sv[r * n + i])) has_nan = true;
      else ++valid;
    }
    for (int64_t k = 0; k < Q; ++k) {
      double rank;
      if (ignore_nan) {
        rank = std::max(qs[k] * static_cast<double>(valid - 1), 0.0);
      } else {
        rank = has_nan ? static_cast<double>(n - 1) : qs[k] * static_cast<double>(n - 1);
      }
      if (mode == Interp::Lower) rank = std::floor(rank);
      else if (mode == Interp::Higher) rank = std::ceil(rank);
      else if (mode == Interp::Nearest) rank = std::nearbyint(rank);  // half to even, as round_
      const int64_t lo = static_cast<int64_t>(rank), hi = static_cast<int64_t>(std::ceil(rank));
      const int64_t at = k * R + r;
      below.data_ptr<int64_t>()[at] = lo;
      above.data_ptr<int64_t>()[at] = hi;
      weight.data_ptr<double>()[at] = mode == Interp::Midpoint ? 0.5 : rank - static_cast<double>(lo);
    }
  }
  Tensor src = sorted.unsqueeze(0).expand({Q, R, n});
  Tensor result = src.gather(2, below);
  if (mode == Interp::Linear || mode == Interp::Midpoint) {
    Tensor hi_v = src.gather(2, above);
    Tensor w = weight.to(self.dtype());
    Tensor diff = hi_v - result;
    // torch.lerp's two-sided formula, for the same rounding
    result = ember::where(w < Scalar(0.5), result + w * diff, hi_v - diff * (1 - w));
  }
  // A valid row with all-NaN values (nanquantile) gives NaN.
  if (ignore_nan) {
    Tensor all_nan = empty({1, R, 1}, TensorOptions(kBool));
    for (int64_t r = 0; r < R; ++r) {
      bool any_valid = false;
      for (int64_t i = 0; i < n; ++i) any_valid = any_valid || !std::isnan(sv[r * n + i]);
      all_nan.data_ptr<bool>()[r] = !any_valid;
    }
    result = result.masked_fill(all_nan, std::numeric_limits<double>::quiet_NaN());
  }
  DimVector shape = out_shape;
  if (q.dim() == 1) shape.insert(shape.begin(), Q);
  return result.reshape(shape);
}

Tensor quantile_impl(const Tensor& self, const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                     const std::string& interpolation) {
  return quantile_common(self, q, dim, keepdim, interpolation, false);
}
Tensor nanquantile_impl(const Tensor& self, const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                        const std::string& interpolation) {
  return quantile_common(self, q, dim, keepdim, interpolation, true);
}
Tensor quantile_scalar_impl(const Tensor& self, double q, std::optional<int64_t> dim, bool keepdim,
                            const std::string& interpolation) {
  return quantile_common(self, scalar_tensor(q, TensorOptions(self.dtype())), dim, keepdim, interpolation, false);
}
Tensor nanquantile_scalar_impl(const Tensor& self, double q, std::optional<int64_t> dim, bool keepdim,
                               const std::string& interpolation) {
  return quantile_common(self, scalar_tensor(q, TensorOptions(self.dtype())), dim, keepdim, interpolation, true);
}

// ---- searchsorted / bucketize ----

Tensor searchsorted_impl(const Tensor& seq, const Tensor& self, bool out_int32, bool right,
                         const std::optional<std::string>& side, const std::optional<Tensor>& sorter) {
  if (side) {
    EMBER_CHECK(*side == "left" || *side == "right", "ember.searchsorted(): side can only be 'left' or 'right' but ",
                "got ", *side);
    EMBER_CHECK(!(right && *side == "left"), "ember.searchsorted(): side and right can't be set to opposites, got "
                "side of left while right was True");
    right = *side == "right";
  }
  EMBER_CHECK(seq.dim() > 0, "ember.searchsorted(): boundaries tensor should have positive dimension, but got 0 "
              "dimension");
  const bool one_d = seq.dim() == 1;
  if (!one_d) {
    bool match = self.dim() == seq.dim();
    for (int64_t i = 0; match && i + 1 < seq.dim(); ++i) match = seq.size(i) == self.size(i);
    EMBER_CHECK(match, "ember.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions of "
                "boundaries tensor and input value tensor must match, but we got boundaries tensor ", seq.sizes(),
                " and input value tensor ", self.sizes());
  }
  if (sorter) {
    EMBER_CHECK(sorter->dtype() == kInt64, "ember.searchsorted(): sorter must be a tensor of long dtype but got dtype ",
                scalar_type_name(sorter->dtype()));
    EMBER_CHECK(sorter->sizes().equals(seq.sizes()), "ember.searchsorted(): boundary and sorter must have the same size, "
                "but got boundary tensor ", seq.sizes(), "and got sorter tensor ", sorter->sizes());
  }
  const ScalarType out_dtype = out_int32 ? kInt32 : kInt64;
  if (self.is_meta() || seq.is_meta()) return empty(self.sizes(), TensorOptions(out_dtype).device(kMeta));
  const int64_t n = seq.size(-1);
  Tensor ordered = sorter ? seq.gather(-1, *sorter) : seq;
  std::vector<double> s = as_doubles(ordered), v = as_doubles(self);
  const int64_t per_row = one_d ? static_cast<int64_t>(v.size()) : (self.dim() == 0 ? 1 : self.size(-1));
  Tensor out = empty(self.sizes(), TensorOptions(kInt64));
  int64_t* o = out.data_ptr<int64_t>();
  for (size_t i = 0; i < v.size(); ++i) {
    const double* row = s.data() + (one_d ? 0 : static_cast<int64_t>(i) / std::max<int64_t>(per_row, 1) * n);
    // NaN compares as the largest value, as PyTorch's kernel does
    auto less = [](double a, double b) { return !std::isnan(a) && (std::isnan(b) || a < b); };
    const double x = v[i];
    const double* pos = right ? std::upper_bound(row, row + n, x, less) : std::lower_bound(row, row + n, x, less);
    o[i] = pos - row;
  }
  return out_int32 ? out.to(kInt32) : out;
}

Tensor searchsorted_scalar_impl(const Tensor& seq, const Scalar& self, bool out_int32, bool right,
                                const std::optional<std::string>& side, const std::optional<Tensor>& sorter) {
  EMBER_CHECK(seq.dim() == 1, "ember.searchsorted(): input value can be a scalar only when boundaries tensor "
              "dimension is 1, but we got boundaries tensor dim(", seq.dim(), ") and input value's dim(0) numel(1)");
  return ember::searchsorted(seq, scalar_tensor(self.to<double>(), TensorOptions(kFloat64).device(seq.device())),
                             out_int32, right, side, sorter);
}

Tensor bucketize_impl(const Tensor& self, const Tensor& boundaries, bool out_int32, bool right) {
  EMBER_CHECK(boundaries.dim() == 1, "boundaries tensor must be 1 dimension, but got dim(", boundaries.dim(), ")");
  return ember::searchsorted(boundaries, self, out_int32, right);
}
Tensor bucketize_scalar_impl(const Scalar& self, const Tensor& boundaries, bool out_int32, bool right) {
  EMBER_CHECK(boundaries.dim() == 1, "boundaries tensor must be 1 dimension, but got dim(", boundaries.dim(), ")");
  return ember::searchsorted(boundaries, scalar_tensor(self.to<double>(), TensorOptions(kFloat64).device(boundaries.device())),
                             out_int32, right);
}

// ---- histc / bincount ----

Tensor histc_impl(const Tensor& self, int64_t bins, const Scalar& min, const Scalar& max) {
  EMBER_CHECK(self.dtype() == kFloat32 || self.dtype() == kFloat64, "\"histogram_cpu\" not implemented for '",
              scalar_type_name(self.dtype()), "'");
  EMBER_CHECK(bins > 0, "ember.histogram(): bins must be > 0, but got ", bins, " for dimension 0");
  double lo = min.to<double>(), hi = max.to<double>();
  if (self.is_meta()) return empty({bins}, TensorOptions(self.dtype()).device(kMeta));
  std::vector<double> v = as_doubles(self);
  if (lo == hi && !v.empty()) {
    lo = std::numeric_limits<double>::infinity();
    hi = -lo;
    for (double x : v) {
      if (std::isnan(x)) continue;
      lo = std::min(lo, x);
      hi = std::max(hi, x);
    }
    if (lo > hi) lo = hi = 0;
  }
  if (lo == hi) {
    lo -= 1;
    hi += 1;
  }
  EMBER_CHECK(!(lo > hi), "ember.histc: max must be larger than min");
  EMBER_CHECK(std::isfinite(lo) && std::isfinite(hi), "ember.histc: range of [", lo, ", ", hi, "] is not finite");
  std::vector<double> counts(static_cast<size_t>(bins), 0.0);
  for (double x : v) {
    if (!(x >= lo && x <= hi)) continue;
    int64_t pos = static_cast<int64_t>((x - lo) * static_cast<double>(bins) / (hi - lo));
    if (pos == bins) pos = bins - 1;
    counts[static_cast<size_t>(pos)] += 1;
  }
  Tensor out = empty({bins}, TensorOptions(kFloat64));
  std::copy(counts.begin(), counts.end(), out.data_ptr<double>());
  return out.to(self.dtype());
}

Tensor bincount_impl(const Tensor& self, const std::optional<Tensor>& weights, int64_t minlength) {
  EMBER_CHECK(minlength >= 0, "minlength should be >= 0");
  EMBER_CHECK(self.dim() == 1 && is_integral(self.dtype(), false), "bincount only supports 1-d non-negative integral inputs.");
  if (weights) {
    EMBER_CHECK(weights->dim() == 1 && weights->size(0) == self.size(0),
                "weights should be 1-d and have the same length as input");
  }
  const ScalarType out_dtype = !weights ? kInt64 : weights->dtype() == kFloat32 ? kFloat32 : kFloat64;
  Tensor idx = self.to(kInt64).contiguous();
  const int64_t* p = idx.data_ptr<int64_t>();
  int64_t n = minlength;
  for (int64_t i = 0; i < idx.numel(); ++i) {
    EMBER_CHECK(p[i] >= 0, "bincount only supports 1-d non-negative integral inputs.");
    n = std::max(n, p[i] + 1);
  }
  std::vector<double> w = weights ? as_doubles(*weights) : std::vector<double>();
  std::vector<double> acc(static_cast<size_t>(n), 0.0);
  for (int64_t i = 0; i < idx.numel(); ++i) acc[static_cast<size_t>(p[i])] += weights ? w[static_cast<size_t>(i)] : 1.0;
  Tensor out = empty({n}, TensorOptions(kFloat64));
  std::copy(acc.begin(), acc.end(), out.data_ptr<double>());
  return out.to(out_dtype);
}

// ---- autograd ----
using autograd::OpNode;
using autograd::tensor_list;

// d mode(self, dim) = grad put back at the chosen element (indices are not differentiable)
std::tuple<Tensor, Tensor> mode_autograd(const Tensor& self, const int64_t& dim, const bool& keepdim) {
  autograd::Recorder r("ModeBackward0", self);
  auto outs = r.forward([&] { return dispatch::call<mode_impl>(OpId::mode, self, dim, keepdim); });
  if (!r) return outs;
  const size_t indices_ = 0;
  r.values("dim", dim, "keepdim", keepdim, "self_sizes", self.sizes());
  r.finish(outs, [=](OpNode& n, const tensor_list& g) {
    return tensor_list{ops::value_selecting_backward(g[0], dim, n.saved(indices_), n.value(2).to_int_list(), keepdim)};
  });
  ops::save_output_at(r, std::get<1>(outs), indices_, "indices");
  return outs;
}
EMBER_REGISTER_AUTOGRAD(mode, &mode_autograd);

// ---- frontends ----
Tensor argsort_op(const Tensor& self, int64_t dim, bool descending) {
  return dispatch::call<argsort_impl>(OpId::argsort, self, dim, descending);
}
Tensor argsort_stable_op(const Tensor& self, bool stable, int64_t dim, bool descending) {
  return dispatch::call<argsort_stable_impl>(OpId::argsort_stable, self, stable, dim, descending);
}
Tensor msort_op(const Tensor& self) { return dispatch::call<msort_impl>(OpId::msort, self); }
std::tuple<Tensor, Tensor> mode_op(const Tensor& self, int64_t dim, bool keepdim) {
  return dispatch::call<mode_impl>(OpId::mode, self, dim, keepdim);
}
Tensor quantile_op(const Tensor& self, const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                   const std::string& interpolation) {
  return dispatch::call<quantile_impl>(OpId::quantile, self, q, dim, keepdim, interpolation);
}
Tensor quantile_scalar_op(const Tensor& self, double q, std::optional<int64_t> dim, bool keepdim,
                          const std::string& interpolation) {
  return dispatch::call<quantile_scalar_impl>(OpId::quantile_scalar, self, q, dim, keepdim, interpolation);
}
Tensor nanquantile_op(const Tensor& self, const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                      const std::string& interpolation) {
  return dispatch::call<nanquantile_impl>(OpId::nanquantile, self, q, dim, keepdim, interpolation);
}
Tensor nanquantile_scalar_op(const Tensor& self, double q, std::optional<int64_t> dim, bool keepdim,
                             const std::string& interpolation) {
  return dispatch::call<nanquantile_scalar_impl>(OpId::nanquantile_scalar, self, q, dim, keepdim, interpolation);
}
Tensor searchsorted_op(const Tensor& seq, const Tensor& self, bool out_int32, bool right,
                       const std::optional<std::string>& side, const std::optional<Tensor>& sorter) {
  return dispatch::call<searchsorted_impl>(OpId::searchsorted_Tensor, seq, self, out_int32, right, side, sorter);
}
Tensor searchsorted_scalar_op(const Tensor& seq, const Scalar& self, bool out_int32, bool right,
                              const std::optional<std::string>& side, const std::optional<Tensor>& sorter) {
  return dispatch::call<searchsorted_scalar_impl>(OpId::searchsorted_Scalar, seq, self, out_int32, right, side, sorter);
}
Tensor bucketize_op(const Tensor& self, const Tensor& boundaries, bool out_int32, bool right) {
  return dispatch::call<bucketize_impl>(OpId::bucketize_Tensor, self, boundaries, out_int32, right);
}
Tensor bucketize_scalar_op(const Scalar& self, const Tensor& boundaries, bool out_int32, bool right) {
  return dispatch::call<bucketize_scalar_impl>(OpId::bucketize_Scalar, self, boundaries, out_int32, right);
}
Tensor histc_op(const Tensor& self, int64_t bins, const Scalar& min, const Scalar& max) {
  return dispatch::call<histc_impl>(OpId::histc, self, bins, min, max);
}
Tensor bincount_op(const Tensor& self, const std::optional<Tensor>& weights, int64_t minlength) {
  return dispatch::call<bincount_impl>(OpId::bincount, self, weights, minlength);
}

}  // namespace

Tensor argsort(const Tensor& self, int64_t dim, bool descending, bool stable) {
  return stable ? argsort_stable_op(self, true, dim, descending) : argsort_op(self, dim, descending);
}
Tensor msort(const Tensor& self) { return msort_op(self); }
std::tuple<Tensor, Tensor> mode(const Tensor& self, int64_t dim, bool keepdim) { return mode_op(self, dim, keepdim); }
Tensor quantile(const Tensor& self, const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                const std::string& interpolation) {
  return quantile_op(self, q, dim, keepdim, interpolation);
}
Tensor quantile(const Tensor& self, double q, std::optional<int64_t> dim, bool keepdim, const std::string& interpolation) {
  return quantile_scalar_op(self, q, dim, keepdim, interpolation);
}
Tensor nanquantile(const Tensor& self, const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                   const std::string& interpolation) {
  return nanquantile_op(self, q, dim, keepdim, interpolation);
}
Tensor nanquantile(const Tensor& self, double q, std::optional<int64_t> dim, bool keepdim,
                   const std::string& interpolation) {
  return nanquantile_scalar_op(self, q, dim, keepdim, interpolation);
}
Tensor searchsorted(const Tensor& sorted_sequence, const Tensor& self, bool out_int32, bool right,
                    const std::optional<std::string>& side, const std::optional<Tensor>& sorter) {
  return searchsorted_op(sorted_sequence, self, out_int32, right, side, sorter);
}
Tensor bucketize(const Tensor& self, const Tensor& boundaries, bool out_int32, bool right) {
  return bucketize_op(self, boundaries, out_int32, right);
}
Tensor histc(const Tensor& self, int64_t bins, const Scalar& min, const Scalar& max) {
  return histc_op(self, bins, min, max);
}
Tensor bincount(const Tensor& self, const std::optional<Tensor>& weights, int64_t minlength) {
  return bincount_op(self, weights, minlength);
}

EMBER_REGISTER_OP(argsort, &argsort_op);
EMBER_REGISTER_OP(argsort_stable, &argsort_stable_op);
EMBER_REGISTER_OP(msort, &msort_op);
EMBER_REGISTER_OP(mode, &mode_op);
EMBER_REGISTER_OP(quantile, &quantile_op);
EMBER_REGISTER_OP(quantile_scalar, &quantile_scalar_op);
EMBER_REGISTER_OP(nanquantile, &nanquantile_op);
EMBER_REGISTER_OP(nanquantile_scalar, &nanquantile_scalar_op);
EMBER_REGISTER_OP(searchsorted_Tensor, &searchsorted_op);
EMBER_REGISTER_OP(searchsorted_Scalar, &searchsorted_scalar_op);
EMBER_REGISTER_OP(bucketize_Tensor, &bucketize_op);
EMBER_REGISTER_OP(bucketize_Scalar, &bucketize_scalar_op);
EMBER_REGISTER_OP(histc, &histc_op);
EMBER_REGISTER_OP(bincount, &bincount_op);

Tensor Tensor::argsort(int64_t dim, bool descending) const { return ember::argsort(*this, dim, descending); }
std::tuple<Tensor, Tensor> Tensor::mode(int64_t dim, bool keepdim) const { return ember::mode(*this, dim, keepdim); }

}  // namespace ember
