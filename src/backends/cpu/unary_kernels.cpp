#include "unary_kernels.h"

#include <cmath>

#include "dtype_lists.h"
#include "loop.h"
#include "vec_math.h"

namespace ember::cpu {

namespace {

template <class T, class F>
void run_unary(const Tensor& out, const Tensor& in, F f) {
  ElementwiseLoop({out, in}).run<T, T>(f);
}

// A floating function f(M) -> M evaluated in opmath (float for float16 and bfloat16).
template <class F>
void float_unary(const char* kernel, const Tensor& out, const Tensor& in, F f) {
  dispatch_types(kFloatTypes, out.dtype(), kernel, [&]<class T>() {
    using M = opmath_t<T>;
    run_unary<T>(out, in, [f](T x) { return T(f(M(x))); });
  });
}

// The same over floating and complex types (exp, log, sqrt, sin, ... mean the same on complex
// numbers, with std::complex's branch cuts, which are PyTorch's).
template <class F>
void float_or_complex_unary(const char* kernel, const Tensor& out, const Tensor& in, F f) {
  dispatch_types(kFloatAndComplexTypes, out.dtype(), kernel, [&]<class T>() {
    using M = opmath_t<T>;
    run_unary<T>(out, in, [f](T x) { return T(f(M(x))); });
  });
}

template <class T>
T abs_value(T x) {
  if constexpr (std::is_integral_v<T>) {
    if constexpr (std::is_signed_v<T>) return x < 0 ? wrap_neg(x) : x;  // abs(INT_MIN) wraps
    else return x;
  } else {
    return T(std::abs(opmath_t<T>(x)));
  }
}

template <class T>
T sign_of(T x) {
  if constexpr (std::is_same_v<T, bool>) {
    return x;
  } else if constexpr (std::is_unsigned_v<T>) {
    return T(x != 0);
  } else {
    using M = opmath_t<T>;
    M v = M(x);
    return T(static_cast<M>((M(0) < v) - (v < M(0))));  // NaN gives 0, as PyTorch 1.13
  }
}

template <class T>
T relu_of(T x) {
  using M = opmath_t<T>;
  if constexpr (std::is_unsigned_v<T>) return x;
  else return M(x) < M(0) ? T(M(0)) : x;  // NaN and -0.0 pass through, as clamp_min(x, 0)
}

void logical_not_kernel(const Tensor& out, const Tensor& in) {
  dispatch_types(kAllTypes, in.dtype(), "logical_not_cpu", [&]<class T>() {
    using M = opmath_t<T>;
    if (out.dtype() == kBool) {
      ElementwiseLoop({out, in}).run<bool, T>([](T x) { return M(x) == M(0); });
    } else {
      EMBER_ASSERT(out.dtype() == in.dtype(), "logical_not: output dtype must be bool or the input's");
      run_unary<T>(out, in, [](T x) { return T(M(x) == M(0)); });
    }
  });
}

}  // namespace

void unary_kernel(UnaryOp op, const Tensor& out, const Tensor& in) {
  switch (op) {
    case UnaryOp::Neg:
      return dispatch_types(kAllTypesNoBoolAndComplex, out.dtype(), "neg_cpu", [&]<class T>() {
        run_unary<T>(out, in, [](T x) { return T(wrap_neg(opmath_t<T>(x))); });
      });
    case UnaryOp::Abs:
      return dispatch_types(kAllTypesNoBool, out.dtype(), "abs_cpu", [&]<class T>() {
        run_unary<T>(out, in, [](T x) { return abs_value(x); });
      });
    case UnaryOp::Sign:
      return dispatch_types(kAllTypes, out.dtype(), "sign_cpu", [&]<class T>() {
        run_unary<T>(out, in, [](T x) { return sign_of(x); });
      });
    case UnaryOp::Exp:
      if (out.dtype() == kFloat32) return fast_float_kernel(FastFloatOp::Exp, out, in);
      return float_or_complex_unary("exp_vml_cpu", out, in, [](auto x) { return std::exp(x); });
    case UnaryOp::Log:
      return float_or_complex_unary("log_vml_cpu", out, in, [](auto x) { return std::log(x); });
    case UnaryOp::Log1p:
      return float_unary("log1p_vml_cpu", out, in, [](auto x) { return std::log1p(x); });
    case UnaryOp::Expm1:
      return float_unary("expm1_vml_cpu", out, in, [](auto x) { return std::expm1(x); });
    case UnaryOp::Sqrt:
      return float_or_complex_unary("sqrt_vml_cpu", out, in, [](auto x) { return std::sqrt(x); });
    case UnaryOp::Rsqrt:
      return float_or_complex_unary("rsqrt_cpu", out, in,
                         [](auto x) { return decltype(x)(1) / std::sqrt(x); });
    case UnaryOp::Sin:
      return float_or_complex_unary("sin_vml_cpu", out, in, [](auto x) { return std::sin(x); });
    case UnaryOp::Cos:
      return float_or_complex_unary("cos_vml_cpu", out, in, [](auto x) { return std::cos(x); });
    case UnaryOp::Tanh:
      return float_or_complex_unary("tanh_vml_cpu", out, in, [](auto x) { return std::tanh(x); });
    case UnaryOp::Sigmoid:
      if (out.dtype() == kFloat32) return fast_float_kernel(FastFloatOp::Sigmoid, out, in);
      return float_or_complex_unary("sigmoid_cpu", out, in, [](auto x) {
        using M = decltype(x);
        return M(1) / (M(1) + std::exp(-x));
      });
    case UnaryOp::Relu:
      return dispatch_types(kRealTypes, out.dtype(), "clamp_min_cpu", [&]<class T>() {
        run_unary<T>(out, in, [](T x) { return relu_of(x); });
      });
    case UnaryOp::LogicalNot: return logical_not_kernel(out, in);
    case UnaryOp::BitwiseNot:
      return dispatch_types(kIntegralTypes, out.dtype(), "bitwise_not_cpu", [&]<class T>() {
        if constexpr (std::is_same_v<T, bool>) {
          run_unary<T>(out, in, [](bool x) { return !x; });
        } else {
          run_unary<T>(out, in, [](T x) { return T(~x); });
        }
      });
  }
}

}  // namespace ember::cpu
