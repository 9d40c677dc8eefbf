// CPU kernels of clamp, where and masked_fill.
#pragma once

#include <optional>

#include "ember/tensor.h"

namespace ember::cpu {

/// out = min(max(in, min), max) with `in` of out's dtype; either limit may be absent (not both).
/// The limits are read as out's dtype (rounded, as PyTorch reads them); NaN inputs stay NaN.
/// Kernel names in errors follow PyTorch 1.13: clamp_scalar_cpu / clamp_min_cpu /
/// clamp_max_scalar_cpu (no bool). float16 is supported, computed in float as bfloat16 is
/// (PyTorch 1.13's CPU kernel refuses it, later versions accept it).
void clamp_kernel(const Tensor& out, const Tensor& in, const std::optional<Scalar>& min,
                  const std::optional<Scalar>& max);

/// out = condition ? a : b, with condition bool or uint8 and a, b of out's dtype (all broadcast
/// to out's shape).
void where_kernel(const Tensor& out, const Tensor& condition, const Tensor& a, const Tensor& b);
/// The branching form, for tests to compare where_kernel with.
void where_kernel_ref(const Tensor& out, const Tensor& condition, const Tensor& a, const Tensor& b);

/// self[mask] = value, with mask bool or uint8 broadcast to self. Only masked elements are
/// written, so an expanded self gets the value wherever any alias of an element is masked.
void masked_fill_kernel(const Tensor& self, const Tensor& mask, const Scalar& value);

}  // namespace ember::cpu
