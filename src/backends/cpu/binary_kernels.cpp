#include "binary_kernels.h"

#include <atomic>
#include <cmath>
#include <limits>

#include "dtype_lists.h"
#include "loop.h"

namespace ember::cpu {

namespace {

template <class T, class F>
void run_binary(const Tensor& out, const Tensor& a, const Tensor& b, F f) {
  ElementwiseLoop({out, a, b}).run<T, T, T>(f);
}

template <class T>
constexpr bool is_int_v = std::is_integral_v<T> && !std::is_same_v<T, bool>;

// ---- scalar functors (PyTorch's formulas from ATen/native/cpu/BinaryOpsKernel.cpp) ----

template <class T>
T div_trunc(T a, T b) {
  if constexpr (is_int_v<T>) {
    if constexpr (std::is_signed_v<T>) {
      if (b == T(-1)) return wrap_neg(a);  // INT_MIN / -1 traps on x86; it wraps in PyTorch
    }
    return static_cast<T>(a / b);
  } else {
    using M = opmath_t<T>;
    return T(std::trunc(M(a) / M(b)));
  }
}

template <class M>
M div_floor_floating(M a, M b) {
  if (b == 0) return a / b;  // IEEE: ±inf or nan
  M mod = std::fmod(a, b);
  M div = (a - mod) / b;
  if (mod != 0 && (b < 0) != (mod < 0)) div -= M(1);
  if (div == 0) return std::copysign(M(0), a / b);
  M floordiv = std::floor(div);
  if (div - floordiv > M(0.5)) floordiv += M(1);
  return floordiv;
}

template <class T>
T div_floor(T a, T b) {
  if constexpr (is_int_v<T>) {
    if constexpr (std::is_signed_v<T>) {
      if (b == T(-1)) return wrap_neg(a);
      if ((a < 0) != (b < 0)) {
        T q = static_cast<T>(a / b);
        return static_cast<T>(a % b != 0 ? q - 1 : q);
      }
    }
    return static_cast<T>(a / b);
  } else {
    using M = opmath_t<T>;
    return T(div_floor_floating<M>(M(a), M(b)));
  }
}

template <class T>
T remainder(T a, T b) {
  if constexpr (is_int_v<T>) {
    if constexpr (std::is_signed_v<T>) {
      if (b == T(-1)) return T(0);  // INT_MIN % -1 traps on x86
    }
    T r = static_cast<T>(a % b);
    if constexpr (std::is_signed_v<T>) {
      if (r != 0 && ((r < 0) != (b < 0))) r = static_cast<T>(r + b);
    }
    return r;
  } else {
    using M = opmath_t<T>;
    M mod = std::fmod(M(a), M(b));
    if (mod != 0 && ((M(b) < 0) != (mod < 0))) mod += M(b);
    return T(mod);
  }
}

// Integer power by squaring; products wrap as PyTorch's do.
template <class T>
T powi(T base, T exp) {
  if constexpr (std::is_signed_v<T>) {
    if (exp < 0) {
      if (base == T(1)) return T(1);
      if (base == T(-1)) return exp % 2 != 0 ? T(-1) : T(1);
      return T(0);
    }
  }
  T result = 1;
  while (exp) {
    if (exp & 1) result = wrap_mul(result, base);
    exp = static_cast<T>(exp / 2);
    base = wrap_mul(base, base);
  }
  return result;
}

template <class T>
T maximum(T a, T b) {
  if constexpr (std::is_same_v<T, bool>) {
    return a || b;
  } else if constexpr (is_int_v<T>) {
    return a < b ? b : a;
  } else {
    using M = opmath_t<T>;
    M x = M(a), y = M(b);
    if (x != x || y != y) return std::numeric_limits<T>::quiet_NaN();
    return x < y ? b : a;
  }
}

template <class T>
T minimum(T a, T b) {
  if constexpr (std::is_same_v<T, bool>) {
    return a && b;
  } else if constexpr (is_int_v<T>) {
    return b < a ? b : a;
  } else {
    using M = opmath_t<T>;
    M x = M(a), y = M(b);
    if (x != x || y != y) return std::numeric_limits<T>::quiet_NaN();
    return y < x ? b : a;
  }
}

}  // namespace

void add_kernel(const Tensor& out, const Tensor& a, const Tensor& b, const Scalar& alpha) {
  visit_dtype_and_complex(out.dtype(), [&]<class T>() {
    using M = opmath_t<T>;
    if constexpr (std::is_same_v<T, bool>) {
      const bool al = alpha.to_bool();
      run_binary<T>(out, a, b, [al](bool x, bool y) { return x || (al && y); });
    } else {
      // As PyTorch: alpha is rounded to the tensor's own type first (it matters for 16-bit floats).
      const M al = M(alpha.to<T>());
      if (al == M(1)) {
        run_binary<T>(out, a, b, [](T x, T y) { return T(wrap_add(M(x), M(y))); });
      } else {
        run_binary<T>(out, a, b, [al](T x, T y) { return T(wrap_add(M(x), wrap_mul(al, M(y)))); });
      }
    }
  }, "add");
}

void mul_kernel(const Tensor& out, const Tensor& a, const Tensor& b) {
  dispatch_types(kAllTypesAndComplex, out.dtype(), "mul_cpu", [&]<class T>() {
    using M = opmath_t<T>;
    if constexpr (std::is_same_v<T, bool>) {
      run_binary<T>(out, a, b, [](bool x, bool y) { return x && y; });
    } else {
      run_binary<T>(out, a, b, [](T x, T y) { return T(wrap_mul(M(x), M(y))); });
    }
  });
}

void div_true_kernel(const Tensor& out, const Tensor& a, const Tensor& b) {
  dispatch_types(kFloatAndComplexTypes, out.dtype(), "div_true_cpu", [&]<class T>() {
    using M = opmath_t<T>;
    run_binary<T>(out, a, b, [](T x, T y) { return T(M(x) / M(y)); });
  });
}

void div_trunc_kernel(const Tensor& out, const Tensor& a, const Tensor& b) {
  dispatch_types(kAllTypesNoBool, out.dtype(), "div_trunc_cpu", [&]<class T>() {
    run_binary<T>(out, a, b, [](T x, T y) { return div_trunc(x, y); });
  });
}

void div_floor_kernel(const Tensor& out, const Tensor& a, const Tensor& b) {
  dispatch_types(kAllTypesNoBool, out.dtype(), "div_floor_cpu", [&]<class T>() {
    run_binary<T>(out, a, b, [](T x, T y) { return div_floor(x, y); });
  });
}

void remainder_kernel(const Tensor& out, const Tensor& a, const Tensor& b) {
  dispatch_types(kAllTypesNoBool, out.dtype(), "remainder_cpu", [&]<class T>() {
    run_binary<T>(out, a, b, [](T x, T y) { return remainder(x, y); });
  });
}

void pow_kernel(const Tensor& out, const Tensor& a, const Tensor& b) {
  if (out.is_complex()) {
    dispatch_types(kComplexTypes, out.dtype(), "pow", [&]<class T>() {
      run_binary<T>(out, a, b, [](T x, T y) { return std::pow(x, y); });
    });
    return;
  }
  dispatch_types(kAllTypesNoBool, out.dtype(), "pow", [&]<class T>() {
    if constexpr (is_int_v<T>) {
      run_binary<T>(out, a, b, [](T x, T y) { return powi(x, y); });
    } else {
      using M = opmath_t<T>;
      run_binary<T>(out, a, b, [](T x, T y) { return T(std::pow(M(x), M(y))); });
    }
  });
}

void pow_scalar_kernel(const Tensor& out, const Tensor& a, const Scalar& exponent) {
  ElementwiseLoop loop({out, a});
  if (out.is_complex()) {
    dispatch_types(kComplexTypes, out.dtype(), "pow", [&]<class T>() {
      const T e = exponent.to<T>();
      if (e == T(2)) return loop.run<T, T>([](T x) { return x * x; });
      loop.run<T, T>([e](T x) { return std::pow(x, e); });
    });
    return;
  }
  dispatch_types(kAllTypesNoBool, out.dtype(), "pow", [&]<class T>() {
    using M = opmath_t<T>;
    if constexpr (is_int_v<T>) {
      const T e = exponent.to<T>();
      loop.run<T, T>([e](T x) { return powi(x, e); });
    } else if constexpr (std::is_same_v<T, Half>) {
      const M e = M(Half(static_cast<float>(exponent.to_double())));
      loop.run<T, T>([e](T x) { return T(std::pow(M(x), e)); });
    } else {
      const double ed = exponent.to_double();
      // Square roots and reciprocals first, as PyTorch's kernel does (exact for these).
      if (ed == 0.5) return loop.run<T, T>([](T x) { return T(std::sqrt(M(x))); });
      if (ed == -0.5) return loop.run<T, T>([](T x) { return T(M(1) / std::sqrt(M(x))); });
      if (ed == -1.0) return loop.run<T, T>([](T x) { return T(M(1) / M(x)); });
      // bfloat16 rounds the exponent to bfloat16; float32 and float64 raise in double.
      const double e = std::is_same_v<T, BFloat16> ? double(float(BFloat16(float(ed)))) : ed;
      if (e == 2.0) return loop.run<T, T>([](T x) { return T(M(x) * M(x)); });
      if (e == 3.0) return loop.run<T, T>([](T x) { return T(M(T(M(x) * M(x))) * M(x)); });
      if (e == -2.0) return loop.run<T, T>([](T x) { return T(M(1) / M(T(M(x) * M(x)))); });
      if constexpr (std::is_same_v<T, BFloat16>) {
        const M ef = M(e);
        loop.run<T, T>([ef](T x) { return T(std::pow(M(x), ef)); });
      } else {
        loop.run<T, T>([e](T x) { return T(std::pow(double(x), e)); });
      }
    }
  });
}

void maximum_kernel(const Tensor& out, const Tensor& a, const Tensor& b) {
  dispatch_types(kAllTypes, out.dtype(), "maximum_cpu", [&]<class T>() {
    run_binary<T>(out, a, b, [](T x, T y) { return maximum(x, y); });
  });
}

void minimum_kernel(const Tensor& out, const Tensor& a, const Tensor& b) {
  dispatch_types(kAllTypes, out.dtype(), "minimum_cpu", [&]<class T>() {
    run_binary<T>(out, a, b, [](T x, T y) { return minimum(x, y); });
  });
}

void bitwise_kernel(BitwiseOp op, const Tensor& out, const Tensor& a, const Tensor& b) {
  const char* name = op == BitwiseOp::And  ? "bitwise_and_cpu"
                     : op == BitwiseOp::Or ? "bitwise_or_cpu"
                                           : "bitwise_xor_cpu";
  dispatch_types(kIntegralTypes, out.dtype(), name, [&]<class T>() {
    switch (op) {
      case BitwiseOp::And: return run_binary<T>(out, a, b, [](T x, T y) { return T(x & y); });
      case BitwiseOp::Or: return run_binary<T>(out, a, b, [](T x, T y) { return T(x | y); });
      case BitwiseOp::Xor: return run_binary<T>(out, a, b, [](T x, T y) { return T(x ^ y); });
    }
  });
}

bool has_zero(const Tensor& t) {
  std::atomic<bool> found{false};
  ElementwiseLoop loop({t});
  dispatch_types(kIntegralTypes, t.dtype(), "has_zero", [&]<class T>() {
    loop.for_each_run([&](char** ptrs, const int64_t* strides, int64_t n) {
      for (int64_t i = 0; i < n; ++i) {
        if (*reinterpret_cast<const T*>(ptrs[0] + i * strides[0]) == T(0)) {
          found.store(true, std::memory_order_relaxed);
          return;
        }
      }
    });
  });
  return found.load();
}

}  // namespace ember::cpu
