// Kernels of the range factories: arange, linspace, eye. Each writes a fresh contiguous output;
// the op (src/ops/factory_ranges.cpp) has already validated and sized it.
#pragma once

#include <type_traits>

#include "ember/tensor.h"

namespace ember::cpu {

/// The type arange computes `start + step * i` in (PyTorch's CPU acc_type): double for float32
/// and float64, float for the 16-bit floats, int64 for every integer type.
template <class T>
using range_acc_t = std::conditional_t<
    std::is_floating_point_v<T>, double,
    std::conditional_t<is_reduced_float_v<T>, float, int64_t>>;

/// out[i] = start + step * i, computed in range_acc_t of out's dtype.
void arange_kernel(const Tensor& out, const Scalar& start, const Scalar& step);
void arange_kernel_ref(const Tensor& out, const Scalar& start, const Scalar& step);

/// PyTorch's linspace: step = (end - start) / (steps - 1); the first half counts up from start,
/// the second half down from end (so both ends are exact). Arithmetic is in the element type
/// (each 16-bit float operation rounds), or in double for integer types. out.numel() >= 2.
void linspace_kernel(const Tensor& out, const Scalar& start, const Scalar& end);

/// Identity pattern on a contiguous 2-D output: ones on the main diagonal, zeros elsewhere.
void eye_kernel(const Tensor& out);

}  // namespace ember::cpu
