// CPU kernels of the elementwise unary ops: one scalar functor per op, run by ElementwiseLoop.
// The input is broadcast to (and, except for logical_not, of the same dtype as) the output; the
// frontends in src/ops/unary.cpp promote integer inputs of floating functions beforehand.
// Dtypes an op does not support fail with PyTorch 1.13's CPU message, e.g.
// "bitwise_not_cpu" not implemented for 'Float'. float16 and bfloat16 compute in float, also
// where PyTorch 1.13's CPU kernels refuse float16 (exp, sigmoid, relu, ...; later versions
// support it).
#pragma once

#include "ember/tensor.h"

namespace ember::cpu {

enum class UnaryOp {
  Neg,
  Abs,
  Sign,
  Exp,
  Log,
  Log1p,
  Expm1,
  Sqrt,
  Rsqrt,
  Sin,
  Cos,
  Tanh,
  Sigmoid,
  Relu,
  LogicalNot,  // out is bool, or (in place) the input's dtype
  BitwiseNot,
};

void unary_kernel(UnaryOp op, const Tensor& out, const Tensor& in);

}  // namespace ember::cpu
