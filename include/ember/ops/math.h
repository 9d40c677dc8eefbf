// Pointwise math beyond the basic arithmetic of pointwise.h: trigonometric and hyperbolic
// functions, erf and friends, gamma functions, rounding, predicates, the binary math functions,
// the Scalar overloads of arithmetic and comparisons, ember.special, and the math reductions and
// scans (logsumexp, nansum, cumprod, cummax, ...).
//
//   auto y = ember::atan2(a, b);
//   auto r = ember::round(t, /*decimals=*/2);
//   auto m = ember::isnan(t);                       // bool
//   auto l = ember::logsumexp(t, {1}, /*keepdim=*/true);
//   auto [v, i] = ember::cummax(t, 0);
//
// Floating functions compute integer and bool inputs in the default floating dtype (so their
// in-place forms refuse integer tensors); rounding keeps the dtype. Every op has PyTorch 1.13's
// name, schema (src/dispatch/ops.def) and error texts.
#pragma once

#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "ember/tensor.h"

namespace ember {

// ---- unary floating functions (unary_math.cpp), each with its in-place form ----
#define EMBER_MATH_UNARY_FNS(name) \
  Tensor name(const Tensor& self);  \
  Tensor& name##_(Tensor& self);
EMBER_MATH_UNARY_FNS(acos)
EMBER_MATH_UNARY_FNS(asin)
EMBER_MATH_UNARY_FNS(atan)
EMBER_MATH_UNARY_FNS(acosh)
EMBER_MATH_UNARY_FNS(asinh)
EMBER_MATH_UNARY_FNS(atanh)
EMBER_MATH_UNARY_FNS(cosh)
EMBER_MATH_UNARY_FNS(sinh)
EMBER_MATH_UNARY_FNS(tan)
EMBER_MATH_UNARY_FNS(erf)
EMBER_MATH_UNARY_FNS(erfc)
EMBER_MATH_UNARY_FNS(erfinv)
EMBER_MATH_UNARY_FNS(log10)
EMBER_MATH_UNARY_FNS(log2)
EMBER_MATH_UNARY_FNS(exp2)
EMBER_MATH_UNARY_FNS(reciprocal)
EMBER_MATH_UNARY_FNS(lgamma)
EMBER_MATH_UNARY_FNS(digamma)
EMBER_MATH_UNARY_FNS(i0)
EMBER_MATH_UNARY_FNS(sinc)
// rounding (rounding.cpp): integers pass through unchanged (frac refuses them)
EMBER_MATH_UNARY_FNS(ceil)
EMBER_MATH_UNARY_FNS(floor)
EMBER_MATH_UNARY_FNS(round)
EMBER_MATH_UNARY_FNS(trunc)
EMBER_MATH_UNARY_FNS(frac)
// small composites (pointwise_misc.cpp)
EMBER_MATH_UNARY_FNS(sgn)
EMBER_MATH_UNARY_FNS(square)
EMBER_MATH_UNARY_FNS(deg2rad)
EMBER_MATH_UNARY_FNS(rad2deg)
#undef EMBER_MATH_UNARY_FNS
/// round(x * 10^decimals) / 10^decimals, half to even (floating dtypes only).
Tensor round(const Tensor& self, int64_t decimals);
Tensor& round_(Tensor& self, int64_t decimals);

// ---- ember.special (special.cpp's kernels live in unary_math.cpp); no in-place forms ----
Tensor special_entr(const Tensor& self);
Tensor special_erfcx(const Tensor& self);
Tensor special_i0e(const Tensor& self);
Tensor special_i1(const Tensor& self);
Tensor special_i1e(const Tensor& self);
Tensor special_ndtr(const Tensor& self);
Tensor special_ndtri(const Tensor& self);
Tensor special_log_ndtr(const Tensor& self);
Tensor special_xlog1py(const Tensor& self, const Tensor& other);
Tensor special_zeta(const Tensor& self, const Tensor& other);
Tensor polygamma(int64_t n, const Tensor& self);
Tensor& polygamma_(Tensor& self, int64_t n);
/// The multivariate log-gamma function of dimension p.
Tensor mvlgamma(const Tensor& self, int64_t p);
Tensor& mvlgamma_(Tensor& self, int64_t p);

// ---- predicates (rounding.cpp): bool results ----
Tensor isnan(const Tensor& self);
Tensor isinf(const Tensor& self);
Tensor isfinite(const Tensor& self);
Tensor isposinf(const Tensor& self);
Tensor isneginf(const Tensor& self);
Tensor signbit(const Tensor& self);
Tensor isreal(const Tensor& self);
Tensor isclose(const Tensor& self, const Tensor& other, double rtol = 1e-05, double atol = 1e-08,
               bool equal_nan = false);

// ---- binary math (binary_math.cpp) ----
#define EMBER_MATH_BINARY_FNS(name)                         \
  Tensor name(const Tensor& self, const Tensor& other); \
  Tensor& name##_(Tensor& self, const Tensor& other);
EMBER_MATH_BINARY_FNS(atan2)
EMBER_MATH_BINARY_FNS(hypot)
EMBER_MATH_BINARY_FNS(copysign)
EMBER_MATH_BINARY_FNS(nextafter)
EMBER_MATH_BINARY_FNS(xlogy)
EMBER_MATH_BINARY_FNS(fmod)
EMBER_MATH_BINARY_FNS(heaviside)
EMBER_MATH_BINARY_FNS(gcd)
EMBER_MATH_BINARY_FNS(lcm)
EMBER_MATH_BINARY_FNS(bitwise_left_shift)
EMBER_MATH_BINARY_FNS(bitwise_right_shift)
#undef EMBER_MATH_BINARY_FNS
Tensor logaddexp(const Tensor& self, const Tensor& other);
Tensor logaddexp2(const Tensor& self, const Tensor& other);
/// atan2 written into `out` (PyTorch's out= contract, ember::write_out).
Tensor& atan2_out(const Tensor& self, const Tensor& other, Tensor& out);

// ---- Scalar overloads (pointwise_scalar.cpp) ----
Tensor add(const Tensor& self, const Scalar& other, const Scalar& alpha = 1);
Tensor sub(const Tensor& self, const Scalar& other, const Scalar& alpha = 1);
Tensor div(const Tensor& self, const Scalar& other, std::optional<std::string> rounding_mode);
Tensor eq(const Tensor& self, const Scalar& other);
Tensor ne(const Tensor& self, const Scalar& other);
Tensor lt(const Tensor& self, const Scalar& other);
Tensor le(const Tensor& self, const Scalar& other);
Tensor gt(const Tensor& self, const Scalar& other);
Tensor ge(const Tensor& self, const Scalar& other);
Tensor bitwise_and(const Tensor& self, const Scalar& other);
Tensor bitwise_or(const Tensor& self, const Scalar& other);
Tensor bitwise_xor(const Tensor& self, const Scalar& other);
Tensor fmod(const Tensor& self, const Scalar& other);
Tensor& fmod_(Tensor& self, const Scalar& other);
Tensor remainder(const Tensor& self, const Scalar& other);
Tensor remainder(const Scalar& self, const Tensor& other);
Tensor pow(const Scalar& self, const Tensor& exponent);
Tensor copysign(const Tensor& self, const Scalar& other);
Tensor xlogy(const Tensor& self, const Scalar& other);
Tensor xlogy(const Scalar& self, const Tensor& other);
Tensor true_divide(const Tensor& self, const Tensor& other);
Tensor float_power(const Tensor& self, const Tensor& exponent);
Tensor float_power(const Tensor& self, const Scalar& exponent);
Tensor float_power(const Scalar& self, const Tensor& exponent);
Tensor& float_power_(Tensor& self, const Tensor& exponent);
Tensor& float_power_(Tensor& self, const Scalar& exponent);

// ---- small composites (pointwise_misc.cpp) ----
// (aten::scalar_tensor's C++ spelling is factory.h's scalar_tensor(value, options).)
/// The value of a one-element tensor (aten::_local_scalar_dense, what item() is).
Scalar _local_scalar_dense(const Tensor& self);
/// A copy of self filled with `value`.
Tensor fill(const Tensor& self, const Scalar& value);
Tensor fill(const Tensor& self, const Tensor& value);
Tensor& fill_(Tensor& self, const Tensor& value);
/// self itself (real tensors have nothing to conjugate or negate lazily).
Tensor positive(const Tensor& self);
Tensor conj(const Tensor& self);
Tensor resolve_conj(const Tensor& self);
Tensor resolve_neg(const Tensor& self);
Tensor logit(const Tensor& self, std::optional<double> eps = std::nullopt);
Tensor& logit_(Tensor& self, std::optional<double> eps = std::nullopt);
Tensor nan_to_num(const Tensor& self, std::optional<double> nan = std::nullopt,
                  std::optional<double> posinf = std::nullopt,
                  std::optional<double> neginf = std::nullopt);
Tensor& nan_to_num_(Tensor& self, std::optional<double> nan = std::nullopt,
                    std::optional<double> posinf = std::nullopt,
                    std::optional<double> neginf = std::nullopt);
Tensor lerp(const Tensor& self, const Tensor& end, const Scalar& weight);
Tensor lerp(const Tensor& self, const Tensor& end, const Tensor& weight);
Tensor& lerp_(Tensor& self, const Tensor& end, const Scalar& weight);
Tensor& lerp_(Tensor& self, const Tensor& end, const Tensor& weight);
Tensor clamp_min(const Tensor& self, const Scalar& min);
Tensor clamp_max(const Tensor& self, const Scalar& max);
Tensor clamp_min(const Tensor& self, const Tensor& min);
Tensor clamp_max(const Tensor& self, const Tensor& max);
Tensor& clamp_min_(Tensor& self, const Scalar& min);
Tensor& clamp_max_(Tensor& self, const Scalar& max);

// ---- math reductions and scans (reduce_math.cpp, cumulative.cpp) ----
Tensor logsumexp(const Tensor& self, IntArrayRef dims, bool keepdim = false);
Tensor nansum(const Tensor& self, std::optional<std::vector<int64_t>> dims = std::nullopt,
              bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt);
Tensor nanmean(const Tensor& self, std::optional<std::vector<int64_t>> dims = std::nullopt,
               bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt);
Tensor count_nonzero(const Tensor& self, IntArrayRef dims);
Tensor count_nonzero(const Tensor& self, std::optional<int64_t> dim = std::nullopt);
/// The p-norm of self - other.
Tensor dist(const Tensor& self, const Tensor& other, const Scalar& p = 2);
/// Each slice along dim scaled down to p-norm at most maxnorm.
Tensor renorm(const Tensor& self, const Scalar& p, int64_t dim, const Scalar& maxnorm);
Tensor& renorm_(Tensor& self, const Scalar& p, int64_t dim, const Scalar& maxnorm);
Tensor cumprod(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype = std::nullopt);
Tensor& cumprod_(Tensor& self, int64_t dim, std::optional<ScalarType> dtype = std::nullopt);
std::tuple<Tensor, Tensor> cummax(const Tensor& self, int64_t dim);
std::tuple<Tensor, Tensor> cummin(const Tensor& self, int64_t dim);
Tensor logcumsumexp(const Tensor& self, int64_t dim);

}  // namespace ember
