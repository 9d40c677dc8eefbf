// The other overloads of ops ember already has: PyTorch's older or alternative spellings, each a
// composite over the primary op (src/ops/overloads.cpp), so that every Python signature binds.
//
//   auto [v, i] = ember::sort(t, 1);                  // aten::sort (sort.stable without stable=)
//   auto s = ember::std(t, {0}, /*unbiased=*/false);  // aten::std.dim
//   auto q = ember::floor_divide(a, b);               // a // b
#pragma once

#include <optional>
#include <tuple>
#include <vector>

#include "ember/tensor.h"

namespace ember {

std::tuple<Tensor, Tensor> sort(const Tensor& self, int64_t dim = -1, bool descending = false);
/// max.other / min.other: the elementwise maximum / minimum (torch.max(a, b)).
Tensor max(const Tensor& self, const Tensor& other);
Tensor min(const Tensor& self, const Tensor& other);
Tensor var(const Tensor& self, bool unbiased);
Tensor var(const Tensor& self, std::optional<std::vector<int64_t>> dims, bool unbiased,
           bool keepdim = false);
Tensor std(const Tensor& self, bool unbiased);
Tensor std(const Tensor& self, std::optional<std::vector<int64_t>> dims, bool unbiased,
           bool keepdim = false);
/// (var, mean) / (std, mean) over the same dims, as torch.var_mean / std_mean.
std::tuple<Tensor, Tensor> var_mean(const Tensor& self,
                                    std::optional<std::vector<int64_t>> dims = std::nullopt,
                                    std::optional<Scalar> correction = std::nullopt,
                                    bool keepdim = false);
std::tuple<Tensor, Tensor> std_mean(const Tensor& self,
                                    std::optional<std::vector<int64_t>> dims = std::nullopt,
                                    std::optional<Scalar> correction = std::nullopt,
                                    bool keepdim = false);
/// (amin, amax) over every element or along dim.
std::tuple<Tensor, Tensor> aminmax(const Tensor& self, std::optional<int64_t> dim = std::nullopt,
                                   bool keepdim = false);
/// The k-th smallest element (1-based) along dim and its index.
std::tuple<Tensor, Tensor> kthvalue(const Tensor& self, int64_t k, int64_t dim = -1,
                                    bool keepdim = false);
/// The lower median (of every element, or along dim with its index). median gives NaN where a
/// NaN is present (the first one's index); nanmedian ignores NaNs.
Tensor median(const Tensor& self);
std::tuple<Tensor, Tensor> median(const Tensor& self, int64_t dim, bool keepdim = false);
Tensor nanmedian(const Tensor& self);
std::tuple<Tensor, Tensor> nanmedian(const Tensor& self, int64_t dim, bool keepdim = false);
/// norm.Scalar: the p-norm over every element.
Tensor norm(const Tensor& self, const Scalar& p = 2);
Tensor norm(const Tensor& self, std::optional<Scalar> p, ScalarType dtype);
Tensor norm(const Tensor& self, std::optional<Scalar> p, IntArrayRef dims, bool keepdim,
            ScalarType dtype);
/// split.sizes: split_with_sizes under split's name (t.split([2, 3])).
std::vector<Tensor> split(const Tensor& self, IntArrayRef split_sizes, int64_t dim = 0);
/// nonzero as one index tensor per dimension (nonzero(as_tuple=True), where(condition)).
std::vector<Tensor> nonzero_numpy(const Tensor& self);
std::vector<Tensor> where(const Tensor& condition);
/// clamp.Tensor: bounds given as tensors (broadcast and promoted with self); an undefined
/// Tensor() is no bound. (Defined tensors, not optionals, so that clamp(t, std::nullopt, 1)
/// still means the Scalar overload.)
Tensor clamp(const Tensor& self, const Tensor& min, const Tensor& max = Tensor());
Tensor& clamp_(Tensor& self, const Tensor& min, const Tensor& max = Tensor());
/// The quotient rounded towards minus infinity (Python's //), as PyTorch 1.13's floor_divide.
Tensor floor_divide(const Tensor& self, const Tensor& other);
Tensor& floor_divide_(Tensor& self, const Tensor& other);

}  // namespace ember
