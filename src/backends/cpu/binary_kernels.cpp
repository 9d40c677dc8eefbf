#include "binary_kernels.h"

#include "loop.h"

namespace ember::cpu {

void add_kernel(const Tensor& out, const Tensor& a, const Tensor& b, const Scalar& alpha) {
  ElementwiseLoop loop({out, a, b});
  visit_dtype(out.dtype(), [&]<class T>() {
    using M = opmath_t<T>;
    if constexpr (std::is_same_v<T, bool>) {
      const bool al = alpha.to_bool();
      loop.run<T, T, T>([al](bool x, bool y) { return x || (al && y); });
    } else {
      const M al = alpha.to<M>();
      if (al == M(1)) {
        loop.run<T, T, T>([](T x, T y) { return T(M(x) + M(y)); });
      } else {
        loop.run<T, T, T>([al](T x, T y) { return T(M(x) + al * M(y)); });
      }
    }
  }, "add");
}

}  // namespace ember::cpu
