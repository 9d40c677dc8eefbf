#include "addcmul_kernels.h"

#include "dtype_lists.h"
#include "loop.h"

namespace ember::cpu {

void addcmul_kernel(const Tensor& out, const Tensor& self, const Tensor& t1, const Tensor& t2,
                    const Scalar& value) {
  ElementwiseLoop loop({out, self, t1, t2});
  dispatch_types(kRealTypes, out.dtype(), "addcmul_cpu_out", [&]<class T>() {
    using M = opmath_t<T>;
    const M v = value.to<M>();
    loop.run<T, T, T, T>([v](T s, T a, T b) { return T(M(s) + v * M(a) * M(b)); });
  });
}

void addcdiv_kernel(const Tensor& out, const Tensor& self, const Tensor& t1, const Tensor& t2,
                    const Scalar& value) {
  ElementwiseLoop loop({out, self, t1, t2});
  dispatch_types(kFloatTypes, out.dtype(), "addcdiv_cpu_out", [&]<class T>() {
    using M = opmath_t<T>;
    const M v = value.to<M>();
    loop.run<T, T, T, T>([v](T s, T a, T b) { return T(M(s) + v * M(a) / M(b)); });
  });
}

}  // namespace ember::cpu
