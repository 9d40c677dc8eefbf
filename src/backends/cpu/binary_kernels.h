// CPU kernels of the elementwise binary ops. Operands arrive broadcast to the output's shape and
// converted to the compute dtype (except where noted); the op frontends in src/ops/binary.cpp
// do that. Each kernel is a scalar functor run by ElementwiseLoop.
#pragma once

#include "ember/tensor.h"

namespace ember::cpu {

/// out = a + alpha * b
void add_kernel(const Tensor& out, const Tensor& a, const Tensor& b, const Scalar& alpha);

}  // namespace ember::cpu
