#include "complex_kernels.h"

#include <cmath>
#include <complex>
#include <numbers>

#include "dtype_lists.h"
#include "loop.h"

namespace ember::cpu {

void complex_abs_kernel(const Tensor& out, const Tensor& in) {
  dispatch_types(kComplexTypes, in.dtype(), "abs_cpu", [&]<class C>() {
    using R = typename C::value_type;
    ElementwiseLoop({out, in}).run<R, C>([](C z) { return std::abs(z); });
  });
}

void angle_kernel(const Tensor& out, const Tensor& in) {
  if (in.is_complex()) {
    dispatch_types(kComplexTypes, in.dtype(), "angle_cpu", [&]<class C>() {
      using R = typename C::value_type;
      ElementwiseLoop({out, in}).run<R, C>([](C z) { return std::arg(z); });
    });
    return;
  }
  dispatch_types(kFloatTypes, in.dtype(), "angle_cpu", [&]<class T>() {
    using M = opmath_t<T>;
    ElementwiseLoop({out, in}).run<T, T>([](T x) {
      const M v = M(x);
      if (std::isnan(v)) return x;
      return T(v < M(0) ? std::numbers::pi_v<M> : M(0));
    });
  });
}

void conj_kernel(const Tensor& out, const Tensor& in) {
  dispatch_types(kComplexTypes, in.dtype(), "conj_cpu", [&]<class C>() {
    ElementwiseLoop({out, in}).run<C, C>([](C z) { return std::conj(z); });
  });
}

void make_complex_kernel(const Tensor& out, const Tensor& re, const Tensor& im) {
  dispatch_types(kComplexTypes, out.dtype(), "complex_cpu", [&]<class C>() {
    using R = typename C::value_type;
    ElementwiseLoop({out, re, im}).run<C, R, R>([](R a, R b) { return C(a, b); });
  });
}

}  // namespace ember::cpu
