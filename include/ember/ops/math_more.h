// More of torch's math: NaN-ignoring maximum / minimum, ldexp / frexp, the regularized
// incomplete gamma functions, isin, histograms, numerical calculus (gradient, trapezoid rules),
// combinations, sum_to_size, index_reduce, fill_diagonal_, cumsum_ (src/ops/math_more.cpp,
// search_more.cpp, calculus.cpp, index_reduce.cpp).
//
//   auto m = ember::fmax(a, b);                    // NaN only where both are NaN
//   auto [mant, expo] = ember::frexp(x);           // x = mant * 2^expo, 0.5 <= |mant| < 1
//   auto p = ember::igamma(a, x);                  // P(a, x); igammac is Q = 1 - P
//   auto mask = ember::isin(x, ember::arange(3));  // elementwise membership
//   auto [hist, edges] = ember::histogram(x, 10);  // float counts and the 11 edges
//   auto d = ember::gradient(f, 1.0, 0);           // central differences along dim 0
#pragma once

#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "ember/tensor.h"

namespace ember {

Tensor fmax(const Tensor& self, const Tensor& other);
Tensor fmin(const Tensor& self, const Tensor& other);
Tensor ldexp(const Tensor& self, const Tensor& other);
Tensor& ldexp_(Tensor& self, const Tensor& other);
std::tuple<Tensor, Tensor> frexp(const Tensor& self);
Tensor igamma(const Tensor& self, const Tensor& other);
Tensor& igamma_(Tensor& self, const Tensor& other);
Tensor igammac(const Tensor& self, const Tensor& other);
Tensor& igammac_(Tensor& self, const Tensor& other);

Tensor isin(const Tensor& elements, const Tensor& test_elements, bool assume_unique = false,
            bool invert = false);
Tensor isin(const Tensor& elements, const Scalar& test_element, bool assume_unique = false,
            bool invert = false);
Tensor isin(const Scalar& element, const Tensor& test_elements, bool assume_unique = false,
            bool invert = false);

/// (hist, bin_edges): float counts (or weight sums, or a density) over `bins` edges, or over
/// `bins` equal bins spanning `range` (default: the data's min and max).
std::tuple<Tensor, Tensor> histogram(const Tensor& self, const Tensor& bins,
                                     const std::optional<Tensor>& weight = std::nullopt,
                                     bool density = false);
std::tuple<Tensor, Tensor> histogram(const Tensor& self, int64_t bins = 100,
                                     std::optional<std::vector<double>> range = std::nullopt,
                                     const std::optional<Tensor>& weight = std::nullopt,
                                     bool density = false);
/// torch.histogramdd's parts: the edges per dim, then the counts (self: [..., D] points).
std::vector<Tensor> _histogramdd_bin_edges(const Tensor& self, IntArrayRef bins,
                                           std::optional<std::vector<double>> range = std::nullopt,
                                           const std::optional<Tensor>& weight = std::nullopt,
                                           bool density = false);
Tensor _histogramdd_from_bin_cts(const Tensor& self, IntArrayRef bins,
                                 std::optional<std::vector<double>> range = std::nullopt,
                                 const std::optional<Tensor>& weight = std::nullopt, bool density = false);
Tensor _histogramdd_from_bin_tensors(const Tensor& self, const std::vector<Tensor>& bins,
                                     const std::optional<Tensor>& weight = std::nullopt,
                                     bool density = false);

/// Central differences in the interior, one-sided (edge_order 1 or 2) at the edges, for every
/// dim (dim nullopt) or the given one; spacing is a uniform step.
std::vector<Tensor> gradient(const Tensor& self, const std::optional<Scalar>& spacing = std::nullopt,
                             std::optional<int64_t> dim = std::nullopt, int64_t edge_order = 1);
std::vector<Tensor> gradient(const Tensor& self, const Scalar& spacing, IntArrayRef dim,
                             int64_t edge_order = 1);
std::vector<Tensor> gradient(const Tensor& self, IntArrayRef dim, int64_t edge_order = 1);
/// Coordinates per dim (1-d tensors), or 0-d tensors as uniform steps.
std::vector<Tensor> gradient(const Tensor& self, const std::vector<Tensor>& spacing,
                             std::optional<int64_t> dim = std::nullopt, int64_t edge_order = 1);
std::vector<Tensor> gradient(const Tensor& self, const std::vector<Tensor>& spacing, IntArrayRef dim,
                             int64_t edge_order = 1);

Tensor trapezoid(const Tensor& y, const Tensor& x, int64_t dim = -1);
Tensor trapezoid(const Tensor& y, const Scalar& dx = 1, int64_t dim = -1);
Tensor trapz(const Tensor& y, const Tensor& x, int64_t dim = -1);
Tensor trapz(const Tensor& y, double dx = 1, int64_t dim = -1);
Tensor cumulative_trapezoid(const Tensor& y, const Tensor& x, int64_t dim = -1);
Tensor cumulative_trapezoid(const Tensor& y, const Scalar& dx = 1, int64_t dim = -1);

Tensor combinations(const Tensor& self, int64_t r = 2, bool with_replacement = false);
Tensor sum_to_size(const Tensor& self, IntArrayRef size);

/// reduce: "prod", "mean", "amax" or "amin" over the rows of source that index sends to each
/// row of self (include_self: self's own value takes part).
Tensor index_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                    const std::string& reduce, bool include_self = true);
Tensor& index_reduce_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                      const std::string& reduce, bool include_self = true);
Tensor& fill_diagonal_(Tensor& self, const Scalar& fill_value, bool wrap = false);
Tensor& cumsum_(Tensor& self, int64_t dim, std::optional<ScalarType> dtype = std::nullopt);

}  // namespace ember
