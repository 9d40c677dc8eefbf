#include "range_kernels.h"

#include <algorithm>
#include <cmath>

#include "convert.h"
#include "copy_kernel.h"
#include "dtype_lists.h"
#include "ember/parallel.h"

namespace ember::cpu {

namespace {

constexpr int64_t kGrain = 32768;

// start + step * i in Acc. PyTorch's CPU kernels are built with FMA contraction, so floating
// types compute it as one fused multiply-add (which the values in the tests depend on). Integer
// arithmetic wraps (as int64 does in PyTorch's kernel) instead of being undefined on overflow.
template <class Acc>
inline Acc arange_value(Acc start, Acc step, int64_t i) {
  if constexpr (std::is_same_v<Acc, int64_t>) {
    return static_cast<int64_t>(static_cast<uint64_t>(start) +
                                static_cast<uint64_t>(step) * static_cast<uint64_t>(i));
  } else {
    return std::fma(step, static_cast<Acc>(i), start);
  }
}

// linspace's two formulas, start + step * i and end - step * k. Float, double and the integer
// types (whose step is a double) use one fused multiply-add, as PyTorch's contracted kernel;
// Half and BFloat16 follow c10's operators instead, which round to the 16-bit type after every
// operation (and convert the int64 operand to it first).
template <class T>
struct LinspaceMath {
  using Step = std::conditional_t<std::is_integral_v<T>, double, T>;
  static Step step(T start, T end, int64_t steps) {
    return (static_cast<Step>(end) - static_cast<Step>(start)) / static_cast<Step>(steps - 1);
  }
  static T up(T start, Step step, int64_t i) {
    return static_cast<T>(std::fma(step, static_cast<Step>(i), static_cast<Step>(start)));
  }
  static T down(T end, Step step, int64_t k) {
    return static_cast<T>(std::fma(-step, static_cast<Step>(k), static_cast<Step>(end)));
  }
};
template <class T>
  requires is_reduced_float_v<T>
struct LinspaceMath<T> {
  using Step = T;
  static float f(T v) { return static_cast<float>(v); }
  static T of(int64_t n) { return T(static_cast<float>(n)); }
  static T step(T start, T end, int64_t steps) { return T(f(T(f(end) - f(start))) / f(of(steps - 1))); }
  static T up(T start, T step, int64_t i) { return T(f(start) + f(T(f(step) * f(of(i))))); }
  static T down(T end, T step, int64_t k) { return T(f(end) - f(T(f(step) * f(of(k))))); }
};

}  // namespace

void arange_kernel(const Tensor& out, const Scalar& start, const Scalar& step) {
  visit_dtype(out.dtype(), [&]<class T>() {
    if constexpr (!std::is_same_v<T, bool>) {
      using Acc = range_acc_t<T>;
      const Acc a = start.to<Acc>(), s = step.to<Acc>();
      T* data = out.data_ptr<T>();
      parallel_for(0, out.numel(), kGrain, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) data[i] = convert<T>(arange_value(a, s, i));
      });
    }
  }, "arange_cpu");
}

void arange_kernel_ref(const Tensor& out, const Scalar& start, const Scalar& step) {
  visit_dtype(out.dtype(), [&]<class T>() {
    if constexpr (!std::is_same_v<T, bool>) {
      using Acc = range_acc_t<T>;
      for (int64_t i = 0; i < out.numel(); ++i)
        out.data_ptr<T>()[i] = convert<T>(arange_value(start.to<Acc>(), step.to<Acc>(), i));
    }
  }, "arange_cpu");
}

void linspace_kernel(const Tensor& out, const Scalar& start_s, const Scalar& end_s) {
  const int64_t steps = out.numel();
  visit_dtype(out.dtype(), [&]<class T>() {
    if constexpr (!std::is_same_v<T, bool>) {
      using M = LinspaceMath<T>;
      const T start = start_s.to<T>(), end = end_s.to<T>();
      const auto step = M::step(start, end, steps);
      const int64_t halfway = steps / 2;
      T* data = out.data_ptr<T>();
      parallel_for(0, steps, kGrain, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) {
          data[i] = i < halfway ? M::up(start, step, i) : M::down(end, step, steps - i - 1);
        }
      });
    }
  }, "linspace_cpu");
}

void eye_kernel(const Tensor& out) {
  fill_kernel(out, 0);
  const int64_t n = out.size(0), m = out.size(1);
  if (is_complex(out.dtype())) {  // complex identities too, as torch.eye
    dispatch_types(kComplexTypes, out.dtype(), "eye", [&]<class C>() {
      C* data = static_cast<C*>(out.data_ptr());
      for (int64_t i = 0; i < std::min(n, m); ++i) data[i * (m + 1)] = C(1);
    });
    return;
  }
  visit_dtype(out.dtype(), [&]<class T>() {
    T* data = out.data_ptr<T>();
    for (int64_t i = 0; i < std::min(n, m); ++i) data[i * (m + 1)] = convert<T>(1);
  }, "eye");
}

}  // namespace ember::cpu
