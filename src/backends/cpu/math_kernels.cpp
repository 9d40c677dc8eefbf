#include "math_kernels.h"

#include "complex2_kernels.h"

#include <cmath>
#include <numeric>

#include "dtype_lists.h"
#include "loop.h"
#include "math_functions.h"

namespace ember::cpu {

namespace {

// Rounding half to even, as std::nearbyint in the default rounding mode (PyTorch's round).
template <class M>
M round_half_even(M x) {
  return std::nearbyint(x);
}

// f(x) for the floating ops, in the compute type M (float for 16-bit floats, or double for the
// special functions of math_functions.h, which take and return double).
template <class M>
M unary_value(MathUnaryOp op, M x) {
  switch (op) {
    case MathUnaryOp::Acos: return std::acos(x);
    case MathUnaryOp::Asin: return std::asin(x);
    case MathUnaryOp::Atan: return std::atan(x);
    case MathUnaryOp::Acosh: return std::acosh(x);
    case MathUnaryOp::Asinh: return std::asinh(x);
    case MathUnaryOp::Atanh: return std::atanh(x);
    case MathUnaryOp::Cosh: return std::cosh(x);
    case MathUnaryOp::Sinh: return std::sinh(x);
    case MathUnaryOp::Tan: return std::tan(x);
    case MathUnaryOp::Erf: return std::erf(x);
    case MathUnaryOp::Erfc: return std::erfc(x);
    case MathUnaryOp::Erfinv: return M(math::erfinv(double(x)));
    case MathUnaryOp::Log10: return std::log10(x);
    case MathUnaryOp::Log2: return std::log2(x);
    case MathUnaryOp::Exp2: return std::exp2(x);
    case MathUnaryOp::Reciprocal: return M(1) / x;
    case MathUnaryOp::Lgamma: return std::lgamma(x);
    case MathUnaryOp::Digamma: return M(math::digamma(double(x)));
    case MathUnaryOp::I0: return M(math::i0(double(x)));
    case MathUnaryOp::Sinc: {
      if (x == M(0)) return M(1);
      const M product = M(math::kPi) * x;  // in M, as PyTorch computes it
      return std::sin(product) / product;
    }
    case MathUnaryOp::Entr: return M(math::entr(double(x)));
    case MathUnaryOp::Erfcx: return M(math::erfcx(double(x)));
    case MathUnaryOp::I0e: return M(math::i0e(double(x)));
    case MathUnaryOp::I1: return M(math::i1(double(x)));
    case MathUnaryOp::I1e: return M(math::i1e(double(x)));
    case MathUnaryOp::Ndtr: return M(math::ndtr(double(x)));
    case MathUnaryOp::Ndtri: return M(math::ndtri(double(x)));
    case MathUnaryOp::LogNdtr: return M(math::log_ndtr(double(x)));
    case MathUnaryOp::Ceil: return std::ceil(x);
    case MathUnaryOp::Floor: return std::floor(x);
    case MathUnaryOp::Round: return round_half_even(x);
    case MathUnaryOp::Trunc: return std::trunc(x);
    case MathUnaryOp::Frac: return x - std::trunc(x);
  }
  return x;
}

template <class M>
M binary_value(MathBinaryOp op, M a, M b) {
  switch (op) {
    case MathBinaryOp::Atan2: return std::atan2(a, b);
    case MathBinaryOp::Hypot: return std::hypot(a, b);
    case MathBinaryOp::Copysign: return std::copysign(a, b);
    case MathBinaryOp::Nextafter: return std::nextafter(a, b);
    case MathBinaryOp::Logaddexp: {
      if (std::isinf(a) && a == b) return a;
      const M m = std::max(a, b);
      return m + std::log1p(std::exp(-std::abs(a - b)));
    }
    case MathBinaryOp::Logaddexp2: {
      if (std::isinf(a) && a == b) return a;
      const M m = std::max(a, b);
      return m + std::log1p(std::exp2(-std::abs(a - b))) / M(std::log(2.0));
    }
    case MathBinaryOp::Xlogy:
      if (std::isnan(b)) return b;
      if (a == M(0)) return M(0);
      return a * std::log(b);
    case MathBinaryOp::Xlog1py:
      if (std::isnan(b)) return b;
      if (a == M(0)) return M(0);
      return a * std::log1p(b);
    case MathBinaryOp::Zeta: return M(math::zeta(double(a), double(b)));
    case MathBinaryOp::Fmod: return std::fmod(a, b);
    case MathBinaryOp::Heaviside: return a == M(0) ? b : M(a > M(0));
    default: break;
  }
  return a;
}

// Integer forms of the binary ops that have them.
template <class T>
T integer_binary_value(MathBinaryOp op, T a, T b) {
  if constexpr (std::is_same_v<T, bool>) {
    if (op == MathBinaryOp::Heaviside) return a == 0 ? b : a;
    return a;
  } else {
    constexpr int bits = static_cast<int>(sizeof(T) * 8);
    using U = std::make_unsigned_t<T>;
    switch (op) {
      case MathBinaryOp::Fmod: {
        if constexpr (std::is_signed_v<T>) {
          if (b == -1) return T(0);  // INT_MIN % -1 would trap
        }
        return T(a % b);
      }
      case MathBinaryOp::Heaviside: return a == 0 ? b : T(a > 0);
      case MathBinaryOp::Gcd: {
        // std::gcd of the absolute values; INT_MIN's wraps as PyTorch's does
        U x = a < 0 ? U(U(0) - U(a)) : U(a), y = b < 0 ? U(U(0) - U(b)) : U(b);
        return T(std::gcd(x, y));
      }
      case MathBinaryOp::Lcm: {
        U x = a < 0 ? U(U(0) - U(a)) : U(a), y = b < 0 ? U(U(0) - U(b)) : U(b);
        const U g = std::gcd(x, y);
        return g == 0 ? T(0) : T(U(x / g) * y);
      }
      case MathBinaryOp::LeftShift:
        if (b < 0 || b >= bits) return T(0);
        return T(U(U(a) << b));
      case MathBinaryOp::RightShift:
        if (b < 0 || b >= bits) {
          if constexpr (std::is_signed_v<T>) return T(a >> (bits - 1));
          else return T(0);
        }
        return T(a >> b);
      default: break;
    }
    return a;
  }
}

bool is_special(MathUnaryOp op) {
  switch (op) {
    case MathUnaryOp::Erfinv: case MathUnaryOp::Digamma: case MathUnaryOp::I0:
    case MathUnaryOp::Entr: case MathUnaryOp::Erfcx: case MathUnaryOp::I0e: case MathUnaryOp::I1:
    case MathUnaryOp::I1e: case MathUnaryOp::Ndtr: case MathUnaryOp::Ndtri:
    case MathUnaryOp::LogNdtr: return true;
    default: return false;
  }
}

// Runs a line-wise scan: fn(const T* src, int64_t src_step, T* dst, int64_t len, ...) per line
// along `dim`, lines in parallel. out is contiguous with in's shape.
template <class T, class F>
void for_each_line(const Tensor& out, const Tensor& in, int64_t dim, F fn) {
  if (in.numel() == 0) return;
  const int64_t nd = std::max<int64_t>(in.dim(), 1);
  DimVector sizes = in.dim() == 0 ? DimVector{1} : in.sizes().vec();
  DimVector istr = in.dim() == 0 ? DimVector{1} : in.strides().vec();
  const int64_t len = sizes[dim];
  int64_t inner = 1;
  for (int64_t d = dim + 1; d < nd; ++d) inner *= sizes[d];
  const int64_t lines = in.numel() / len;
  const T* src = in.data_ptr<T>();
  T* dst = out.data_ptr<T>();
  parallel_for(0, lines, std::max<int64_t>(1, 4096 / len), [&](int64_t begin, int64_t end) {
    for (int64_t l = begin; l < end; ++l) {
      // line l: outer index l / inner, inner index l % inner; its input offset from the strides
      int64_t rest = l, ioff = 0;
      const int64_t o = l / inner, i = l % inner;
      rest = i;
      for (int64_t d = nd - 1; d > dim; --d) {
        ioff += (rest % sizes[d]) * istr[d];
        rest /= sizes[d];
      }
      rest = o;
      for (int64_t d = dim - 1; d >= 0; --d) {
        ioff += (rest % sizes[d]) * istr[d];
        rest /= sizes[d];
      }
      fn(src + ioff, istr[dim], dst + o * len * inner + i, inner, len, l);
    }
  });
}

}  // namespace

const char* math_unary_kernel_name(MathUnaryOp op) {
  switch (op) {
    case MathUnaryOp::Acos: return "acos_vml_cpu";
    case MathUnaryOp::Asin: return "asin_vml_cpu";
    case MathUnaryOp::Atan: return "atan_vml_cpu";
    case MathUnaryOp::Acosh: return "acosh_cpu";
    case MathUnaryOp::Asinh: return "asinh_cpu";
    case MathUnaryOp::Atanh: return "atanh_cpu";
    case MathUnaryOp::Cosh: return "cosh_vml_cpu";
    case MathUnaryOp::Sinh: return "sinh_vml_cpu";
    case MathUnaryOp::Tan: return "tan_vml_cpu";
    case MathUnaryOp::Erf: return "erf_vml_cpu";
    case MathUnaryOp::Erfc: return "erfc_vml_cpu";
    case MathUnaryOp::Erfinv: return "erfinv_cpu";
    case MathUnaryOp::Log10: return "log10_vml_cpu";
    case MathUnaryOp::Log2: return "log2_vml_cpu";
    case MathUnaryOp::Exp2: return "exp2_vml_cpu";
    case MathUnaryOp::Reciprocal: return "reciprocal_cpu";
    case MathUnaryOp::Lgamma: return "lgamma_vml_cpu";
    case MathUnaryOp::Digamma: return "digamma";
    case MathUnaryOp::I0: return "i0_cpu";
    case MathUnaryOp::Sinc: return "sinc_cpu";
    case MathUnaryOp::Entr: return "entr_cpu";
    case MathUnaryOp::Erfcx: return "erfcx_cpu";
    case MathUnaryOp::I0e: return "i0e_cpu";
    case MathUnaryOp::I1: return "i1_cpu";
    case MathUnaryOp::I1e: return "i1e_cpu";
    case MathUnaryOp::Ndtr: return "ndtr_cpu";
    case MathUnaryOp::Ndtri: return "ndtri_cpu";
    case MathUnaryOp::LogNdtr: return "log_ndtr_cpu";
    case MathUnaryOp::Ceil: return "ceil_vml_cpu";
    case MathUnaryOp::Floor: return "floor_vml_cpu";
    case MathUnaryOp::Round: return "round_vml_cpu";
    case MathUnaryOp::Trunc: return "trunc_vml_cpu";
    case MathUnaryOp::Frac: return "frac_cpu";
  }
  return "unary_cpu";
}

double math_unary_ref(MathUnaryOp op, double x) { return unary_value<double>(op, x); }
double math_binary_ref(MathBinaryOp op, double a, double b) {
  return binary_value<double>(op, a, b);
}

void math_unary_kernel(MathUnaryOp op, const Tensor& out, const Tensor& in) {
  dispatch_types(kFloatTypes, out.dtype(), math_unary_kernel_name(op), [&]<class T>() {
    using M = opmath_t<T>;
    if (is_special(op)) {  // double in, one rounding out
      ElementwiseLoop({out, in}).run<T, T>([op](T x) { return T(unary_value<double>(op, double(M(x)))); });
    } else {
      ElementwiseLoop({out, in}).run<T, T>([op](T x) { return T(unary_value<M>(op, M(x))); });
    }
  });
}

void round_decimals_kernel(const Tensor& out, const Tensor& in, int64_t decimals) {
  dispatch_types(kFloatTypes, out.dtype(), "round_cpu", [&]<class T>() {
    using M = opmath_t<T>;
    // PyTorch: ten_pow = 10^|decimals| in T; negative decimals divide first, then multiply. For
    // bfloat16 the product (quotient) is rounded to bfloat16 before nearbyint, as PyTorch's
    // bfloat16 operators return bfloat16 (1.8516 * 10 is 18.5, which rounds to 18). (PyTorch
    // 1.13 has no float16 kernel: ember computes float16 in float, rounding once.)
    constexpr bool kRoundStep = std::is_same_v<T, BFloat16>;
    const bool neg = decimals < 0;
    const M ten_pow = M(T(std::pow(M(10), M(neg ? -decimals : decimals))));
    auto step = [](M v) { return kRoundStep ? M(T(v)) : v; };
    ElementwiseLoop({out, in}).run<T, T>([=](T x) {
      const M v = M(x);
      return neg ? T(std::nearbyint(step(v / ten_pow)) * ten_pow)
                 : T(std::nearbyint(step(v * ten_pow)) / ten_pow);
    });
  });
}

void polygamma_kernel(const Tensor& out, const Tensor& in, int64_t n) {
  dispatch_types(kFloatTypes, out.dtype(), "polygamma", [&]<class T>() {
    using M = opmath_t<T>;
    ElementwiseLoop({out, in}).run<T, T>([n](T x) { return T(math::polygamma(n, double(M(x)))); });
  });
}

void predicate_kernel(PredicateOp op, const Tensor& out, const Tensor& in) {
  dispatch_types(kAllTypes, in.dtype(), "isnan", [&]<class T>() {
    ElementwiseLoop loop({out, in});
    if constexpr (std::is_integral_v<T>) {
      // integers are finite, never NaN or infinite; signbit is x < 0
      loop.run<bool, T>([op](T x) {
        if (op == PredicateOp::IsFinite) return true;
        if (op == PredicateOp::SignBit) {
          if constexpr (std::is_signed_v<T> && !std::is_same_v<T, bool>) return x < 0;
          return false;
        }
        return false;
      });
    } else {
      using M = opmath_t<T>;
      loop.run<bool, T>([op](T v) {
        const M x = M(v);
        switch (op) {
          case PredicateOp::IsNan: return std::isnan(x);
          case PredicateOp::IsInf: return std::isinf(x);
          case PredicateOp::IsFinite: return std::isfinite(x);
          case PredicateOp::IsPosInf: return std::isinf(x) && x > 0;
          case PredicateOp::IsNegInf: return std::isinf(x) && x < 0;
          case PredicateOp::SignBit: return static_cast<bool>(std::signbit(x));
        }
        return false;
      });
    }
  });
}

const char* math_binary_kernel_name(MathBinaryOp op) {
  switch (op) {
    case MathBinaryOp::Atan2: return "atan2_cpu";
    case MathBinaryOp::Hypot: return "hypot_cpu";
    case MathBinaryOp::Copysign: return "copysign_cpu";
    case MathBinaryOp::Nextafter: return "nextafter_cpu";
    case MathBinaryOp::Logaddexp: return "logaddexp_cpu";
    case MathBinaryOp::Logaddexp2: return "logaddexp2_cpu";
    case MathBinaryOp::Xlogy: return "xlogy_cpu";
    case MathBinaryOp::Xlog1py: return "xlog1py_cpu";
    case MathBinaryOp::Zeta: return "zeta_cpu";
    case MathBinaryOp::Fmod: return "fmod_cpu";
    case MathBinaryOp::Heaviside: return "heaviside_cpu";
    case MathBinaryOp::Gcd: return "gcd_cpu";
    case MathBinaryOp::Lcm: return "lcm_cpu";
    case MathBinaryOp::LeftShift: return "lshift_cpu";
    case MathBinaryOp::RightShift: return "rshift_cpu";
  }
  return "binary_cpu";
}

void math_binary_kernel(MathBinaryOp op, const Tensor& out, const Tensor& a, const Tensor& b) {
  const char* name = math_binary_kernel_name(op);
  switch (op) {
    case MathBinaryOp::Gcd:
    case MathBinaryOp::Lcm:
    case MathBinaryOp::LeftShift:
    case MathBinaryOp::RightShift:
      return dispatch_types(TypeList<int8_t, uint8_t, int16_t, int32_t, int64_t>{}, out.dtype(), name, [&]<class T>() {
        ElementwiseLoop({out, a, b}).run<T, T, T>([op](T x, T y) { return integer_binary_value(op, x, y); });
      });
    case MathBinaryOp::Fmod:
      return dispatch_types(kRealTypes, out.dtype(), name, [&]<class T>() {
        if constexpr (std::is_integral_v<T>) {
          ElementwiseLoop({out, a, b}).run<T, T, T>([op](T x, T y) { return integer_binary_value(op, x, y); });
        } else {
          using M = opmath_t<T>;
          ElementwiseLoop({out, a, b}).run<T, T, T>([op](T x, T y) { return T(binary_value<M>(op, M(x), M(y))); });
        }
      });
    case MathBinaryOp::Heaviside:
      return dispatch_types(kAllTypes, out.dtype(), name, [&]<class T>() {
        if constexpr (std::is_integral_v<T>) {
          ElementwiseLoop({out, a, b}).run<T, T, T>([op](T x, T y) { return integer_binary_value(op, x, y); });
        } else {
          using M = opmath_t<T>;
          ElementwiseLoop({out, a, b}).run<T, T, T>([op](T x, T y) { return T(binary_value<M>(op, M(x), M(y))); });
        }
      });
    case MathBinaryOp::Zeta:
      return dispatch_types(kFloatTypes, out.dtype(), name, [&]<class T>() {
        using M = opmath_t<T>;
        ElementwiseLoop({out, a, b}).run<T, T, T>([](T x, T y) { return T(math::zeta(double(M(x)), double(M(y)))); });
      });
    case MathBinaryOp::Nextafter:
      // in the storage type itself: the next representable value of T, not of float
      return dispatch_types(TypeList<float, double>{}, out.dtype(), name, [&]<class T>() {
        ElementwiseLoop({out, a, b}).run<T, T, T>([](T x, T y) { return std::nextafter(x, y); });
      });
    default:
      return dispatch_types(kFloatTypes, out.dtype(), name, [&]<class T>() {
        using M = opmath_t<T>;
        ElementwiseLoop({out, a, b}).run<T, T, T>([op](T x, T y) { return T(binary_value<M>(op, M(x), M(y))); });
      });
  }
}

void cumprod_kernel(const Tensor& out, const Tensor& in, int64_t dim) {
  if (is_complex(in.dtype())) return cumprod_complex_kernel(out, in, dim);
  dispatch_types(kAllTypes, in.dtype(), "cumprod_out_cpu", [&]<class T>() {
    using M = std::conditional_t<std::is_integral_v<T>, T, opmath_t<T>>;
    for_each_line<T>(out, in, dim, [](const T* s, int64_t ss, T* d, int64_t ds, int64_t len, int64_t) {
      if constexpr (std::is_same_v<T, bool>) {
        bool acc = true;
        for (int64_t k = 0; k < len; ++k) d[k * ds] = acc = acc && s[k * ss];
      } else {
        M acc = M(1);
        for (int64_t k = 0; k < len; ++k) {
          acc = wrap_mul(acc, M(s[k * ss]));
          d[k * ds] = T(acc);
        }
      }
    });
  });
}

void logcumsumexp_kernel(const Tensor& out, const Tensor& in, int64_t dim) {
  dispatch_types(kFloatTypes, in.dtype(), "logcumsumexp_out_cpu", [&]<class T>() {
    using M = opmath_t<T>;
    for_each_line<T>(out, in, dim, [](const T* s, int64_t ss, T* d, int64_t ds, int64_t len, int64_t) {
      M acc = -std::numeric_limits<M>::infinity();
      for (int64_t k = 0; k < len; ++k) {
        const M x = M(s[k * ss]);
        // log(e^acc + e^x), stable, with PyTorch's handling of infinities and NaN
        const M lo = std::min(acc, x), hi = std::max(acc, x);
        if (std::isnan(x) || std::isnan(acc)) acc = std::numeric_limits<M>::quiet_NaN();
        else if (lo == hi && std::isinf(hi)) acc = hi;
        else acc = hi + std::log1p(std::exp(lo - hi));
        d[k * ds] = T(acc);
      }
    });
  });
}

void cummax_cummin_kernel(const Tensor& values, const Tensor& indices, const Tensor& in,
                          int64_t dim, bool is_max) {
  dispatch_types(kAllTypes, in.dtype(), is_max ? "cummax_cpu" : "cummin_cpu", [&]<class T>() {
    using M = opmath_t<T>;
    int64_t* idx = indices.data_ptr<int64_t>();
    T* base = values.data_ptr<T>();
    for_each_line<T>(values, in, dim, [&](const T* s, int64_t ss, T* d, int64_t ds, int64_t len, int64_t) {
      int64_t* id = idx + (d - base);
      M best = M(s[0]);
      int64_t at = 0;
      for (int64_t k = 0; k < len; ++k) {
        const M x = M(s[k * ss]);
        bool take;
        if constexpr (std::is_floating_point_v<M>) {
          take = std::isnan(x) || (!std::isnan(best) && (is_max ? x >= best : x <= best));
        } else {
          take = is_max ? x >= best : x <= best;
        }
        if (take) {
          best = x;
          at = k;
        }
        d[k * ds] = T(best);
        id[k * ds] = at;
      }
    });
  });
}

}  // namespace ember::cpu
