// isin (membership by sorting the test elements and a binary search) and the histograms:
// histogram (1-d) and the parts of histogramdd (_histogramdd_bin_edges, _histogramdd_from_bin_cts,
// _histogramdd_from_bin_tensors), PyTorch's binning rules: equal bins are linspace edges in the
// input's dtype (an empty range widened by 0.5 each way), an element belongs to the bin whose
// left edge is <= it and whose right edge is > it, the last edge inclusive; elements outside
// the edges (and NaN) are not counted. Texts say ember. where PyTorch's say torch.
#include <algorithm>
#include <cmath>

#include "ember/ops/math_more.h"

#include "ember/ops/factory.h"
#include "ember/ops/math.h"
#include "ember/ops/pointwise.h"
#include "ember/ops/reduce.h"
#include "ember/ops/shape.h"
#include "ember/ops/view.h"

#include "../dispatch/boxing.h"
#include "pointwise_helpers.h"

namespace ember {

using dispatch::OpId;

namespace {

// ---- isin ----

void check_isin_dtype(ScalarType t) {
  EMBER_CHECK(t != kBool && t != kBFloat16 && !is_complex(t) && !is_quantized(t), "Unsupported input type encountered for isin(): ",
              scalar_type_name(t));
}

Tensor isin_tt_impl(const Tensor& elements, const Tensor& test_elements, bool assume_unique, bool invert) {
  (void)assume_unique;  // an optimisation hint: the sorted search is right either way
  check_isin_dtype(elements.dtype());
  check_isin_dtype(test_elements.dtype());
  const ScalarType dtype = result_type(elements, test_elements);
  const Tensor e = elements.to(dtype);
  Tensor found;
  if (test_elements.numel() == 0) {
    found = zeros(elements.sizes(), TensorOptions(kBool).device(elements.device()));
  } else {
    const Tensor sorted = std::get<0>(sort(test_elements.to(dtype).reshape({-1}), std::nullopt, 0, false));
    const Tensor pos = clamp_max(searchsorted(sorted, e.reshape({-1})), Scalar(sorted.numel() - 1));
    found = eq(sorted.index_select(0, pos), e.reshape({-1})).reshape(elements.sizes());
  }
  return invert ? logical_not(found) : found;
}

Tensor isin_ts_impl(const Tensor& elements, const Scalar& test_element, bool assume_unique, bool invert) {
  return isin_tt_impl(elements, scalar_tensor(test_element, TensorOptions(test_element.dtype()).device(elements.device())),
                      assume_unique, invert);
}

Tensor isin_st_impl(const Scalar& element, const Tensor& test_elements, bool assume_unique, bool invert) {
  return isin_tt_impl(scalar_tensor(element, TensorOptions(element.dtype()).device(test_elements.device())),
                      test_elements, assume_unique, invert);
}

// ---- histograms ----

using OptRange = std::optional<std::vector<double>>;

// self viewed as N points of D coordinates (its innermost dim), with the checks of PyTorch's
// histogramdd_check_inputs.
int64_t check_hist_inputs(const char* op, const Tensor& self, int64_t n_bins_dims, const std::optional<Tensor>& weight) {
  EMBER_CHECK(is_floating(self.dtype()) && self.dtype() != kFloat16 && self.dtype() != kBFloat16,
              "\"histogramdd\" not implemented for '", scalar_type_name(self.dtype()), "'");
  EMBER_CHECK(self.dim() >= 2 || std::string(op) == "ember.histogram",
              op, ": input tensor should have at least 2 dimensions, but got ", self.dim());
  const int64_t D = self.dim() == 0 ? 1 : self.size(-1);
  EMBER_CHECK(n_bins_dims == D, op, ": expected ", D, " sequences of bin edges for each of the ", D,
              " dimensions of the histogram but got ", n_bins_dims);
  if (weight && weight->defined()) {
    const IntArrayRef s = self.sizes();
    const DimVector expect(s.begin(), s.end() - (s.empty() ? 0 : 1));
    EMBER_CHECK(weight->sizes().equals(expect), op,
                ": if weight tensor is provided it should have the same shape as the input tensor excluding its "
                "innermost dimension, but got input with shape ",
                s, " and weight with shape ", weight->sizes());
    EMBER_CHECK(weight->dtype() == self.dtype(), op,
                ": if weight tensor is provided, input tensor and weight tensor should have the same dtype, but got "
                "input(", ops::typemeta_name(self.dtype()), "), and weight(", ops::typemeta_name(weight->dtype()), ")");
  }
  return D;
}

// The equal-width edges of each dim, linspace in the input's dtype.
std::vector<Tensor> uniform_edges(const char* op, const Tensor& points, IntArrayRef bins, const OptRange& range) {
  const int64_t D = points.size(1);
  EMBER_CHECK(!range || static_cast<int64_t>(range->size()) == 2 * D, op, ": for a ", D,
              "-dimensional histogram range should have ", 2 * D, " elements, but got ", range ? range->size() : 0);
  Tensor mins, maxs;
  if (!range && points.size(0) > 0 && !points.is_meta()) {
    mins = amin(points, {0}).to(kFloat64);
    maxs = amax(points, {0}).to(kFloat64);
  }
  std::vector<Tensor> edges;
  for (int64_t d = 0; d < D; ++d) {
    const int64_t b = bins[static_cast<size_t>(d)];
    EMBER_CHECK(b > 0, "ember.histogram(): bins must be > 0, but got ", b, " for dimension ", d);
    double lo = 0, hi = 1;
    if (range) {
      lo = (*range)[static_cast<size_t>(2 * d)];
      hi = (*range)[static_cast<size_t>(2 * d + 1)];
    } else if (mins.defined()) {
      lo = select(mins, 0, d).item<double>();
      hi = select(maxs, 0, d).item<double>();
    } else if (points.size(0) == 0) {
      lo = 0;
      hi = 1;
    }
    EMBER_CHECK(std::isfinite(lo) && std::isfinite(hi), "ember.histogramdd: dimension ", d, "'s range [", lo, ", ",
                hi, "] is not finite");
    EMBER_CHECK(lo <= hi, "ember.histogramdd: min should not exceed max, but got min ", lo, " max ", hi,
                " for dimension ", d);
    if (lo == hi) {
      lo -= 0.5;
      hi += 0.5;
    }
    edges.push_back(linspace(lo, hi, b + 1, TensorOptions(points.dtype()).device(points.device())));
  }
  return edges;
}

// Counts (or weight sums, or the density) of points [N, D] in the bins the edges make.
Tensor count_into_bins(const Tensor& points, const std::vector<Tensor>& edges, const std::optional<Tensor>& weight,
                       bool density) {
  const int64_t N = points.size(0), D = points.size(1);
  DimVector shape;
  for (const Tensor& e : edges) shape.push_back(std::max<int64_t>(e.numel() - 1, 0));
  Tensor hist = zeros(shape, TensorOptions(points.dtype()).device(points.device()));
  if (hist.is_meta()) return hist;
  const Tensor p = points.to(kFloat64).contiguous();
  const double* pd = static_cast<const double*>(p.data_ptr());
  std::vector<std::vector<double>> e(static_cast<size_t>(D));
  for (int64_t d = 0; d < D; ++d) {
    const Tensor ed = edges[static_cast<size_t>(d)].to(kFloat64).contiguous();
    e[static_cast<size_t>(d)].assign(static_cast<const double*>(ed.data_ptr()),
                                     static_cast<const double*>(ed.data_ptr()) + ed.numel());
  }
  Tensor w;
  if (weight && weight->defined()) w = weight->to(kFloat64).contiguous().reshape({-1});
  const double* wd = w.defined() ? static_cast<const double*>(w.data_ptr()) : nullptr;
  Tensor acc = zeros(shape, TensorOptions(kFloat64));
  double* ad = static_cast<double*>(acc.data_ptr());
  for (int64_t i = 0; i < N; ++i) {
    int64_t flat = 0;
    bool inside = true;
    for (int64_t d = 0; d < D && inside; ++d) {
      const std::vector<double>& ed = e[static_cast<size_t>(d)];
      const int64_t nb = static_cast<int64_t>(ed.size()) - 1;
      const double x = pd[i * D + d];
      if (nb <= 0 || !(x >= ed.front() && x <= ed.back())) {
        inside = false;
        break;
      }
      int64_t b = std::upper_bound(ed.begin(), ed.end(), x) - ed.begin() - 1;
      b = std::min(b, nb - 1);  // the last edge belongs to the last bin
      flat = flat * nb + b;
    }
    if (inside) ad[flat] += wd ? wd[i] : 1.0;
  }
  if (density) {
    const Tensor total = acc.sum();
    acc = acc / total;
    for (int64_t d = 0; d < D; ++d) {
      DimVector view_shape(static_cast<size_t>(D), 1);
      view_shape[static_cast<size_t>(d)] = -1;
      acc = acc / diff(edges[static_cast<size_t>(d)].to(kFloat64)).reshape(view_shape);
    }
  }
  hist.copy_(acc);
  return hist;
}

Tensor as_points(const Tensor& self) { return self.reshape({-1, self.dim() == 0 ? 1 : self.size(-1)}); }

std::vector<Tensor> histogramdd_bin_edges_impl(const Tensor& self, IntArrayRef bins, OptRange range,
                                               const std::optional<Tensor>& weight, bool density) {
  (void)density;
  check_hist_inputs("ember.histogramdd", self, static_cast<int64_t>(bins.size()), weight);
  return uniform_edges("ember.histogramdd", as_points(self), bins, range);
}

Tensor histogramdd_from_bin_cts_impl(const Tensor& self, IntArrayRef bins, OptRange range,
                                     const std::optional<Tensor>& weight, bool density) {
  check_hist_inputs("ember.histogramdd", self, static_cast<int64_t>(bins.size()), weight);
  const Tensor points = as_points(self);
  return count_into_bins(points, uniform_edges("ember.histogramdd", points, bins, range), weight, density);
}

void check_bin_tensors(const char* op, const Tensor& self, const std::vector<Tensor>& bins) {
  for (size_t d = 0; d < bins.size(); ++d) {
    EMBER_CHECK(bins[d].dtype() == self.dtype(), op,
                ": input tensor and bins tensors should have the same dtype, but got input with dtype ",
                ops::typemeta_name(self.dtype()), " and bins for dimension ", d, " with dtype ",
                ops::typemeta_name(bins[d].dtype()));
    EMBER_CHECK(bins[d].dim() == 1, op, ": bins tensor should have one dimension, but got ", bins[d].dim(),
                " dimensions in the bins tensor for dimension ", d);
    EMBER_CHECK(bins[d].numel() > 0, op, ": bins tensor should have at least 1 element, but got ", bins[d].numel(),
                " elements in the bins tensor for dimension ", d);
  }
}

Tensor histogramdd_from_bin_tensors_impl(const Tensor& self, const std::vector<Tensor>& bins,
                                         const std::optional<Tensor>& weight, bool density) {
  check_hist_inputs("ember.histogramdd", self, static_cast<int64_t>(bins.size()), weight);
  check_bin_tensors("ember.histogramdd", self, bins);
  return count_into_bins(as_points(self), bins, weight, density);
}

// 1-d: every element of self is a point (weight: self's shape).
std::tuple<Tensor, Tensor> histogram_bins_tensor_impl(const Tensor& self, const Tensor& bins,
                                                      const std::optional<Tensor>& weight, bool density) {
  const Tensor points = self.reshape({-1, 1});
  const std::optional<Tensor> w = weight && weight->defined() ? std::optional<Tensor>(weight->reshape({-1})) : std::nullopt;
  EMBER_CHECK(!weight || !weight->defined() || weight->sizes().equals(self.sizes()),
              "ember.histogramdd: if weight tensor is provided it should have the same shape as the input tensor "
              "excluding its innermost dimension, but got input with shape ",
              points.sizes(), " and weight with shape ", weight->sizes());
  check_hist_inputs("ember.histogramdd", points, 1, w);
  check_bin_tensors("ember.histogramdd", self, {bins});
  return {count_into_bins(points, {bins}, w, density), bins.clone()};
}

std::tuple<Tensor, Tensor> histogram_bin_ct_impl(const Tensor& self, int64_t bins, OptRange range,
                                                 const std::optional<Tensor>& weight, bool density) {
  const Tensor points = self.reshape({-1, 1});
  EMBER_CHECK(!weight || !weight->defined() || weight->sizes().equals(self.sizes()),
              "ember.histogramdd: if weight tensor is provided it should have the same shape as the input tensor "
              "excluding its innermost dimension, but got input with shape ",
              points.sizes(), " and weight with shape ", weight->sizes());
  const std::optional<Tensor> w = weight && weight->defined() ? std::optional<Tensor>(weight->reshape({-1})) : std::nullopt;
  check_hist_inputs("ember.histogramdd", points, 1, w);
  const std::vector<Tensor> edges = uniform_edges("ember.histogramdd", points, {bins}, range);
  return {count_into_bins(points, edges, w, density), edges[0]};
}

}  // namespace

Tensor isin(const Tensor& elements, const Tensor& test_elements, bool assume_unique, bool invert) {
  return dispatch::call<isin_tt_impl>(OpId::isin_Tensor_Tensor, elements, test_elements, assume_unique, invert);
}
Tensor isin(const Tensor& elements, const Scalar& test_element, bool assume_unique, bool invert) {
  return dispatch::call<isin_ts_impl>(OpId::isin_Tensor_Scalar, elements, test_element, assume_unique, invert);
}
Tensor isin(const Scalar& element, const Tensor& test_elements, bool assume_unique, bool invert) {
  return dispatch::call<isin_st_impl>(OpId::isin_Scalar_Tensor, element, test_elements, assume_unique, invert);
}
std::tuple<Tensor, Tensor> histogram(const Tensor& self, const Tensor& bins, const std::optional<Tensor>& weight,
                                     bool density) {
  return dispatch::call<histogram_bins_tensor_impl>(OpId::histogram_bins_tensor, self, bins, weight, density);
}
std::tuple<Tensor, Tensor> histogram(const Tensor& self, int64_t bins, OptRange range,
                                     const std::optional<Tensor>& weight, bool density) {
  return dispatch::call<histogram_bin_ct_impl>(OpId::histogram_bin_ct, self, bins, range, weight, density);
}
std::vector<Tensor> _histogramdd_bin_edges(const Tensor& self, IntArrayRef bins, OptRange range,
                                           const std::optional<Tensor>& weight, bool density) {
  return dispatch::call<histogramdd_bin_edges_impl>(OpId::_histogramdd_bin_edges, self, bins, range, weight, density);
}
Tensor _histogramdd_from_bin_cts(const Tensor& self, IntArrayRef bins, OptRange range,
                                 const std::optional<Tensor>& weight, bool density) {
  return dispatch::call<histogramdd_from_bin_cts_impl>(OpId::_histogramdd_from_bin_cts, self, bins, range, weight,
                                                       density);
}
Tensor _histogramdd_from_bin_tensors(const Tensor& self, const std::vector<Tensor>& bins,
                                     const std::optional<Tensor>& weight, bool density) {
  return dispatch::call<histogramdd_from_bin_tensors_impl>(OpId::_histogramdd_from_bin_tensors, self, bins, weight,
                                                           density);
}

using IsinTT = Tensor (*)(const Tensor&, const Tensor&, bool, bool);
using IsinTS = Tensor (*)(const Tensor&, const Scalar&, bool, bool);
using IsinST = Tensor (*)(const Scalar&, const Tensor&, bool, bool);
using HistT = std::tuple<Tensor, Tensor> (*)(const Tensor&, const Tensor&, const std::optional<Tensor>&, bool);
using HistC = std::tuple<Tensor, Tensor> (*)(const Tensor&, int64_t, OptRange, const std::optional<Tensor>&, bool);
EMBER_REGISTER_OP(isin_Tensor_Tensor, static_cast<IsinTT>(&isin));
EMBER_REGISTER_OP(isin_Tensor_Scalar, static_cast<IsinTS>(&isin));
EMBER_REGISTER_OP(isin_Scalar_Tensor, static_cast<IsinST>(&isin));
EMBER_REGISTER_OP(histogram_bins_tensor, static_cast<HistT>(&histogram));
EMBER_REGISTER_OP(histogram_bin_ct, static_cast<HistC>(&histogram));
EMBER_REGISTER_OP(_histogramdd_bin_edges, &_histogramdd_bin_edges);
EMBER_REGISTER_OP(_histogramdd_from_bin_cts, &_histogramdd_from_bin_cts);
EMBER_REGISTER_OP(_histogramdd_from_bin_tensors, &_histogramdd_from_bin_tensors);

}  // namespace ember
