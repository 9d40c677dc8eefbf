// Small pointwise composites, each written as PyTorch 1.13 writes it (or as the formula its
// kernel evaluates): scalar_tensor, _local_scalar_dense, fill, sgn, square, deg2rad / rad2deg,
// positive / conj / resolve_conj / resolve_neg (real tensors: self), logit, nan_to_num, lerp,
// polygamma, mvlgamma, clamp_min / clamp_max, isclose. Their gradients come from the ops their
// bodies call (the node names differ from PyTorch's fused nodes: grads_table_pointwise.py lists
// them).
#include <cfloat>
#include <cmath>

#include "../dispatch/boxing.h"
#include "elementwise.h"
#include "ember/ops/complex.h"
#include "ember/ops/copy.h"
#include "ember/ops/factory.h"
#include "ember/ops/math.h"
#include "ember/ops/overloads.h"
#include "ember/ops/pointwise.h"
#include "ember/ops/reduce.h"
#include "factory_args.h"
#include "pointwise_helpers.h"

namespace ember {

using dispatch::OpId;

// The boxed result of an op returning a Scalar (_local_scalar_dense): found by argument-dependent
// lookup from dispatch::boxed_call, beside boxing.h's overloads for the other result types.
[[maybe_unused]] static Stack box_result(const Scalar& s) { return {Value(s)}; }
// ... and an override's boxed result back as a Scalar (this file is the only one calling an op
// that returns one).
template <>
Scalar dispatch::unbox_result<Scalar>(Stack&& out, const OpHandle& op) {
  EMBER_CHECK_TYPE(!out.empty() && out[0].is_scalar(), op.full_name(), ": an override returned ",
                   out.empty() ? "nothing" : out[0].type_name(), " where a Scalar was expected");
  return out[0].to_scalar();
}

namespace {

constexpr double kPi = 3.14159265358979323846;

Tensor w(const Scalar& s) { return wrapped_scalar_tensor(s); }

// Writes `result` into self for the in-place composites (which compute it from a clone of self,
// so that what their ops save for backward is not the tensor this write modifies): PyTorch's "result type Float can't be
// cast to the desired output type Long" when self cannot hold it, self unchanged then.
Tensor assign(const Tensor& self, const Tensor& result) {
  EMBER_CHECK(can_cast(result.dtype(), self.dtype()), "result type ", scalar_type_name(result.dtype()),
              " can't be cast to the desired output type ", scalar_type_name(self.dtype()));
  Tensor s = self;
  s.copy_(result);
  return self;
}

Tensor scalar_tensor_impl(const Scalar& s, ops::OptDtype dtype, ops::OptLayout, ops::OptDevice device,
                          ops::OptBool) {
  TensorOptions options(dtype ? *dtype : default_dtype());
  if (device) options = options.device(*device);
  return full({}, s, options);
}

Scalar local_scalar_dense_impl(const Tensor& self) { return self.item(); }

Tensor fill_scalar_impl(const Tensor& self, const Scalar& value) {
  Tensor out = self.clone();  // keeps self's history: the gradient to self is zero, as FillBackward0
  return out.fill_(value);
}
void check_fill_value(const Tensor& value) {
  EMBER_CHECK(value.dim() == 0, "fill_ only supports 0-dimension value tensor but got tensor with ",
              value.dim(), " dimensions.");
}
Tensor fill__tensor_impl(const Tensor& self, const Tensor& value) {
  check_fill_value(value);
  Tensor s = self;
  s.copy_(value.expand(self.sizes()));  // value's gradient is the sum of self's, as FillBackward3
  return self;
}
Tensor fill_tensor_impl(const Tensor& self, const Tensor& value) {
  check_fill_value(value);
  Tensor out = self.clone();
  return fill__tensor_impl(out, value);
}

// sgn(z) = z / |z| (0 at 0) for complex z, sign(x) for real x.
Tensor sgn_impl(const Tensor& self) {
  if (!self.is_complex()) return sign(self);
  const Tensor a = abs(self);
  return where(eq(a, Scalar(0.0)), zeros({}, TensorOptions(self.dtype()).device(self.device())),
               self / a);
}
Tensor sgn__impl(const Tensor& self) {
  Tensor s = self;
  if (self.is_complex()) return s.copy_(sgn_impl(self));
  return sign_(s);
}
Tensor square_impl(const Tensor& self) { return pow(self, Scalar(int64_t{2})); }
Tensor square__impl(const Tensor& self) {
  Tensor s = self;
  return pow_(s, Scalar(int64_t{2}));
}

// deg2rad / rad2deg: integers compute in the default floating dtype (and cannot be written back).
Tensor angle_convert(const Tensor& self, double factor) {
  const Tensor x = is_floating(self.dtype()) ? self : self.to(default_dtype());
  return mul(x, w(factor));
}
Tensor deg2rad_impl(const Tensor& self) { return angle_convert(self, kPi / 180); }
Tensor rad2deg_impl(const Tensor& self) { return angle_convert(self, 180 / kPi); }
Tensor deg2rad__impl(const Tensor& self) { return assign(self, deg2rad_impl(self.clone())); }
Tensor rad2deg__impl(const Tensor& self) { return assign(self, rad2deg_impl(self.clone())); }

Tensor positive_impl(const Tensor& self) {
  EMBER_CHECK(self.dtype() != kBool, "The `+` operator, on a bool tensor is not supported.");
  return self;
}
Tensor self_impl(const Tensor& self) { return self; }

// logit(x) = log(x / (1 - x)), x clamped to [eps, 1 - eps] when eps is given.
Tensor logit_impl(const Tensor& self, std::optional<double> eps) {
  Tensor x = is_floating(self.dtype()) ? self : self.to(default_dtype());
  if (eps) x = clamp(x, Scalar(*eps), Scalar(1 - *eps));
  return log(x / sub(w(Scalar(int64_t{1})), x));
}
Tensor logit__impl(const Tensor& self, std::optional<double> eps) {
  return assign(self, logit_impl(self.clone(), eps));
}

double largest(ScalarType t) {
  switch (t) {
    case kFloat16: return 65504.0;
    case kBFloat16: return 3.3895313892515355e38;
    case kFloat32: return FLT_MAX;
    default: return DBL_MAX;
  }
}

Tensor nan_to_num_impl(const Tensor& self, std::optional<double> nan, std::optional<double> posinf,
                       std::optional<double> neginf) {
  // PyTorch 1.13's CPU kernel has no complex form.
  EMBER_CHECK(!self.is_complex(), "\"nan_to_num\" not implemented for '", scalar_type_name(self.dtype()), "'");
  if (!is_floating(self.dtype())) return self.clone();
  const ScalarType t = self.dtype();
  const TensorOptions opts = TensorOptions(t).device(self.device());
  // The replacement values, rounded to self's dtype (full does that) as PyTorch's kernel does.
  const Tensor nan_v = full({}, Scalar(nan ? *nan : 0.0), opts);
  const Tensor pos_v = full({}, Scalar(posinf ? *posinf : largest(t)), opts);
  const Tensor neg_v = full({}, Scalar(neginf ? *neginf : -largest(t)), opts);
  return where(isnan(self), nan_v, where(isposinf(self), pos_v, where(isneginf(self), neg_v, self)));
}
Tensor nan_to_num__impl(const Tensor& self, std::optional<double> nan, std::optional<double> posinf,
                        std::optional<double> neginf) {
  if (!is_floating(self.dtype())) return self;
  return assign(self, nan_to_num_impl(self.clone(), nan, posinf, neginf));
}

// lerp: self + weight (end - self) for |weight| < 0.5, end - (end - self)(1 - weight) otherwise
// (PyTorch's kernel: exact at both ends).
void check_lerp(const Tensor& self, const Tensor& end, const Tensor* weight, const char* kernel) {
  // (PyTorch streams the dtypes' TypeMeta names here: "float", "double")
  EMBER_CHECK(self.dtype() == end.dtype(), "expected dtype ", ops::typemeta_name(self.dtype()),
              " for `end` but got dtype ", ops::typemeta_name(end.dtype()));
  if (weight) {
    EMBER_CHECK(self.dtype() == weight->dtype(), "expected dtype ", ops::typemeta_name(self.dtype()),
                " for `weight` but got dtype ", ops::typemeta_name(weight->dtype()));
  }
  EMBER_CHECK(is_floating(self.dtype()), "\"", kernel, "\" not implemented for '",
              scalar_type_name(self.dtype()), "'");
}
// 16-bit floats: PyTorch's kernel computes in float and rounds once; composed from 16-bit ops
// every intermediate would round.
bool is_half_like(const Tensor& t) { return t.dtype() == kFloat16 || t.dtype() == kBFloat16; }

Tensor lerp_scalar_impl(const Tensor& self, const Tensor& end, const Scalar& weight) {
  check_lerp(self, end, nullptr, "lerp_kernel_scalar");
  if (is_half_like(self)) {
    return lerp_scalar_impl(self.to(kFloat32), end.to(kFloat32), weight).to(self.dtype());
  }
  const double wv = weight.to_double();
  const Tensor diff = end - self;
  if (std::abs(wv) < 0.5) return self + mul(diff, w(Scalar(wv)));
  return end - mul(diff, w(Scalar(1 - wv)));
}
Tensor lerp_tensor_impl(const Tensor& self, const Tensor& end, const Tensor& weight) {
  check_lerp(self, end, &weight, "lerp_kernel_tensor");
  if (is_half_like(self)) {
    return lerp_tensor_impl(self.to(kFloat32), end.to(kFloat32), weight.to(kFloat32)).to(self.dtype());
  }
  const Tensor diff = end - self;
  return where(abs(weight) < w(Scalar(0.5)), self + weight * diff,
               end - diff * sub(w(Scalar(1.0)), weight));
}
Tensor lerp__scalar_impl(const Tensor& self, const Tensor& end, const Scalar& weight) {
  return assign(self, lerp_scalar_impl(self.clone(), end, weight));
}
Tensor lerp__tensor_impl(const Tensor& self, const Tensor& end, const Tensor& weight) {
  return assign(self, lerp_tensor_impl(self.clone(), end, weight));
}

// polygamma(n, x) = (-1)^(n+1) n! zeta(n + 1, x) for n >= 1; digamma for n = 0.
Tensor polygamma_impl(int64_t n, const Tensor& self) {
  EMBER_CHECK(n >= 0, "polygamma(n, x) does not support negative n.");
  if (n == 0) return digamma(self);
  double fact = 1;
  for (int64_t k = 2; k <= n; ++k) fact *= static_cast<double>(k);
  const Tensor z = special_zeta(w(Scalar(static_cast<double>(n + 1))), self);
  return mul(z, w(Scalar((n % 2 ? 1.0 : -1.0) * fact)));
}
Tensor polygamma__impl(const Tensor& self, int64_t n) { return assign(self, polygamma_impl(n, self.clone())); }

// mvlgamma(x, p) = sum_j lgamma(x - j/2), j < p, + p (p - 1) / 4 log(pi)
Tensor mvlgamma_impl(const Tensor& self, int64_t p) {
  EMBER_CHECK(self.dtype() != kBool, "The input tensor may not be a boolean tensor.");
  EMBER_CHECK(p >= 1, "p has to be greater than or equal to 1");
  const ScalarType t = is_floating(self.dtype()) ? self.dtype() : default_dtype();
  Tensor args = arange(Scalar(-p * 0.5 + 0.5), Scalar(0.5), Scalar(0.5), TensorOptions(t).device(self.device()));
  args = add(args, self.unsqueeze(-1));
  const double p2_sub_p = static_cast<double>(p * (p - 1));
  return add(lgamma(args).sum(std::vector<int64_t>{-1}), w(Scalar(p2_sub_p * std::log(kPi) * 0.25)));
}
Tensor mvlgamma__impl(const Tensor& self, int64_t p) { return assign(self, mvlgamma_impl(self.clone(), p)); }

Tensor clamp_min_impl(const Tensor& self, const Scalar& min) { return clamp(self, min, std::nullopt); }
Tensor clamp_max_impl(const Tensor& self, const Scalar& max) { return clamp(self, std::nullopt, max); }
Tensor clamp_min_tensor_impl(const Tensor& self, const Tensor& min) { return clamp(self, min, Tensor()); }
Tensor clamp_max_tensor_impl(const Tensor& self, const Tensor& max) { return clamp(self, Tensor(), max); }
Tensor clamp_min__impl(const Tensor& self, const Scalar& min) {
  Tensor s = self;
  return clamp_(s, min, std::nullopt);
}
Tensor clamp_max__impl(const Tensor& self, const Scalar& max) {
  Tensor s = self;
  return clamp_(s, std::nullopt, max);
}
Tensor clamp_min__tensor_impl(const Tensor& self, const Tensor& min) {
  Tensor s = self;
  return clamp_(s, min, Tensor());
}
Tensor clamp_max__tensor_impl(const Tensor& self, const Tensor& max) {
  Tensor s = self;
  return clamp_(s, Tensor(), max);
}

// PyTorch's isclose, step by step (native/TensorCompare.cpp's formula).
Tensor isclose_impl(const Tensor& self, const Tensor& other, double rtol, double atol, bool equal_nan) {
  EMBER_CHECK(self.dtype() == other.dtype(), scalar_type_name(self.dtype()), " did not match ",
              scalar_type_name(other.dtype()));
  EMBER_CHECK(rtol >= 0, "rtol must be greater than or equal to zero, but got ", rtol);
  EMBER_CHECK(atol >= 0, "atol must be greater than or equal to zero, but got ", atol);
  Tensor close = eq(self, other);
  if (equal_nan && is_floating(self.dtype())) close = logical_or(close, logical_and(isnan(self), isnan(other)));
  if (rtol == 0 && atol == 0) return close;
  // (integers differ without wrapping around: uint8's 3 - 5 is -2 here, as in PyTorch's result)
  auto widened = [](const Tensor& t) {
    if (t.dtype() == kBool) return t.to(default_dtype());
    return is_integral(t.dtype(), /*include_bool=*/false) ? t.to(kInt64) : t;
  };
  const Tensor a = widened(self), b = widened(other);
  const Tensor allowed = add(abs(mul(w(Scalar(rtol)), b)), w(Scalar(atol)));
  const Tensor actual = abs(a - b);
  return logical_or(close, logical_and(isfinite(actual), le(actual, allowed)));
}

}  // namespace

// ---- frontends ----
Scalar _local_scalar_dense(const Tensor& self) {
  return dispatch::call<local_scalar_dense_impl>(OpId::_local_scalar_dense, self);
}
Tensor fill(const Tensor& self, const Scalar& value) {
  return dispatch::call<fill_scalar_impl>(OpId::fill_Scalar, self, value);
}
Tensor fill(const Tensor& self, const Tensor& value) {
  return dispatch::call<fill_tensor_impl>(OpId::fill_Tensor, self, value);
}
Tensor& fill_(Tensor& self, const Tensor& value) {
  dispatch::call<fill__tensor_impl>(OpId::fill__Tensor, self, value);
  return self;
}

#define EMBER_MISC_UNARY(name, impl, impl_)                                           \
  Tensor name(const Tensor& self) { return dispatch::call<impl>(OpId::name, self); } \
  Tensor& name##_(Tensor& self) {                                                     \
    dispatch::call<impl_>(OpId::name##_, self);                                       \
    return self;                                                                      \
  }
EMBER_MISC_UNARY(sgn, sgn_impl, sgn__impl)
EMBER_MISC_UNARY(square, square_impl, square__impl)
EMBER_MISC_UNARY(deg2rad, deg2rad_impl, deg2rad__impl)
EMBER_MISC_UNARY(rad2deg, rad2deg_impl, rad2deg__impl)
#undef EMBER_MISC_UNARY

Tensor positive(const Tensor& self) { return dispatch::call<positive_impl>(OpId::positive, self); }
// Note [Eager conj] (ops/complex.cpp): complex tensors get a conjugated copy.
Tensor conj_impl(const Tensor& self) { return self.is_complex() ? conj_physical(self) : self; }
Tensor conj(const Tensor& self) { return dispatch::call<conj_impl>(OpId::conj, self); }
Tensor resolve_conj(const Tensor& self) { return dispatch::call<self_impl>(OpId::resolve_conj, self); }
Tensor resolve_neg(const Tensor& self) { return dispatch::call<self_impl>(OpId::resolve_neg, self); }
Tensor logit(const Tensor& self, std::optional<double> eps) {
  return dispatch::call<logit_impl>(OpId::logit, self, eps);
}
Tensor& logit_(Tensor& self, std::optional<double> eps) {
  dispatch::call<logit__impl>(OpId::logit_, self, eps);
  return self;
}
Tensor nan_to_num(const Tensor& self, std::optional<double> nan, std::optional<double> posinf,
                  std::optional<double> neginf) {
  return dispatch::call<nan_to_num_impl>(OpId::nan_to_num, self, nan, posinf, neginf);
}
Tensor& nan_to_num_(Tensor& self, std::optional<double> nan, std::optional<double> posinf,
                    std::optional<double> neginf) {
  dispatch::call<nan_to_num__impl>(OpId::nan_to_num_, self, nan, posinf, neginf);
  return self;
}
Tensor lerp(const Tensor& self, const Tensor& end, const Scalar& weight) {
  return dispatch::call<lerp_scalar_impl>(OpId::lerp_Scalar, self, end, weight);
}
Tensor lerp(const Tensor& self, const Tensor& end, const Tensor& weight) {
  return dispatch::call<lerp_tensor_impl>(OpId::lerp_Tensor, self, end, weight);
}
Tensor& lerp_(Tensor& self, const Tensor& end, const Scalar& weight) {
  dispatch::call<lerp__scalar_impl>(OpId::lerp__Scalar, self, end, weight);
  return self;
}
Tensor& lerp_(Tensor& self, const Tensor& end, const Tensor& weight) {
  dispatch::call<lerp__tensor_impl>(OpId::lerp__Tensor, self, end, weight);
  return self;
}
Tensor polygamma(int64_t n, const Tensor& self) {
  return dispatch::call<polygamma_impl>(OpId::polygamma, n, self);
}
Tensor& polygamma_(Tensor& self, int64_t n) {
  dispatch::call<polygamma__impl>(OpId::polygamma_, self, n);
  return self;
}
Tensor mvlgamma(const Tensor& self, int64_t p) {
  return dispatch::call<mvlgamma_impl>(OpId::mvlgamma, self, p);
}
Tensor& mvlgamma_(Tensor& self, int64_t p) {
  dispatch::call<mvlgamma__impl>(OpId::mvlgamma_, self, p);
  return self;
}
Tensor clamp_min(const Tensor& self, const Scalar& min) {
  return dispatch::call<clamp_min_impl>(OpId::clamp_min, self, min);
}
Tensor clamp_max(const Tensor& self, const Scalar& max) {
  return dispatch::call<clamp_max_impl>(OpId::clamp_max, self, max);
}
Tensor clamp_min(const Tensor& self, const Tensor& min) {
  return dispatch::call<clamp_min_tensor_impl>(OpId::clamp_min_Tensor, self, min);
}
Tensor clamp_max(const Tensor& self, const Tensor& max) {
  return dispatch::call<clamp_max_tensor_impl>(OpId::clamp_max_Tensor, self, max);
}
Tensor& clamp_min_(Tensor& self, const Scalar& min) {
  dispatch::call<clamp_min__impl>(OpId::clamp_min_, self, min);
  return self;
}
Tensor& clamp_max_(Tensor& self, const Scalar& max) {
  dispatch::call<clamp_max__impl>(OpId::clamp_max_, self, max);
  return self;
}
Tensor isclose(const Tensor& self, const Tensor& other, double rtol, double atol, bool equal_nan) {
  return dispatch::call<isclose_impl>(OpId::isclose, self, other, rtol, atol, equal_nan);
}

namespace {
Tensor scalar_tensor_op(const Scalar& s, ops::OptDtype dtype, ops::OptLayout layout,
                        ops::OptDevice device, ops::OptBool pin) {
  return dispatch::call<scalar_tensor_impl>(OpId::scalar_tensor, s, dtype, layout, device, pin);
}
Tensor& clamp_min__tensor_op(Tensor& self, const Tensor& min) {
  dispatch::call<clamp_min__tensor_impl>(OpId::clamp_min__Tensor, self, min);
  return self;
}
Tensor& clamp_max__tensor_op(Tensor& self, const Tensor& max) {
  dispatch::call<clamp_max__tensor_impl>(OpId::clamp_max__Tensor, self, max);
  return self;
}
}  // namespace

using U = Tensor (*)(const Tensor&);
using U_ = Tensor& (*)(Tensor&);
EMBER_REGISTER_OP(scalar_tensor, &scalar_tensor_op);
EMBER_REGISTER_OP(_local_scalar_dense, &_local_scalar_dense);
EMBER_REGISTER_OP(fill_Scalar, static_cast<Tensor (*)(const Tensor&, const Scalar&)>(&fill));
EMBER_REGISTER_OP(fill_Tensor, static_cast<Tensor (*)(const Tensor&, const Tensor&)>(&fill));
EMBER_REGISTER_OP(fill__Tensor, static_cast<Tensor& (*)(Tensor&, const Tensor&)>(&fill_));
EMBER_REGISTER_OP(sgn, static_cast<U>(&sgn));
EMBER_REGISTER_OP(sgn_, static_cast<U_>(&sgn_));
EMBER_REGISTER_OP(square, static_cast<U>(&square));
EMBER_REGISTER_OP(square_, static_cast<U_>(&square_));
EMBER_REGISTER_OP(deg2rad, static_cast<U>(&deg2rad));
EMBER_REGISTER_OP(deg2rad_, static_cast<U_>(&deg2rad_));
EMBER_REGISTER_OP(rad2deg, static_cast<U>(&rad2deg));
EMBER_REGISTER_OP(rad2deg_, static_cast<U_>(&rad2deg_));
EMBER_REGISTER_OP(positive, &positive);
EMBER_REGISTER_OP(conj, &conj);
EMBER_REGISTER_OP(resolve_conj, &resolve_conj);
EMBER_REGISTER_OP(resolve_neg, &resolve_neg);
EMBER_REGISTER_OP(logit, &logit);
EMBER_REGISTER_OP(logit_, &logit_);
EMBER_REGISTER_OP(nan_to_num, &nan_to_num);
EMBER_REGISTER_OP(nan_to_num_, &nan_to_num_);
EMBER_REGISTER_OP(lerp_Scalar, static_cast<Tensor (*)(const Tensor&, const Tensor&, const Scalar&)>(&lerp));
EMBER_REGISTER_OP(lerp_Tensor, static_cast<Tensor (*)(const Tensor&, const Tensor&, const Tensor&)>(&lerp));
EMBER_REGISTER_OP(lerp__Scalar, static_cast<Tensor& (*)(Tensor&, const Tensor&, const Scalar&)>(&lerp_));
EMBER_REGISTER_OP(lerp__Tensor, static_cast<Tensor& (*)(Tensor&, const Tensor&, const Tensor&)>(&lerp_));
EMBER_REGISTER_OP(polygamma, &polygamma);
EMBER_REGISTER_OP(polygamma_, &polygamma_);
EMBER_REGISTER_OP(mvlgamma, &mvlgamma);
EMBER_REGISTER_OP(mvlgamma_, &mvlgamma_);
EMBER_REGISTER_OP(clamp_min, static_cast<Tensor (*)(const Tensor&, const Scalar&)>(&clamp_min));
EMBER_REGISTER_OP(clamp_max, static_cast<Tensor (*)(const Tensor&, const Scalar&)>(&clamp_max));
EMBER_REGISTER_OP(clamp_min_Tensor, static_cast<Tensor (*)(const Tensor&, const Tensor&)>(&clamp_min));
EMBER_REGISTER_OP(clamp_max_Tensor, static_cast<Tensor (*)(const Tensor&, const Tensor&)>(&clamp_max));
EMBER_REGISTER_OP(clamp_min_, &clamp_min_);
EMBER_REGISTER_OP(clamp_max_, &clamp_max_);
EMBER_REGISTER_OP(clamp_min__Tensor, &clamp_min__tensor_op);
EMBER_REGISTER_OP(clamp_max__Tensor, &clamp_max__tensor_op);
EMBER_REGISTER_OP(isclose, &isclose);

}  // namespace ember
