// Copy with dtype conversion between any two strided layouts (src already broadcast to dst's
// shape). copy_kernel_ref is the plain element-by-element reference used in tests.
#pragma once

#include "ember/tensor.h"

namespace ember::cpu {

void copy_kernel(const Tensor& dst, const Tensor& src);
void copy_kernel_ref(const Tensor& dst, const Tensor& src);
/// dst[...] = value (converted to dst's dtype).
void fill_kernel(const Tensor& dst, const Scalar& value);

}  // namespace ember::cpu
