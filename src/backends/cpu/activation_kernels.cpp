#include "activation_kernels.h"

#include <cmath>

#include "dtype_lists.h"
#include "loop.h"
#include "vec_math.h"

namespace ember::cpu {

namespace {

// std::max / std::min as comparisons: a NaN input propagates.
template <class M>
M clamp_0_6(M v) {
  M lo = v < M(0) ? M(0) : v;
  return M(6) < lo ? M(6) : lo;
}

const char* kernel_name(ActivationOp op) {
  switch (op) {
    case ActivationOp::Hardswish: return "hardswish_cpu";
    case ActivationOp::Hardsigmoid: return "hardsigmoid_cpu";
    case ActivationOp::Silu: return "silu_cpu";
    case ActivationOp::GeluErf:
    case ActivationOp::GeluTanh: return "GeluKernelImpl";
  }
  return "activation";
}

}  // namespace

void activation_kernel(ActivationOp op, const Tensor& out, const Tensor& in) {
  if (op == ActivationOp::Silu && out.dtype() == kFloat32) {
    return fast_float_kernel(FastFloatOp::Silu, out, in);
  }
  // float32 GELU: PyTorch's vectorized erf (Note [GELU's erf] in vec_math.h).
  if (op == ActivationOp::GeluErf && out.dtype() == kFloat32 && in.dtype() == kFloat32) {
    return fast_float_kernel(FastFloatOp::Gelu, out, in);
  }
  ElementwiseLoop loop({out, in});
  dispatch_types(kFloatTypes, out.dtype(), kernel_name(op), [&]<class T>() {
    using M = opmath_t<T>;
    switch (op) {
      case ActivationOp::Hardswish:
        return loop.run<T, T>([](T x) { return T(M(x) * clamp_0_6(M(x) + M(3)) / M(6)); });
      case ActivationOp::Hardsigmoid:
        return loop.run<T, T>([](T x) { return T(clamp_0_6(M(x) + M(3)) / M(6)); });
      case ActivationOp::Silu:
        return loop.run<T, T>([](T x) { return T(M(x) / (M(1) + std::exp(-M(x)))); });
      case ActivationOp::GeluErf:
        return loop.run<T, T>([](T x) {
          const M v = M(x);
          return T(v * M(0.5) * (M(1) + std::erf(v * M(M_SQRT1_2))));
        });
      case ActivationOp::GeluTanh:
        return loop.run<T, T>([](T x) {
          const M kBeta = M(M_SQRT2 * M_2_SQRTPI * 0.5), kKappa = M(0.044715);
          const M v = M(x);
          const M inner = kBeta * (v + kKappa * v * v * v);
          return T(M(0.5) * v * (M(1) + std::tanh(inner)));
        });
    }
  });
}

void gelu_backward_kernel(const Tensor& out, const Tensor& grad, const Tensor& self, bool tanh) {
  if (!tanh && out.dtype() == kFloat32 && grad.dtype() == kFloat32 && self.dtype() == kFloat32) {
    return gelu_backward_fast_kernel(out, grad, self);
  }
  ElementwiseLoop loop({out, grad, self});
  dispatch_types(kFloatTypes, out.dtype(), "GeluBackwardKernelImpl", [&]<class T>() {
    using M = opmath_t<T>;
    if (!tanh) {
      // Phi(x) + x phi(x)
      return loop.run<T, T, T>([](T dy, T x) {
        const M kBeta = M(M_2_SQRTPI * M_SQRT1_2 * 0.5), v = M(x);
        const M cdf = M(0.5) * (M(1) + std::erf(v * M(M_SQRT1_2)));
        const M pdf = kBeta * std::exp(v * v * M(-0.5));
        return T(M(dy) * (cdf + v * pdf));
      });
    }
    return loop.run<T, T, T>([](T dy, T x) {
      const M kBeta = M(M_SQRT2 * M_2_SQRTPI * 0.5), kKappa = M(0.044715), v = M(x);
      const M t = std::tanh(kBeta * (v + kKappa * v * v * v));
      const M left = M(0.5) * (M(1) + t);
      const M right = M(0.5) * v * (M(1) - t * t) * kBeta * (M(1) + M(3) * kKappa * v * v);
      return T(M(dy) * (left + right));
    });
  });
}

void threshold_backward_kernel(const Tensor& out, const Tensor& grad, const Tensor& self,
                               const Scalar& threshold) {
  ElementwiseLoop loop({out, grad, self});
  dispatch_types(kRealTypes, out.dtype(), "threshold_cpu", [&]<class T>() {
    using M = opmath_t<T>;
    const M th = is_floating(out.dtype()) ? static_cast<M>(threshold.to_double())
                                          : static_cast<M>(threshold.to_int());
    // A select, not a branch, so the loop vectorizes; a NaN self is not <= th and passes grad.
    return loop.run<T, T, T>([th](T g, T x) { return static_cast<M>(x) <= th ? T(0) : g; });
  });
}

void tanh_backward_kernel(const Tensor& out, const Tensor& grad, const Tensor& output) {
  ElementwiseLoop loop({out, grad, output});
  dispatch_types(kFloatTypes, out.dtype(), "tanh_backward_cpu", [&]<class T>() {
    using M = opmath_t<T>;
    return loop.run<T, T, T>([](T g, T y) { return T(M(g) * (M(1) - M(y) * M(y))); });
  });
}

void sigmoid_backward_kernel(const Tensor& out, const Tensor& grad, const Tensor& output) {
  ElementwiseLoop loop({out, grad, output});
  dispatch_types(kFloatTypes, out.dtype(), "sigmoid_backward_cpu", [&]<class T>() {
    using M = opmath_t<T>;
    return loop.run<T, T, T>([](T g, T y) { return T(M(g) * (M(1) - M(y)) * M(y)); });
  });
}

void hardtanh_backward_kernel(const Tensor& out, const Tensor& grad, const Tensor& self,
                              double min_val, double max_val) {
  ElementwiseLoop loop({out, grad, self});
  // PyTorch 1.13's kernel is hardshrink_backward's (hence the name in its dtype error).
  dispatch_types(TypeList<float, double>{}, out.dtype(), "hardshrink_backward_cpu", [&]<class T>() {
    using M = opmath_t<T>;
    const M lo = static_cast<M>(min_val), hi = static_cast<M>(max_val);
    // Strictly inside (lo, hi), as PyTorch's vectorized loop: the limits and NaN give 0.
    return loop.run<T, T, T>([lo, hi](T g, T x) {
      const M v = static_cast<M>(x);
      return v > lo && v < hi ? g : T(0);
    });
  });
}

}  // namespace ember::cpu
