// out = self + value * t1 * t2 (addcmul) and out = self + value * t1 / t2 (addcdiv), every
// operand already of out's dtype and broadcast to its shape. Computed in opmath_t (float for the
// 16-bit types) in PyTorch's order: self + (value * t1) * t2.
#pragma once

#include "ember/scalar.h"
#include "ember/tensor.h"

namespace ember::cpu {

void addcmul_kernel(const Tensor& out, const Tensor& self, const Tensor& t1, const Tensor& t2,
                    const Scalar& value);
void addcdiv_kernel(const Tensor& out, const Tensor& self, const Tensor& t1, const Tensor& t2,
                    const Scalar& value);

}  // namespace ember::cpu
