// Reductions, softmax, sort / topk. dims may be negative; empty dims mean "all" where
// PyTorch's schema says so (sum / mean with dim=None, amax with dim=[]).
//
//   auto s = ember::sum(t, {0, 2}, /*keepdim=*/true);
//   auto [values, indices] = ember::max(t, 1);
//
// Where ember differs from PyTorch 1.13's CPU kernels, it does more, never less: 16-bit floats
// work in prod, cumsum, softmax and topk, bools in argmax / argmin and topk, and _softmax accepts
// half_to_float for float16 / bfloat16 inputs; sort is always stable and topk orders equal
// elements by index (PyTorch leaves both unspecified); 16-bit norms accumulate in float.
#pragma once

#include <optional>
#include <tuple>
#include <vector>

#include "ember/tensor.h"

namespace ember {

Tensor sum(const Tensor& self, std::optional<ScalarType> dtype = std::nullopt);
Tensor sum(const Tensor& self, std::optional<std::vector<int64_t>> dims, bool keepdim = false,
           std::optional<ScalarType> dtype = std::nullopt);
Tensor mean(const Tensor& self, std::optional<ScalarType> dtype = std::nullopt);
Tensor mean(const Tensor& self, std::optional<std::vector<int64_t>> dims, bool keepdim = false,
            std::optional<ScalarType> dtype = std::nullopt);
Tensor prod(const Tensor& self, std::optional<ScalarType> dtype = std::nullopt);
Tensor prod(const Tensor& self, int64_t dim, bool keepdim = false,
            std::optional<ScalarType> dtype = std::nullopt);
Tensor max(const Tensor& self);
std::tuple<Tensor, Tensor> max(const Tensor& self, int64_t dim, bool keepdim = false);
Tensor min(const Tensor& self);
std::tuple<Tensor, Tensor> min(const Tensor& self, int64_t dim, bool keepdim = false);
Tensor amax(const Tensor& self, IntArrayRef dims = {}, bool keepdim = false);
Tensor amin(const Tensor& self, IntArrayRef dims = {}, bool keepdim = false);
Tensor argmax(const Tensor& self, std::optional<int64_t> dim = std::nullopt, bool keepdim = false);
Tensor argmin(const Tensor& self, std::optional<int64_t> dim = std::nullopt, bool keepdim = false);
Tensor var(const Tensor& self, std::optional<std::vector<int64_t>> dims = std::nullopt,
           std::optional<Scalar> correction = std::nullopt, bool keepdim = false);
Tensor std(const Tensor& self, std::optional<std::vector<int64_t>> dims = std::nullopt,
           std::optional<Scalar> correction = std::nullopt, bool keepdim = false);
Tensor norm(const Tensor& self, std::optional<Scalar> p, IntArrayRef dims, bool keepdim = false);
Tensor all(const Tensor& self);
Tensor all(const Tensor& self, int64_t dim, bool keepdim = false);
Tensor any(const Tensor& self);
Tensor any(const Tensor& self, int64_t dim, bool keepdim = false);
Tensor cumsum(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype = std::nullopt);

Tensor softmax(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype = std::nullopt);
Tensor log_softmax(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype = std::nullopt);
Tensor _softmax(const Tensor& self, int64_t dim, bool half_to_float);
Tensor _log_softmax(const Tensor& self, int64_t dim, bool half_to_float);
/// Their gradients, as PyTorch's ops: y (g - sum(g y)) and g - exp(y) sum(g) along dim, `y` the
/// forward's output, `input_dtype` the forward input's dtype.
Tensor _softmax_backward_data(const Tensor& grad_output, const Tensor& output, int64_t dim,
                              ScalarType input_dtype);
Tensor _log_softmax_backward_data(const Tensor& grad_output, const Tensor& output, int64_t dim,
                                  ScalarType input_dtype);

std::tuple<Tensor, Tensor> sort(const Tensor& self, std::optional<bool> stable, int64_t dim = -1,
                                bool descending = false);
std::tuple<Tensor, Tensor> topk(const Tensor& self, int64_t k, int64_t dim = -1,
                                bool largest = true, bool sorted = true);

}  // namespace ember
