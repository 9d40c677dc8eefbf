// CPU kernels of comparisons and logical ops. Both inputs arrive broadcast to the output's shape
// and converted to one compute dtype (the promoted one, as PyTorch compares); the output is bool.
#pragma once

#include "ember/tensor.h"

namespace ember::cpu {

enum class CompareOp { Eq, Ne, Lt, Le, Gt, Ge, LogicalAnd, LogicalOr, LogicalXor };

/// out (bool) = a <op> b.
void compare_kernel(CompareOp op, const Tensor& out, const Tensor& a, const Tensor& b);

/// out (bool) = torch.isclose(a, b, rtol, atol, equal_nan) for floating a and b of one dtype:
/// a == b, or both NaN when equal_nan, or |a - b| finite and <= atol + |rtol * b|, each step
/// rounded to the inputs' dtype as PyTorch's tensor arithmetic rounds it.
void isclose_kernel(const Tensor& out, const Tensor& a, const Tensor& b, double rtol, double atol,
                    bool equal_nan);

/// Whether every element of a bool tensor is true (true when it is empty).
bool all_true(const Tensor& t);

}  // namespace ember::cpu
